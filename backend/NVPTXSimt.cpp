// NVPTX: the condition of a SIMT branch, kept opaque so that LLVM cannot thread around it.
#include "backend/NVPTXSimt.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace spmdc {

namespace {
constexpr const char *CopyText = "mov.pred $0, $1;";
constexpr const char *CopyConstraints = "=b,b";
} // namespace

llvm::Value *opaqueSimtCondition(llvm::IRBuilder<> &B, llvm::Value *C) {
  auto *Ty = llvm::FunctionType::get(B.getInt1Ty(), {B.getInt1Ty()}, false);
  // No side effect: ptxas sees a predicate copy and folds it. Not readnone
  // either, so two copies of one condition are never merged into one value.
  auto *Copy = llvm::InlineAsm::get(Ty, CopyText, CopyConstraints, /*hasSideEffects=*/false);
  return B.CreateCall(Copy, {C}, "simt.cond");
}

void foldConstantSimtConditions(llvm::Module &M) {
  std::vector<llvm::CallInst *> Constant;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        if (auto *Call = llvm::dyn_cast<llvm::CallInst>(&I))
          if (auto *Asm = llvm::dyn_cast<llvm::InlineAsm>(Call->getCalledOperand());
              Asm && Asm->getAsmString() == CopyText &&
              Asm->getConstraintString() == CopyConstraints &&
              llvm::isa<llvm::Constant>(Call->getArgOperand(0)))
            Constant.push_back(Call);
  for (llvm::CallInst *Call : Constant) {
    Call->replaceAllUsesWith(Call->getArgOperand(0));
    Call->eraseFromParent();
  }
}

} // namespace spmdc
