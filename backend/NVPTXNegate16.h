// Negates 16-bit integers (and takes their absolute value) in 32 bits on NVPTX, where ptxas mishandles -32768.
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// ptxas (CUDA 13.0, sm_90; seen on an H100 and an H200) keeps a 16-bit value
/// sign-extended in a 32-bit register and treats `neg.s16` (and `sub.s16 0,
/// x`, which it turns into one) as if its result stayed in range: negating
/// -32768 gives +32768 in the register, and a following `cvt.s64.s16` or
/// `cvt.s32.s16` reads it without extending again (0x0000000000008000 instead
/// of 0xffffffffffff8000; `abs.s16` of -32768 the same; `add.s16`, `mul.lo.s16`
/// and a non-zero `sub.s16` that wrap re-extend and are right). LLVM selects
/// `neg.s16` for every `sub i16 0, x` and `abs.s16` for `llvm.abs.i16`, so this
/// pass rewrites them as `trunc(sub i32 0, sext x)` and `trunc(abs(sext x))`:
/// the truncation makes ptxas extend again.
/// Found by the differential tests (GPU seed 300245; docs/testing.md). Runs
/// last, at every optimization level (instcombine would fold it back).
class NVPTXNegate16Pass : public llvm::PassInfoMixin<NVPTXNegate16Pass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
