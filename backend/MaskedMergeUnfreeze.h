// Drops the freeze of a guarded lane value that only a select on the same lane test reads (NVPTX).
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// NVPTX's guarded lane ops (backend/NVPTXLaneOps.cpp) give a lane that is
/// off `freeze(phi [r, on], [poison, off])`: frozen, because from poison LLVM
/// could prove the lane on. Where every user of the freeze is `select(c, it,
/// old)` on the very condition `c` of the guard's branch, the off lanes' value
/// is never read (the select takes `old` there) and no poison can reach an
/// address, a divisor or a branch: the freeze goes, and instcombine then folds
/// the select into the phi (`phi [r, on], [old, off]`), as it did before the
/// freeze. A frozen value is one LLVM must keep: it cost the two-stage stencil
/// of examples/fusion 10 registers (38 -> 48). Runs after each instcombine.
class MaskedMergeUnfreezePass : public llvm::PassInfoMixin<MaskedMergeUnfreezePass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
