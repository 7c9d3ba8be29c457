// Mask logic as lane-wide integers on x86 targets without mask registers (SSE4, AVX2).
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// On SSE4 and AVX2 a `<W x i1>` that is more than a compare feeding a select
/// (a loop's mask in a phi, `mask & cond`, `mask & ~cond`) is legalized to the
/// narrowest integer vector of W lanes that fits a register: <8 x i16> for
/// avx2-i32x8, <16 x i8> for avx2-i32x16. Every compare result then gets
/// packed down (vpackssdw, vpacksswb) and every blend unpacked back (vpmovzx,
/// vpslld), inside the hottest loops. ISPC keeps its masks as 32-bit lanes.
/// This pass rewrites the web of mask phis, and/or/xor and whole-mask selects
/// on `<W x i1>` as the same ops on `<W x i32>`: values entering the web are
/// sign-extended (free on a compare's all-ones lanes), and users outside it
/// (blends, masked loads/stores, any/all) get `wide != 0`, which x86's
/// instruction selection reads straight from the sign bits. Run last:
/// instcombine would fold it back. `Enabled` is false on AVX-512 (mask
/// registers) and off x86.
class WideMasksPass : public llvm::PassInfoMixin<WideMasksPass> {
public:
  explicit WideMasksPass(bool Enabled) : Enabled(Enabled) {}
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);

private:
  bool Enabled;
};

} // namespace spmdc
