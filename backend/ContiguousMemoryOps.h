// Turns gathers/scatters whose lanes address consecutive elements into vector loads/stores.
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// `llvm.masked.gather(gep T, p, sext(splat(i) + <0,1,..,W-1>))` reads W
/// consecutive elements starting at p[i]: it becomes `llvm.masked.load(&p[i])`
/// (likewise scatters -> masked stores). This is the access pattern of
/// `a[i]` inside `foreach`, which the SPMD IR emits as a per-lane address.
/// It assumes `i + lane` does not wrap, as ISPC does for foreach indices.
class ContiguousMemoryOpsPass : public llvm::PassInfoMixin<ContiguousMemoryOpsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
