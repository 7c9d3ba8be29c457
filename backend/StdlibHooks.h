// The standard library functions that cannot be written in .spmd: target hooks.
#pragma once

#include "llvm/IR/IRBuilder.h"

#include <string>
#include <vector>

namespace spmdc {

class LaneOps;
class Type;

/// One call of a standard library prototype (a declaration without a body).
struct HookCall {
  std::string Name;
  std::vector<llvm::Value *> Args;
  std::vector<const Type *> ArgTypes;
  const Type *ResultType = nullptr; ///< null for void
  llvm::Type *ResultLLVM = nullptr; ///< the register type of the result, or null
  llvm::Value *Mask = nullptr;      ///< the lanes active at the call
  /// NVPTX: the call is in a SIMT region (ir/SimtBranches.cpp), where each running
  /// thread is its own active lane and the warp may be diverged: a per-lane
  /// operation is the thread's alone, with no warp-wide guard or barrier.
  bool ThreadAlone = false;
};

/// Emits `Call` at the builder's position. Returns false, emitting nothing,
/// when the function has no hook for these arguments on this target; the
/// caller then reports it. `Result` is set for non-void calls.
bool emitStdlibHook(const HookCall &Call, llvm::IRBuilder<> &B, LaneOps &Lanes, bool GPU,
                    llvm::Value *&Result);

} // namespace spmdc
