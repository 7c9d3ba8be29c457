// Lane `L`'s scalar address of a vector of pointers, for the per-lane gathers and scatters.
#include "backend/LanePointer.h"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Instructions.h"

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

} // namespace

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

} // namespace spmdc
