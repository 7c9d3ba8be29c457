// The launch model of vertical fusion on the GPU: thread and launch coarsening of a fused kernel.
#pragma once

#include <functional>
#include <string>

namespace spmdc {
struct TargetInfo;
} // namespace spmdc

namespace spmdc::ir {

class Function;
class Op;

/// How a fused kernel's loops merged (docs/fusion.md, "The launch model").
enum class FusedShape {
  Elements, ///< a merged `foreach`: a chunk of gang-width items per gang per step
  Rows,     ///< a merged uniform loop: a row (or another unit) per gang per iteration
  Tiles,    ///< block composition: tiles with a halo, per gang
  Window,   ///< warp composition: gang-width steps, a window of vectors in registers
};

/// What the model knows of one fused kernel before choosing.
struct FusedKernelFacts {
  FusedShape Shape = FusedShape::Elements;
  unsigned ElementsMoved = 0;  ///< global array elements per item (the traffic model's)
  unsigned RowPasses = 0;      ///< Rows: loops over the row that read the same array
  unsigned SharedBytes = 0;    ///< Tiles: `.shared` bytes per block
  const Op *WindowLoop = nullptr; ///< Window: the loop over gang-width steps
  /// The kernel of the chain an op of the fused body came from (-1: the
  /// pass's own): each kernel computes its range again, and LLVM merges those
  /// identical computations, so the prologue counts the costliest kernel's.
  std::function<int(const Op &)> KernelOf;
};

/// The model's estimate and choice.
struct LaunchChoice {
  double WorkPerItem = 0;      ///< weighted operations per item, every loop
  double LargestLoopWork = 0;  ///< the same, the largest single loop body
  unsigned LargestLoopValues = 0; ///< values the largest loop body computes
  double PrologueWork = 0;     ///< weighted operations per gang outside the loops (the
                               ///< costliest kernel's, see KernelOf)
  bool ComputeBound = false;   ///< work per element moved above the target's balance
  unsigned Registers[3] = {};  ///< estimated registers per thread at c = 1, 2, 4
  unsigned WarpsPerSM[3] = {}; ///< the occupancy those give at 256 threads per block
  unsigned ThreadCoarsening = 1; ///< c: items per program instance per step
  std::string NoThreadCoarsening; ///< why c is not larger (empty at c = 4)
  unsigned LaunchCoarsening = 1;  ///< k: chunks (rows) per gang at the launch
  std::string Why;             ///< one clause: the reason for k
};

/// Estimates the work, registers and occupancy of `Fused` (after fusion,
/// before coarsening) and chooses c and k for the GPU `Target`.
LaunchChoice chooseLaunch(Function &Fused, const FusedKernelFacts &Facts, const TargetInfo &Target);

/// The remark's text for `C` (after "vfuse_X: ").
std::string describeLaunch(const LaunchChoice &C, const FusedKernelFacts &Facts,
                           const std::string &Kernel);

} // namespace spmdc::ir
