// NVPTX: the condition of a SIMT branch, kept opaque so that LLVM cannot thread around it.
#pragma once

#include "llvm/IR/IRBuilder.h"

namespace llvm {
class Module;
}

namespace spmdc {

/// `C` through a `mov.pred` that LLVM cannot see through. A SIMT branch
/// (ir/SimtBranches.cpp) diverges the warp; when a later branch tests the same
/// value, SimplifyCFG's threading (foldCondBranchOnValueKnownInPredecessor,
/// LLVM issue #204958 before LLVM 23) copies the block between the two into
/// each arm, warp operations included, and the threads of the two arms then
/// run different `shfl.sync`/`vote.sync` instructions (a trap on the GPU).
/// With one opaque copy per branch no later branch tests a value known on an
/// arm's edge.
llvm::Value *opaqueSimtCondition(llvm::IRBuilder<> &B, llvm::Value *C);

/// After LLVM's pipeline: the opaque copies whose condition became a constant
/// (a SIMT region's guard `if (mask)` in code inlined where the mask is all-on)
/// are replaced by the constant, so that the branch folds in code generation.
/// No IR pass runs after this one that could thread around a branch.
void foldConstantSimtConditions(llvm::Module &M);

} // namespace spmdc
