// Drops the freeze of a guarded lane value that only its masked merge reads, or that guards a load of caller memory (NVPTX).
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// NVPTX's guarded lane ops (backend/NVPTXLaneOps.cpp) give a lane that is
/// off `freeze(phi [r, on], [poison, off])`: frozen, because from poison LLVM
/// could prove the lane on. Where everything computed from the freeze (itself,
/// or arithmetic that only propagates poison) ends in `select(c, it, old)` on
/// the very test `c` of the guard's branch (either way round), the off lanes'
/// value is never read (the select takes `old` there) and no poison can reach
/// an address, a divisor or a branch: the freeze goes, and instcombine then
/// folds the select into the phi (`phi [r, on], [old, off]`). Also dropped:
/// `freeze(load p)` of memory the caller passed in, left where the guard folded
/// to true. A frozen value is one LLVM must keep: it cost the two-stage stencil
/// of examples/fusion 8 registers at c = 2 (40 -> 48) and a quarter of its
/// warps. Runs after each instcombine.
class MaskedMergeUnfreezePass : public llvm::PassInfoMixin<MaskedMergeUnfreezePass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
