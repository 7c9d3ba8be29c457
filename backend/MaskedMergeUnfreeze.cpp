// Drops the freeze of a guarded lane value that only its masked merge reads, or that guards a load of caller memory (NVPTX).
#include "backend/MaskedMergeUnfreeze.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

#include <vector>

namespace spmdc {

namespace {

/// The lane test of a guard: the branch's condition, and whether the lane is
/// on where it is true (`br c, on, join`) or false (`br c, join, on`, the form
/// instcombine leaves after folding a negated test into the branch).
struct LaneTest {
  llvm::Value *Cond = nullptr;
  bool OnWhenTrue = true;
};

/// The test under which `Phi` takes its non-poison value: `Phi` has two
/// incoming values, one poison from the block that ends in the guard's branch
/// (the lanes that are off jump straight to the join). Null Cond otherwise.
LaneTest guardTest(llvm::PHINode &Phi) {
  if (Phi.getNumIncomingValues() != 2)
    return {};
  for (unsigned I = 0; I < 2; ++I) {
    if (!llvm::isa<llvm::PoisonValue>(Phi.getIncomingValue(I)) ||
        llvm::isa<llvm::PoisonValue>(Phi.getIncomingValue(1 - I)))
      continue;
    auto *Br = llvm::dyn_cast<llvm::BranchInst>(Phi.getIncomingBlock(I)->getTerminator());
    if (!Br || !Br->isConditional())
      continue;
    llvm::BasicBlock *Join = Phi.getParent();
    if (Br->getSuccessor(1) == Join && Br->getSuccessor(0) != Join)
      return {Br->getCondition(), true};
    if (Br->getSuccessor(0) == Join && Br->getSuccessor(1) != Join)
      return {Br->getCondition(), false};
  }
  return {};
}

/// Arithmetic that turns a poison operand into a poison result and nothing
/// worse: no division (undefined behaviour on a poison divisor), no memory,
/// no call, no branch.
bool onlyPropagatesPoison(const llvm::Instruction &I) {
  if (llvm::isa<llvm::UnaryOperator>(I) || llvm::isa<llvm::CastInst>(I))
    return true;
  if (auto *Bin = llvm::dyn_cast<llvm::BinaryOperator>(&I))
    return !Bin->isIntDivRem();
  return false;
}

/// Every value computed from `Freeze` (directly or through arithmetic that
/// only propagates poison) ends in a select on the guard's own test that
/// takes it exactly where the lane is on: instcombine often sinks the
/// arithmetic of `v = old + x` into the select's arm before this pass runs.
bool onlyMergedUnder(llvm::FreezeInst &Freeze, const LaneTest &Test) {
  std::vector<llvm::Instruction *> Work{&Freeze};
  llvm::SmallPtrSet<llvm::Instruction *, 16> Seen{&Freeze};
  constexpr unsigned MaxValues = 32; // a guarded value feeds a few operations, not a graph
  while (!Work.empty()) {
    llvm::Instruction *V = Work.back();
    Work.pop_back();
    if (V->use_empty())
      return false;
    for (llvm::User *U : V->users()) {
      auto *I = llvm::cast<llvm::Instruction>(U);
      if (auto *Sel = llvm::dyn_cast<llvm::SelectInst>(I); Sel && Sel->getCondition() == Test.Cond) {
        llvm::Value *OnArm = Test.OnWhenTrue ? Sel->getTrueValue() : Sel->getFalseValue();
        llvm::Value *OffArm = Test.OnWhenTrue ? Sel->getFalseValue() : Sel->getTrueValue();
        if (OnArm == V && OffArm != V)
          continue;
        return false;
      }
      if (!onlyPropagatesPoison(*I))
        return false;
      if (Seen.insert(I).second) {
        if (Seen.size() > MaxValues)
          return false;
        Work.push_back(I);
      }
    }
  }
  return true;
}

/// A guarded load whose guard LLVM has since proven true (an all-on chunk of a
/// coarsened loop), or whose freeze instcombine pushed onto the load itself:
/// `freeze(load p)` with p into memory the caller passed in. The freeze was
/// there for the off lanes' poison, which no longer reaches it; what is left
/// would only guard against the load itself giving undef, and LLVM can see no
/// store missing in memory it did not allocate (an alloca could be read before
/// any store, so those loads keep theirs).
bool isFrozenCallerMemoryLoad(llvm::FreezeInst &Freeze) {
  auto *Load = llvm::dyn_cast<llvm::LoadInst>(Freeze.getOperand(0));
  if (!Load || Load->isVolatile())
    return false;
  auto *Arg = llvm::dyn_cast<llvm::Argument>(llvm::getUnderlyingObject(Load->getPointerOperand()));
  return Arg && !Arg->hasByValAttr();
}

} // namespace

llvm::PreservedAnalyses MaskedMergeUnfreezePass::run(llvm::Function &F,
                                                     llvm::FunctionAnalysisManager &) {
  std::vector<llvm::FreezeInst *> Dropped;
  for (llvm::BasicBlock &BB : F)
    for (llvm::Instruction &I : BB)
      if (auto *Freeze = llvm::dyn_cast<llvm::FreezeInst>(&I)) {
        if (isFrozenCallerMemoryLoad(*Freeze))
          Dropped.push_back(Freeze);
        else if (auto *Phi = llvm::dyn_cast<llvm::PHINode>(Freeze->getOperand(0)))
          if (LaneTest Test = guardTest(*Phi); Test.Cond && onlyMergedUnder(*Freeze, Test))
            Dropped.push_back(Freeze);
      }
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
