// Sema for ISPC's operator overloading (the guide's "Operators Overloading"):
// an operator with a struct operand calls the function named `operator+`,
// `operator++`, `operator=` ... chosen by ordinary overload resolution among
// the functions of that name.
//
// The operator node keeps its operands and records the checked call in
// OperatorCall (its arguments are the operands); the lowering lowers the call
// instead of the operator.
#include "frontend/SemaInternal.h"

namespace spmdc {

std::optional<bool> Sema::checkOverloadedOperator(Expr *E, const std::string &Spelling,
                                                  std::vector<Expr *> Operands,
                                                  CallExpr *&OperatorCall, bool OnlyIfViable) {
  std::string Name = "operator" + Spelling;
  std::vector<FunctionDecl *> Candidates;
  if (auto *Set = overloadSet(Name))
    for (FunctionDecl *C : *Set)
      if (Checked.count(C))
        Candidates.push_back(C);
  if (Candidates.empty() && Ctx.FunctionTemplates.count(Name)) {
    Diags.error(E->Loc, "function templates of operators ('" + Name +
                            "') are not supported yet; declare the operator for each type");
    return false;
  }
  // With no such function the built-in operator applies (and reports struct
  // operands as invalid, as before operators could be overloaded).
  if (Candidates.empty())
    return std::nullopt;
  // As in ISPC, a temporary (`a + b` in `(a + b) << c`) may bind to an
  // operator's `S &` parameter: it gets an object of its own.
  for (Expr *&Op : Operands)
    if (Op->Ty->isStruct() && !Op->IsLValue) {
      Op = wrap(Op, CastKind::MaterializeTemporary, Op->Ty);
      Op->IsLValue = true;
    }
  auto *Callee = Ctx.makeExpr<DeclRefExpr>(E->Loc, Name);
  auto *Call = Ctx.makeExpr<CallExpr>(E->Loc, Callee, Operands);
  for (Expr *Op : Operands)
    Call->Depth = std::max(Call->Depth, Op->Depth + 1);
  if (OnlyIfViable) {
    // `a = b` between structs keeps the built-in copy unless an operator=
    // takes these operands.
    bool AnyViable = false;
    for (FunctionDecl *F : Candidates) {
      const auto &PT = F->Ty->getParamTypes();
      bool Ok = PT.size() == Operands.size();
      for (size_t I = 0; Ok && I < Operands.size(); ++I)
        Ok = argumentCost(Operands[I], PT[I], /*Crev=*/false, Operands.size()).has_value();
      AnyViable |= Ok;
    }
    if (!AnyViable)
      return std::nullopt;
  }
  FunctionDecl *F = resolveOverload(Call, Name, Candidates);
  if (!F)
    return false;
  Callee->D = F;
  Callee->Ty = F->Ty;
  Call->ResolvedCallee = F;
  if (!checkCallArgs(Call, F->Ty, Name, &F->Params))
    return false;
  const Type *Ret = F->Ty->getReturnType();
  if (Ret->isReference()) {
    // `S &operator=(S &a, ...)`: the result designates the object returned.
    Call->Ty = Ret->getPointee();
    Call->IsLValue = true;
  } else {
    Call->Ty = Ret;
  }
  OperatorCall = Call;
  E->Ty = Call->Ty;
  E->IsLValue = Call->IsLValue;
  return true;
}

} // namespace spmdc
