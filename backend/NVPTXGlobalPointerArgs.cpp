// Pointer parameters of internal NVPTX functions that every caller passes a global address.
#include "backend/NVPTXGlobalPointerArgs.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

#include <set>
#include <vector>

namespace spmdc {

namespace {

using namespace llvm;

constexpr unsigned GlobalSpace = 1;

bool isKernel(const Function &F) { return F.getCallingConv() == CallingConv::PTX_Kernel; }

/// Internal, defined, and used only as the callee of direct calls.
bool onlyCalledDirectly(const Function &F) {
  if (!F.hasLocalLinkage() || F.isDeclaration() || isKernel(F))
    return false;
  for (const Use &U : F.uses()) {
    const auto *Call = dyn_cast<CallBase>(U.getUser());
    if (!Call || !Call->isCallee(&U))
      return false;
  }
  return true;
}

class GlobalArgumentFinder {
public:
  /// Every generic pointer parameter of the candidate functions, assumed global.
  explicit GlobalArgumentFinder(Module &M) {
    for (Function &F : M)
      if (onlyCalledDirectly(F))
        for (Argument &A : F.args())
          if (A.getType()->isPointerTy() && A.getType()->getPointerAddressSpace() == 0)
            Assumed.insert(&A);
  }

  /// Drops the assumptions that some call contradicts until none does.
  std::set<Argument *> solve() {
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (auto It = Assumed.begin(); It != Assumed.end();) {
        if (everyCallPassesGlobal(**It)) {
          ++It;
          continue;
        }
        It = Assumed.erase(It);
        Changed = true;
      }
    }
    return Assumed;
  }

private:
  std::set<Argument *> Assumed;

  bool everyCallPassesGlobal(Argument &A) {
    for (const Use &U : A.getParent()->uses()) {
      std::set<const Value *> Visiting;
      if (!isGlobal(cast<CallBase>(U.getUser())->getArgOperand(A.getArgNo()), Visiting))
        return false;
    }
    return true;
  }

  /// Whether V is a global address: a kernel's pointer parameter, a cast from
  /// the global space, an assumed parameter, or an address computed from
  /// those alone (a phi's cycle back to itself assumes what its other inputs show).
  bool isGlobal(const Value *V, std::set<const Value *> &Visiting) {
    if (!Visiting.insert(V).second)
      return true;
    if (const auto *A = dyn_cast<Argument>(V))
      return isKernel(*A->getParent()) || Assumed.count(const_cast<Argument *>(A));
    if (const auto *Cast = dyn_cast<AddrSpaceCastOperator>(V))
      return Cast->getSrcAddressSpace() == GlobalSpace;
    if (const auto *GEP = dyn_cast<GEPOperator>(V))
      return isGlobal(GEP->getPointerOperand(), Visiting);
    if (const auto *BC = dyn_cast<BitCastOperator>(V))
      return isGlobal(BC->getOperand(0), Visiting);
    if (const auto *Sel = dyn_cast<SelectInst>(V))
      return isGlobal(Sel->getTrueValue(), Visiting) && isGlobal(Sel->getFalseValue(), Visiting);
    if (const auto *Phi = dyn_cast<PHINode>(V)) {
      for (const Value *In : Phi->incoming_values())
        if (!isGlobal(In, Visiting))
          return false;
      return true;
    }
    return false;
  }
};

/// Routes every use of A through a cast to the global space and back, as
/// NVPTXLowerArgs does for a kernel's parameters.
void castToGlobal(Argument &A) {
  BasicBlock::iterator Entry = A.getParent()->getEntryBlock().getFirstInsertionPt();
  auto *ToGlobal = new AddrSpaceCastInst(&A, PointerType::get(A.getContext(), GlobalSpace),
                                         A.getName() + ".global", Entry);
  auto *Back = new AddrSpaceCastInst(ToGlobal, A.getType(), A.getName() + ".generic", Entry);
  A.replaceUsesWithIf(Back, [&](Use &U) { return U.getUser() != ToGlobal; });
}

} // namespace

PreservedAnalyses NVPTXGlobalPointerArgsPass::run(Module &M, ModuleAnalysisManager &) {
  std::set<Argument *> Global = GlobalArgumentFinder(M).solve();
  std::vector<Argument *> Used;
  for (Argument *A : Global)
    if (!A->use_empty())
      Used.push_back(A);
  for (Argument *A : Used)
    castToGlobal(*A);
  return Used.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

} // namespace spmdc
