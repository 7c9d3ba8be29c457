// Vertical fusion: requests from `#pragma vfuse` and --vfuse, and the pass.
#pragma once

#include "frontend/SourceLocation.h"

#include <optional>
#include <string>
#include <vector>

namespace spmdc {
class DiagnosticEngine;
struct Pragma;
struct TargetInfo;
} // namespace spmdc

namespace spmdc::ir {

class Module;

/// How neighbour reads (a stencil's `b[i - 1]`) are composed: the cost model's
/// choice, or the request's (`compose=block|warp`).
enum class FusionComposition {
  Auto,  ///< the cost model chooses
  Block, ///< a tile per gang (shared memory on the GPU, the stack on the CPU)
  Warp,  ///< registers: a window of three gang-wide vectors and lane shuffles
};

/// One requested vertical fusion: kernels that run one after another (each
/// reads what the earlier ones wrote), and the buffers that are temporaries
/// of the chain (never read after it, so never stored).
struct VerticalFusionRequest {
  std::vector<std::string> Kernels;
  std::vector<std::string> Temps;
  FusionComposition Composition = FusionComposition::Auto;
  bool FromPragma = false;
  std::string Spelling; ///< as written, for one-line command-line errors
  SourceLoc Loc;        ///< the pragma's `#`
  /// Pragma form: the column of each kernel / temporary name (0: unknown).
  std::vector<uint32_t> KernelCols, TempCols;
};

/// Parses the --vfuse syntax `A,B[,C...][:temp=y[,t...]][:compose=block|warp]`; the
/// pragma's parenthesized text uses the same grammar with `temp(y, t)`, `compose(warp)`. On an error
/// returns nothing, sets `Error` and `ErrorAt` (the offset in `Spec`).
std::optional<VerticalFusionRequest> parseVerticalFusionSpec(const std::string &Spec,
                                                             std::string &Error, size_t &ErrorAt);

/// Collects `#pragma vfuse(...)` from the module, then the command line's
/// requests (one for the same kernel list replaces the pragma's), and builds
/// `vfuse_A_B...` for each. Runs before the divergence transform. `Report`
/// prints the cost model's estimate of each fusion (--vfuse-report). Returns
/// false after reporting errors.
bool runVerticalFusion(Module &M, const std::vector<VerticalFusionRequest> &Requested,
                       const TargetInfo &Target, DiagnosticEngine &Diags, bool Report = false);

} // namespace spmdc::ir
