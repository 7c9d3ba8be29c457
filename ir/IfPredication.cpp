// If predication: marks varying ifs whose arms are cheap and safe to run with no lane on.
#include "ir/IfPredication.h"

#include "ir/IR.h"

#include <set>
#include <string>

namespace spmdc::ir {

namespace {

/// What a predicated `if` may cost in all (arithmetic ops and blends): a
/// branch and an any-lane test cost about 3 ops plus a mispredict on mixed
/// masks; past this size skipping the arms on all-off masks pays again.
constexpr unsigned PredicationBudget = 12;

/// Is `Addr` the address of one of the function's own slots (a `var`, or a
/// member or constant-index element of one)? Such memory is always there, so
/// reading it with no lane on cannot fault.
bool isLocalSlotAddress(const Value *Addr) {
  if (Addr->Ty->isVarying())
    return false;
  for (const Op *D = Addr->Def; D; D = D->Operands.empty() ? nullptr : D->Operands[0]->Def) {
    switch (D->Code) {
    case OpCode::Var:
      return true;
    case OpCode::FieldAddr:
      break;
    case OpCode::ElementAddr:
      if (!D->Operands[1]->Def || D->Operands[1]->Def->Code != OpCode::ConstInt)
        return false;
      break;
    default:
      return false;
    }
    if (D->Operands[0]->Ty->isVarying())
      return false;
  }
  return false;
}

} // namespace

bool isLaneArithmeticHook(const Op &Call) {
  static const std::set<std::string> Names = {
      "intbits", "floatbits", "doublebits", "float16bits", "abs",  "min",   "max",
      "floor",   "ceil",      "trunc",      "round",       "sqrt", "rsqrt", "rcp"};
  return Call.Callee && Call.Callee->IsStdlib && !Call.Callee->Body &&
         Names.count(Call.Callee->Name);
}

namespace {

/// Adds the cost of running `R` unconditionally to `Cost`; false if some op
/// is unsafe with no lane on or not worth running on every path.
bool cheapRegion(const Region &R, unsigned &Cost, unsigned Budget) {
  for (const auto &O : R.Ops) {
    switch (O->Code) {
    case OpCode::ConstInt:
    case OpCode::ConstFloat:
    case OpCode::ConstNull:
    case OpCode::Builtin:
    case OpCode::Broadcast:
    case OpCode::SizeOf:
    case OpCode::Var:
    case OpCode::FieldAddr:
    case OpCode::ElementAddr:
      break;
    case OpCode::Binary:
      // An integer division traps on x86 for a zero divisor in an off lane.
      if ((O->BinOp == BinaryOp::Div || O->BinOp == BinaryOp::Rem) &&
          !O->Operands[0]->Ty->isFloatingPoint())
        return false;
      Cost += O->BinOp == BinaryOp::Div ? 4 : 1;
      break;
    case OpCode::Unary:
    case OpCode::Convert:
    case OpCode::Select:
      Cost += 1;
      break;
    case OpCode::Call:
      if (!isLaneArithmeticHook(*O))
        return false;
      Cost += O->Callee->Name == "sqrt" ? 4 : 1;
      break;
    case OpCode::Load:
      if (!isLocalSlotAddress(O->Operands[0]))
        return false;
      break;
    case OpCode::Store:
      if (!isLocalSlotAddress(O->Operands[0]))
        return false;
      Cost += 1; // the blend
      break;
    case OpCode::If:
      Cost += 1;
      for (const auto &Sub : O->Regions)
        if (!cheapRegion(*Sub, Cost, Budget))
          return false;
      break;
    default:
      return false;
    }
    if (Cost > Budget)
      return false;
  }
  return true;
}

void markRegion(Region &R) {
  for (auto &O : R.Ops) {
    if (O->Code == OpCode::If && O->Operands[0]->isVarying()) {
      // `?:`, `&&` and `||` run both sides whenever that is safe (as ISPC).
      unsigned Cost = 0, Budget = O->FromExpression ? ~0u : PredicationBudget;
      bool Cheap = true;
      for (const auto &Sub : O->Regions)
        Cheap = Cheap && cheapRegion(*Sub, Cost, Budget);
      O->Predicated = Cheap;
    }
    for (auto &Sub : O->Regions)
      markRegion(*Sub);
  }
}

} // namespace

void runIfPredication(Module &M) {
  for (auto &F : M.Functions)
    if (F->Body)
      markRegion(*F->Body);
}

} // namespace spmdc::ir
