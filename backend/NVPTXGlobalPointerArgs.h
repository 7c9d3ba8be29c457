// Pointer parameters of internal NVPTX functions that every caller passes a global address.
#pragma once

#include "llvm/IR/PassManager.h"

namespace spmdc {

/// A function that is not inlined (a recursive one, a large one) takes its
/// pointer parameters in the generic address space, so its loads and stores
/// are generic (`ld`/`st`, SASS `LD.E`/`ST.E`) where the caller's are global
/// (`ld.global`, `LDG.E`): code generation knows a kernel's pointer parameters
/// point to global memory (NVPTXLowerArgs), not a callee's. This pass finds the
/// pointer parameters of internal, only directly called functions to which
/// every call passes a global address (a kernel's pointer parameter, a cast
/// from the global space, such a parameter itself: a greatest fixed point over
/// the call graph, so a recursive call passing its own parameter on is fine)
/// and casts them to the global space at the function's entry, which code
/// generation's address-space inference then carries to the loads and stores.
/// A pointer into a warp's shared slot or a private stack object never
/// qualifies.
class NVPTXGlobalPointerArgsPass : public llvm::PassInfoMixin<NVPTXGlobalPointerArgsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
};

} // namespace spmdc
