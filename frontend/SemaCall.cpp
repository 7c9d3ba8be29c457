// Sema for calls: overload resolution, argument conversion, `launch` and `crev`.
//
// Overloads are ranked exactly as ISPC ranks them (user guide, "Function
// Overloading"): each argument costs a multiple of a scale by how it reaches
// its parameter -- exact (0), binding a reference (2), dropping const (1),
// widening without loss (8), uniform->varying (16), widening plus broadcast
// (128), any other conversion (64, plus 128 with a broadcast). A literal
// argument's scale is 512 times smaller than another's, so converting a
// literal is cheaper than converting a variable. The candidate with the lowest
// sum wins; a tie is an ambiguous call, and a winner that another candidate
// beats on some argument draws ISPC's "ambiguous" warning. In a `crev` call each argument is one
// lane's value, so arguments rank as their uniform versions and a varying argument may feed a
// uniform parameter (the back end extracts the lane).
#include "frontend/SemaInternal.h"

#include <algorithm>

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

/// The argument as ISPC's overload ranking sees it: its type keeps const
/// (literals are const), a reference stays a reference, and literals scale
/// their conversions down.
struct CallArgument {
  const Type *Ty = nullptr; ///< before array/function decay, reference stripped
  bool IsReference = false; ///< names a reference variable
  bool IsLiteral = false;   ///< a literal or enumerator (ISPC's ConstExpr)
  bool Const = false;
};

static CallArgument describeArgument(Expr *E) {
  CallArgument A;
  A.Ty = E->Ty;
  switch (E->getKind()) {
  case Expr::IntegerLiteralKind:
  case Expr::FloatLiteralKind:
  case Expr::BoolLiteralKind:
  case Expr::NullLiteralKind:
    A.IsLiteral = true;
    break;
  case Expr::DeclRefExprKind: {
    Decl *D = llvm::cast<DeclRefExpr>(E)->D;
    if (auto *V = llvm::dyn_cast_or_null<VarDecl>(D))
      A.IsReference = V->Ty && V->Ty->isReference();
    A.IsLiteral = llvm::isa_and_nonnull<EnumConstantDecl>(D);
    break;
  }
  case Expr::CallExprKind:
    A.IsReference = E->IsLValue; // returns a reference
    break;
  default:
    break;
  }
  A.Const = A.IsLiteral || (A.Ty && A.Ty->isConst());
  return A;
}

/// ISPC's lossless widening between atomic types of one variability: bool to
/// anything, 8-bit to anything but bool, 16-bit to 16 bits or more, 32-bit
/// integers to 32/64-bit integers, float16 to float/double, float to double,
/// 64-bit integers to 64-bit integers.
static bool isWidening(const Type *From, const Type *To) {
  if (!From->isArithmetic() || !To->isArithmetic() || From->isEnum() || To->isEnum() ||
      From->getVariability() != To->getVariability())
    return false;
  Type::Kind T = To->getKind();
  auto Is = [T](std::initializer_list<Type::Kind> Ks) {
    return std::find(Ks.begin(), Ks.end(), T) != Ks.end();
  };
  switch (From->getKind()) {
  case Type::Bool:
    return true;
  case Type::Int8:
  case Type::UInt8:
    return T != Type::Bool;
  case Type::Int16:
  case Type::UInt16:
    return !Is({Type::Bool, Type::Int8, Type::UInt8});
  case Type::Int32:
  case Type::UInt32:
    return Is({Type::Int32, Type::UInt32, Type::Int64, Type::UInt64});
  case Type::Float16:
    return Is({Type::Float, Type::Double});
  case Type::Float:
    return T == Type::Double;
  case Type::Int64:
  case Type::UInt64:
    return Is({Type::Int64, Type::UInt64});
  default:
    return false;
  }
}

std::optional<uint64_t> Sema::argumentCost(Expr *Arg, const Type *ParamTy, bool Crev,
                                           size_t NumArgs) {
  CallArgument A = describeArgument(Arg);
  if (!A.Ty)
    return std::nullopt;
  if (Crev && A.Ty->isVarying())
    A.Ty = uniformOf(A.Ty);
  const uint64_t Scale = (NumArgs + 1) * (A.IsLiteral ? 1 : 512);

  if (ParamTy->isReference()) {
    const Type *Target = ParamTy->getPointee();
    if (A.IsReference && A.Ty == Target)
      return 0;
    // A const object never binds to a non-const reference; the referenced
    // types must otherwise agree exactly (no conversion into a reference).
    if ((A.Const && !Target->isConst()) || !sameType(A.Ty, Target))
      return std::nullopt;
    return (!A.Const && Target->isConst() ? 4 : 2) * Scale;
  }
  const Type *P = ParamTy;
  if (!A.IsReference && A.Ty == P && A.Const == P->isConst())
    return 0;
  if (P->isPointer() && isNullPointerConstant(Arg))
    return 0;
  uint64_t Cost = A.IsReference ? 2 * Scale : 0;
  if (A.Ty->isArray() || A.Ty->isFunction()) {
    // Array and function designators decay to pointers: a conversion.
    const Type *Decayed = rvalueTypeOf(*this, Arg);
    if (!implicitlyConvertible(Decayed, unqualified(P), false))
      return std::nullopt;
    return Cost + (P->isVarying() && Decayed->isUniform() ? 192 : 64) * Scale;
  }
  const Type *From = unqualified(A.Ty), *To = unqualified(P);
  if (From == To)
    return Cost + 1 * Scale;
  if (isWidening(From, To))
    return Cost + 8 * Scale;
  if (To->isVarying() && From->isUniform()) {
    if (varyingOf(From) == To)
      return Cost + 16 * Scale;
    if (isWidening(varyingOf(From), To))
      return Cost + 128 * Scale;
    Cost += 128 * Scale;
  }
  if (!implicitlyConvertible(From, To, isNullPointerConstant(Arg)))
    return std::nullopt;
  return Cost + 64 * Scale;
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
      // As in ISPC, a reference binds to an object of exactly its type, or
      // to a temporary holding the argument's value (lowering spills it);
      // something const binds only to a const reference.
      if (!argumentCost(Arg, P, Crev, E->Args.size())) {
        bool ConstToPlain = describeArgument(Arg).Const && !P->getPointee()->isConst() &&
                            sameType(Arg->Ty, P->getPointee());
        Diags.error(Arg->Loc, "cannot bind " + std::string(ConstToPlain ? "constant " : "") +
                                  quoted(rvalueTypeOf(*this, Arg)) + " to " +
                                  (ConstToPlain ? "non-const " : "") + "reference parameter " +
                                  std::to_string(I + 1) + " of '" + Name + "' of type " +
                                  quoted(P));
        Ok = false;
      } else if (!Arg->IsLValue) {
        Ok &= toRValue(Arg);
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

/// spmdc's one extension to ISPC's overload ranking: a tie between candidates for integer
/// arguments of mixed signedness (`min(taskIndex * chunk, n)`: taskIndex is unsigned, as in
/// ISPC, n an int) goes to the candidate whose parameters all have the type C's usual
/// arithmetic conversions give the arguments (here unsigned int32), as a binary operator
/// on them would. ISPC reports such a call as ambiguous, so no ISPC program changes meaning.
template <typename ViableT>
static const ViableT *tieBrokenBySignedness(Sema &S, CallExpr *E,
                                            const std::vector<const ViableT *> &Tied) {
  bool Signed = false, Unsigned = false;
  const Type *Common = nullptr;
  for (Expr *Arg : E->Args) {
    const Type *T = rvalueTypeOf(S, Arg);
    if (!T || !T->isInteger())
      return nullptr;
    Signed |= T->isSignedInteger();
    Unsigned |= T->isUnsignedInteger();
    Common = Common ? S.Types.getAtomic(Sema::commonArithKind(Common, T)) : T;
  }
  if (!Signed || !Unsigned)
    return nullptr;
  const ViableT *Pick = nullptr;
  for (const ViableT *V : Tied) {
    const auto &PT = V->F->Ty->getParamTypes();
    bool All = true;
    for (size_t I = 0; I < E->Args.size() && All; ++I) {
      const Type *P = PT[I]->isReference() ? PT[I]->getPointee() : PT[I];
      All = P->getKind() == Common->getKind();
    }
    if (All) {
      if (Pick)
        return nullptr;
      Pick = V;
    }
  }
  return Pick;
}

FunctionDecl *Sema::resolveOverload(CallExpr *E, const std::string &Name,
                                    std::vector<FunctionDecl *> &Candidates) {
  bool Crev = E->Kind == CallKind::Crev;
  struct Viable {
    FunctionDecl *F;
    std::vector<uint64_t> Costs; ///< per argument
    uint64_t Total = 0;
  };
  std::vector<Viable> Viables;
  for (FunctionDecl *F : Candidates) {
    const auto &PT = F->Ty->getParamTypes();
    if (E->Args.size() > PT.size() || E->Args.size() < requiredParams(F))
      continue;
    Viable V{F, {}};
    bool Ok = true;
    for (size_t I = 0; I < E->Args.size() && Ok; ++I) {
      std::optional<uint64_t> C = argumentCost(E->Args[I], PT[I], Crev, E->Args.size());
      Ok = C.has_value();
      V.Costs.push_back(C.value_or(0));
      V.Total += C.value_or(0);
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
  uint64_t Best = Viables.front().Total;
  for (const Viable &V : Viables)
    Best = std::min(Best, V.Total);
  std::vector<const Viable *> Cheapest;
  for (const Viable &V : Viables)
    if (V.Total == Best)
      Cheapest.push_back(&V);
  const Viable *SignednessPick =
      Cheapest.size() > 1 ? tieBrokenBySignedness<Viable>(*this, E, Cheapest) : nullptr;
  if (SignednessPick)
    Cheapest = {SignednessPick};
  if (Cheapest.size() > 1) {
    std::vector<FunctionDecl *> Tied;
    for (const Viable *V : Cheapest)
      Tied.push_back(V->F);
    Diags.error(E->Loc, "call to '" + Name + "' is ambiguous with argument types " + ArgTypes());
    NoteCandidates(Tied);
    return nullptr;
  }
  // As ISPC: the cheapest candidate wins, but if another one passes some
  // argument more cheaply the choice is ISPC's "ambiguous" warning.
  const Viable &Winner = *Cheapest.front();
  if (!(CurFunction && CurFunction->IsStdlib) && !SignednessPick)
    for (const Viable &V : Viables)
      for (size_t I = 0; I < E->Args.size() && &V != &Winner; ++I)
        if (V.Costs[I] < Winner.Costs[I]) {
          Diags.warning(E->Loc, "call to '" + Name + "' with argument types " + ArgTypes() +
                                    " is ambiguous: '" + functionSignature(Winner.F) +
                                    "' is chosen, but another candidate matches argument " +
                                    std::to_string(I + 1) + " better");
          Diags.note(V.F->Loc, "candidate: '" + functionSignature(V.F) + "'");
          return Winner.F;
        }
  return Winner.F;
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
    // A call of `T &f(...)` names the object f returns a reference to.
    E->Ty = Ret->isReference() ? Ret->getPointee() : Ret;
    E->IsLValue = Ret->isReference();
    break;
  case CallKind::Crev:
    if (Ret->isReference()) {
      Diags.error(E->Loc, "'crev' of '" + Name +
                              "', which returns a reference, is not supported yet");
      return false;
    }
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
