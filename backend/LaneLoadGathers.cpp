// Unmasked gathers without gather instructions: a scalar address and a load per lane.
#include "backend/LaneLoadGathers.h"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

namespace spmdc {

namespace {

/// Lane `Lane`'s pointer: from `gep base, <indices>` with a scalar base, a
/// scalar gep of the lane's indices (extracted before their extension, so the
/// arithmetic stays scalar); else an extract of the pointer vector.
llvm::Value *lanePointer(llvm::IRBuilder<> &B, llvm::Value *Ptrs, unsigned Lane) {
  auto *GEP = llvm::dyn_cast<llvm::GetElementPtrInst>(Ptrs);
  if (!GEP || GEP->getPointerOperand()->getType()->isVectorTy())
    return B.CreateExtractElement(Ptrs, B.getInt32(Lane));
  llvm::SmallVector<llvm::Value *, 4> Indices;
  for (llvm::Value *I : GEP->indices()) {
    auto *Ext = llvm::dyn_cast<llvm::CastInst>(I);
    if (!I->getType()->isVectorTy())
      Indices.push_back(I);
    else if (Ext && (Ext->getOpcode() == llvm::Instruction::SExt ||
                     Ext->getOpcode() == llvm::Instruction::ZExt))
      Indices.push_back(B.CreateCast(Ext->getOpcode(),
                                     B.CreateExtractElement(Ext->getOperand(0), B.getInt32(Lane)),
                                     Ext->getType()->getScalarType()));
    else
      Indices.push_back(B.CreateExtractElement(I, B.getInt32(Lane)));
  }
  return B.CreateGEP(GEP->getSourceElementType(), GEP->getPointerOperand(), Indices, "",
                     GEP->getNoWrapFlags());
}

void rewrite(llvm::IntrinsicInst *G) {
  auto *VT = llvm::cast<llvm::FixedVectorType>(G->getType());
  llvm::Align A = G->getParamAlign(0).valueOrOne();
  llvm::IRBuilder<> B(G);
  llvm::Value *Res = llvm::PoisonValue::get(VT);
  for (unsigned L = 0; L < VT->getNumElements(); ++L) {
    llvm::Value *V = B.CreateAlignedLoad(VT->getElementType(),
                                         lanePointer(B, G->getArgOperand(0), L), A);
    Res = B.CreateInsertElement(Res, V, B.getInt32(L));
  }
  Res->takeName(G);
  G->replaceAllUsesWith(Res);
  G->eraseFromParent();
}

bool isAllOn(const llvm::Value *Mask) {
  auto *C = llvm::dyn_cast<llvm::Constant>(Mask);
  return C && C->isAllOnesValue();
}

} // namespace

llvm::PreservedAnalyses LaneLoadGathersPass::run(llvm::Function &F,
                                                 llvm::FunctionAnalysisManager &AM) {
  if (!llvm::Triple(F.getParent()->getTargetTriple()).isX86())
    return llvm::PreservedAnalyses::all();
  const llvm::TargetTransformInfo &TTI = AM.getResult<llvm::TargetIRAnalysis>(F);
  llvm::SmallVector<llvm::IntrinsicInst *, 16> Gathers;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
      if (II->getIntrinsicID() == llvm::Intrinsic::masked_gather &&
          llvm::isa<llvm::FixedVectorType>(II->getType()) && isAllOn(II->getArgOperand(1)) &&
          !TTI.isLegalMaskedGather(II->getType(), II->getParamAlign(0).valueOrOne()))
        Gathers.push_back(II);
  for (llvm::IntrinsicInst *G : Gathers)
    rewrite(G);
  if (Gathers.empty())
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
