// All-on specialization: marks functions worth a copy of their body for a full entry mask.
#include "ir/AllOnSpecialization.h"

#include "ir/IR.h"

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
    case OpCode::Loop:
      ++C.MaskedWork;
      break;
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

} // namespace

void runAllOnSpecialization(Module &M) {
  for (auto &F : M.Functions) {
    if (!F->Body || F->IsStdlib || F->flags().ExternC || F->flags().Unmasked ||
        F->flags().Export || F->flags().Task)
      continue;
    BodyCost C;
    measure(*F->Body, C);
    F->AllOnCopy = !C.HasLabels && C.Ops >= MinOps && C.MaskedWork > 0;
  }
}

} // namespace spmdc::ir
