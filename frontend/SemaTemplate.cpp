// Sema for ISPC's function templates (the guide's "Function Templates"):
// binding template arguments (explicit `add<int>(...)` or deduced from the
// call's arguments), naming explicit specializations, and instantiating.
//
// An instance is made by parsing the template's text again with its type
// parameters bound to the argument types and its non-type parameters to their
// values (parseTemplateInstance); the result is an ordinary function named
// `add<varying int32>`, declared at once and checked after the function being
// checked, so that later steps only ever see ordinary functions.
#include "frontend/Parser.h"
#include "frontend/SemaInternal.h"

namespace spmdc {

namespace {

/// ISPC binds an unqualified type argument to varying (`add<int>` is
/// `add<varying int>`); a template parameter never stands for an unbound type.
TemplateArg normalizedArg(Sema &S, const TemplateArg &A) {
  TemplateArg N = A;
  if (A.Ty)
    N.Ty = S.unqualified(S.bindDeclType(A.Ty, Variability::Varying));
  return N;
}

} // namespace

std::string Sema::templateInstanceName(const std::string &Name,
                                       const std::vector<TemplateArg> &Args) {
  std::string S = Name + "<";
  for (size_t I = 0; I < Args.size(); ++I)
    S += (I ? ", " : "") + (Args[I].Ty ? Args[I].Ty->toString() : std::to_string(Args[I].Value));
  return S + ">";
}

bool Sema::deduceTemplateArgs(const Type *Pattern, const Type *Arg, const FunctionTemplate &T,
                              size_t NumExplicit, std::vector<std::optional<TemplateArg>> &Bound) {
  auto Bind = [&](size_t I, TemplateArg A) {
    if (I < NumExplicit)
      return true; // written by the caller: nothing to deduce
    if (Bound[I] && (Bound[I]->Ty != A.Ty || (!A.Ty && Bound[I]->Value != A.Value))) {
      // uniform and varying versions of one type deduce the varying one (a
      // uniform argument broadcasts), as ISPC does; other types conflict.
      if (!A.Ty || varyingOf(Bound[I]->Ty) != varyingOf(A.Ty))
        return false;
      A.Ty = varyingOf(A.Ty);
    }
    Bound[I] = A;
    return true;
  };
  if (Pattern->isStruct() && Pattern->getStructDecl()->IsTemplateParam) {
    for (size_t I = 0; I < T.Params.size(); ++I) {
      if (!T.Params[I].IsType || T.Params[I].Name != Pattern->getStructDecl()->Name)
        continue;
      // ISPC: `uniform T` / `varying T` deduce T with the opposite default
      // variability (the keyword was written to change it); plain T takes
      // the argument's own.
      const Type *A = unqualified(Arg);
      if (Pattern->isUniform())
        A = varyingOf(A);
      else if (Pattern->isVarying())
        A = uniformOf(A);
      return Bind(I, TemplateArg{A, 0});
    }
    return true;
  }
  if (Pattern->isReference())
    return deduceTemplateArgs(Pattern->getPointee(), Arg, T, NumExplicit, Bound);
  if (Pattern->isShortVector()) {
    if (!Arg->isShortVector())
      return true; // a scalar converts to the vector once T and N are known
    // `T<N>`: N from the argument's length, T from its elements.
    int64_t Index = int64_t(Pattern->getArraySize()) - TemplateValuePlaceholder;
    if (Index >= 0 && size_t(Index) < T.Params.size() && !T.Params[Index].IsType &&
        !Bind(size_t(Index), TemplateArg{nullptr, int64_t(Arg->getArraySize())}))
      return false;
    return deduceTemplateArgs(Pattern->getElementType(), Arg->getElementType(), T, NumExplicit,
                              Bound);
  }
  if (Pattern->isPointer() || Pattern->isArray()) {
    const Type *Inner = Pattern->isPointer() ? Pattern->getPointee() : Pattern->getElementType();
    if (Arg->isPointer())
      return deduceTemplateArgs(Inner, Arg->getPointee(), T, NumExplicit, Bound);
    if (Arg->isArray() && !Arg->isShortVector())
      return deduceTemplateArgs(Inner, Arg->getElementType(), T, NumExplicit, Bound);
  }
  return true; // nothing to deduce here; the call checks the conversion
}

void Sema::nameSpecialization(FunctionDecl *F) {
  auto It = Ctx.FunctionTemplates.find(F->Name);
  std::vector<TemplateArg> Args;
  for (const TemplateArg &A : F->SpecializationArgs)
    Args.push_back(normalizedArg(*this, A));
  bool Found = false;
  if (It != Ctx.FunctionTemplates.end())
    for (const FunctionTemplate &T : It->second)
      Found |= T.Params.size() == Args.size() && T.Pattern->Params.size() == F->Params.size();
  if (!Found)
    Diags.error(F->Loc, "no function template '" + F->Name + "' with " +
                            std::to_string(Args.size()) + " template parameter" +
                            (Args.size() == 1 ? "" : "s") + " and " +
                            std::to_string(F->Params.size()) + " function parameter" +
                            (F->Params.size() == 1 ? "" : "s") + " to specialize");
  F->Name = templateInstanceName(F->Name, Args);
}

bool Sema::resolveTemplateCallee(CallExpr *E) {
  auto *Ref = llvm::dyn_cast_or_null<DeclRefExpr>(E->Callee);
  if (!Ref)
    return true;
  auto Templates = Ctx.FunctionTemplates.find(Ref->Name);
  if (Templates == Ctx.FunctionTemplates.end())
    return true;
  // Without explicit arguments an ordinary function of that name wins.
  if (!Ref->HasTemplateArgs && lookup(Ref->Name))
    return true;
  bool ArgsOk = true;
  for (Expr *&A : E->Args)
    ArgsOk &= A && checkExpr(A);
  if (!ArgsOk)
    return false;

  struct Viable {
    const FunctionTemplate *T;
    std::vector<TemplateArg> Args;
  };
  std::vector<Viable> Viables;
  for (const FunctionTemplate &T : Templates->second) {
    if (Ref->TemplateArgs.size() > T.Params.size() || T.Pattern->Params.size() != E->Args.size())
      continue;
    std::vector<std::optional<TemplateArg>> Bound(T.Params.size());
    bool Ok = true;
    for (size_t I = 0; I < Ref->TemplateArgs.size() && Ok; ++I) {
      Ok = (Ref->TemplateArgs[I].Ty != nullptr) == T.Params[I].IsType;
      Bound[I] = normalizedArg(*this, Ref->TemplateArgs[I]);
    }
    for (size_t K = 0; K < E->Args.size() && Ok; ++K)
      if (VarDecl *PD = T.Pattern->Params[K]; PD && PD->Ty && E->Args[K]->Ty)
        Ok = deduceTemplateArgs(PD->Ty, E->Args[K]->Ty, T, Ref->TemplateArgs.size(), Bound);
    Viable V{&T, {}};
    for (size_t I = 0; I < Bound.size() && Ok; ++I) {
      Ok = Bound[I].has_value();
      if (Ok)
        V.Args.push_back(*Bound[I]);
    }
    if (Ok)
      Viables.push_back(std::move(V));
  }
  if (Templates->second.empty()) {
    Diags.error(E->Loc, "function template '" + Ref->Name + "' is declared but never defined");
    return false;
  }
  if (Viables.size() != 1) {
    std::string ArgTypes;
    for (size_t I = 0; I < E->Args.size(); ++I)
      ArgTypes += (I ? ", " : "") + quoted(E->Args[I]->Ty);
    Diags.error(E->Loc, std::string(Viables.empty() ? "no function template '"
                                                    : "ambiguous call to function template '") +
                            Ref->Name + "' matches the call with argument types (" + ArgTypes +
                            ")" +
                            (Viables.empty() && !Ref->HasTemplateArgs
                                 ? ": its template arguments cannot be deduced"
                                 : ""));
    for (const FunctionTemplate &T : Templates->second)
      Diags.note(T.Pattern->Loc, "candidate template '" + T.Name + "' with " +
                                     std::to_string(T.Params.size()) + " template parameter" +
                                     (T.Params.size() == 1 ? "" : "s"));
    return false;
  }
  const Viable &V = Viables.front();
  std::string Name = templateInstanceName(Ref->Name, V.Args);
  // An explicit specialization or an earlier instance with this name and
  // arity is reused.
  bool Exists = false;
  if (auto *Set = overloadSet(Name))
    for (FunctionDecl *F : *Set)
      Exists |= F->Params.size() == V.T->Pattern->Params.size();
  if (!Exists) {
    if (++TemplateInstances > MaxTemplateInstances) {
      Diags.error(E->Loc, "too many function template instances (limit " +
                              std::to_string(MaxTemplateInstances) + ")");
      return false;
    }
    FunctionDecl *F = parseTemplateInstance(*V.T, V.Args, Ctx, Diags);
    if (!F)
      return false;
    F->Name = Name;
    F->InstantiatedAt = E->Loc;
    declareFunction(F);
  }
  Ref->Name = Name;
  Ref->HasTemplateArgs = false;
  return true;
}

} // namespace spmdc
