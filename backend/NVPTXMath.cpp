// NVPTX float math: the GPU library's exp/log (CUDA's accuracy class) and the fast forms.
//
// The standard library's float kernels (stdlib/math.spmd) are written for
// every target: exact products from bit splits, a correctly rounded division,
// at most 1 ulp. On the GPU, exp does its heavy part in the special function
// unit's `ex2.approx`, as CUDA's expf does, and log is one polynomial of fmas
// with no division, as CUDA's logf is. Both keep CUDA's error bounds (expf 2
// ulp, logf 1 ulp: CUDA C Programming Guide, "Mathematical Functions",
// single precision table); the fast forms are its intrinsics (__expf, __logf,
// __powf, __sinf, __cosf, __tanf), which nvcc's -use_fast_math substitutes.
#include "backend/NVPTXMath.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

namespace spmdc {

namespace {

using llvm::Intrinsic::ID;

class MathEmitter {
public:
  explicit MathEmitter(llvm::IRBuilder<> &B) : B(B), F32(B.getFloatTy()), I32(B.getInt32Ty()) {}

  llvm::Value *c(float V) { return llvm::ConstantFP::get(F32, V); }
  llvm::Value *ci(int32_t V) { return B.getInt32(V); }
  llvm::Value *fma(llvm::Value *A, llvm::Value *X, llvm::Value *Y) {
    return B.CreateIntrinsic(llvm::Intrinsic::fma, {F32}, {A, X, Y});
  }
  llvm::Value *un(ID Id, llvm::Value *X) { return B.CreateIntrinsic(Id, {}, {X}); }
  llvm::Value *ex2(llvm::Value *X, bool Ftz) {
    return B.CreateIntrinsic(Ftz ? llvm::Intrinsic::nvvm_ex2_approx_ftz
                                 : llvm::Intrinsic::nvvm_ex2_approx,
                             {F32}, {X});
  }

  /// e^x within 2 ulp (CUDA's expf bound; math_ulp.cu measures every float),
  /// with one special-function instruction (the SFU issues a quarter or less
  /// of the FMA rate, and Black-Scholes is bound by it). x log2(e) = j + r with
  /// j = floor(x log2 e) and r in [0, 1): t = x log2(e) / 252 + 1/2 saturated
  /// to [0, 1] (`cvt.sat`) and 252 t added to 1.5 * 2^23 + 1 rounding down
  /// (`fma.rm`) leaves j + 127, clamped to [1, 253], in the sum's low bits: the
  /// biased exponent of 2^j, a shift away, with no separate clamp (NaN
  /// saturates to 0 and stays NaN through r). r = x log2(e) - j from one fma
  /// plus the low part of log2(e); 2^r by `ex2.approx.ftz` (in [1, 2]); the
  /// product 2^r 2^j rounds once, subnormal results included (x below -87.3
  /// makes r negative with j at -126). This is the shape of CUDA's own expf
  /// (the same instructions in nvcc's PTX).
  llvm::Value *exp(llvm::Value *X) {
    const float Log2e = 1.44269502f, Log2eLow = 1.925963e-8f; // log2(e) - Log2e
    llvm::Value *T = un(llvm::Intrinsic::nvvm_saturate_f, fma(X, c(Log2e / 252.0f), c(0.5f)));
    llvm::Value *Biased = B.CreateIntrinsic(llvm::Intrinsic::nvvm_fma_rm_f, {},
                                            {T, c(252.0f), c(12582913.0f)}); // 1.5 * 2^23 + 1
    llvm::Value *J = B.CreateFAdd(Biased, c(-12583039.0f));                  // - (1.5 * 2^23 + 127)
    llvm::Value *R = fma(X, c(Log2e), B.CreateFNeg(J));
    R = fma(X, c(Log2eLow), R);
    llvm::Value *Pow2J = B.CreateBitCast(B.CreateShl(B.CreateBitCast(Biased, I32), 23), F32);
    return B.CreateFMul(ex2(R, /*Ftz=*/true), Pow2J);
  }

  /// log x within 1 ulp (CUDA's logf bound; 0.93 ulp measured over every float, see
  /// docs/gpu.md) with no division: x = 2^k m with m in [2/3, 4/3) found by subtracting
  /// the bits of 2/3 and keeping the exponent field (k << 23, an integer subtraction
  /// that needs no exponent extraction or compare), f = m - 1 exactly (Sterbenz), and
  /// log(1 + f) = f + f^2 P(f) with P of degree 8 (a relative minimax fit over [-1/3,
  /// 1/3], tools/ulp/fit_nvptx_log.py); k ln2 is added by the last fma. Subnormals are
  /// scaled by 2^23 first. Negative x, infinities and NaN (bits at or above those of
  /// +inf, unsigned) take x * inf + inf: NaN, +inf, NaN; 0 gives -inf.
  llvm::Value *log(llvm::Value *X) {
    static const float P[] = {-0.12891598f, 0.13984473f,  -0.121842824f, 0.140058607f,
                              -0.16680485f, 0.200104058f, -0.249997973f, 0.333332151f};
    llvm::Value *Tiny = B.CreateFCmpOLT(X, c(1.17549435e-38f));
    llvm::Value *Xs = B.CreateSelect(Tiny, B.CreateFMul(X, c(8388608.0f)), X);
    llvm::Value *ScaleK = B.CreateSelect(Tiny, c(-23.0f), c(0.0f));
    llvm::Value *Bits = B.CreateBitCast(Xs, I32);
    llvm::Value *KBits = B.CreateAnd(B.CreateSub(Bits, ci(0x3f2aaaab)), ci(int32_t(0xff800000)));
    llvm::Value *M = B.CreateBitCast(B.CreateSub(Bits, KBits), F32);
    llvm::Value *K = fma(B.CreateSIToFP(KBits, F32), c(1.1920928955078125e-7f), ScaleK);
    llvm::Value *F = B.CreateFSub(M, c(1.0f));
    llvm::Value *Poly = c(P[0]);
    for (float Coefficient : llvm::ArrayRef<float>(P).drop_front())
      Poly = fma(Poly, F, c(Coefficient));
    Poly = fma(Poly, F, c(-0.5f));
    llvm::Value *Log1p = fma(F, B.CreateFMul(F, Poly), F);
    llvm::Value *Y = fma(K, c(0.693147182f), Log1p);
    llvm::Value *Inf = c(std::numeric_limits<float>::infinity());
    llvm::Value *NegativeInfOrNaN = B.CreateICmpUGE(Bits, ci(0x7f800000));
    Y = B.CreateSelect(NegativeInfOrNaN, fma(X, Inf, Inf), Y);
    return B.CreateSelect(B.CreateFCmpOEQ(X, c(0.0f)), B.CreateFNeg(Inf), Y);
  }

  // The fast forms: CUDA's intrinsics, flushing subnormals as -use_fast_math does.
  llvm::Value *fastExp(llvm::Value *X) { return ex2(B.CreateFMul(X, c(1.44269502f)), true); }
  llvm::Value *fastLog2(llvm::Value *X) { return un(llvm::Intrinsic::nvvm_lg2_approx_ftz_f, X); }
  llvm::Value *fastLog(llvm::Value *X) { return B.CreateFMul(fastLog2(X), c(0.693147182f)); }
  llvm::Value *fastPow(llvm::Value *X, llvm::Value *Y) {
    return ex2(B.CreateFMul(Y, fastLog2(X)), true);
  }
  llvm::Value *fastSin(llvm::Value *X) { return un(llvm::Intrinsic::nvvm_sin_approx_ftz_f, X); }
  llvm::Value *fastCos(llvm::Value *X) { return un(llvm::Intrinsic::nvvm_cos_approx_ftz_f, X); }
  llvm::Value *fastTan(llvm::Value *X) {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_div_approx_ftz_f, {}, {fastSin(X), fastCos(X)});
  }

private:
  llvm::IRBuilder<> &B;
  llvm::Type *F32;
  llvm::Type *I32;
};

} // namespace

llvm::Value *emitNVPTXMathHook(const std::string &Name, const std::vector<llvm::Value *> &Args,
                               llvm::IRBuilder<> &B) {
  if (Name.rfind("spmd_nvptx_", 0) != 0)
    return nullptr;
  for (llvm::Value *A : Args)
    if (!A->getType()->isFloatTy())
      return nullptr;
  const std::string N = Name.substr(11);
  MathEmitter E(B);
  if (Args.size() == 1) {
    llvm::Value *X = Args[0];
    if (N == "exp")
      return E.exp(X);
    if (N == "log")
      return E.log(X);
    if (N == "fast_exp")
      return E.fastExp(X);
    if (N == "fast_log")
      return E.fastLog(X);
    if (N == "fast_sin")
      return E.fastSin(X);
    if (N == "fast_cos")
      return E.fastCos(X);
    if (N == "fast_tan")
      return E.fastTan(X);
  }
  if (Args.size() == 2 && N == "fast_pow")
    return E.fastPow(Args[0], Args[1]);
  return nullptr;
}

void applyNVPTXFastMath(llvm::Module &M) {
  std::vector<llvm::Instruction *> Work;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        if (!I.getType()->isFloatTy())
          continue;
        if (I.getOpcode() == llvm::Instruction::FDiv)
          Work.push_back(&I);
        else if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I);
                 II && II->getIntrinsicID() == llvm::Intrinsic::sqrt)
          Work.push_back(&I);
      }
  for (llvm::Instruction *I : Work) {
    llvm::IRBuilder<> B(I);
    llvm::Value *R =
        I->getOpcode() == llvm::Instruction::FDiv
            ? B.CreateIntrinsic(llvm::Intrinsic::nvvm_div_approx_ftz_f, {},
                                {I->getOperand(0), I->getOperand(1)})
            : B.CreateIntrinsic(llvm::Intrinsic::nvvm_sqrt_approx_ftz_f, {}, {I->getOperand(0)});
    I->replaceAllUsesWith(R);
    I->eraseFromParent();
  }
}

} // namespace spmdc
