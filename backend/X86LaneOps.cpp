// Gang lanes as SIMD vector lanes: varying T is <W x T>, masks are <W x i1>.
#include "backend/LaneOps.h"

#include "llvm/IR/Intrinsics.h"

namespace spmdc {

namespace {

class X86LaneOps : public LaneOps {
public:
  using LaneOps::LaneOps;

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
    // Spill the sources side by side and gather the lanes back.
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
  llvm::Constant *sequence(llvm::Type *T) {
    std::vector<llvm::Constant *> Lanes;
    for (unsigned I = 0; I < W; ++I)
      Lanes.push_back(llvm::ConstantInt::get(T, I));
    return llvm::ConstantVector::get(Lanes);
  }
};

} // namespace

std::unique_ptr<LaneOps> createX86LaneOps(llvm::IRBuilder<> &B, unsigned Width) {
  return std::make_unique<X86LaneOps>(B, Width);
}

} // namespace spmdc
