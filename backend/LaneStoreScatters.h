// Scatters on x86 targets without scatter instructions: per lane a mask test and a store to a scalar address.
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// SSE4 and AVX2 have no scatter instruction (TTI says `llvm.masked.scatter` is not
/// legal), so LLVM scalarizes scatters during code generation: it first builds the
/// vector of 64-bit pointers of `gep base, sext <W x i32> idx` (pmovsxdq, psllq, paddq
/// per half) and then extracts each pointer (movq, pextrq). ISPC's scatters extract
/// each lane's 32-bit index and store at `base + index * scale`, the address arithmetic
/// in the store's addressing mode. This pass does the same: per lane, a test of the
/// lane's mask bit (none where the mask is a constant), and a store to the lane's scalar
/// address (`lanePointer`). x86 only; AVX-512 keeps its vpscatterdd.
class LaneStoreScattersPass : public llvm::PassInfoMixin<LaneStoreScattersPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
