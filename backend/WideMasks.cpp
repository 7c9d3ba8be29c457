// Mask logic on <W x i1> becomes logic on <W x i32> on x86 targets without mask registers.
#include "backend/WideMasks.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

namespace spmdc {

namespace {

bool isMaskVector(llvm::Type *T) {
  auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(T);
  return VT && VT->getElementType()->isIntegerTy(1) && VT->getNumElements() > 1;
}

/// The mask values rewritten wide: phis, and/or/xor and selects of masks.
bool isMaskLogic(const llvm::Instruction &I) {
  if (!isMaskVector(I.getType()))
    return false;
  if (llvm::isa<llvm::PHINode>(I))
    return true;
  // A select on one uniform condition picks a whole mask; a per-lane select
  // of masks stays (its condition must be <W x i1>).
  if (auto *S = llvm::dyn_cast<llvm::SelectInst>(&I))
    return !S->getCondition()->getType()->isVectorTy();
  switch (I.getOpcode()) {
  case llvm::Instruction::And:
  case llvm::Instruction::Or:
  case llvm::Instruction::Xor:
    return true;
  default:
    return false;
  }
}

class Widener {
public:
  explicit Widener(llvm::Function &F) : F(F) {}

  bool run() {
    for (llvm::Instruction &I : llvm::instructions(F))
      if (isMaskLogic(I))
        Web.insert(&I);
    if (Web.empty())
      return false;
    // Wide copies first (phis may refer to each other), operands after.
    for (llvm::Instruction *I : Web) {
      auto *WT = wideType(I->getType());
      llvm::Instruction *W;
      if (auto *P = llvm::dyn_cast<llvm::PHINode>(I))
        W = llvm::PHINode::Create(WT, P->getNumIncomingValues(), I->getName() + ".wide",
                                  P->getIterator());
      else
        W = I->clone();
      if (!llvm::isa<llvm::PHINode>(I)) {
        W->mutateType(WT);
        W->setName(I->getName() + ".wide");
        W->insertBefore(I->getIterator());
      }
      Wide[I] = W;
    }
    for (llvm::Instruction *I : Web) {
      llvm::Instruction *W = Wide[I];
      if (auto *P = llvm::dyn_cast<llvm::PHINode>(I)) {
        for (unsigned K = 0; K < P->getNumIncomingValues(); ++K)
          llvm::cast<llvm::PHINode>(W)->addIncoming(
              widen(P->getIncomingValue(K)),
              P->getIncomingBlock(K));
        continue;
      }
      for (unsigned K = llvm::isa<llvm::SelectInst>(I) ? 1 : 0; K < I->getNumOperands(); ++K)
        W->setOperand(K, widen(I->getOperand(K)));
    }
    // Users outside the web get `wide < 0` back, right after the wide value: the sign
    // bit is what vmovmskps and blendv read, so they take the wide mask as it is.
    for (llvm::Instruction *I : Web) {
      llvm::Instruction *W = Wide[I];
      bool Outside = llvm::any_of(I->users(), [&](llvm::User *U) {
        auto *UI = llvm::dyn_cast<llvm::Instruction>(U);
        return !UI || !Web.contains(UI);
      });
      if (Outside) {
        llvm::IRBuilder<> B(W->getParent(), llvm::isa<llvm::PHINode>(W)
                                                ? W->getParent()->getFirstInsertionPt()
                                                : std::next(W->getIterator()));
        I->replaceAllUsesWith(B.CreateICmpSLT(W, llvm::Constant::getNullValue(W->getType())));
      }
    }
    for (llvm::Instruction *I : Web)
      I->dropAllReferences();
    for (llvm::Instruction *I : Web)
      I->eraseFromParent();
    return true;
  }

private:
  llvm::FixedVectorType *wideType(llvm::Type *T) {
    return llvm::FixedVectorType::get(llvm::Type::getInt32Ty(F.getContext()),
                                      llvm::cast<llvm::FixedVectorType>(T)->getNumElements());
  }

  /// `V` as a wide mask: the web's own wide value, else a sign extension
  /// (free on a compare's lanes) next to the definition.
  llvm::Value *widen(llvm::Value *V) {
    if (auto *I = llvm::dyn_cast<llvm::Instruction>(V); I && Web.contains(I))
      return Wide[I];
    auto It = Extended.find(V);
    if (It != Extended.end())
      return It->second;
    llvm::Value *E;
    if (auto *C = llvm::dyn_cast<llvm::Constant>(V))
      return llvm::ConstantFoldCastOperand(llvm::Instruction::SExt, C, wideType(V->getType()),
                                           F.getDataLayout());
    if (auto *I = llvm::dyn_cast<llvm::Instruction>(V)) {
      llvm::IRBuilder<> B(I->getParent(), llvm::isa<llvm::PHINode>(I)
                                              ? I->getParent()->getFirstInsertionPt()
                                              : std::next(I->getIterator()));
      E = B.CreateSExt(V, wideType(V->getType()));
    } else {
      llvm::IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
      E = B.CreateSExt(V, wideType(V->getType()));
    }
    Extended[V] = E;
    return E;
  }

  llvm::Function &F;
  llvm::SetVector<llvm::Instruction *> Web;
  llvm::DenseMap<llvm::Instruction *, llvm::Instruction *> Wide;
  llvm::DenseMap<llvm::Value *, llvm::Value *> Extended;
};

} // namespace

llvm::PreservedAnalyses WideMasksPass::run(llvm::Function &F, llvm::FunctionAnalysisManager &) {
  if (!Enabled || !Widener(F).run())
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
