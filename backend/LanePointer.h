// Lane `L`'s scalar address of a vector of pointers, for the per-lane gathers and scatters.
#pragma once

#include "llvm/IR/IRBuilder.h"

namespace spmdc {

/// Lane `Lane`'s pointer of the pointer vector `Ptrs`: from `gep base, <indices>`
/// with a scalar base, a scalar gep of the lane's indices (extracted before their
/// extension, so the arithmetic stays scalar and folds into the addressing mode;
/// splats added to a single index become a shared base), else an extract of the
/// pointer vector. LLVM's own scalarization of gathers and scatters builds the
/// vector of 64-bit pointers first (pmovsxdq, psllq, paddq) and extracts each.
llvm::Value *lanePointer(llvm::IRBuilder<> &B, llvm::Value *Ptrs, unsigned Lane);

} // namespace spmdc
