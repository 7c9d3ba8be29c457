// Lane votes (any, all, none of a mask) by movmsk and a scalar compare on AVX2.
#include "backend/X86MovmskVotes.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/PatternMatch.h"

#include <vector>

namespace spmdc {

namespace {

/// The lane width of the compares a mask comes from (through and/or/xor of masks), or 32
/// where it cannot be seen (a sign extension to 32 bits is free for 32-bit compares and
/// one pack for 64-bit ones).
unsigned maskLaneBits(llvm::Value *Mask, unsigned Depth = 0) {
  if (auto *Cmp = llvm::dyn_cast<llvm::CmpInst>(Mask)) {
    llvm::Type *T = Cmp->getOperand(0)->getType()->getScalarType();
    return T->isPointerTy() ? 64 : T->getPrimitiveSizeInBits().getFixedValue();
  }
  auto *Logic = llvm::dyn_cast<llvm::BinaryOperator>(Mask);
  if (Logic && Depth < 8 && Logic->isBitwiseLogicOp())
    for (llvm::Value *Op : Logic->operands())
      if (!llvm::isa<llvm::Constant>(Op))
        return maskLaneBits(Op, Depth + 1);
  return 32;
}

/// One vote: `icmp Pred (Cast = bitcast Mask to iW), 0 or -1`.
struct Vote {
  llvm::ICmpInst *Cmp;
  llvm::BitCastInst *Cast;
  llvm::Value *Mask;
  bool AgainstAllOnes; // all / not all, else any / none
};

bool matchVote(llvm::ICmpInst &I, Vote &V) {
  using namespace llvm::PatternMatch;
  auto *Cast = llvm::dyn_cast<llvm::BitCastInst>(I.getOperand(0));
  if (!I.isEquality() || !Cast)
    return false;
  llvm::Value *Mask = Cast->getOperand(0);
  auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(Mask->getType());
  if (!VT || !VT->getElementType()->isIntegerTy(1))
    return false;
  if (match(I.getOperand(1), m_Zero()))
    V = {&I, Cast, Mask, false};
  else if (match(I.getOperand(1), m_AllOnes()))
    V = {&I, Cast, Mask, true};
  else
    return false;
  return true;
}

/// movmsk of Mask sign-extended to LaneBits-bit lanes, the 256-bit parts combined by
/// `and` (an all-ones vote) or `or` (a zero vote) first; null where the lanes do not fill
/// 128 or a whole number of 256 bits. *Bits: how many bits the result has.
llvm::Value *movmsk(llvm::IRBuilder<> &B, llvm::Value *Mask, unsigned LaneBits, bool And,
                    unsigned *Bits) {
  unsigned Lanes = llvm::cast<llvm::FixedVectorType>(Mask->getType())->getNumElements();
  unsigned Total = Lanes * LaneBits;
  if ((LaneBits != 32 && LaneBits != 64) || (Total != 128 && Total % 256 != 0))
    return nullptr;
  llvm::Value *Wide = B.CreateSExt(Mask, llvm::FixedVectorType::get(B.getIntNTy(LaneBits), Lanes));
  unsigned PartLanes = std::min(Total, 256u) / LaneBits;
  llvm::Value *Part = nullptr;
  for (unsigned First = 0; First < Lanes; First += PartLanes) {
    std::vector<int> Indices;
    for (unsigned L = 0; L < PartLanes; ++L)
      Indices.push_back(First + L);
    llvm::Value *Next = PartLanes == Lanes ? Wide : B.CreateShuffleVector(Wide, Indices);
    Part = !Part ? Next : And ? B.CreateAnd(Part, Next) : B.CreateOr(Part, Next);
  }
  llvm::Type *FloatTy = LaneBits == 32 ? B.getFloatTy() : B.getDoubleTy();
  llvm::Value *AsFloat = B.CreateBitCast(Part, llvm::FixedVectorType::get(FloatTy, PartLanes));
  llvm::Intrinsic::ID Op = PartLanes * LaneBits == 256
                               ? (LaneBits == 32 ? llvm::Intrinsic::x86_avx_movmsk_ps_256
                                                 : llvm::Intrinsic::x86_avx_movmsk_pd_256)
                               : (LaneBits == 32 ? llvm::Intrinsic::x86_sse_movmsk_ps
                                                 : llvm::Intrinsic::x86_sse2_movmsk_pd);
  *Bits = PartLanes;
  return B.CreateIntrinsic(Op, llvm::ArrayRef<llvm::Type *>{}, {AsFloat});
}

} // namespace

llvm::PreservedAnalyses X86MovmskVotesPass::run(llvm::Function &F,
                                                llvm::FunctionAnalysisManager &) {
  if (!Enabled)
    return llvm::PreservedAnalyses::all();
  std::vector<Vote> Votes;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *Cmp = llvm::dyn_cast<llvm::ICmpInst>(&I)) {
      Vote V;
      if (matchVote(*Cmp, V))
        Votes.push_back(V);
    }
  bool Changed = false;
  for (const Vote &V : Votes) {
    llvm::IRBuilder<> B(V.Cmp);
    unsigned Bits = 0;
    llvm::Value *Sign = movmsk(B, V.Mask, maskLaneBits(V.Mask), V.AgainstAllOnes, &Bits);
    if (!Sign)
      continue;
    // Signed compares of the bits (0 <= bits <= All): an equality or unsigned compare
    // would be matched back into vtestps.
    const int64_t All = (int64_t(1) << Bits) - 1;
    const bool Equal = V.Cmp->getPredicate() == llvm::ICmpInst::ICMP_EQ;
    llvm::Value *Result =
        V.AgainstAllOnes ? (Equal ? B.CreateICmpSGT(Sign, B.getInt32(All - 1))   // all
                                  : B.CreateICmpSLT(Sign, B.getInt32(All)))      // not all
                         : (Equal ? B.CreateICmpSLT(Sign, B.getInt32(1))         // none
                                  : B.CreateICmpSGT(Sign, B.getInt32(0)));       // any
    Result->takeName(V.Cmp);
    V.Cmp->replaceAllUsesWith(Result);
    V.Cmp->eraseFromParent();
    if (V.Cast->use_empty()) // another vote on the same mask may still read it
      V.Cast->eraseFromParent();
    Changed = true;
  }
  if (!Changed)
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
