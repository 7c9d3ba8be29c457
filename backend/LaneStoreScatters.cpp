// Scatters on x86 targets without scatter instructions: per lane a mask test and a store to a scalar address.
#include "backend/LaneStoreScatters.h"
#include "backend/LanePointer.h"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

namespace spmdc {

namespace {

/// The scatter `S` as one store per lane, in lane order (a scatter's lanes that write
/// one address leave the last lane's value, as LLVM's scalarization does).
void rewrite(llvm::IntrinsicInst *S) {
  llvm::Value *Values = S->getArgOperand(0), *Ptrs = S->getArgOperand(1),
              *Mask = S->getArgOperand(2);
  llvm::Align A = S->getParamAlign(1).valueOrOne();
  unsigned W = llvm::cast<llvm::FixedVectorType>(Values->getType())->getNumElements();
  auto *ConstMask = llvm::dyn_cast<llvm::Constant>(Mask);
  llvm::IRBuilder<> B(S);
  // The mask as bits (a movmsk), tested once per lane.
  llvm::Value *Bits = ConstMask ? nullptr : B.CreateBitCast(Mask, B.getIntNTy(W));
  for (unsigned L = 0; L < W; ++L) {
    if (ConstMask) {
      auto *On = llvm::dyn_cast_or_null<llvm::ConstantInt>(ConstMask->getAggregateElement(L));
      if (!On || On->isZero())
        continue;
    } else {
      llvm::Value *On = B.CreateICmpNE(B.CreateAnd(Bits, B.getIntN(W, 1ull << L)),
                                       B.getIntN(W, 0));
      B.SetInsertPoint(llvm::SplitBlockAndInsertIfThen(On, S->getIterator(), false));
    }
    B.CreateAlignedStore(B.CreateExtractElement(Values, B.getInt32(L)),
                         lanePointer(B, Ptrs, L), A);
    B.SetInsertPoint(S);
  }
  S->eraseFromParent();
}

} // namespace

llvm::PreservedAnalyses LaneStoreScattersPass::run(llvm::Function &F,
                                                   llvm::FunctionAnalysisManager &AM) {
  if (!llvm::Triple(F.getParent()->getTargetTriple()).isX86())
    return llvm::PreservedAnalyses::all();
  const llvm::TargetTransformInfo &TTI = AM.getResult<llvm::TargetIRAnalysis>(F);
  llvm::SmallVector<llvm::IntrinsicInst *, 16> Scatters;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
      if (II->getIntrinsicID() == llvm::Intrinsic::masked_scatter &&
          llvm::isa<llvm::FixedVectorType>(II->getArgOperand(0)->getType()) &&
          !TTI.isLegalMaskedScatter(II->getArgOperand(0)->getType(),
                                    II->getParamAlign(1).valueOrOne()))
        Scatters.push_back(II);
  for (llvm::IntrinsicInst *S : Scatters)
    rewrite(S);
  return Scatters.empty() ? llvm::PreservedAnalyses::all() : llvm::PreservedAnalyses::none();
}

} // namespace spmdc
