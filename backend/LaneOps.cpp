// What the lane models of every target share: entry-block slots and reduction identities.
#include "backend/LaneOps.h"

namespace spmdc {

llvm::Value *LaneOps::entryAlloca(llvm::Type *T) {
  llvm::BasicBlock &Entry = function()->getEntryBlock();
  llvm::IRBuilder<> EB(&Entry, Entry.begin());
  return EB.CreateAlloca(T);
}

llvm::Value *LaneOps::identity(ReduceKind K, llvm::Type *ET, bool Float, bool Signed) {
  if (K == ReduceKind::Add)
    return llvm::Constant::getNullValue(ET);
  bool Min = K == ReduceKind::Min;
  if (Float)
    return llvm::ConstantFP::getInfinity(ET, !Min);
  unsigned Bits = ET->getIntegerBitWidth();
  if (Signed)
    return llvm::ConstantInt::get(ET, Min ? llvm::APInt::getSignedMaxValue(Bits)
                                          : llvm::APInt::getSignedMinValue(Bits));
  return llvm::ConstantInt::get(ET, Min ? llvm::APInt::getMaxValue(Bits) : llvm::APInt(Bits, 0));
}

} // namespace spmdc
