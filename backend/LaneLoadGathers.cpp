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
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

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

/// The gather `G`'s lanes as one scalar load each, built at `B`'s insertion point.
llvm::Value *laneLoads(llvm::IRBuilder<> &B, llvm::IntrinsicInst *G) {
  auto *VT = llvm::cast<llvm::FixedVectorType>(G->getType());
  llvm::Align A = G->getParamAlign(0).valueOrOne();
  llvm::Value *Res = llvm::PoisonValue::get(VT);
  for (unsigned L = 0; L < VT->getNumElements(); ++L) {
    llvm::Value *V = B.CreateAlignedLoad(VT->getElementType(),
                                         lanePointer(B, G->getArgOperand(0), L), A);
    Res = B.CreateInsertElement(Res, V, B.getInt32(L));
  }
  return Res;
}

void rewrite(llvm::IntrinsicInst *G) {
  llvm::IRBuilder<> B(G);
  llvm::Value *Res = laneLoads(B, G);
  Res->takeName(G);
  G->replaceAllUsesWith(Res);
  G->eraseFromParent();
}

/// Gathers under one variable mask `Mask` in one block, first to last in `Gathers`: the
/// block's code from the first to the last is copied, the copy taken where every lane of
/// `Mask` is on and given the constant all-on mask, so its gathers become per-lane loads
/// (returned in `AllOnGathers`). The all-on copies of functions
/// (ir/AllOnSpecialization.cpp) give their gathers the constant mask; but where the copy
/// and the masked body are the same code but for the mask, LLVM's simplifycfg merges
/// them into one body under `all(m) ? all-on : m`, and this brings the copy back for the
/// stretch that needs it, with one mask test.
void versionOnAllOn(llvm::ArrayRef<llvm::IntrinsicInst *> Gathers, llvm::Value *Mask,
                    llvm::SmallVectorImpl<llvm::IntrinsicInst *> &AllOnGathers) {
  llvm::Instruction *First = Gathers.front(), *Last = Gathers.back();
  llvm::BasicBlock *Head = First->getParent();
  llvm::BasicBlock *Masked = Head->splitBasicBlock(First, Head->getName() + ".masked");
  llvm::BasicBlock *Tail =
      Masked->splitBasicBlock(std::next(Last->getIterator()), Head->getName() + ".join");
  llvm::ValueToValueMapTy VMap;
  llvm::BasicBlock *AllOn = llvm::CloneBasicBlock(Masked, VMap, ".allon", Head->getParent());
  llvm::Constant *On = llvm::Constant::getAllOnesValue(Mask->getType());
  for (llvm::Instruction &I : *AllOn) {
    llvm::RemapInstruction(&I, VMap,
                           llvm::RF_NoModuleLevelChanges | llvm::RF_IgnoreMissingLocals);
    I.replaceUsesOfWith(Mask, On);
  }
  for (llvm::IntrinsicInst *G : Gathers)
    AllOnGathers.push_back(llvm::cast<llvm::IntrinsicInst>(VMap[G]));
  // Head: the test; both copies fall into Tail, which takes each value used after them
  // from the copy that ran.
  Head->getTerminator()->eraseFromParent();
  llvm::IRBuilder<> B(Head);
  B.CreateCondBr(B.CreateAndReduce(Mask), AllOn, Masked);
  B.SetInsertPoint(Tail, Tail->begin());
  for (llvm::Instruction &I : *Masked) {
    llvm::SmallVector<llvm::Use *, 4> Outside;
    for (llvm::Use &U : I.uses())
      if (llvm::cast<llvm::Instruction>(U.getUser())->getParent() != Masked)
        Outside.push_back(&U);
    if (Outside.empty())
      continue;
    llvm::PHINode *Phi = B.CreatePHI(I.getType(), 2, I.getName());
    Phi->addIncoming(VMap[&I], AllOn);
    Phi->addIncoming(&I, Masked);
    for (llvm::Use *U : Outside)
      U->set(Phi);
  }
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
  llvm::SmallVector<llvm::IntrinsicInst *, 16> Gathers, Versioned;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
      if (II->getIntrinsicID() == llvm::Intrinsic::masked_gather &&
          llvm::isa<llvm::FixedVectorType>(II->getType()) &&
          !TTI.isLegalMaskedGather(II->getType(), II->getParamAlign(0).valueOrOne())) {
        if (isAllOn(II->getArgOperand(1)))
          Gathers.push_back(II);
        else if (!llvm::isa<llvm::Constant>(II->getArgOperand(1)))
          Versioned.push_back(II);
      }
  // Variable-mask gathers by block and mask, in block order.
  llvm::MapVector<std::pair<llvm::BasicBlock *, llvm::Value *>,
                  llvm::SmallVector<llvm::IntrinsicInst *, 8>>
      Groups;
  for (llvm::IntrinsicInst *G : Versioned)
    Groups[{G->getParent(), G->getArgOperand(1)}].push_back(G);
  llvm::SmallPtrSet<llvm::BasicBlock *, 8> Split;
  for (auto &[Key, Group] : Groups) {
    // One stretch per block (a block split once has moved its code).
    if (!Split.insert(Key.first).second)
      continue;
    // The group's mask as its gathers read it now: an earlier stretch that computed the
    // mask has since sent it through a phi in its join (difftest seed 21781).
    versionOnAllOn(Group, Group.front()->getArgOperand(1), Gathers);
  }
  for (llvm::IntrinsicInst *G : Gathers)
    rewrite(G);
  if (Gathers.empty() && Versioned.empty())
    return llvm::PreservedAnalyses::all();
  // The analyses EarlyCSE asks for must see the new blocks.
  if (!Versioned.empty())
    AM.invalidate(F, llvm::PreservedAnalyses::none());
  // The lanes of a[i] and a[i + 1] extract the same scalars of i: one each.
  llvm::EarlyCSEPass().run(F, AM);
  if (!Versioned.empty())
    return llvm::PreservedAnalyses::none();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
