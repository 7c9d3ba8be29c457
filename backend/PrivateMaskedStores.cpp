// Masked stores into non-escaping allocas -> blends SROA can promote (see the header).
#include "backend/PrivateMaskedStores.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/Loads.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

namespace spmdc {

namespace {

/// Caches, per alloca, whether its address stays inside the function.
class PrivateAllocas {
public:
  bool contains(const llvm::Value *Ptr) {
    auto *AI = llvm::dyn_cast<llvm::AllocaInst>(llvm::getUnderlyingObject(Ptr));
    if (!AI)
      return false;
    auto [It, New] = Private.try_emplace(AI, false);
    if (New)
      It->second = !llvm::PointerMayBeCaptured(AI, /*ReturnCaptures=*/true);
    return It->second;
  }

private:
  llvm::DenseMap<const llvm::AllocaInst *, bool> Private;
};

} // namespace

llvm::PreservedAnalyses PrivateMaskedStoresPass::run(llvm::Function &F,
                                                     llvm::FunctionAnalysisManager &) {
  const llvm::DataLayout &DL = F.getDataLayout();
  llvm::SmallVector<llvm::IntrinsicInst *, 16> Stores;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
      if (II->getIntrinsicID() == llvm::Intrinsic::masked_store)
        Stores.push_back(II);
  PrivateAllocas Allocas;
  bool Changed = false;
  for (llvm::IntrinsicInst *St : Stores) {
    llvm::Value *V = St->getArgOperand(0), *Ptr = St->getArgOperand(1), *M = St->getArgOperand(2);
    llvm::Align A = St->getParamAlign(1).valueOrOne();
    // The blend reads and writes every lane's element: all of them must be inside the alloca.
    if (!Allocas.contains(Ptr) ||
        !llvm::isDereferenceableAndAlignedPointer(Ptr, V->getType(), A, DL, St))
      continue;
    llvm::IRBuilder<> B(St);
    llvm::Value *Old = B.CreateAlignedLoad(V->getType(), Ptr, A);
    B.CreateAlignedStore(B.CreateSelect(M, V, Old), Ptr, A);
    St->eraseFromParent();
    Changed = true;
  }
  if (!Changed)
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace spmdc
