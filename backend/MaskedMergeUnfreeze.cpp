// Drops the freeze of a guarded lane value that only a select on the same lane test reads (NVPTX).
#include "backend/MaskedMergeUnfreeze.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

#include <vector>

namespace spmdc {

namespace {

/// The condition under which `Phi` takes its non-poison value: `Phi` has two
/// incoming values, one poison from a block ending in `br c, X, Phi's block`
/// (the lanes that are off jump straight to the join). Null otherwise.
llvm::Value *guardCondition(llvm::PHINode &Phi) {
  if (Phi.getNumIncomingValues() != 2)
    return nullptr;
  for (unsigned I = 0; I < 2; ++I) {
    if (!llvm::isa<llvm::PoisonValue>(Phi.getIncomingValue(I)) ||
        llvm::isa<llvm::PoisonValue>(Phi.getIncomingValue(1 - I)))
      continue;
    auto *Br = llvm::dyn_cast<llvm::BranchInst>(Phi.getIncomingBlock(I)->getTerminator());
    if (Br && Br->isConditional() && Br->getSuccessor(1) == Phi.getParent() &&
        Br->getSuccessor(0) != Phi.getParent())
      return Br->getCondition();
  }
  return nullptr;
}

bool onlyMergedUnder(llvm::FreezeInst &Freeze, llvm::Value *Cond) {
  for (llvm::User *U : Freeze.users()) {
    auto *Sel = llvm::dyn_cast<llvm::SelectInst>(U);
    if (!Sel || Sel->getCondition() != Cond || Sel->getTrueValue() != &Freeze ||
        Sel->getFalseValue() == &Freeze)
      return false;
  }
  return !Freeze.use_empty();
}

} // namespace

llvm::PreservedAnalyses MaskedMergeUnfreezePass::run(llvm::Function &F,
                                                     llvm::FunctionAnalysisManager &) {
  std::vector<llvm::FreezeInst *> Dropped;
  for (llvm::BasicBlock &BB : F)
    for (llvm::Instruction &I : BB)
      if (auto *Freeze = llvm::dyn_cast<llvm::FreezeInst>(&I))
        if (auto *Phi = llvm::dyn_cast<llvm::PHINode>(Freeze->getOperand(0)))
          if (llvm::Value *Cond = guardCondition(*Phi); Cond && onlyMergedUnder(*Freeze, Cond))
            Dropped.push_back(Freeze);
  for (llvm::FreezeInst *Freeze : Dropped) {
    Freeze->replaceAllUsesWith(Freeze->getOperand(0));
    Freeze->eraseFromParent();
  }
  if (Dropped.empty())
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
