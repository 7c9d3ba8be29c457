// Loop strength reduction on NVPTX, on counted loops only.
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// LLVM's loop strength reduction on the loops whose trip count scalar
/// evolution can compute; loops that leave on data (searches, a lane's `while`
/// over its own input) keep their induction variables as written. Code
/// generation's own run, which would reduce every loop, is turned off for
/// NVPTX (backend/CodeGen.cpp). Why, and the measurements: docs/gpu.md, "Loop
/// strength reduction on counted loops only".
class NVPTXLoopStrengthReducePass : public llvm::PassInfoMixin<NVPTXLoopStrengthReducePass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
