// Where address-taken uniform locals live on NVPTX: one slot per warp in shared memory.
//
// On NVPTX each thread has its own registers and its own local memory, so a
// `uniform` local is one copy per thread. That is right while the copies see
// the same uniform operations, but not once its address escapes: an atomic
// through `&u` with varying values, a scatter into a uniform array, or a
// callee that writes through the pointer per lane change only the writing
// thread's copy. Such locals get one slot per warp instead, which every lane
// of the warp addresses. The slots are static: each function's escaping
// locals form a frame at a fixed offset of a per-warp region, placed above
// the frames of every function that can be below it on the call stack (the
// call graph must be acyclic where frames are non-empty), and the region is
// a module-level `.shared` array with one region per warp of a block.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>

namespace spmdc {

class DiagnosticEngine;
class Type;

namespace ir {
class Function;
class Module;
class Value;
} // namespace ir

/// The most warps a block has (1024 threads): the shared array holds one region per warp.
constexpr unsigned MaxWarpsPerBlock = 32;

struct WarpFrameLayout {
  /// The Var results that live in the warp's region: their offset in it.
  std::map<const ir::Value *, uint64_t> SlotOffset;
  /// Those Vars and every address derived from them inside their function
  /// (loads and stores through these synchronize the warp).
  std::set<const ir::Value *> SlotAddresses;
  /// Functions with at least one slot.
  std::set<const ir::Function *> HasSlots;
  /// The bytes of one warp's region (0: no slots in the module).
  uint64_t BytesPerWarp = 0;
};

/// Size and ABI alignment of a type in memory (from the emitter's data layout).
using TypeSizeAlign = std::function<std::pair<uint64_t, uint64_t>(const Type *)>;

/// Finds the uniform locals of `Functions` (those emitted) whose address
/// escapes and lays out their per-warp frames. Reports an error (and returns
/// false) for such a local in a recursive function or when the region does
/// not fit into `SharedBytesLeft` bytes of shared memory per block.
bool layoutWarpFrames(ir::Module &M, const std::set<ir::Function *> &Functions,
                      const TypeSizeAlign &SizeAlign, uint64_t SharedBytesLeft,
                      DiagnosticEngine &Diags, WarpFrameLayout &Layout);

} // namespace spmdc
