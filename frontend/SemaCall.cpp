// Sema for calls: overload resolution, argument conversion, `launch` and `crev`.
//
// Overloads are ranked in ISPC's spirit: each argument is an exact match, a
// uniform->varying broadcast, a promotion (C's integer promotion, float
// widening), a conversion or a lossy conversion (float -> int, narrowing),
// possibly with a broadcast. The candidate needing the fewest lossy
// conversions, then conversions, then promotions, then broadcasts wins; a tie
// on that cost is an ambiguous call. In a `crev` call each argument is one
// lane's value, so arguments rank as their uniform versions and a varying argument may feed a
// uniform parameter (the back end extracts the lane).
#include "frontend/SemaInternal.h"

#include <array>

namespace spmdc {

namespace {

/// The type an argument has once read as a value (arrays decay, functions
/// become pointers), without changing the tree.
const Type *rvalueTypeOf(Sema &S, Expr *E) {
  const Type *T = E->Ty;
  if (!T)
    return nullptr;
  if (T->isArray() && !T->isShortVector()) {
    Sema::LValueInfo Info = S.lvalueInfo(E);
    const Type *Storage = Info.Storage && Info.Storage->isArray() ? Info.Storage : T;
    return S.Types.getPointer(Storage->getElementType(),
                              Info.VaryingAddress ? Variability::Varying : Variability::Uniform);
  }
  if (T->isFunction())
    return S.Types.getPointer(T, Variability::Uniform);
  return S.unqualified(T);
}

size_t requiredParams(const FunctionDecl *F) {
  size_t N = F->Params.size();
  while (N > 0 && F->Params[N - 1] && F->Params[N - 1]->Init)
    --N;
  return N;
}

} // namespace

ConvRank Sema::argumentRank(Expr *Arg, const Type *ParamTy, bool Crev) {
  if (ParamTy->isReference()) {
    const Type *Target = ParamTy->getPointee();
    if (!Arg->IsLValue || !Arg->Ty)
      return RankNone;
    if (sameType(Arg->Ty, Target) && (!Arg->Ty->isConst() || Target->isConst()))
      return RankExact;
    return RankNone;
  }
  const Type *From = rvalueTypeOf(*this, Arg);
  if (!From)
    return RankNone;
  if (Crev && From->isVarying())
    From = uniformOf(From);
  return conversionRank(From, unqualified(ParamTy), isNullPointerConstant(Arg));
}

/// Converts the call's (checked, not yet loaded) arguments to the parameter
/// types of `FnTy`, reporting count and conversion errors.
bool Sema::checkCallArgs(CallExpr *E, const Type *FnTy, const std::string &Name,
                         const std::vector<VarDecl *> *Params) {
  const auto &PT = FnTy->getParamTypes();
  size_t Required = PT.size();
  if (Params && Params->size() == PT.size()) {
    Required = PT.size();
    while (Required > 0 && (*Params)[Required - 1] && (*Params)[Required - 1]->Init)
      --Required;
  }
  if (E->Args.size() > PT.size() || E->Args.size() < Required) {
    Diags.error(E->Loc, std::string(E->Args.size() > PT.size() ? "too many" : "too few") +
                            " arguments in call to '" + Name + "': expected " +
                            (Required == PT.size()
                                 ? std::to_string(PT.size())
                                 : std::to_string(Required) + " to " + std::to_string(PT.size())) +
                            ", have " + std::to_string(E->Args.size()));
    return false;
  }
  bool Crev = E->Kind == CallKind::Crev;
  bool Ok = true;
  for (size_t I = 0; I < E->Args.size(); ++I) {
    Expr *&Arg = E->Args[I];
    const Type *P = PT[I];
    ConvContext Where{ConvContext::Arg, Name, unsigned(I + 1)};
    if (P->isReference()) {
      const Type *Target = P->getPointee();
      if (!Arg->IsLValue) {
        Diags.error(Arg->Loc, "argument " + std::to_string(I + 1) + " of call to '" + Name +
                                  "' must be an lvalue: the parameter is a reference");
        Ok = false;
      } else if (!sameType(Arg->Ty, Target) || (Arg->Ty->isConst() && !Target->isConst())) {
        Diags.error(Arg->Loc, "cannot bind " + quoted(Arg->Ty) + " to reference parameter " +
                                  std::to_string(I + 1) + " of '" + Name + "' of type " +
                                  quoted(P));
        Ok = false;
      }
      continue;
    }
    if (!toRValue(Arg)) {
      Ok = false;
      continue;
    }
    const Type *To = unqualified(P);
    // crev: a uniform parameter receives one lane's value of a varying argument.
    if (Crev && Arg->Ty->isVarying() && To->isUniform())
      To = varyingOf(To);
    Ok &= convert(Arg, To, Where);
  }
  return Ok;
}

FunctionDecl *Sema::resolveOverload(CallExpr *E, const std::string &Name,
                                    std::vector<FunctionDecl *> &Candidates) {
  bool Crev = E->Kind == CallKind::Crev;
  struct Viable {
    FunctionDecl *F;
    std::vector<ConvRank> Ranks;
  };
  std::vector<Viable> Viables;
  for (FunctionDecl *F : Candidates) {
    const auto &PT = F->Ty->getParamTypes();
    if (E->Args.size() > PT.size() || E->Args.size() < requiredParams(F))
      continue;
    Viable V{F, {}};
    bool Ok = true;
    for (size_t I = 0; I < E->Args.size() && Ok; ++I) {
      ConvRank R = argumentRank(E->Args[I], PT[I], Crev);
      Ok = R != RankNone;
      V.Ranks.push_back(R);
    }
    if (Ok)
      Viables.push_back(std::move(V));
  }
  auto ArgTypes = [&] {
    std::string S;
    for (size_t I = 0; I < E->Args.size(); ++I)
      S += (I ? ", " : "") + quoted(rvalueTypeOf(*this, E->Args[I]));
    return "(" + S + ")";
  };
  auto NoteCandidates = [&](const std::vector<FunctionDecl *> &List) {
    const size_t MaxNotes = 12;
    for (size_t I = 0; I < List.size() && I < MaxNotes; ++I)
      Diags.note(List[I]->Loc, "candidate: '" + functionSignature(List[I]) + "'");
    if (List.size() > MaxNotes)
      Diags.note(E->Loc, std::to_string(List.size() - MaxNotes) + " more candidates not shown");
  };
  if (Viables.empty()) {
    Diags.error(E->Loc, "no matching function for call to '" + Name + "' with argument types " +
                            ArgTypes());
    NoteCandidates(Candidates);
    return nullptr;
  }
  // A candidate's cost: how many arguments need a lossy conversion, then how
  // many another conversion, then a promotion, then a uniform->varying
  // broadcast; compared in that order.
  auto Cost = [](const Viable &V) {
    std::array<unsigned, 4> C{0, 0, 0, 0};
    for (ConvRank R : V.Ranks) {
      if (R >= RankLossy)
        ++C[0];
      else if (R >= RankConversion)
        ++C[1];
      else if (R >= RankPromotion)
        ++C[2];
      if (R % 2 == 1)
        ++C[3];
    }
    return C;
  };
  auto Better = [&](const Viable &A, const Viable &B) { return Cost(A) < Cost(B); };
  for (const Viable &V : Viables) {
    bool BestOfAll = true;
    for (const Viable &W : Viables)
      if (&V != &W && !Better(V, W))
        BestOfAll = false;
    if (BestOfAll)
      return V.F;
  }
  // No single best: list the candidates that no other candidate beats.
  std::vector<FunctionDecl *> Tied;
  for (const Viable &V : Viables) {
    bool Beaten = false;
    for (const Viable &W : Viables)
      Beaten |= &V != &W && Better(W, V);
    if (!Beaten)
      Tied.push_back(V.F);
  }
  Diags.error(E->Loc, "call to '" + Name + "' is ambiguous with argument types " + ArgTypes());
  NoteCandidates(Tied);
  return nullptr;
}

bool Sema::checkCall(CallExpr *E) {
  bool Ok = true;
  for (Expr *&N : E->LaunchCounts) {
    if (!N || !checkRValue(N)) {
      Ok = false;
      continue;
    }
    if (!N->Ty->isInteger() && !N->Ty->isEnum()) {
      Diags.error(N->Loc, "launch count must be an integer, not " + quoted(N->Ty));
      Ok = false;
    } else if (N->Ty->isVarying()) {
      Diags.error(N->Loc, "launch count must be uniform, not " + quoted(N->Ty));
      Ok = false;
    } else {
      convert(N, int32Ty(Variability::Uniform), ConvContext{ConvContext::Operand});
    }
  }
  bool ArgsOk = true;
  for (Expr *&A : E->Args)
    ArgsOk &= A && checkExpr(A);
  if (!E->Callee)
    return false;

  const Type *FnTy = nullptr;
  FunctionDecl *F = nullptr;
  std::string Name = "function pointer";
  auto *Ref = llvm::dyn_cast<DeclRefExpr>(E->Callee);
  Decl *Found = Ref ? lookup(Ref->Name) : nullptr;
  if (Ref && Found && llvm::isa<FunctionDecl>(Found)) {
    // A named function: pick among its overloads.
    Name = Ref->Name;
    std::vector<FunctionDecl *> Candidates;
    if (auto *Set = overloadSet(Name))
      for (FunctionDecl *C : *Set)
        if (Checked.count(C))
          Candidates.push_back(C);
    if (Candidates.empty() || !ArgsOk || !Ok)
      return false;
    F = Candidates.size() == 1 ? Candidates.front() : resolveOverload(E, Name, Candidates);
    if (!F)
      return false;
    Ref->D = F;
    Ref->Ty = F->Ty;
    FnTy = F->Ty;
    E->ResolvedCallee = F;
  } else {
    // Anything else must evaluate to a function pointer.
    if (!checkExpr(E->Callee))
      return false;
    if (E->Kind == CallKind::Crev) {
      const Type *CT = E->Callee->Ty;
      bool FnPtr = CT->isPointer() && CT->getPointee()->isFunction();
      // `crev (*fp)(...)`: the function designator keeps no variability, so
      // look at the pointer it came from.
      bool VaryingDeref = false;
      if (auto *U = llvm::dyn_cast<UnaryExpr>(E->Callee); U && U->Op == UnaryOp::Deref)
        VaryingDeref = U->Operand->Ty && U->Operand->Ty->isVarying();
      if ((FnPtr && CT->isVarying()) || VaryingDeref) {
        Diags.error(E->Callee->Loc, "crev through a varying function pointer is not allowed");
        return false;
      }
      if (!FnPtr && !CT->isFunction()) {
        std::string What = Ref ? "'" + Ref->Name + "'" : "an expression";
        Diags.error(E->Callee->Loc, "'crev' needs a call of a named function, but " + What +
                                        " has type " + quoted(CT));
        return false;
      }
    }
    if (!toRValue(E->Callee))
      return false;
    const Type *CT = E->Callee->Ty;
    if (!CT->isPointer() || !CT->getPointee()->isFunction()) {
      Diags.error(E->Callee->Loc, "called object of type " + quoted(CT) + " is not a function");
      return false;
    }
    FnTy = CT->getPointee();
    if (Ref)
      Name = Ref->Name;
    if (!ArgsOk || !Ok)
      return false;
  }

  if (!checkCallArgs(E, FnTy, Name, F ? &F->Params : nullptr))
    return false;

  const Type *Ret = FnTy->getReturnType();
  if (E->Kind != CallKind::Launch && FnTy->getFunctionFlags().Task) {
    // As in ISPC: a task runs only as part of a launch.
    Diags.error(E->Loc, "task function '" + Name + "' must be called with 'launch'");
    return false;
  }
  switch (E->Kind) {
  case CallKind::Plain:
    E->Ty = Ret;
    if (Ret->isReference()) {
      // A function returning `T &` designates the object it returns.
      E->Ty = Ret->getPointee();
      E->IsLValue = true;
    }
    break;
  case CallKind::Crev:
    // Lane l receives the result of lane l's run: always varying.
    E->Ty = Ret->isVoid() ? Ret : varyingOf(Ret);
    break;
  case CallKind::Launch:
    if (!FnTy->getFunctionFlags().Task) {
      Diags.error(E->Loc,
                  "'launch' needs a task function, but '" + Name + "' is not declared 'task'");
      if (F && F->Loc.isValid())
        Diags.note(F->Loc, "'" + Name + "' is declared here");
      return false;
    }
    E->Ty = Types.getVoid();
    break;
  }
  return true;
}

} // namespace spmdc
