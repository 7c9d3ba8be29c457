// Gang lanes as the 32 threads of a warp: varying T is each thread's T, cross-lane
// operations are warp votes and shuffles over the full warp.
#include "backend/LaneOps.h"

#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

namespace spmdc {

namespace {

constexpr uint32_t FullWarp = 0xffffffffu;
/// shfl's clamp operand for a whole warp: source lanes 0..31.
constexpr uint32_t WarpClamp = 0x1f;

class NVPTXLaneOps : public LaneOps {
public:
  explicit NVPTXLaneOps(llvm::IRBuilder<> &B) : LaneOps(B, 32) {}

  llvm::Type *varying(llvm::Type *Scalar) override { return Scalar; }
  llvm::Value *splat(llvm::Value *V) override { return V; }

  llvm::Value *laneIndex() override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_laneid,
                             llvm::ArrayRef<llvm::Type *>{}, llvm::ArrayRef<llvm::Value *>{});
  }
  llvm::Value *laneIndex64() override { return B.CreateZExt(laneIndex(), B.getInt64Ty()); }

  llvm::Value *any(llvm::Value *M) override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_any_sync, {}, {B.getInt32(FullWarp), M});
  }
  llvm::Value *all(llvm::Value *M) override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_all_sync, {}, {B.getInt32(FullWarp), M});
  }
  llvm::Value *bits(llvm::Value *M) override { return B.CreateZExt(ballot(M), B.getInt64Ty()); }

  llvm::Value *extract(llvm::Value *V, llvm::Value *Lane) override { return shuffle(V, Lane); }
  llvm::Value *insert(llvm::Value *V, llvm::Value *Lane, llvm::Value *X) override {
    return B.CreateSelect(B.CreateICmpEQ(laneIndex(), Lane), X, V);
  }

  llvm::Value *permute(const std::vector<llvm::Value *> &Sources, llvm::Value *Idx,
                       llvm::Value *Valid) override {
    // Every thread takes part in every shuffle; then each picks its source.
    llvm::Value *Within = B.CreateAnd(Idx, B.getInt32(31));
    llvm::Value *R = shuffle(Sources[0], Within);
    for (size_t I = 1; I < Sources.size(); ++I) {
      llvm::Value *RI = shuffle(Sources[I], Within);
      R = B.CreateSelect(B.CreateICmpUGE(Idx, B.getInt32(32 * I)), RI, R);
    }
    return B.CreateSelect(Valid, R, llvm::Constant::getNullValue(R->getType()));
  }

  llvm::Value *reduce(ReduceKind K, llvm::Value *V, llvm::Value *M, bool Float,
                      bool Signed) override {
    llvm::Value *Acc = B.CreateSelect(M, V, identity(K, V->getType(), Float, Signed));
    for (unsigned Offset = 16; Offset > 0; Offset /= 2) {
      llvm::Value *Other = butterfly(Acc, Offset);
      Acc = combine(K, Acc, Other, Float, Signed);
    }
    return Acc;
  }

  llvm::Value *gather(llvm::Type *Ty, llvm::Value *Ptr, llvm::Align A, llvm::Value *M) override {
    return guarded(M, [&] { return B.CreateAlignedLoad(Ty, Ptr, A); });
  }
  void scatter(llvm::Value *V, llvm::Value *Ptr, llvm::Align A, llvm::Value *M) override {
    guarded(M, [&]() -> llvm::Value * {
      B.CreateAlignedStore(V, Ptr, A);
      return nullptr;
    });
  }
  void maskedStore(llvm::Value *V, llvm::Value *Ptr, llvm::Align A, llvm::Value *M) override {
    scatter(V, Ptr, A, M);
  }

  llvm::Value *perLane(llvm::Value *M, llvm::Type *ResultScalar,
                       const std::function<llvm::Value *(const LaneValue &)> &Body) override {
    (void)ResultScalar; // each thread's own result is already the varying value
    return guarded(M, [&] { return Body([](llvm::Value *V) { return V; }); });
  }

  llvm::Value *once(llvm::Value *M, const std::function<llvm::Value *()> &Body) override {
    llvm::Value *First = B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, ballot(M), B.getTrue());
    llvm::Value *Elected = B.CreateICmpEQ(laneIndex(), First);
    llvm::Value *Inside = guarded(Elected, Body);
    return Inside ? shuffle(Inside, First) : nullptr;
  }

  /// `bar.sync Id, Threads`: the warps of the block that reach it with the
  /// same id wait until `Threads` threads have arrived.
  void partialBarrier(unsigned Id, unsigned Threads) override {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_count, {},
                      {B.getInt32(Id), B.getInt32(Threads)});
  }

private:
  llvm::Value *ballot(llvm::Value *M) {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_vote_ballot_sync, {}, {B.getInt32(FullWarp), M});
  }

  /// `if (Cond) R = Body();` with R after (an arbitrary but fixed value where
  /// Cond is false); null when the body gives no value. Frozen, not plain
  /// poison: the SPMD IR runs some ops on every lane without a mask (a load
  /// from a local array at an index a masked gather gave, ...), and from
  /// poison there LLVM proves the lane on (a load through a poison address is
  /// undefined: SimplifyCFG turns the branch into llvm.assume(Cond)), folding
  /// the mask of the whole region to true. Floats too: difftest seeds 300606
  /// and 300122 differed with plain poison for floats. Not zero either: a
  /// materialized zero per guarded load costs registers (Black-Scholes: 34
  /// instead of 32, a quarter fewer warps per SM). Where only a select on Cond
  /// reads the value, backend/MaskedMergeUnfreeze.cpp drops the freeze again.
  llvm::Value *guarded(llvm::Value *Cond, const std::function<llvm::Value *()> &Body) {
    llvm::LLVMContext &Ctx = B.getContext();
    llvm::BasicBlock *From = B.GetInsertBlock();
    auto *Then = llvm::BasicBlock::Create(Ctx, "lane.on", function());
    auto *Join = llvm::BasicBlock::Create(Ctx, "lane.join", function());
    B.CreateCondBr(Cond, Then, Join);
    B.SetInsertPoint(Then);
    llvm::Value *R = Body();
    llvm::BasicBlock *ThenEnd = B.GetInsertBlock();
    B.CreateBr(Join);
    B.SetInsertPoint(Join);
    if (!R)
      return nullptr;
    llvm::PHINode *Phi = B.CreatePHI(R->getType(), 2);
    Phi->addIncoming(R, ThenEnd);
    Phi->addIncoming(llvm::PoisonValue::get(R->getType()), From);
    return B.CreateFreeze(Phi);
  }

  /// shfl.sync.idx of any scalar type, in 32-bit pieces.
  llvm::Value *shuffle(llvm::Value *V, llvm::Value *SrcLane) {
    return bySlices(V, [&](llvm::Value *Piece) {
      return B.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_idx_i32, {},
                               {B.getInt32(FullWarp), Piece, SrcLane, B.getInt32(WarpClamp)});
    });
  }
  llvm::Value *butterfly(llvm::Value *V, unsigned Offset) {
    return bySlices(V, [&](llvm::Value *Piece) {
      return B.CreateIntrinsic(
          llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
          {B.getInt32(FullWarp), Piece, B.getInt32(Offset), B.getInt32(WarpClamp)});
    });
  }

  /// Moves `V` through a 32-bit shuffle: narrower values widen, 64-bit values
  /// go as two halves, floats and pointers as their bits.
  llvm::Value *bySlices(llvm::Value *V, const std::function<llvm::Value *(llvm::Value *)> &Move) {
    llvm::Type *T = V->getType();
    const llvm::DataLayout &DL = B.GetInsertBlock()->getModule()->getDataLayout();
    unsigned Bits = T->isPointerTy() ? DL.getPointerSizeInBits() : T->getPrimitiveSizeInBits();
    llvm::Type *IntTy = B.getIntNTy(Bits);
    llvm::Value *I = T->isPointerTy() ? B.CreatePtrToInt(V, IntTy) : B.CreateBitCast(V, IntTy);
    llvm::Value *R;
    if (Bits <= 32) {
      R = B.CreateTrunc(Move(B.CreateZExt(I, B.getInt32Ty())), IntTy);
    } else {
      llvm::Value *Lo = Move(B.CreateTrunc(I, B.getInt32Ty()));
      llvm::Value *Hi = Move(B.CreateTrunc(B.CreateLShr(I, 32), B.getInt32Ty()));
      R = B.CreateOr(B.CreateZExt(Lo, IntTy), B.CreateShl(B.CreateZExt(Hi, IntTy), 32));
    }
    return T->isPointerTy() ? B.CreateIntToPtr(R, T) : B.CreateBitCast(R, T);
  }

  llvm::Value *combine(ReduceKind K, llvm::Value *A, llvm::Value *C, bool Float, bool Signed) {
    switch (K) {
    case ReduceKind::Add:
      return Float ? B.CreateFAdd(A, C) : B.CreateAdd(A, C);
    case ReduceKind::Min:
      return Float    ? B.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, A, C)
             : Signed ? B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, A, C)
                      : B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, A, C);
    case ReduceKind::Max:
      return Float    ? B.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, A, C)
             : Signed ? B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, A, C)
                      : B.CreateBinaryIntrinsic(llvm::Intrinsic::umax, A, C);
    }
    return A;
  }
};

} // namespace

std::unique_ptr<LaneOps> createNVPTXLaneOps(llvm::IRBuilder<> &B) {
  return std::make_unique<NVPTXLaneOps>(B);
}

} // namespace spmdc
