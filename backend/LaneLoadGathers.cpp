// Unmasked gathers without gather instructions: a scalar address and a load per lane.
#include "backend/LaneLoadGathers.h"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"

namespace spmdc {

namespace {

/// Lane `Lane` of the vector `V`: an extension of an extract rather than an
/// extract of an extension, so the arithmetic stays scalar.
llvm::Value *laneScalar(llvm::IRBuilder<> &B, llvm::Value *V, unsigned Lane) {
  auto *Ext = llvm::dyn_cast<llvm::CastInst>(V);
  if (Ext && (Ext->getOpcode() == llvm::Instruction::SExt ||
              Ext->getOpcode() == llvm::Instruction::ZExt))
    return B.CreateCast(Ext->getOpcode(),
                        B.CreateExtractElement(Ext->getOperand(0), B.getInt32(Lane)),
                        Ext->getType()->getScalarType());
  return B.CreateExtractElement(V, B.getInt32(Lane));
}

/// A vector index as a varying rest plus splats (constants or uniform scalars).
struct PeeledIndex {
  llvm::Value *Rest = nullptr;
  bool SExtRest = false; ///< Rest is the 32-bit value under the index's sext
  llvm::SmallVector<std::pair<llvm::Value *, bool>, 4> Splats; ///< (scalar, sext it)
};

/// Peels the splats added to the 64-bit vector index `Index`: adds in the
/// 64-bit index type (GEP arithmetic wraps alike either way), then, under a
/// sign extension, adds marked `nsw` (index arithmetic is, see
/// ir/IndexNoWrap.cpp), so sext(i + n) = sext(i) + sext(n). Lanes of `a[i]`,
/// `a[i + 1]` and `a[i + n]` then share the scalar `i`.
PeeledIndex peelSplats(llvm::Value *Index) {
  PeeledIndex P;
  auto peelAdd = [&](llvm::Value *&V, bool UnderSExt) {
    auto *Add = llvm::dyn_cast<llvm::BinaryOperator>(V);
    if (!Add || Add->getOpcode() != llvm::Instruction::Add ||
        (UnderSExt && !Add->hasNoSignedWrap()))
      return false;
    for (unsigned Side = 0; Side < 2; ++Side)
      if (llvm::Value *S = llvm::getSplatValue(Add->getOperand(1 - Side))) {
        P.Splats.push_back({S, UnderSExt});
        V = Add->getOperand(Side);
        return true;
      }
    return false;
  };
  llvm::Value *V = Index;
  while (peelAdd(V, false)) {
  }
  if (auto *SE = llvm::dyn_cast<llvm::SExtInst>(V)) {
    llvm::Value *W = SE->getOperand(0);
    size_t Before = P.Splats.size();
    while (peelAdd(W, true)) {
    }
    if (P.Splats.size() > Before) {
      P.Rest = W;
      P.SExtRest = true;
      return P;
    }
  }
  P.Rest = V;
  return P;
}

/// Lane `Lane`'s pointer: from `gep base, <indices>` with a scalar base, a
/// scalar gep of the lane's indices (extracted before their extension, so the
/// arithmetic stays scalar; a constant added to a single index becomes a
/// second gep, a displacement); else an extract of the pointer vector.
llvm::Value *lanePointer(llvm::IRBuilder<> &B, llvm::Value *Ptrs, unsigned Lane) {
  auto *GEP = llvm::dyn_cast<llvm::GetElementPtrInst>(Ptrs);
  if (!GEP || GEP->getPointerOperand()->getType()->isVectorTy())
    return B.CreateExtractElement(Ptrs, B.getInt32(Lane));
  if (GEP->getNumIndices() == 1 && GEP->getOperand(1)->getType()->isVectorTy()) {
    PeeledIndex Peeled = peelSplats(GEP->getOperand(1));
    if (!Peeled.Splats.empty()) {
      // The splats first, so every lane shares their base (constants fold
      // into displacements), the lane's own index last.
      llvm::Value *P = GEP->getPointerOperand();
      llvm::Type *I64 = B.getInt64Ty();
      for (auto [S, SExt] : Peeled.Splats)
        P = B.CreateGEP(GEP->getSourceElementType(), P,
                        SExt ? B.CreateSExt(S, I64) : B.CreateSExtOrTrunc(S, I64));
      llvm::Value *LaneIndex =
          Peeled.SExtRest
              ? B.CreateSExt(B.CreateExtractElement(Peeled.Rest, B.getInt32(Lane)), I64)
              : laneScalar(B, Peeled.Rest, Lane);
      return B.CreateGEP(GEP->getSourceElementType(), P, LaneIndex);
    }
  }
  llvm::SmallVector<llvm::Value *, 4> Indices;
  for (llvm::Value *I : GEP->indices())
    Indices.push_back(I->getType()->isVectorTy() ? laneScalar(B, I, Lane) : I);
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
  // The lanes of a[i] and a[i + 1] extract the same scalars of i: one each.
  llvm::EarlyCSEPass().run(F, AM);
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
