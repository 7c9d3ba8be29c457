// Removes redundant warp votes, shuffles and warp barriers after LLVM's pipeline (NVPTX).
#include "backend/WarpVoteSimplify.h"

#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/Analysis/InstructionSimplify.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include <map>
#include <vector>

namespace spmdc {

namespace {

using namespace llvm;

constexpr uint64_t FullWarp = 0xffffffffu;

/// The warp-wide operations whose result depends only on their operands
/// while the whole warp executes them together.
bool isWarpFunction(Intrinsic::ID Id) {
  switch (Id) {
  case Intrinsic::nvvm_vote_any_sync:
  case Intrinsic::nvvm_vote_all_sync:
  case Intrinsic::nvvm_vote_ballot_sync:
  case Intrinsic::nvvm_shfl_sync_idx_i32:
  case Intrinsic::nvvm_shfl_sync_bfly_i32:
  case Intrinsic::nvvm_shfl_sync_up_i32:
  case Intrinsic::nvvm_shfl_sync_down_i32:
    return true;
  default:
    return false;
  }
}

bool isFullMask(Value *V) {
  auto *C = dyn_cast<ConstantInt>(V);
  return C && C->getZExtValue() == FullWarp;
}

/// any/all/ballot of a constant predicate over the full warp.
Value *foldConstantVote(IntrinsicInst &II) {
  Intrinsic::ID Id = II.getIntrinsicID();
  if (Id != Intrinsic::nvvm_vote_any_sync && Id != Intrinsic::nvvm_vote_all_sync &&
      Id != Intrinsic::nvvm_vote_ballot_sync)
    return nullptr;
  auto *Pred = dyn_cast<ConstantInt>(II.getArgOperand(1));
  if (!Pred || !isFullMask(II.getArgOperand(0)))
    return nullptr;
  switch (Id) {
  case Intrinsic::nvvm_vote_any_sync:
  case Intrinsic::nvvm_vote_all_sync:
    return Pred;
  case Intrinsic::nvvm_vote_ballot_sync:
    return ConstantInt::get(II.getType(), Pred->isOne() ? FullWarp : 0);
  default:
    return nullptr;
  }
}

bool isVote(Value *V, Intrinsic::ID Id, Value *&Operand) {
  auto *II = dyn_cast<IntrinsicInst>(V);
  if (!II || II->getIntrinsicID() != Id || !isFullMask(II->getArgOperand(0)))
    return false;
  Operand = II->getArgOperand(1);
  return true;
}

/// `V` with `M` known to be false, simplified (null when it does not simplify).
Value *withMaskOff(Value *V, Value *M, const SimplifyQuery &SQ) {
  Constant *False = ConstantInt::getFalse(M->getContext());
  if (V == M)
    return False;
  return simplifyWithOpReplaced(V, M, False, SQ, /*AllowRefinement=*/false);
}

/// select(any(m), t, f) = t when t with m all-false is f: where no lane has m,
/// this lane's m is false. Also and(any(m), t), which is select(any(m), t, false).
/// This removes the transform's `if (any(m)) { mask update }` and
/// `and(any(m), m)`.
Value *foldSelectOnVote(Instruction &I, const SimplifyQuery &SQ) {
  Value *Cond, *T, *F;
  if (auto *Sel = dyn_cast<SelectInst>(&I)) {
    Cond = Sel->getCondition();
    T = Sel->getTrueValue();
    F = Sel->getFalseValue();
  } else if (I.getOpcode() == Instruction::And && I.getType()->isIntegerTy(1)) {
    Cond = I.getOperand(0);
    T = I.getOperand(1);
    F = ConstantInt::getFalse(I.getContext());
    Value *M;
    if (!isVote(Cond, Intrinsic::nvvm_vote_any_sync, M))
      std::swap(Cond, T);
  } else {
    return nullptr;
  }
  Value *M;
  if (!isVote(Cond, Intrinsic::nvvm_vote_any_sync, M))
    return nullptr;
  Value *Off = withMaskOff(T, M, SQ);
  return Off && Off == F ? T : nullptr;
}

/// Whether `M2` can only be set where `M1` is: M2 is m1 & x (as `and` or
/// logical `select`), with m1 `M1` itself or, on the edge from `From`, a phi
/// in M2's block that receives `M1` from there.
bool impliesOnEdge(Value *M2, Value *M1, BasicBlock *From) {
  auto IsM1 = [&](Value *V) {
    if (V == M1)
      return true;
    auto *Phi = dyn_cast<PHINode>(V);
    return Phi && Phi->getBasicBlockIndex(From) >= 0 && Phi->getIncomingValueForBlock(From) == M1;
  };
  auto *I = dyn_cast<Instruction>(M2);
  if (!I)
    return false;
  if (I->getOpcode() == Instruction::And)
    return IsM1(I->getOperand(0)) || IsM1(I->getOperand(1));
  if (auto *Sel = dyn_cast<SelectInst>(I)) {
    auto *F = dyn_cast<ConstantInt>(Sel->getFalseValue());
    return F && F->isZero() && (IsM1(Sel->getCondition()) || IsM1(Sel->getTrueValue()));
  }
  return IsM1(M2);
}

/// `br any(m1), H, X` where H only tests `br any(m2), B, X` with m2 within m1
/// (a loop's latch test right before its header's): when no lane has m1,
/// H goes to X anyway, so the latch can go to H unconditionally. H must have
/// no effects before its test, and X's phis must receive the same values
/// either way.
bool dropSubsumedTest(BasicBlock &L) {
  auto *Br = dyn_cast<BranchInst>(L.getTerminator());
  Value *M1, *M2;
  if (!Br || !Br->isConditional() || !isVote(Br->getCondition(), Intrinsic::nvvm_vote_any_sync, M1))
    return false;
  BasicBlock *H = Br->getSuccessor(0), *X = Br->getSuccessor(1);
  auto *HBr = dyn_cast<BranchInst>(H->getTerminator());
  if (H == &L || H == X || !HBr || !HBr->isConditional() || HBr->getSuccessor(1) != X ||
      !isVote(HBr->getCondition(), Intrinsic::nvvm_vote_any_sync, M2) || !impliesOnEdge(M2, M1, &L))
    return false;
  for (Instruction &I : *H)
    if (!isa<PHINode>(I) && &I != HBr && &I != HBr->getCondition() && I.mayHaveSideEffects())
      return false;
  for (PHINode &P : X->phis()) {
    Value *FromL = P.getIncomingValueForBlock(&L);
    Value *FromH = P.getIncomingValueForBlock(H);
    if (auto *HP = dyn_cast<PHINode>(FromH); HP && HP->getParent() == H)
      FromH = HP->getIncomingValueForBlock(&L);
    else if (auto *HI = dyn_cast<Instruction>(FromH); HI && HI->getParent() == H)
      return false;
    if (FromH != FromL)
      return false;
  }
  X->removePredecessor(&L);
  BranchInst::Create(H, Br->getIterator());
  Br->eraseFromParent();
  return true;
}

bool isWarpBarrier(const Instruction &I) {
  auto *II = dyn_cast<IntrinsicInst>(&I);
  return II && II->getIntrinsicID() == Intrinsic::nvvm_bar_warp_sync &&
         isFullMask(II->getArgOperand(0));
}

} // namespace

PreservedAnalyses WarpVoteSimplifyPass::run(Function &F, FunctionAnalysisManager &AM) {
  if (!F.getParent()->getTargetTriple().isNVPTX())
    return PreservedAnalyses::all();
  bool Changed = false;
  std::vector<Instruction *> Dead;

  // 1. Constant votes, selects on a vote that do not depend on it, repeated
  // warp barriers.
  SimplifyQuery SQ(F.getDataLayout());
  for (BasicBlock &BB : F) {
    const Instruction *LastBarrier = nullptr;
    for (Instruction &I : BB) {
      if (isWarpBarrier(I)) {
        if (LastBarrier) {
          Dead.push_back(&I);
          continue;
        }
        LastBarrier = &I;
        continue;
      }
      if (I.mayReadOrWriteMemory())
        LastBarrier = nullptr;
      Value *Folded = nullptr;
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        Folded = foldConstantVote(*II);
      else
        Folded = foldSelectOnVote(I, SQ);
      if (Folded) {
        I.replaceAllUsesWith(Folded);
        Dead.push_back(&I);
      }
    }
  }
  for (Instruction *I : Dead)
    I->eraseFromParent();
  Changed |= !Dead.empty();
  Dead.clear();

  // 2. Latch tests subsumed by the header's.
  bool CFGChanged = false;
  for (BasicBlock &BB : F)
    CFGChanged |= dropSubsumedTest(BB);
  if (CFGChanged) {
    Changed = true;
    AM.invalidate(F, PreservedAnalyses::none());
  }

  // 3. A warp operation with the same operands as one that dominates it.
  DominatorTree &DT = AM.getResult<DominatorTreeAnalysis>(F);
  std::map<std::vector<Value *>, std::vector<IntrinsicInst *>> Seen;
  for (BasicBlock *BB : depth_first(&F.getEntryBlock())) {
    for (Instruction &I : *BB) {
      auto *II = dyn_cast<IntrinsicInst>(&I);
      if (!II || !isWarpFunction(II->getIntrinsicID()))
        continue;
      std::vector<Value *> Key = {II->getCalledOperand()};
      for (Value *A : II->args())
        Key.push_back(A);
      std::vector<IntrinsicInst *> &Earlier = Seen[Key];
      IntrinsicInst *Dominating = nullptr;
      for (IntrinsicInst *E : Earlier)
        if (DT.dominates(E, II)) {
          Dominating = E;
          break;
        }
      if (Dominating) {
        II->replaceAllUsesWith(Dominating);
        Dead.push_back(II);
      } else {
        Earlier.push_back(II);
      }
    }
  }
  for (Instruction *I : Dead)
    I->eraseFromParent();
  Changed |= !Dead.empty();

  // 4. Votes and shuffles nobody reads (LLVM keeps them: they are convergent calls).
  for (bool Removed = true; Removed;) {
    Removed = false;
    for (BasicBlock &BB : F)
      for (Instruction &I : make_early_inc_range(BB))
        if (auto *II = dyn_cast<IntrinsicInst>(&I);
            II && isWarpFunction(II->getIntrinsicID()) && II->use_empty()) {
          II->eraseFromParent();
          Removed = Changed = true;
        }
  }
  if (!Changed)
    return PreservedAnalyses::all();
  if (CFGChanged)
    return PreservedAnalyses::none();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

} // namespace spmdc
