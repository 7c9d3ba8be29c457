// Negates 16-bit integers (and takes their absolute value) in 32 bits on NVPTX, where ptxas mishandles -32768.
#include "backend/NVPTXNegate16.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"

#include <vector>

namespace spmdc {

llvm::PreservedAnalyses NVPTXNegate16Pass::run(llvm::Function &F, llvm::FunctionAnalysisManager &) {
  using namespace llvm::PatternMatch;
  // `sub i16 0, x` (neg.s16) and `llvm.abs.i16` (abs.s16): both give -32768 for -32768.
  std::vector<llvm::Instruction *> Negations;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (I.getType()->isIntegerTy(16) &&
        (match(&I, m_Neg(m_Value())) || match(&I, m_Intrinsic<llvm::Intrinsic::abs>())))
      Negations.push_back(&I);
  for (llvm::Instruction *I : Negations) {
    llvm::IRBuilder<> B(I);
    llvm::Value *Wide;
    if (auto *Abs = llvm::dyn_cast<llvm::IntrinsicInst>(I))
      Wide = B.CreateBinaryIntrinsic(llvm::Intrinsic::abs,
                                     B.CreateSExt(Abs->getArgOperand(0), B.getInt32Ty()),
                                     B.getFalse());
    else
      Wide = B.CreateNeg(B.CreateSExt(I->getOperand(1), B.getInt32Ty()));
    llvm::Value *Narrow = B.CreateTrunc(Wide, I->getType());
    Narrow->takeName(I);
    I->replaceAllUsesWith(Narrow);
    I->eraseFromParent();
  }
  if (Negations.empty())
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
