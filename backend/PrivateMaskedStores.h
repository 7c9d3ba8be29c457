// Masked stores into a function's own stack memory become load/select/store (a blend).
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// `llvm.masked.store(v, p, m)` where p points into an alloca whose address
/// never escapes the function becomes `store(select(m, v, load(p)), p)`: no
/// other thread can see the inactive lanes being rewritten with their own
/// value, and SROA promotes the alloca to registers afterwards (it cannot see
/// through masked stores). This is ISPC's "blend" store for private memory.
/// On x86 a masked store (vmaskmovps) also blocks store-to-load forwarding,
/// which made varying structs on the stack (aobench's Ray and Isect) slow.
class PrivateMaskedStoresPass : public llvm::PassInfoMixin<PrivateMaskedStoresPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace spmdc
