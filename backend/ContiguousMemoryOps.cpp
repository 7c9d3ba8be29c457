// Turns gathers/scatters whose lanes address consecutive elements into vector loads/stores.
#include "backend/ContiguousMemoryOps.h"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"

namespace spmdc {

namespace {

using namespace llvm::PatternMatch;

/// True if `C` is the vector <0, 1, ..., W-1>.
bool isLaneSequence(llvm::Value *V) {
  auto *C = llvm::dyn_cast<llvm::ConstantDataVector>(V);
  if (!C)
    return false;
  for (unsigned I = 0; I < C->getNumElements(); ++I)
    if (C->getElementAsInteger(I) != I)
      return false;
  return true;
}

/// If `V` is splat(x) + <0..W-1> (as add or disjoint or), returns x.
llvm::Value *matchSplatPlusLanes(llvm::Value *V) {
  llvm::Value *A, *B;
  bool IsAdd = match(V, m_Add(m_Value(A), m_Value(B)));
  auto *Or = llvm::dyn_cast<llvm::PossiblyDisjointInst>(V);
  if (!IsAdd && !(Or && Or->isDisjoint() && match(V, m_Or(m_Value(A), m_Value(B)))))
    return nullptr;
  if (isLaneSequence(A))
    std::swap(A, B);
  if (!isLaneSequence(B))
    return nullptr;
  return llvm::getSplatValue(A);
}

/// For a vector of pointers that are &Base[x + lane], returns &Base[x] (a
/// scalar pointer) built before `InsertBefore`; null otherwise.
llvm::Value *contiguousBase(llvm::Value *Ptrs, llvm::Type *EltTy, llvm::Instruction *InsertBefore) {
  auto *GEP = llvm::dyn_cast<llvm::GetElementPtrInst>(Ptrs);
  if (!GEP || GEP->getNumIndices() != 1 || GEP->getSourceElementType() != EltTy)
    return nullptr;
  llvm::Value *Base = GEP->getPointerOperand();
  if (Base->getType()->isVectorTy()) {
    Base = llvm::getSplatValue(Base);
    if (!Base)
      return nullptr;
  }
  llvm::Value *Idx = GEP->getOperand(1);
  llvm::Value *Inner = Idx;
  bool Signed = true;
  if (auto *Ext = llvm::dyn_cast<llvm::CastInst>(Idx);
      Ext && (Ext->getOpcode() == llvm::Instruction::SExt ||
              Ext->getOpcode() == llvm::Instruction::ZExt)) {
    Inner = Ext->getOperand(0);
    Signed = Ext->getOpcode() == llvm::Instruction::SExt;
  }
  llvm::Value *First = isLaneSequence(Inner)
                           ? llvm::ConstantInt::get(Inner->getType()->getScalarType(), 0)
                           : matchSplatPlusLanes(Inner);
  if (!First)
    return nullptr;
  llvm::IRBuilder<> B(InsertBefore);
  llvm::Value *I64 = B.CreateIntCast(First, B.getInt64Ty(), Signed);
  return B.CreateGEP(EltTy, Base, I64);
}

} // namespace

llvm::PreservedAnalyses ContiguousMemoryOpsPass::run(llvm::Function &F,
                                                     llvm::FunctionAnalysisManager &) {
  std::vector<llvm::IntrinsicInst *> Work;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
      if (II->getIntrinsicID() == llvm::Intrinsic::masked_gather ||
          II->getIntrinsicID() == llvm::Intrinsic::masked_scatter)
        Work.push_back(II);
  bool Changed = false;
  for (llvm::IntrinsicInst *II : Work) {
    bool IsGather = II->getIntrinsicID() == llvm::Intrinsic::masked_gather;
    llvm::Value *Ptrs = II->getArgOperand(IsGather ? 0 : 1);
    llvm::Value *Mask = II->getArgOperand(IsGather ? 1 : 2);
    auto *VecTy = llvm::cast<llvm::FixedVectorType>(IsGather ? II->getType()
                                                             : II->getArgOperand(0)->getType());
    llvm::Value *Base = contiguousBase(Ptrs, VecTy->getElementType(), II);
    if (!Base)
      continue;
    llvm::IRBuilder<> B(II);
    llvm::Align Align = II->getParamAlign(IsGather ? 0 : 1).valueOrOne();
    if (IsGather) {
      llvm::Value *L = B.CreateMaskedLoad(VecTy, Base, Align, Mask, II->getArgOperand(2));
      II->replaceAllUsesWith(L);
    } else {
      B.CreateMaskedStore(II->getArgOperand(0), Base, Align, Mask);
    }
    II->eraseFromParent();
    Changed = true;
  }
  return Changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace spmdc
