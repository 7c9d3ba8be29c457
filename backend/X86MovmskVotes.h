// Lane votes (any, all, none of a mask) by movmsk and a scalar compare on AVX2.
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// A vote on a mask reaches code generation as `icmp eq/ne (bitcast <W x i1> m to iW),
/// 0 or -1`, which LLVM's x86 instruction selection turns into vtestps/vptest on AVX
/// targets: two micro-ops on one vector pipe (Zen 4, Intel alike) and no fusion with
/// the branch, where `vmovmskps` is one and the scalar compare fuses with the branch.
/// On frexp's loop, AVX2, the vtestps form ran at 0.58 of ISPC's speed, the movmsk form
/// 0.81 (docs/stdlib.md). This pass rewrites each such vote as movmsk of the mask
/// sign-extended to its compare's lane width (256-bit halves and-ed or or-ed into one
/// register first where the mask spans more) and a signed compare of the bits, the one
/// form instruction selection leaves as it is (an unsigned or equality compare of the
/// bits becomes vtestps again). Run last: instcombine would fold it back. Enabled on
/// AVX2 only: SSE4 already gets movmskps, AVX-512 tests mask registers (kortest).
class X86MovmskVotesPass : public llvm::PassInfoMixin<X86MovmskVotesPass> {
public:
  explicit X86MovmskVotesPass(bool Enabled) : Enabled(Enabled) {}
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);

private:
  bool Enabled;
};

} // namespace spmdc
