// Removes warp votes, shuffles and warp barriers that are provably redundant (NVPTX).
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// LLVM cannot fold or CSE `vote.sync`/`shfl.sync` (they are convergent calls
/// with inaccessible-memory effects), so the masks of the divergence transform
/// leave several votes per loop iteration. spmdc keeps a warp converged
/// wherever these calls run with the full mask, so their result depends only
/// on their SSA operands, and this pass
///  - folds votes on constants: any(c) = all(c) = c, ballot(c) = c ? ~0 : 0;
///  - replaces a vote or shuffle by an identical one that dominates it;
///  - folds and(any(m), m) = m and or(all(m), m) = m;
///  - drops a bar.warp.sync that follows another with no memory access between.
class WarpVoteSimplifyPass : public llvm::PassInfoMixin<WarpVoteSimplifyPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
