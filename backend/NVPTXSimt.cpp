// NVPTX: the condition of a SIMT branch, kept opaque so that LLVM cannot thread around it.
#include "backend/NVPTXSimt.h"

#include "llvm/IR/InlineAsm.h"

namespace spmdc {

llvm::Value *opaqueSimtCondition(llvm::IRBuilder<> &B, llvm::Value *C) {
  auto *Ty = llvm::FunctionType::get(B.getInt1Ty(), {B.getInt1Ty()}, false);
  // No side effect: ptxas sees a predicate copy and folds it. Not readnone
  // either, so two copies of one condition are never merged into one value.
  auto *Copy = llvm::InlineAsm::get(Ty, "mov.pred $0, $1;", "=b,b", /*hasSideEffects=*/false);
  return B.CreateCall(Copy, {C}, "simt.cond");
}

} // namespace spmdc
