// The standard library functions that cannot be written in .spmd: target hooks.
//
// Single instructions (sqrt, floor, min, ...) map to LLVM intrinsics; votes,
// reductions and lane moves go through LaneOps, so each hook is written once
// for x86 and NVPTX. Transcendental functions (exp, log, pow, sin, ...) are
// written in .spmd (stdlib/math.spmd) and need no hook.
#include "backend/StdlibHooks.h"

#include "backend/LaneOps.h"
#include "backend/NVPTXMath.h"
#include "frontend/Types.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"

#include <functional>
#include <map>
#include <optional>

namespace spmdc {

namespace {

using llvm::Intrinsic::ID;

class Hooks {
public:
  Hooks(const HookCall &C, llvm::IRBuilder<> &B, LaneOps &Lanes, bool GPU)
      : C(C), A(C.Args), B(B), L(Lanes), GPU(GPU), M(C.Mask) {
    const Type *T0 = C.ArgTypes.empty() ? nullptr : C.ArgTypes[0];
    Float = T0 && T0->isFloatingPoint();
    Signed = T0 && (T0->isSignedInteger() || T0->isEnum());
  }

  /// Null: no hook. `Void` marks a hook without a result.
  llvm::Value *emit() {
    const std::string &N = C.Name;
    size_t K = A.size();
    if (K == 1)
      if (auto ID = unaryMath(N))
        return B.CreateUnaryIntrinsic(*ID, A[0]);
    // The _fast forms may be less precise (ISPC: no Newton-Raphson step); spmdc gives
    // the correctly rounded quotient for both.
    if ((N == "rsqrt" || N == "rcp" || N == "rsqrt_fast" || N == "rcp_fast") && K == 1) {
      llvm::Value *X = N.rfind("rsqrt", 0) == 0
                           ? B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, A[0])
                           : A[0];
      return B.CreateFDiv(llvm::ConstantFP::get(X->getType(), 1.0), X);
    }
    if ((N == "spmd_rcp_estimate" || N == "spmd_rsqrt_estimate") && K == 1)
      return estimate(N == "spmd_rcp_estimate");
    if ((N == "spmd_rcp14" || N == "spmd_rsqrt14") && K == 1 && !GPU)
      return estimate14(N == "spmd_rcp14", A[0]);
    if ((N == "spmd_rcp14_refined" || N == "spmd_rsqrt14_refined") && K == 1 && !GPU)
      return refined14(N == "spmd_rcp14_refined");
    if (N == "spmd_scalef" && K == 2 && !GPU)
      return scalef(A[0], A[1]);
    if ((N == "spmd_not_normal" || N == "spmd_not_positive_normal") && K == 1 && !GPU &&
        A[0]->getType()->isVectorTy())
      return notNormal(A[0], /*NegativeToo=*/N == "spmd_not_positive_normal");
    if (N == "spmd_fma" && K == 3)
      return B.CreateIntrinsic(llvm::Intrinsic::fma, {A[0]->getType()}, {A[0], A[1], A[2]});
    if (N == "abs" && K == 1)
      return Float ? B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, A[0])
                   : B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, A[0], B.getFalse());
    if ((N == "min" || N == "max") && K == 2)
      return minMax(N == "min", A[0], A[1]);
    if (N == "clamp" && K == 3)
      return minMax(true, minMax(false, A[0], A[1]), A[2]);
    if (auto ID = saturating(N); ID && K == 2)
      return N == "saturating_mul" ? B.CreateIntrinsic(*ID, {A[0]->getType()},
                                                       {A[0], A[1], B.getInt32(0)})
                                   : B.CreateBinaryIntrinsic(*ID, A[0], A[1]);
    if ((N == "count_leading_zeros" || N == "count_trailing_zeros") && K == 1)
      return B.CreateBinaryIntrinsic(N == "count_leading_zeros" ? llvm::Intrinsic::ctlz
                                                                : llvm::Intrinsic::cttz,
                                     A[0], B.getFalse());
    if ((N == "intbits" || N == "floatbits" || N == "doublebits" || N == "float16bits") &&
        K == 1)
      return B.CreateBitCast(A[0], C.ResultLLVM);

    // Votes over the active lanes.
    if ((N == "any" || N == "all" || N == "none") && K == 1) {
      llvm::Value *V = vary(A[0]);
      if (N == "all")
        return L.all(B.CreateOr(V, B.CreateNot(M)));
      llvm::Value *Any = L.any(B.CreateAnd(V, M));
      return N == "none" ? B.CreateNot(Any) : Any;
    }
    if (N == "spmd_all_bits_clear" && K == 2) {
      // No active lane has a bit of the mask set. On x86 an or-reduction compared with 0,
      // which the back end emits as one vptest; the per-lane compare that all() would
      // take is what InstCombine turns a range test into (an unsigned min and a compare).
      if (!C.ArgTypes[0]->isVarying()) // the uniform overload: one test
        return B.CreateICmpEQ(B.CreateAnd(A[0], A[1]),
                              llvm::Constant::getNullValue(A[0]->getType()));
      llvm::Value *Bits = B.CreateAnd(A[0], vary(A[1]));
      if (GPU)
        return L.all(B.CreateOr(B.CreateICmpEQ(Bits, llvm::Constant::getNullValue(Bits->getType())),
                                B.CreateNot(M)));
      llvm::Value *Active = B.CreateSelect(M, Bits, llvm::Constant::getNullValue(Bits->getType()));
      llvm::Value *Any = B.CreateOrReduce(Active);
      return B.CreateICmpEQ(Any, llvm::Constant::getNullValue(Any->getType()));
    }
    if (N == "popcnt" && K == 1)
      return C.ArgTypes[0]->isBool()
                 ? count(B.CreateAnd(vary(A[0]), M))
                 : B.CreateIntCast(B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, A[0]),
                                   C.ResultLLVM, false);
    if (N == "lanemask" && K == 0)
      return B.CreateZExtOrTrunc(L.bits(M), C.ResultLLVM);
    if (N == "packmask" && K == 1)
      return B.CreateZExtOrTrunc(L.bits(B.CreateAnd(vary(A[0]), M)), C.ResultLLVM);

    // Reductions and lane moves.
    if (K == 1 && C.ArgTypes[0]->isVarying()) {
      if (N == "reduce_add")
        return L.reduce(ReduceKind::Add, A[0], M, Float, Signed);
      if (N == "reduce_min")
        return L.reduce(ReduceKind::Min, A[0], M, Float, Signed);
      if (N == "reduce_max")
        return L.reduce(ReduceKind::Max, A[0], M, Float, Signed);
    }
    if (N == "reduce_equal" && (K == 1 || K == 2))
      return reduceEqual();
    if (N.rfind("exclusive_scan_", 0) == 0 && K == 1)
      return exclusiveScan(N.substr(15));
    if (N == "extract" && K == 2)
      return L.extract(A[0], i32(A[1]));
    if (N == "insert" && K == 3)
      return L.insert(A[0], i32(A[1]), A[2]);
    if (N == "broadcast" && K == 2)
      return L.splat(L.extract(A[0], i32(A[1])));
    if ((N == "shuffle" || N == "rotate" || N == "shift") && K == 2)
      return laneMove(N);
    if (N == "shuffle" && K == 3) {
      llvm::Value *Idx = B.CreateAnd(i32(vary(A[2])), L.splat(B.getInt32(2 * L.width() - 1)));
      return L.permute({A[0], A[1]}, Idx, allOn());
    }

    // Memory over lanes.
    // packed_store_active2 may write one element past the count (ISPC); spmdc's
    // scatter writes exactly the count, which that contract allows.
    if ((N == "packed_store_active" || N == "packed_store_active2") && K == 2)
      return packedStore();
    if (N == "packed_load_active" && K == 2)
      return packedLoad();
    if (N.rfind("aos_to_soa", 0) == 0 && K >= 3 && K <= 5)
      return aosToSoa(K - 1);
    if (N.rfind("soa_to_aos", 0) == 0 && K >= 3 && K <= 5)
      return soaToAos(K - 1);
    if (auto Op = atomicOp(N); Op && K == 2)
      return atomic([&](const LaneOps::LaneValue &Lane) {
        return B.CreateAtomicRMW(*Op, Lane(A[0]), Lane(A[1]), llvm::MaybeAlign(),
                                 llvm::AtomicOrdering::SequentiallyConsistent);
      });
    if ((N == "atomic_compare_exchange_global" || N == "atomic_compare_exchange_local") && K == 3)
      return atomic([&](const LaneOps::LaneValue &Lane) { return compareExchange(Lane); });
    if ((N == "memcpy" || N == "memcpy64" || N == "memmove" || N == "memmove64" ||
         N == "memset" || N == "memset64") &&
        K == 3)
      return memoryBlock(N);
    if ((N.rfind("prefetch_", 0) == 0 || N.rfind("prefetchw_", 0) == 0) && (K == 1 || K == 2))
      return prefetch(N);
    if (N == "memory_barrier" && K == 0) {
      B.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
      return Void;
    }
    if (N == "alloca" && K == 1) {
      // In the entry block's frame of the function being emitted (the caller: hooks
      // are emitted at the call site), so the memory lives until it returns.
      auto *Slot = B.CreateAlloca(B.getInt8Ty(), A[0]);
      Slot->setAlignment(llvm::Align(16));
      return Slot;
    }
    if (N == "spmd_likely" && K == 1) {
      // llvm.expect: LowerExpectIntrinsic turns it into branch weights, so block placement
      // keeps the likely path in line and the other out of the loop's straight line.
      llvm::Value *Bit = B.CreateTrunc(A[0], B.getInt1Ty());
      llvm::Value *E = B.CreateIntrinsic(llvm::Intrinsic::expect, {B.getInt1Ty()},
                                         {Bit, B.getTrue()});
      return B.CreateZExtOrTrunc(E, C.ResultLLVM);
    }
    if (N == "assume" && K == 1) {
      B.CreateAssumption(B.CreateTrunc(A[0], B.getInt1Ty()));
      return Void;
    }
    if (N == "clock" && K == 0)
      return B.CreateIntrinsic(B.getInt64Ty(), llvm::Intrinsic::readcyclecounter, {});
    if (N == "num_cores" && K == 0)
      return numCores();
    if (N == "spmd_rdrand64" && K == 1)
      return rdrand();
    if (GPU)
      if (llvm::Value *R = emitNVPTXMathHook(N, A, B))
        return R;
    if (N.rfind("spmd_system_", 0) == 0 && !GPU)
      return systemMath(N.substr(12));
    if (N == "barrier" && K == 0) {
      if (GPU)
        B.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all, {}, {B.getInt32(0)});
      else // on the CPU a block is one gang: order memory within it
        B.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
      return Void;
    }
    return nullptr;
  }

  llvm::Value *Void = reinterpret_cast<llvm::Value *>(1);

private:
  std::optional<ID> unaryMath(const std::string &N) {
    static const std::map<std::string, ID> Native = {
        {"sqrt", llvm::Intrinsic::sqrt},
        {"trunc", llvm::Intrinsic::trunc},
        {"floor", llvm::Intrinsic::floor},
        {"ceil", llvm::Intrinsic::ceil},
        {"round", llvm::Intrinsic::roundeven},
    };
    if (auto It = Native.find(N); It != Native.end())
      return It->second;
    return std::nullopt;
  }

  /// Floats as ISPC's: `a < b ? a : b` (`a > b ? a : b`), one minps/maxps on x86 (where
  /// either is NaN the result is b); integers by the intrinsics.
  llvm::Value *minMax(bool Min, llvm::Value *X, llvm::Value *Y) {
    if (Float)
      return B.CreateSelect(Min ? B.CreateFCmpOLT(X, Y) : B.CreateFCmpOGT(X, Y), X, Y);
    ID Id = Signed ? (Min ? llvm::Intrinsic::smin : llvm::Intrinsic::smax)
                   : (Min ? llvm::Intrinsic::umin : llvm::Intrinsic::umax);
    return B.CreateBinaryIntrinsic(Id, X, Y);
  }

  std::optional<ID> saturating(const std::string &N) {
    if (N == "saturating_add")
      return Signed ? llvm::Intrinsic::sadd_sat : llvm::Intrinsic::uadd_sat;
    if (N == "saturating_sub")
      return Signed ? llvm::Intrinsic::ssub_sat : llvm::Intrinsic::usub_sat;
    if (N == "saturating_mul") // a fixed-point product with no fraction bits
      return Signed ? llvm::Intrinsic::smul_fix_sat : llvm::Intrinsic::umul_fix_sat;
    return std::nullopt;
  }

  /// exclusive_scan_add/and/or over the active lanes: inactive lanes contribute the
  /// identity; an inclusive scan in log2(width) shifted steps, then shifted by one.
  llvm::Value *exclusiveScan(const std::string &Op) {
    llvm::Value *V = A[0];
    llvm::Type *Elt = V->getType()->getScalarType();
    llvm::Value *Id = Op == "and" ? llvm::Constant::getAllOnesValue(Elt)
                                  : llvm::Constant::getNullValue(Elt);
    auto Combine = [&](llvm::Value *X, llvm::Value *Y) -> llvm::Value * {
      if (Op == "and")
        return B.CreateAnd(X, Y);
      if (Op == "or")
        return B.CreateOr(X, Y);
      return Float ? B.CreateFAdd(X, Y) : B.CreateAdd(X, Y);
    };
    // Lane i of X shifted up by D lanes; the identity in lanes below D.
    auto ShiftUp = [&](llvm::Value *X, unsigned D) {
      llvm::Value *Lane = L.laneIndex();
      llvm::Value *Valid = B.CreateICmpUGE(Lane, L.splat(B.getInt32(D)));
      llvm::Value *Moved = L.permute({X}, B.CreateSub(Lane, L.splat(B.getInt32(D))), Valid);
      return B.CreateSelect(Valid, Moved, L.splat(Id));
    };
    llvm::Value *X = B.CreateSelect(M, V, L.splat(Id));
    for (unsigned D = 1; D < L.width(); D *= 2)
      X = Combine(X, ShiftUp(X, D));
    return ShiftUp(X, 1);
  }

  /// Lane's old value of a compare-and-exchange; floating-point values are compared
  /// by their bits (LLVM's cmpxchg takes integers and pointers only).
  llvm::Value *compareExchange(const LaneOps::LaneValue &Lane) {
    llvm::Value *Cmp = Lane(A[1]), *New = Lane(A[2]);
    llvm::Type *T = Cmp->getType();
    if (T->isFloatingPointTy()) {
      llvm::Type *I = B.getIntNTy(T->getPrimitiveSizeInBits());
      Cmp = B.CreateBitCast(Cmp, I);
      New = B.CreateBitCast(New, I);
    }
    auto *X = B.CreateAtomicCmpXchg(Lane(A[0]), Cmp, New, llvm::MaybeAlign(),
                                    llvm::AtomicOrdering::SequentiallyConsistent,
                                    llvm::AtomicOrdering::SequentiallyConsistent);
    llvm::Value *Old = B.CreateExtractValue(X, 0);
    return T->isFloatingPointTy() ? B.CreateBitCast(Old, T) : Old;
  }

  /// The x86 hardware estimate of 1/x (rcp) or 1/sqrt(x) (rsqrt) of a float or float
  /// vector, about 12 bits (rcpps / rsqrtps; vectors go by 8 lanes, which every x86
  /// target wider than 4 lanes has as ymm, or by 4); on NVPTX the exact quotient.
  llvm::Value *estimate(bool Rcp) {
    llvm::Value *X = A[0];
    if (GPU) {
      llvm::Value *D = Rcp ? X : B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X);
      return B.CreateFDiv(llvm::ConstantFP::get(X->getType(), 1.0), D);
    }
    auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(X->getType());
    if (!VT) {
      llvm::Value *V = B.CreateInsertElement(
          llvm::PoisonValue::get(llvm::FixedVectorType::get(X->getType(), 4)), X, B.getInt64(0));
      V = B.CreateIntrinsic(Rcp ? llvm::Intrinsic::x86_sse_rcp_ss : llvm::Intrinsic::x86_sse_rsqrt_ss,
                            llvm::ArrayRef<llvm::Type *>{}, {V});
      return B.CreateExtractElement(V, B.getInt64(0));
    }
    unsigned W = VT->getNumElements() % 8 == 0 ? 8 : 4;
    ID Op = W == 8 ? (Rcp ? llvm::Intrinsic::x86_avx_rcp_ps_256 : llvm::Intrinsic::x86_avx_rsqrt_ps_256)
                   : (Rcp ? llvm::Intrinsic::x86_sse_rcp_ps : llvm::Intrinsic::x86_sse_rsqrt_ps);
    return byChunks(X, W, [&](llvm::Value *Part) {
      return B.CreateIntrinsic(Op, llvm::ArrayRef<llvm::Type *>{}, {Part});
    });
  }

  /// avx512: the hardware estimate of 1/x or 1/sqrt(x) of a float, double or vector of
  /// them, relative error below 2^-14 (vrcp14ss/sd/ps/pd, vrsqrt14*; vectors by 512 bits
  /// or 256).
  llvm::Value *estimate14(bool Rcp, llvm::Value *X) {
    auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(X->getType());
    bool F32 = X->getType()->getScalarType()->isFloatTy();
    if (!VT) {
      llvm::Value *V = B.CreateInsertElement(
          llvm::PoisonValue::get(llvm::FixedVectorType::get(X->getType(), F32 ? 4 : 2)), X,
          B.getInt64(0));
      ID Op = F32 ? (Rcp ? llvm::Intrinsic::x86_avx512_rcp14_ss : llvm::Intrinsic::x86_avx512_rsqrt14_ss)
                  : (Rcp ? llvm::Intrinsic::x86_avx512_rcp14_sd : llvm::Intrinsic::x86_avx512_rsqrt14_sd);
      V = B.CreateIntrinsic(Op, llvm::ArrayRef<llvm::Type *>{}, {V, V, V, B.getInt8(0xff)});
      return B.CreateExtractElement(V, B.getInt64(0));
    }
    Avx512Parts P = avx512Parts(VT);
    ID Op;
    if (F32)
      Op = P.Is512 ? (Rcp ? llvm::Intrinsic::x86_avx512_rcp14_ps_512
                          : llvm::Intrinsic::x86_avx512_rsqrt14_ps_512)
                   : (Rcp ? llvm::Intrinsic::x86_avx512_rcp14_ps_256
                          : llvm::Intrinsic::x86_avx512_rsqrt14_ps_256);
    else
      Op = P.Is512 ? (Rcp ? llvm::Intrinsic::x86_avx512_rcp14_pd_512
                          : llvm::Intrinsic::x86_avx512_rsqrt14_pd_512)
                   : (Rcp ? llvm::Intrinsic::x86_avx512_rcp14_pd_256
                          : llvm::Intrinsic::x86_avx512_rsqrt14_pd_256);
    return byChunks(X, P.Lanes, [&](llvm::Value *Part) {
      return B.CreateIntrinsic(Op, llvm::ArrayRef<llvm::Type *>{}, {Part, Part, P.AllLanes});
    });
  }

  /// avx512: the double estimate r0 refined, e = 1 - x r0 or 1 - (x r0) r0 computed by fma
  /// (|e| < 2^-13). rcp: one Newton step r0 + r0 e (relative error below e^2, 2^-28: ISPC's
  /// class, whose step is r0 (2 - x r0) in three roundings); the series to e^3 (0.53 ulp)
  /// took five operations where ISPC's step takes three, 0.67-0.74 of ISPC's loop in L1
  /// (`--math-lib=accurate` divides). rsqrt: the series of (1 - e)^(-1/2) up to e^4 (the
  /// truncation below 2^-60; 1.2x ISPC's speed all the same). Where e is NaN (x = 0 or
  /// infinity, whose estimate is exact) it is replaced by 1, which keeps r0 (inf + inf,
  /// 0 + 0).
  llvm::Value *refined14(bool Rcp) {
    llvm::Value *X = A[0];
    llvm::Type *T = X->getType();
    auto K = [&](double V) { return llvm::ConstantFP::get(T, V); };
    llvm::Value *R0 = estimate14(Rcp, X);
    llvm::Value *P = Rcp ? R0 : B.CreateFMul(X, R0);
    llvm::Value *E = B.CreateIntrinsic(llvm::Intrinsic::fma, {T},
                                       {B.CreateFNeg(Rcp ? X : P), R0, K(1.0)});
    E = B.CreateSelect(B.CreateFCmpOLT(E, K(1.0)), E, K(1.0));
    auto Fma = [&](llvm::Value *X, llvm::Value *Y, llvm::Value *Z) {
      return B.CreateIntrinsic(llvm::Intrinsic::fma, {T}, {X, Y, Z});
    };
    // rsqrt: e (1/2 + e (3/8 + e (5/16 + e 35/128)))
    llvm::Value *S = Rcp ? E
                         : B.CreateFMul(E, Fma(Fma(Fma(E, K(0.2734375), K(0.3125)), E, K(0.375)),
                                               E, K(0.5)));
    return Fma(R0, S, R0);
  }

  /// avx512: x 2^floor(y) rounded once (vscalefss/sd/ps/pd), subnormal results, overflow
  /// to inf and NaN as IEEE scaling gives them; vectors by 512 bits or 256.
  llvm::Value *scalef(llvm::Value *X, llvm::Value *Y) {
    auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(X->getType());
    bool F32 = X->getType()->getScalarType()->isFloatTy();
    llvm::Value *CurrentRounding = B.getInt32(4); // _MM_FROUND_CUR_DIRECTION
    if (!VT) {
      auto *V4 = llvm::FixedVectorType::get(X->getType(), F32 ? 4 : 2);
      llvm::Value *XV = B.CreateInsertElement(llvm::PoisonValue::get(V4), X, B.getInt64(0));
      llvm::Value *YV = B.CreateInsertElement(llvm::PoisonValue::get(V4), Y, B.getInt64(0));
      ID Op = F32 ? llvm::Intrinsic::x86_avx512_mask_scalef_ss
                  : llvm::Intrinsic::x86_avx512_mask_scalef_sd;
      llvm::Value *R = B.CreateIntrinsic(Op, llvm::ArrayRef<llvm::Type *>{},
                                         {XV, YV, XV, B.getInt8(0xff), CurrentRounding});
      return B.CreateExtractElement(R, B.getInt64(0));
    }
    Avx512Parts P = avx512Parts(VT);
    ID Op = F32 ? (P.Is512 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_512
                           : llvm::Intrinsic::x86_avx512_mask_scalef_ps_256)
                : (P.Is512 ? llvm::Intrinsic::x86_avx512_mask_scalef_pd_512
                           : llvm::Intrinsic::x86_avx512_mask_scalef_pd_256);
    return byChunksOf({X, Y}, P.Lanes, [&](llvm::ArrayRef<llvm::Value *> Part) {
      std::vector<llvm::Value *> Args{Part[0], Part[1], Part[0], P.AllLanes};
      if (P.Is512) // only the 512-bit forms take a rounding operand
        Args.push_back(CurrentRounding);
      return B.CreateIntrinsic(Op, llvm::ArrayRef<llvm::Type *>{}, Args);
    });
  }

  /// avx512, float vectors: the lanes that are not normal numbers (vfpclassps: +-0,
  /// subnormals, +-inf, quiet and signalling NaN), frexp's rare path; with NegativeToo
  /// the negative normal numbers as well (log's and log1p's rare path: one instruction
  /// where a range test took two).
  llvm::Value *notNormal(llvm::Value *X, bool NegativeToo) {
    Avx512Parts P = avx512Parts(llvm::cast<llvm::FixedVectorType>(X->getType()));
    ID Op = P.Is512 ? llvm::Intrinsic::x86_avx512_fpclass_ps_512
                    : llvm::Intrinsic::x86_avx512_fpclass_ps_256;
    llvm::Value *Classes = B.getInt32(0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20 | 0x80 |
                                      (NegativeToo ? 0x40 : 0));
    return byChunks(X, P.Lanes, [&](llvm::Value *Part) {
      return B.CreateIntrinsic(Op, llvm::ArrayRef<llvm::Type *>{}, {Part, Classes});
    });
  }

  /// How avx512 instructions take a vector of VT: by 512 bits (16 floats, 8 doubles) where
  /// that many lanes divide VT's, else by 256; with the mask of all of a part's lanes.
  struct Avx512Parts {
    unsigned Lanes;
    bool Is512;
    llvm::Value *AllLanes;
  };
  Avx512Parts avx512Parts(llvm::FixedVectorType *VT) {
    unsigned Wide = VT->getElementType()->isFloatTy() ? 16 : 8;
    unsigned Lanes = VT->getNumElements() % Wide == 0 ? Wide : Wide / 2;
    return {Lanes, Lanes == Wide, Lanes == 16 ? B.getInt16(0xffff) : B.getInt8(0xff)};
  }

  /// Op applied to the vector X by parts of W lanes (the last part padded), the results
  /// concatenated back into one vector of X's width.
  llvm::Value *byChunks(llvm::Value *X, unsigned W,
                        const std::function<llvm::Value *(llvm::Value *)> &Op) {
    return byChunksOf({X}, W, [&](llvm::ArrayRef<llvm::Value *> Parts) { return Op(Parts[0]); });
  }

  /// The same for an operation of several vectors of one width, taken part by part alike.
  llvm::Value *byChunksOf(llvm::ArrayRef<llvm::Value *> Xs, unsigned W,
                          const std::function<llvm::Value *(llvm::ArrayRef<llvm::Value *>)> &Op) {
    unsigned N = llvm::cast<llvm::FixedVectorType>(Xs[0]->getType())->getNumElements();
    std::vector<llvm::Value *> Parts;
    for (unsigned I = 0; I < N; I += W) {
      std::vector<int> Idx;
      for (unsigned J = 0; J < W; J++)
        Idx.push_back(I + J < N ? int(I + J) : -1);
      std::vector<llvm::Value *> Operands;
      for (llvm::Value *X : Xs)
        Operands.push_back(B.CreateShuffleVector(X, Idx));
      Parts.push_back(Op(Operands));
    }
    while (Parts.size() > 1) { // concatenate pairwise
      std::vector<llvm::Value *> Next;
      for (size_t I = 0; I < Parts.size(); I += 2) {
        unsigned Width = llvm::cast<llvm::FixedVectorType>(Parts[I]->getType())->getNumElements();
        std::vector<int> Idx;
        for (unsigned J = 0; J < 2 * Width; J++)
          Idx.push_back(J);
        Next.push_back(B.CreateShuffleVector(Parts[I], Parts[I + 1], Idx));
      }
      Parts = Next;
    }
    if (N == W)
      return Parts[0];
    std::vector<int> Idx;
    for (unsigned J = 0; J < N; J++)
      Idx.push_back(J);
    return B.CreateShuffleVector(Parts[0], Idx);
  }

  /// One x86 RDRAND of 64 bits stored through A[0]; true if the processor had entropy.
  /// The function holding it gets the rdrnd feature (the prelude calls it only on
  /// targets whose processors have the instruction).
  llvm::Value *rdrand() {
    if (GPU)
      return B.getFalse();
    llvm::Function *F = B.GetInsertBlock()->getParent();
    std::string Features = F->getFnAttribute("target-features").getValueAsString().str();
    if (Features.find("+rdrnd") == std::string::npos)
      F->addFnAttr("target-features", Features.empty() ? "+rdrnd" : Features + ",+rdrnd");
    llvm::Value *R = B.CreateIntrinsic(llvm::Intrinsic::x86_rdrand_64, llvm::ArrayRef<llvm::Type *>{},
                                       llvm::ArrayRef<llvm::Value *>{});
    B.CreateStore(B.CreateExtractValue(R, 0), A[0]);
    return B.CreateICmpNE(B.CreateExtractValue(R, 1), B.getInt32(0));
  }

  /// --math-lib=system: the C library's NAME (double) or NAMEf (float), once for uniform
  /// arguments, once per active lane (in lane order) for varying ones.
  llvm::Value *systemMath(const std::string &Name) {
    llvm::Type *Scalar = C.ResultLLVM->getScalarType();
    std::vector<llvm::Type *> Params(A.size(), Scalar);
    llvm::FunctionCallee Fn = B.GetInsertBlock()->getModule()->getOrInsertFunction(
        Name + (Scalar->isFloatTy() ? "f" : ""), llvm::FunctionType::get(Scalar, Params, false));
    auto One = [&](const LaneOps::LaneValue &Lane) -> llvm::Value * {
      std::vector<llvm::Value *> Args;
      for (llvm::Value *V : A)
        Args.push_back(V->getType()->isVectorTy() ? Lane(V) : V);
      return B.CreateCall(Fn, Args);
    };
    if (!C.ResultLLVM->isVectorTy())
      return One([](llvm::Value *V) { return V; });
    return L.perLane(M, Scalar, One);
  }

  llvm::Value *numCores() {
    if (GPU) // the GPU's streaming multiprocessors
      return B.CreateIntrinsic(B.getInt32Ty(), llvm::Intrinsic::nvvm_read_ptx_sreg_nsmid, {});
    // sysconf(_SC_NPROCESSORS_ONLN); 84 is glibc's value (spmdc's x86 targets are Linux).
    llvm::Module *Mod = B.GetInsertBlock()->getModule();
    llvm::FunctionCallee Sysconf = Mod->getOrInsertFunction(
        "sysconf", llvm::FunctionType::get(B.getInt64Ty(), {B.getInt32Ty()}, false));
    return B.CreateTrunc(B.CreateCall(Sysconf, {B.getInt32(84)}), B.getInt32Ty());
  }

  /// A varying form of `V` (a uniform operand is broadcast).
  llvm::Value *vary(llvm::Value *V) { return V->getType()->isVectorTy() ? V : L.splat(V); }
  llvm::Value *allOn() { return llvm::ConstantInt::getTrue(L.varying(B.getInt1Ty())); }
  llvm::Value *i32(llvm::Value *V) {
    llvm::Type *T = V->getType()->isVectorTy() ? L.varying(B.getInt32Ty()) : B.getInt32Ty();
    return B.CreateIntCast(V, T, true);
  }
  /// Active lanes in a mask, as int32.
  llvm::Value *count(llvm::Value *Mask) {
    return B.CreateTrunc(B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, L.bits(Mask)),
                         B.getInt32Ty());
  }

  llvm::Value *laneMove(const std::string &N) {
    unsigned W = L.width();
    llvm::Value *Valid = allOn();
    llvm::Value *Idx;
    if (N == "shuffle") {
      Idx = B.CreateAnd(i32(vary(A[1])), L.splat(B.getInt32(W - 1)));
    } else {
      Idx = B.CreateAdd(L.laneIndex(), L.splat(i32(A[1])));
      if (N == "rotate")
        Idx = B.CreateAnd(Idx, L.splat(B.getInt32(W - 1)));
      else // shift: lanes from outside the gang read zero
        Valid = B.CreateICmpULT(Idx, L.splat(B.getInt32(W)));
    }
    return L.permute({A[0]}, Idx, Valid);
  }

  llvm::Value *firstActiveLane() {
    return B.CreateTrunc(B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, L.bits(M), B.getTrue()),
                         B.getInt32Ty());
  }

  llvm::Value *reduceEqual() {
    llvm::Value *V0 = L.extract(A[0], firstActiveLane());
    llvm::Value *Eq =
        Float ? B.CreateFCmpOEQ(A[0], L.splat(V0)) : B.CreateICmpEQ(A[0], L.splat(V0));
    llvm::Value *Same = B.CreateAnd(L.all(B.CreateOr(Eq, B.CreateNot(M))), L.any(M));
    if (A.size() == 2) {
      // Store the common value through the uniform pointer, once.
      L.once(M, [&]() -> llvm::Value * {
        llvm::Value *Old = B.CreateLoad(V0->getType(), A[1]);
        B.CreateStore(B.CreateSelect(Same, V0, Old), A[1]);
        return nullptr;
      });
    }
    return Same;
  }

  /// Each active lane's rank among the active lanes (its slot in a packed array).
  llvm::Value *activeRank() {
    llvm::Value *Bits = L.bits(M);
    llvm::Value *Below =
        B.CreateSub(B.CreateShl(L.splat(B.getInt64(1)), L.laneIndex64()), L.splat(B.getInt64(1)));
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, B.CreateAnd(L.splat(Bits), Below));
  }

  llvm::Value *packedStore() {
    llvm::Type *Elt = A[1]->getType()->getScalarType();
    llvm::Value *Ptrs = B.CreateGEP(Elt, vary(A[0]), activeRank());
    L.scatter(A[1], Ptrs, align(Elt), M);
    return count(M);
  }

  llvm::Value *packedLoad() {
    llvm::Type *Elt = elementOf(C.ArgTypes[1]->getPointee());
    llvm::Type *Vec = L.varying(Elt);
    llvm::Value *Ptrs = B.CreateGEP(Elt, vary(A[0]), activeRank());
    llvm::Value *Old = B.CreateLoad(Vec, A[1]);
    llvm::Value *New = L.gather(Vec, Ptrs, align(Elt), M);
    B.CreateStore(B.CreateSelect(M, New, Old), A[1]);
    return count(M);
  }

  llvm::Value *aosToSoa(unsigned K) {
    llvm::Type *Elt = elementOf(C.ArgTypes[1]->getPointee());
    for (unsigned F = 0; F < K; ++F) {
      llvm::Value *Idx =
          B.CreateAdd(B.CreateMul(L.laneIndex(), L.splat(B.getInt32(K))), L.splat(B.getInt32(F)));
      llvm::Value *Ptrs = B.CreateGEP(Elt, vary(A[0]), Idx);
      B.CreateStore(L.gather(L.varying(Elt), Ptrs, align(Elt), allOn()), A[1 + F]);
    }
    return Void;
  }

  llvm::Value *soaToAos(unsigned K) {
    llvm::Type *Elt = A[0]->getType()->getScalarType();
    for (unsigned F = 0; F < K; ++F) {
      llvm::Value *Idx =
          B.CreateAdd(B.CreateMul(L.laneIndex(), L.splat(B.getInt32(K))), L.splat(B.getInt32(F)));
      llvm::Value *Ptrs = B.CreateGEP(Elt, L.splat(A[K]), Idx);
      L.scatter(A[F], Ptrs, align(Elt), allOn());
    }
    return Void;
  }

  std::optional<llvm::AtomicRMWInst::BinOp> atomicOp(std::string N) {
    using Op = llvm::AtomicRMWInst;
    // A local atomic (atomic within the gang) is the same hardware atomic as a global one.
    if (N.size() > 6 && N.compare(N.size() - 6, 6, "_local") == 0)
      N = N.substr(0, N.size() - 6) + "_global";
    bool FloatValue = C.ArgTypes.size() > 1 && C.ArgTypes[1]->isFloatingPoint();
    bool SignedValue = C.ArgTypes.size() > 1 && C.ArgTypes[1]->isSignedInteger();
    if (N == "atomic_add_global")
      return FloatValue ? Op::FAdd : Op::Add;
    if (N == "atomic_subtract_global")
      return FloatValue ? Op::FSub : Op::Sub;
    if (N == "atomic_min_global")
      return FloatValue ? Op::FMin : SignedValue ? Op::Min : Op::UMin;
    if (N == "atomic_max_global")
      return FloatValue ? Op::FMax : SignedValue ? Op::Max : Op::UMax;
    if (N == "atomic_and_global")
      return Op::And;
    if (N == "atomic_or_global")
      return Op::Or;
    if (N == "atomic_xor_global")
      return Op::Xor;
    if (N == "atomic_swap_global")
      return Op::Xchg;
    return std::nullopt;
  }

  /// A uniform atomic happens once per gang; a varying one once per active
  /// lane (in lane order on x86), each lane getting its old value.
  llvm::Value *atomic(const std::function<llvm::Value *(const LaneOps::LaneValue &)> &One) {
    // In a SIMT region the thread does its own lane's atomic, as a CUDA thread
    // does; the warp is not converged there, so no bar.warp.sync (the region's
    // other stores are not ordered among the warp's threads either).
    if (C.ThreadAlone)
      return One([](llvm::Value *V) { return V; });
    bool Varying = false;
    for (const Type *T : C.ArgTypes)
      Varying |= T->isVarying();
    llvm::Value *R = Varying ? L.perLane(M, C.ResultLLVM->getScalarType(), One)
                             : L.once(M, [&] { return One([](llvm::Value *V) { return V; }); });
    syncWarpAfterLaneWrites();
    return R;
  }

  /// NVPTX: after memory written by some threads alone (an atomic, a memcpy of one
  /// lane), bar.warp.sync, so that the other lanes, which may have skipped ahead to
  /// the code after it, read it only once it is written (it orders memory among the
  /// warp's threads, as a warp's lanes of one gang expect).
  void syncWarpAfterLaneWrites() {
    if (GPU)
      B.CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {}, {B.getInt32(0xffffffffu)});
  }

  llvm::Value *memoryBlock(const std::string &N) {
    auto One = [&](const LaneOps::LaneValue &Lane) -> llvm::Value * {
      if (N.rfind("memset", 0) == 0)
        B.CreateMemSet(Lane(A[0]), Lane(A[1]), Lane(A[2]), llvm::MaybeAlign());
      else if (N.rfind("memmove", 0) == 0)
        B.CreateMemMove(Lane(A[0]), llvm::MaybeAlign(), Lane(A[1]), llvm::MaybeAlign(), Lane(A[2]));
      else
        B.CreateMemCpy(Lane(A[0]), llvm::MaybeAlign(), Lane(A[1]), llvm::MaybeAlign(), Lane(A[2]));
      return nullptr;
    };
    auto Same = [](llvm::Value *V) { return V; };
    if (C.ArgTypes[0]->isVarying()) {
      L.perLane(M, nullptr, One);
    } else if (GPU) {
      // A uniform destination in local memory (alloca, a uniform local array) is a
      // thread's own copy of the gang's object: every thread changes its copy. In
      // global or shared memory the first active thread alone does (concurrent
      // copies of an overlapping memmove would read each other's writes).
      llvm::Value *Local = B.CreateIntrinsic(llvm::Intrinsic::nvvm_isspacep_local, {}, {A[0]});
      llvm::Value *First = B.CreateTrunc(
          B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, L.bits(M), B.getTrue()), B.getInt32Ty());
      llvm::Value *Run = B.CreateSelect(Local, L.splat(L.any(M)),
                                        B.CreateICmpEQ(L.laneIndex(), L.splat(First)));
      L.perLane(Run, nullptr, [&](const LaneOps::LaneValue &) { return One(Same); });
    } else {
      L.once(M, [&] { return One(Same); });
    }
    syncWarpAfterLaneWrites();
    return Void;
  }

  llvm::Value *prefetch(const std::string &N) {
    // A hint: NVPTX has no cache-level prefetch worth the instruction here.
    if (GPU)
      return Void;
    bool Write = N.rfind("prefetchw_", 0) == 0;
    std::string Level = N.substr(N.find('_') + 1);
    int Locality = Level == "l1" ? 3 : Level == "l2" ? 2 : Level == "l3" ? 1 : 0;
    auto One = [&](const LaneOps::LaneValue &Lane) -> llvm::Value * {
      B.CreateIntrinsic(llvm::Intrinsic::prefetch, {B.getPtrTy()},
                        {Lane(A[0]), B.getInt32(Write), B.getInt32(Locality), B.getInt32(1)});
      return nullptr;
    };
    if (C.ArgTypes[0]->isVarying())
      L.perLane(M, nullptr, One);
    else
      One([](llvm::Value *V) { return V; });
    return Void;
  }

  llvm::Type *elementOf(const Type *T) {
    switch (T->getKind()) {
    case Type::Int16:
    case Type::UInt16:
      return B.getInt16Ty();
    case Type::Float16:
      return B.getHalfTy();
    case Type::Int32:
    case Type::UInt32:
      return B.getInt32Ty();
    case Type::Int64:
    case Type::UInt64:
      return B.getInt64Ty();
    case Type::Float:
      return B.getFloatTy();
    case Type::Double:
      return B.getDoubleTy();
    default:
      return B.getInt8Ty();
    }
  }
  llvm::Align align(llvm::Type *Elt) {
    return llvm::Align(std::max<unsigned>(1, Elt->getScalarSizeInBits() / 8));
  }

  const HookCall &C;
  const std::vector<llvm::Value *> &A;
  llvm::IRBuilder<> &B;
  LaneOps &L;
  bool GPU;
  llvm::Value *M;
  bool Float = false, Signed = false;
};

} // namespace

bool emitStdlibHook(const HookCall &Call, llvm::IRBuilder<> &B, LaneOps &Lanes, bool GPU,
                    llvm::Value *&Result) {
  Hooks H(Call, B, Lanes, GPU);
  llvm::Value *R = H.emit();
  if (!R)
    return false;
  Result = R == H.Void ? nullptr : R;
  // Widen or narrow integer results to the declared type (e.g. popcnt -> int32).
  if (Result && Call.ResultLLVM && Result->getType() != Call.ResultLLVM) {
    if (Result->getType()->isIntOrIntVectorTy() && Call.ResultLLVM->isIntOrIntVectorTy())
      Result = B.CreateIntCast(Result, Call.ResultLLVM, false);
    else if (!Result->getType()->isVectorTy() && Call.ResultLLVM->isVectorTy())
      Result = Lanes.splat(Result);
  }
  return true;
}

} // namespace spmdc
