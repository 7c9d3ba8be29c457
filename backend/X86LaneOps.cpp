// Gang lanes as SIMD vector lanes: varying T is <W x T>, masks are <W x i1>.
#include "backend/LaneOps.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace spmdc {

namespace {

class X86LaneOps : public LaneOps {
public:
  X86LaneOps(llvm::IRBuilder<> &B, unsigned Width, unsigned RegisterLanes)
      : LaneOps(B, Width), RegisterLanes(RegisterLanes) {}

  llvm::Type *varying(llvm::Type *Scalar) override { return llvm::FixedVectorType::get(Scalar, W); }
  llvm::Value *splat(llvm::Value *V) override { return B.CreateVectorSplat(W, V); }

  llvm::Value *laneIndex() override { return sequence(B.getInt32Ty()); }
  llvm::Value *laneIndex64() override { return sequence(B.getInt64Ty()); }

  llvm::Value *any(llvm::Value *M) override { return B.CreateOrReduce(M); }
  llvm::Value *all(llvm::Value *M) override { return B.CreateAndReduce(M); }
  llvm::Value *bits(llvm::Value *M) override {
    return B.CreateZExt(B.CreateBitCast(M, B.getIntNTy(W)), B.getInt64Ty());
  }

  llvm::Value *extract(llvm::Value *V, llvm::Value *Lane) override {
    return B.CreateExtractElement(V, Lane);
  }
  llvm::Value *insert(llvm::Value *V, llvm::Value *Lane, llvm::Value *X) override {
    return B.CreateInsertElement(V, X, Lane);
  }

  llvm::Value *permute(const std::vector<llvm::Value *> &Sources, llvm::Value *Idx,
                       llvm::Value *Valid) override {
    // Lane moves stay in registers: a constant-mask shufflevector when every index is
    // known (also once LLVM has folded a uniform amount: it folds the permute
    // intrinsics below with constant indices into shufflevectors), else the target's
    // variable permute (pshufb, vpermd); only element types those cannot carry go
    // through memory. ISPC's rotate/shift store the vector twice and reload it at an
    // offset (docs/decisions.md).
    llvm::Value *R = constantPermute(Sources, Idx);
    if (!R)
      R = registerPermute(Sources, Idx);
    if (!R)
      return memoryPermute(Sources, Idx, Valid);
    if (auto *C = llvm::dyn_cast<llvm::Constant>(Valid); C && C->isAllOnesValue())
      return R;
    return B.CreateSelect(Valid, R, llvm::Constant::getNullValue(R->getType()));
  }

  llvm::Value *reduce(ReduceKind K, llvm::Value *V, llvm::Value *M, bool Float,
                      bool Signed) override {
    llvm::Type *ET = V->getType()->getScalarType();
    llvm::Value *Id = identity(K, ET, Float, Signed);
    llvm::Value *Active = B.CreateSelect(M, V, splat(Id));
    switch (K) {
    case ReduceKind::Add:
      return Float ? B.CreateFAddReduce(llvm::ConstantFP::get(ET, 0.0), Active)
                   : B.CreateAddReduce(Active);
    case ReduceKind::Min:
      return Float ? B.CreateFPMinReduce(Active) : B.CreateIntMinReduce(Active, Signed);
    case ReduceKind::Max:
      return Float ? B.CreateFPMaxReduce(Active) : B.CreateIntMaxReduce(Active, Signed);
    }
    return nullptr;
  }

  llvm::Value *gather(llvm::Type *Ty, llvm::Value *Ptrs, llvm::Align A, llvm::Value *M) override {
    return B.CreateMaskedGather(Ty, Ptrs, A, M);
  }
  void scatter(llvm::Value *V, llvm::Value *Ptrs, llvm::Align A, llvm::Value *M) override {
    if (!V->getType()->isVectorTy())
      V = splat(V);
    B.CreateMaskedScatter(V, Ptrs, A, M);
  }
  void maskedStore(llvm::Value *V, llvm::Value *Ptr, llvm::Align A, llvm::Value *M) override {
    B.CreateMaskedStore(V, Ptr, A, M);
  }

  llvm::Value *perLane(llvm::Value *Mask, llvm::Type *ResultScalar,
                       const std::function<llvm::Value *(const LaneValue &)> &Body) override {
    // W guarded blocks, lane after lane; results collected in a slot.
    llvm::Value *Slot = nullptr;
    llvm::Type *ResTy = ResultScalar ? varying(ResultScalar) : nullptr;
    if (ResTy) {
      Slot = entryAlloca(ResTy);
      B.CreateStore(llvm::PoisonValue::get(ResTy), Slot);
    }
    llvm::LLVMContext &Ctx = B.getContext();
    for (unsigned L = 0; L < W; ++L) {
      auto *Then = llvm::BasicBlock::Create(Ctx, "lane", function());
      auto *Next = llvm::BasicBlock::Create(Ctx, "lane.next", function());
      B.CreateCondBr(B.CreateExtractElement(Mask, B.getInt32(L)), Then, Next);
      B.SetInsertPoint(Then);
      llvm::Value *R = Body([&](llvm::Value *V) {
        return V->getType()->isVectorTy() ? B.CreateExtractElement(V, B.getInt32(L)) : V;
      });
      if (Slot && R)
        B.CreateStore(B.CreateInsertElement(B.CreateLoad(ResTy, Slot), R, B.getInt32(L)), Slot);
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
    }
    return Slot ? B.CreateLoad(ResTy, Slot) : nullptr;
  }

  llvm::Value *once(llvm::Value *, const std::function<llvm::Value *()> &Body) override {
    return Body();
  }

  void partialBarrier(unsigned, unsigned) override {
    B.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  }

private:
  /// 32-bit lanes in one register of the target: 4 (SSE4), 8 (AVX2), 16 (AVX-512).
  unsigned RegisterLanes;

  /// `permute` as one shufflevector when `Idx` is a constant: lanes whose index lies
  /// outside the sources are poison (the caller's `Valid` is false there).
  llvm::Value *constantPermute(const std::vector<llvm::Value *> &Sources, llvm::Value *Idx) {
    auto *C = llvm::dyn_cast<llvm::Constant>(Idx);
    if (!C || Sources.size() > 2)
      return nullptr;
    unsigned Total = W * Sources.size();
    std::vector<int> Mask;
    for (unsigned I = 0; I < W; ++I) {
      auto *Lane = llvm::dyn_cast_or_null<llvm::ConstantInt>(C->getAggregateElement(I));
      if (!Lane) {
        if (C->getAggregateElement(I) && llvm::isa<llvm::UndefValue>(C->getAggregateElement(I))) {
          Mask.push_back(llvm::PoisonMaskElem);
          continue;
        }
        return nullptr; // a constant expression
      }
      uint64_t From = Lane->getZExtValue();
      Mask.push_back(From < Total ? int(From) : llvm::PoisonMaskElem);
    }
    if (Sources.size() == 1)
      return B.CreateShuffleVector(Sources[0], Mask);
    return B.CreateShuffleVector(Sources[0], Sources[1], Mask);
  }

  /// `permute` with a varying index, in registers: every element type as 32-bit lanes
  /// (64-bit lanes as two, narrower ones widened), then the target's 32-bit permute.
  /// Null for element types that are not integers or floating point.
  llvm::Value *registerPermute(const std::vector<llvm::Value *> &Sources, llvm::Value *Idx) {
    llvm::Type *VT = Sources[0]->getType();
    llvm::Type *Elt = VT->getScalarType();
    if (!Elt->isIntegerTy() && !Elt->isFloatingPointTy())
      return nullptr;
    unsigned Bits = Elt->getPrimitiveSizeInBits();
    llvm::Type *I32 = B.getInt32Ty();
    llvm::Type *IntElt = B.getIntNTy(Bits);
    std::vector<llvm::Value *> Words;
    if (Bits == 32 || Bits == 64) {
      for (llvm::Value *S : Sources)
        Words.push_back(B.CreateBitCast(S, llvm::FixedVectorType::get(I32, W * Bits / 32)));
      if (Bits == 64) {
        // Lane i's two words are words 2i and 2i + 1.
        llvm::Value *Even = B.CreateShl(Idx, splat(B.getInt32(1)));
        llvm::Value *Odd = B.CreateOr(Even, splat(B.getInt32(1)));
        std::vector<int> Interleave;
        for (unsigned I = 0; I < W; ++I) {
          Interleave.push_back(I);
          Interleave.push_back(W + I);
        }
        Idx = B.CreateShuffleVector(Even, Odd, Interleave);
      }
      llvm::Value *R = permuteWords(Words, Idx);
      return R ? B.CreateBitCast(R, VT) : nullptr;
    }
    if (Bits > 32)
      return nullptr;
    for (llvm::Value *S : Sources)
      Words.push_back(B.CreateZExt(B.CreateBitCast(S, varying(IntElt)), varying(I32)));
    llvm::Value *R = permuteWords(Words, Idx);
    return R ? B.CreateBitCast(B.CreateTrunc(R, varying(IntElt)), VT) : nullptr;
  }

  /// Lane i of the result is word Idx[i] (taken modulo the sources' words where it is
  /// outside them) of the concatenated <N x i32> `Sources`, one target register at a
  /// time: each register of the result picks from every register of the sources and a
  /// blend on the index's high bits keeps the right one (ISPC's avx2-i32x16 shuffle).
  llvm::Value *permuteWords(const std::vector<llvm::Value *> &Sources, llvm::Value *Idx) {
    unsigned R = RegisterLanes;
    unsigned N = llvm::cast<llvm::FixedVectorType>(Sources[0]->getType())->getNumElements();
    unsigned M = llvm::cast<llvm::FixedVectorType>(Idx->getType())->getNumElements();
    if (N % R != 0 || M % R != 0)
      return nullptr;
    std::vector<llvm::Value *> Parts;
    for (llvm::Value *S : Sources)
      for (unsigned K = 0; K < N; K += R)
        Parts.push_back(slice(S, K, R));
    // AVX-512's vpermi2d permutes two registers in one instruction.
    unsigned Group = R == 16 && Parts.size() >= 2 ? 2 : 1;
    unsigned Groups = Parts.size() / Group;
    std::vector<llvm::Value *> Out;
    for (unsigned J = 0; J < M; J += R) {
      llvm::Value *IdxJ = slice(Idx, J, R);
      llvm::Value *Picked = nullptr;
      for (unsigned G = 0; G < Groups; ++G) {
        llvm::Value *FromGroup =
            Group == 2 ? B.CreateIntrinsic(llvm::Intrinsic::x86_avx512_vpermi2var_d_512, {},
                                           {Parts[2 * G], IdxJ, Parts[2 * G + 1]})
                       : registerWordPermute(Parts[G], IdxJ);
        if (!Picked) {
          Picked = FromGroup;
          continue;
        }
        llvm::Value *GroupOf = B.CreateAnd(B.CreateLShr(IdxJ, splat(R, B.getInt32(llvm::Log2_32(R * Group)))),
                                           splat(R, B.getInt32(Groups - 1)));
        Picked = B.CreateSelect(B.CreateICmpEQ(GroupOf, splat(R, B.getInt32(G))), FromGroup, Picked);
      }
      Out.push_back(Picked);
    }
    return concat(Out);
  }

  /// One register's permute of 32-bit words; only the index's low bits count.
  llvm::Value *registerWordPermute(llvm::Value *Words, llvm::Value *Idx) {
    switch (RegisterLanes) {
    case 16:
      return B.CreateIntrinsic(llvm::Intrinsic::x86_avx512_permvar_si_512, {}, {Words, Idx});
    case 8:
      return B.CreateIntrinsic(llvm::Intrinsic::x86_avx2_permd, {}, {Words, Idx});
    default: {
      // pshufb: word k's bytes are bytes 4k..4k+3, each lane's index times 0x04040404
      // plus 0x03020100 (ISPC's SSE4 shuffle).
      llvm::Value *K = B.CreateAnd(Idx, splat(4, B.getInt32(3)));
      llvm::Value *Bytes = B.CreateAdd(B.CreateMul(K, splat(4, B.getInt32(0x04040404))),
                                       splat(4, B.getInt32(0x03020100)));
      auto *V16 = llvm::FixedVectorType::get(B.getInt8Ty(), 16);
      llvm::Value *R = B.CreateIntrinsic(llvm::Intrinsic::x86_ssse3_pshuf_b_128, {},
                                         {B.CreateBitCast(Words, V16), B.CreateBitCast(Bytes, V16)});
      return B.CreateBitCast(R, Words->getType());
    }
    }
  }

  llvm::Value *splat(unsigned N, llvm::Value *V) { return B.CreateVectorSplat(N, V); }
  /// Lanes [From, From + N) of the vector `V`.
  llvm::Value *slice(llvm::Value *V, unsigned From, unsigned N) {
    if (From == 0 && llvm::cast<llvm::FixedVectorType>(V->getType())->getNumElements() == N)
      return V;
    std::vector<int> Mask;
    for (unsigned I = 0; I < N; ++I)
      Mask.push_back(From + I);
    return B.CreateShuffleVector(V, Mask);
  }
  /// The registers side by side, as one vector.
  llvm::Value *concat(std::vector<llvm::Value *> Parts) {
    while (Parts.size() > 1) {
      std::vector<llvm::Value *> Next;
      for (size_t I = 0; I + 1 < Parts.size(); I += 2) {
        unsigned N = llvm::cast<llvm::FixedVectorType>(Parts[I]->getType())->getNumElements();
        std::vector<int> Mask;
        for (unsigned K = 0; K < 2 * N; ++K)
          Mask.push_back(K);
        Next.push_back(B.CreateShuffleVector(Parts[I], Parts[I + 1], Mask));
      }
      Parts = Next;
    }
    return Parts[0];
  }

  /// The general `permute`: the sources spilled side by side, the lanes gathered back.
  llvm::Value *memoryPermute(const std::vector<llvm::Value *> &Sources, llvm::Value *Idx,
                             llvm::Value *Valid) {
    llvm::Type *VT = Sources[0]->getType();
    bool IsBool = VT->getScalarType()->isIntegerTy(1);
    llvm::Type *MemVT = IsBool ? varying(B.getInt8Ty()) : VT;
    auto *ArrTy = llvm::ArrayType::get(MemVT, Sources.size());
    llvm::Value *Tmp = entryAlloca(ArrTy);
    for (size_t I = 0; I < Sources.size(); ++I) {
      llvm::Value *S = IsBool ? B.CreateZExt(Sources[I], MemVT) : Sources[I];
      B.CreateStore(S, B.CreateConstGEP2_32(ArrTy, Tmp, 0, I));
    }
    llvm::Type *Elt = MemVT->getScalarType();
    llvm::Value *Ptrs = B.CreateGEP(Elt, splat(Tmp), Idx);
    llvm::Value *R = B.CreateMaskedGather(MemVT, Ptrs, llvm::Align(Elt->getScalarSizeInBits() / 8),
                                          Valid, llvm::Constant::getNullValue(MemVT));
    return IsBool ? B.CreateTrunc(R, VT) : R;
  }

  llvm::Constant *sequence(llvm::Type *T) {
    std::vector<llvm::Constant *> Lanes;
    for (unsigned I = 0; I < W; ++I)
      Lanes.push_back(llvm::ConstantInt::get(T, I));
    return llvm::ConstantVector::get(Lanes);
  }
};

} // namespace

std::unique_ptr<LaneOps> createX86LaneOps(llvm::IRBuilder<> &B, unsigned Width,
                                          const std::string &ISA) {
  unsigned RegisterLanes = ISA == "sse4" ? 4 : ISA == "avx2" ? 8 : 16;
  return std::make_unique<X86LaneOps>(B, Width, RegisterLanes);
}

} // namespace spmdc
