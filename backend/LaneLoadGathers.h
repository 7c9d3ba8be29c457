// Unmasked gathers on x86 targets without gather instructions: scalar loads with scalar addresses.
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// Where the target has no gather instruction (SSE4: TTI says the gather is
/// not legal), LLVM scalarizes `llvm.masked.gather` late, and for a gather of
/// `gep base, sext <W x i32> idx` it first builds the vector of 64-bit
/// pointers (pmovsxdq, psllq, paddq) and then extracts each (movq, pextrq).
/// For a gather under the constant all-on mask (all-on function copies, full
/// foreach chunks) this pass does what ISPC's SSE4 gathers do: per lane, the
/// lane's 32-bit index extracted, scalar address arithmetic (folded into the
/// load's addressing mode) and a load. Gathers under a variable mask stay LLVM's
/// per-lane branches (docs/decisions.md: the branch-free form measured slower on
/// sort), except that the stretch of a block from its first to its last gather
/// under one variable mask is copied under `all(mask)` with the copy's gathers
/// all-on (LLVM's simplifycfg merges a function's all-on copy with its masked
/// body when the two differ only in the mask). x86 only.
class LaneLoadGathersPass : public llvm::PassInfoMixin<LaneLoadGathersPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
