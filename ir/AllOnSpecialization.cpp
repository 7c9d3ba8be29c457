// All-on specialization: marks functions worth a copy of their body for a full entry mask.
#include "ir/AllOnSpecialization.h"

#include "ir/IR.h"
#include "ir/IfPredication.h"

#include <map>

namespace spmdc::ir {

namespace {

/// Below this many ops the test of the entry mask costs more than it saves.
constexpr unsigned MinOps = 16;

struct BodyCost {
  unsigned Ops = 0;
  unsigned MaskedWork = 0; ///< ops whose code changes when the mask is all on
  bool HasLabels = false;  ///< goto targets are unique per function: no copy
};

bool isLocalSlot(const Value *Addr) { return Addr->Def && Addr->Def->Code == OpCode::Var; }

/// Measures every function once, callees first (a call's cost depends on its
/// callee's decision); a recursive call is counted as mask-dependent work.
class Specializer {
public:
  /// The function's measure, its AllOnCopy decided.
  const BodyCost &summary(Function &F) {
    auto [It, New] = Summaries.try_emplace(&F);
    if (!New)
      return It->second;
    BodyCost C;
    C.MaskedWork = 1; // seen again while measuring: a recursion
    It->second = C;
    C = BodyCost();
    if (F.Body)
      measure(*F.Body, C);
    F.AllOnCopy = F.Body && !F.IsStdlib && !F.flags().ExternC && !F.flags().Unmasked &&
                  !F.flags().Export && !F.flags().Task && !C.HasLabels && C.Ops >= MinOps &&
                  C.MaskedWork > 0;
    return Summaries[&F] = C;
  }

private:
  std::map<const Function *, BodyCost> Summaries;

  /// Whether the caller's all-on copy changes the code of this call: not for a
  /// hook that is each lane's arithmetic, nor for a callee with no work that
  /// depends on the mask, nor for one that has an all-on copy of its own (then
  /// the caller's copy only saves the callee's entry test, and doubles its call
  /// sites, which can keep LLVM from inlining it: noise's turbulence()).
  bool callDependsOnMask(const Op &Call) {
    if (!Call.Callee)
      return true; // through a pointer
    if (isLaneArithmeticHook(Call))
      return false;
    if (!Call.Callee->Body)
      return true; // another hook, an extern function: the mask is theirs
    const BodyCost &C = summary(*Call.Callee);
    return C.MaskedWork > 0 && !Call.Callee->AllOnCopy;
  }

  void measure(const Region &R, BodyCost &C) {
    for (const auto &O : R.Ops) {
      ++C.Ops;
      switch (O->Code) {
      case OpCode::Label:
      case OpCode::Goto:
        C.HasLabels = true;
        break;
      case OpCode::Store:
        if (!isLocalSlot(O->Operands[0]))
          ++C.MaskedWork;
        break;
      case OpCode::Load:
        if (O->Operands[0]->Ty->isVarying())
          ++C.MaskedWork;
        break;
      case OpCode::Call:
        if (callDependsOnMask(*O))
          ++C.MaskedWork;
        break;
      case OpCode::Loop: {
        // A uniform loop is the same loop either way (its body is measured below).
        const Region &Cond = *O->Regions[0];
        if (Cond.Ops.empty() || Cond.Ops.back()->Code != OpCode::Yield ||
            Cond.Ops.back()->Operands[0]->isVarying())
          ++C.MaskedWork;
        break;
      }
      case OpCode::If:
        // A predicated if (ir/IfPredication.cpp) is the same blends either way.
        if (O->Operands[0]->isVarying() && !O->Predicated)
          ++C.MaskedWork;
        break;
      default:
        break;
      }
      // A foreach runs all-on whatever the entry mask: its body gains nothing.
      if (O->Code == OpCode::Foreach)
        continue;
      for (const auto &Sub : O->Regions)
        measure(*Sub, C);
    }
  }
};

} // namespace

void runAllOnSpecialization(Module &M) {
  Specializer S;
  for (auto &F : M.Functions)
    S.summary(*F);
}

} // namespace spmdc::ir
