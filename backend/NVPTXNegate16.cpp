// Negates 16-bit integers in 32 bits on NVPTX, where ptxas mishandles neg.s16 of -32768.
#include "backend/NVPTXNegate16.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/PatternMatch.h"

#include <vector>

namespace spmdc {

llvm::PreservedAnalyses NVPTXNegate16Pass::run(llvm::Function &F, llvm::FunctionAnalysisManager &) {
  using namespace llvm::PatternMatch;
  std::vector<llvm::BinaryOperator *> Negations;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (I.getType()->isIntegerTy(16) && match(&I, m_Neg(m_Value())))
      Negations.push_back(llvm::cast<llvm::BinaryOperator>(&I));
  for (llvm::BinaryOperator *Neg : Negations) {
    llvm::IRBuilder<> B(Neg);
    llvm::Value *Wide = B.CreateNeg(B.CreateSExt(Neg->getOperand(1), B.getInt32Ty()));
    llvm::Value *Narrow = B.CreateTrunc(Wide, Neg->getType());
    Narrow->takeName(Neg);
    Neg->replaceAllUsesWith(Narrow);
    Neg->eraseFromParent();
  }
  if (Negations.empty())
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
