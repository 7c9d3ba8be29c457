// Semantic analysis driver: built-ins, scopes, and the checks of declarations.
//
// Decisions where ISPC, C and the SPEC leave room (kept in one place here):
// - Default variability as in ISPC: locals, globals, parameters and return
//   types are varying; pointees uniform; literals uniform; array parameters
//   become uniform pointers to their elements; struct members take the
//   instance's variability; `sizeof(T)` binds an unqualified T to varying
//   as ISPC (sizeof(float) == 4 * programCount); an unqualified cast target takes the operand's
//   variability (`(float)u` stays uniform).
// - ISPC's conversions (no integer promotion, see SemaType.cpp) are explicit
//   ImplicitCastExprs; a varying value never becomes uniform implicitly, nor
//   through an explicit cast.
// - Assigning a uniform variable declared outside the varying control flow
//   that encloses the assignment is allowed, as in ISPC (the store happens
//   when any lane is active); --warn-uniform-store-under-varying warns. Varying control
//   flow: if/while/for/do/switch/?:/&&/|| with a varying condition, foreach
//   bodies, and code after a varying break/continue/return up to the end of
//   the construct it leaves (lexically: the loop's increment and later
//   iterations are not considered). everywhere/unmasked bodies turn all lanes
//   on; foreach_active/foreach_unique bodies run once per lane/value, so they
//   also allow uniform assignments (their purpose). Stores through pointers
//   and references are never restricted.
// - A uniform `return` under varying control flow is accepted with a warning.
// - crev: arguments rank as their uniform versions; a varying argument may
//   feed a uniform parameter; the result of a non-void crev call is varying.
// - foreach variables are `const varying int32`, foreach_active's index is
//   `const uniform int64`, foreach_unique's variable the const uniform version
//   of the sequence's type; `break` may not target any foreach (as in ISPC).
// - Task functions must return void and are only called through `launch`.
//
// The expression, call, statement and type helpers live in SemaExpr.cpp,
// SemaCall.cpp, SemaStmt.cpp and SemaType.cpp; SemaInternal.h is their shared
// state. Functions are declared in a first pass so that a body may call a
// function defined later in the file (as ISPC allows); everything else is
// declared in source order, as in C.
#include "frontend/Sema.h"

#include "frontend/SemaInternal.h"

#include <utility>

namespace spmdc {

std::string ConvContext::describe() const {
  switch (K) {
  case Assign:
    return "in assignment";
  case Init:
    return "in initialization of '" + Name + "'";
  case Arg:
    return "in argument " + std::to_string(ArgIndex) + " of call to '" + Name + "'";
  case Return:
    return "in return from '" + Name + "'";
  case Operand:
    return "in operand";
  case Condition:
    return "in condition";
  case Other:
    return "here";
  }
  return "here";
}

Sema::Sema(ASTContext &Ctx, DiagnosticEngine &Diags, const TargetInfo &Target,
           const LanguageOptions &Lang)
    : Ctx(Ctx), Types(Ctx.Types), Diags(Diags), Target(Target), Lang(Lang) {}

bool checkTranslationUnit(ASTContext &Ctx, DiagnosticEngine &Diags, const TargetInfo &Target,
                          const LanguageOptions &Lang) {
  Sema S(Ctx, Diags, Target, Lang);
  return S.run();
}

bool Sema::run() {
  unsigned ErrorsBefore = Diags.errorCount();
  pushScope();
  declareBuiltins();
  for (Decl *D : Ctx.TU.Decls)
    if (auto *F = llvm::dyn_cast_or_null<FunctionDecl>(D)) {
      if (F->IsSpecialization)
        nameSpecialization(F);
      declareFunction(F);
    }
  // Function template instances are appended while bodies are checked.
  for (size_t I = 0; I < Ctx.TU.Decls.size(); ++I) {
    Decl *D = Ctx.TU.Decls[I];
    if (Diags.shouldStop())
      break;
    auto *Instance = llvm::dyn_cast_or_null<FunctionDecl>(D);
    if (Instance && Instance->InstantiatedAt.isValid()) {
      unsigned Errors = Diags.errorCount();
      checkTopLevel(D);
      if (Diags.errorCount() != Errors)
        Diags.note(Instance->InstantiatedAt, "in instantiation of '" + Instance->Name + "' here");
      continue;
    }
    if (D)
      checkTopLevel(D);
  }
  popScope();
  return Diags.errorCount() == ErrorsBefore;
}

void Sema::declareBuiltins() {
  // ISPC types the task and thread built-ins `const uniform unsigned int32` (so
  // `min((taskIndex + 1) * span, (uniform unsigned int)height)` matches the unsigned
  // overload exactly), programIndex/programCount `const int32`. blockIndex..gangCount
  // are spmdc's own and stay int32.
  struct Builtin {
    const char *Name;
    BuiltinVar Kind;
    bool Varying;
    bool Unsigned;
  };
  static const Builtin List[] = {
      {"programIndex", BuiltinVar::ProgramIndex, true, false},
      {"programCount", BuiltinVar::ProgramCount, false, false},
      {"taskIndex", BuiltinVar::TaskIndex, false, true},
      {"taskIndex0", BuiltinVar::TaskIndex0, false, true},
      {"taskIndex1", BuiltinVar::TaskIndex1, false, true},
      {"taskIndex2", BuiltinVar::TaskIndex2, false, true},
      {"taskCount", BuiltinVar::TaskCount, false, true},
      {"taskCount0", BuiltinVar::TaskCount0, false, true},
      {"taskCount1", BuiltinVar::TaskCount1, false, true},
      {"taskCount2", BuiltinVar::TaskCount2, false, true},
      {"blockIndex", BuiltinVar::BlockIndex, false, false},
      {"blockCount", BuiltinVar::BlockCount, false, false},
      {"gangIndex", BuiltinVar::GangIndex, false, false},
      {"gangCount", BuiltinVar::GangCount, false, false},
      {"threadIndex", BuiltinVar::ThreadIndex, false, true},
      {"threadCount", BuiltinVar::ThreadCount, false, true},
  };
  for (const Builtin &B : List) {
    const Type *T = Types.getAtomic(B.Unsigned ? Type::UInt32 : Type::Int32,
                                    B.Varying ? Variability::Varying : Variability::Uniform,
                                    /*Const=*/true);
    auto *V = Ctx.makeDecl<VarDecl>(SourceLoc(), B.Name, T);
    V->Builtin = B.Kind;
    V->IsGlobal = true;
    Scopes.back().Names[B.Name] = V;
    DeclSeq[V] = 0;
  }
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

static bool isBuiltin(const Decl *D) {
  auto *V = llvm::dyn_cast<VarDecl>(D);
  return V && V->Builtin != BuiltinVar::None;
}

bool Sema::declareName(Decl *D) {
  if (D->Name.empty())
    return true;
  auto &Names = Scopes.back().Names;
  auto It = Names.find(D->Name);
  if (It == Names.end()) {
    Names[D->Name] = D;
    return true;
  }
  Decl *Prev = It->second;
  if (Prev == D)
    return true;
  // C11 allows repeating a typedef of the same type.
  if (auto *T = llvm::dyn_cast<TypedefDecl>(D))
    if (auto *PT = llvm::dyn_cast<TypedefDecl>(Prev))
      if (T->Ty && PT->Ty && T->Ty == PT->Ty)
        return true;
  if (isBuiltin(Prev)) {
    Diags.error(D->Loc, "cannot redeclare built-in '" + D->Name + "'");
    return false;
  }
  if (auto *V = llvm::dyn_cast<VarDecl>(D);
      V && V->IsParam && llvm::isa<VarDecl>(Prev) && llvm::cast<VarDecl>(Prev)->IsParam)
    Diags.error(D->Loc, "redefinition of parameter '" + D->Name + "'");
  else
    Diags.error(D->Loc, "redefinition of '" + D->Name + "'");
  if (Prev->Loc.isValid())
    Diags.note(Prev->Loc, "previous declaration of '" + D->Name + "' is here");
  return false;
}

void Sema::declareTag(Decl *D) {
  if (D->Name.empty())
    return;
  auto &Tags = Scopes.back().Tags;
  auto It = Tags.find(D->Name);
  if (It == Tags.end() || It->second == D) {
    Tags[D->Name] = D;
    return;
  }
  Decl *Prev = It->second;
  const char *Word = llvm::isa<StructDecl>(D) ? "struct" : "enum";
  if (auto *S = llvm::dyn_cast<StructDecl>(D)) {
    if (auto *PS = llvm::dyn_cast<StructDecl>(Prev)) {
      // A forward declaration and one definition may appear in either order.
      if (!S->IsComplete)
        return;
      if (!PS->IsComplete) {
        Tags[D->Name] = D;
        return;
      }
    }
  }
  Diags.error(D->Loc, std::string("redefinition of '") + Word + " " + D->Name + "'");
  if (Prev->Loc.isValid())
    Diags.note(Prev->Loc, "previous definition of '" + D->Name + "' is here");
}

Decl *Sema::lookup(const std::string &Name) const {
  for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
    auto Found = It->Names.find(Name);
    if (Found != It->Names.end())
      return Found->second;
  }
  return nullptr;
}

StructDecl *Sema::completeStruct(StructDecl *S) const {
  if (!S || S->IsComplete)
    return S;
  for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
    auto Found = It->Tags.find(S->Name);
    if (Found != It->Tags.end())
      if (auto *Def = llvm::dyn_cast<StructDecl>(Found->second); Def && Def->IsComplete)
        return Def;
  }
  return nullptr;
}

std::vector<FunctionDecl *> *Sema::overloadSet(const std::string &Name) {
  auto It = Functions.find(Name);
  return It == Functions.end() ? nullptr : &It->second;
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

void Sema::declareFunction(FunctionDecl *F) {
  if (!F->Ty || !F->Ty->isFunction())
    return;
  const FunctionFlags &Flags = F->Ty->getFunctionFlags();
  std::vector<PendingDiag> &Pending = PendingDiags[F];
  auto Error = [&](SourceLoc Loc, std::string Msg) {
    Pending.push_back({false, Loc, std::move(Msg)});
  };
  auto Note = [&](SourceLoc Loc, std::string Msg) {
    if (Loc.isValid())
      Pending.push_back({true, Loc, std::move(Msg)});
  };

  // Parameters and the return type default to varying, as in ISPC; array
  // parameters are uniform pointers to their elements.
  std::vector<const Type *> ParamTypes;
  for (size_t I = 0; I < F->Params.size(); ++I) {
    VarDecl *P = F->Params[I];
    if (!P)
      continue;
    P->IsParam = true;
    const Type *Written = P->Ty;
    if (!Written && I < F->Ty->getParamTypes().size())
      Written = F->Ty->getParamTypes()[I];
    if (!Written) {
      continue;
    }
    const Type *T = bindDeclType(Written, Variability::Varying);
    if (T->isArray() && !T->isShortVector())
      T = Types.getPointer(T->getElementType(), Variability::Uniform);
    P->Ty = T;
    std::string What =
        P->Name.empty() ? "parameter " + std::to_string(I + 1) : "parameter '" + P->Name + "'";
    if (T->isVoid()) {
      Error(P->Loc, What + " has type 'void'");
    } else if (P->IsShared) {
      Error(P->Loc, "'shared' is only allowed on variables in function bodies or at "
                    "global scope");
    }
    if (Flags.Export && T->isShortVector()) {
      Error(P->Loc, What + " of export function '" + F->Name + "' cannot have short vector type " +
                        quoted(T) + " (as in ISPC)");
    } else if (Flags.Export && T->isVarying()) {
      Error(P->Loc,
            What + " of export function '" + F->Name + "' must be uniform, not " + quoted(T));
    }
    if (Flags.Export && containsSoa(T))
      Error(P->Loc, "soa type " + What + " is illegal in an export function (as in ISPC)");
    ParamTypes.push_back(T);
  }
  const Type *Ret = bindDeclType(F->Ty->getReturnType(), Variability::Varying);
  if (Flags.Task && !Ret->isVoid()) {
    Error(F->Loc, "task function '" + F->Name + "' must return void, not " + quoted(Ret));
  }
  if (Flags.Export && Ret->isVarying()) {
    Error(F->Loc,
          "export function '" + F->Name + "' must return a uniform value, not " + quoted(Ret));
  }
  if (Ret->isArray() && !Ret->isShortVector()) {
    Error(F->Loc, "function '" + F->Name + "' cannot return an array");
  }
  if (Flags.Export && containsSoa(Ret))
    Error(F->Loc, "export function '" + F->Name + "' cannot return a soa type (as in ISPC)");
  if (Flags.Export && Ret->isShortVector() && Ret->isUniform()) {
    Error(F->Loc, "export function '" + F->Name + "' cannot return short vector type " +
                      quoted(Ret) + " (as in ISPC)");
  }
  if (ParamTypes.size() != F->Params.size())
    return; // a parameter without a type was reported by the parser
  F->Ty = Types.getFunction(Ret, ParamTypes, Flags);
  // Bound: the body can be checked and calls can be resolved, even when the
  // signature broke a rule (that error is reported once, here).
  Checked.insert(F);

  // Redeclaration, redefinition and overloading.
  Scope &Global = Scopes.front();
  auto Existing = Global.Names.find(F->Name);
  if (Existing != Global.Names.end() && !llvm::isa<FunctionDecl>(Existing->second)) {
    Decl *Prev = Existing->second;
    if (isBuiltin(Prev)) {
      Error(F->Loc, "cannot redeclare built-in '" + F->Name + "'");
    } else {
      Error(F->Loc, "redefinition of '" + F->Name + "'");
      Note(Prev->Loc, "previous declaration of '" + F->Name + "' is here");
    }
    return;
  }
  std::vector<FunctionDecl *> &Set = Functions[F->Name];
  for (FunctionDecl *&G : Set) {
    const auto &GP = G->Ty->getParamTypes();
    bool SameParams = GP.size() == ParamTypes.size();
    // Top-level const does not tell overloads apart; a const reference and a
    // plain one do (ISPC ranks them differently).
    for (size_t I = 0; SameParams && I < GP.size(); ++I)
      SameParams = GP[I]->isReference() || ParamTypes[I]->isReference()
                       ? GP[I] == ParamTypes[I]
                       : sameType(GP[I], ParamTypes[I]);
    if (!SameParams) {
      bool Exported = Flags.Export || G->flags().Export;
      bool ExternC = Flags.ExternC || G->flags().ExternC;
      if (Exported || ExternC) {
        Error(F->Loc, std::string(Exported ? "export" : "extern \"C\"") + " function '" + F->Name +
                          "' cannot be overloaded");
        Note(G->Loc, "previous declaration of '" + F->Name + "' is here");
        return;
      }
      continue;
    }
    // A parameter's top-level const is the definition's business (C, ISPC).
    auto Normalized = [&](const Type *FT) {
      std::vector<const Type *> Ps;
      for (const Type *P : FT->getParamTypes())
        Ps.push_back(P->isReference() ? P : unqualified(P));
      return Types.getFunction(FT->getReturnType(), std::move(Ps), FT->getFunctionFlags());
    };
    if (Normalized(G->Ty) != Normalized(F->Ty)) {
      Error(F->Loc,
            "conflicting types for '" + F->Name + "': " + quoted(F->Ty) + " vs " + quoted(G->Ty));
      Note(G->Loc, "previous declaration of '" + F->Name + "' is here");
      return;
    }
    if (F->Body && G->Body) {
      Error(F->Loc, "redefinition of '" + F->Name + "'");
      Note(G->Loc, "previous definition of '" + F->Name + "' is here");
      return;
    }
    if (F->Body && G->IsStdlib && !F->IsStdlib) {
      Error(F->Loc, "'" + F->Name +
                        "' is a standard library function and cannot be "
                        "redefined");
      return;
    }
    // A prototype and its definition: later calls resolve to the definition,
    // which takes over the defaults only the prototype gave (C++; checked
    // once, with the definition).
    if (F->Body) {
      for (size_t I = 0; I < F->Params.size() && I < G->Params.size(); ++I)
        if (F->Params[I] && G->Params[I] && !F->Params[I]->Init && G->Params[I]->Init)
          F->Params[I]->Init = std::exchange(G->Params[I]->Init, nullptr);
      G = F;
    }
    return;
  }
  Set.push_back(F);
  if (Existing == Global.Names.end())
    Global.Names[F->Name] = F;
}

void Sema::checkTopLevel(Decl *D) {
  switch (D->getKind()) {
  case Decl::VarDeclKind: {
    auto *V = llvm::cast<VarDecl>(D);
    V->IsGlobal = true;
    checkVarDecl(V);
    break;
  }
  case Decl::FunctionDeclKind: {
    auto *F = llvm::cast<FunctionDecl>(D);
    for (const PendingDiag &P : PendingDiags[F]) {
      if (P.IsNote)
        Diags.note(P.Loc, P.Message);
      else
        Diags.error(P.Loc, P.Message);
    }
    if (!Checked.count(F))
      break;
    // Default arguments are checked in the global scope, at the declaration.
    for (VarDecl *P : F->Params)
      if (P && P->Init && P->Ty && checkRValue(P->Init))
        convert(P->Init, unqualified(P->Ty), ConvContext(ConvContext::Init, P->Name));
    if (F->Body)
      checkFunctionBody(F);
    break;
  }
  case Decl::StructDeclKind:
    checkStructDecl(llvm::cast<StructDecl>(D));
    break;
  case Decl::EnumDeclKind:
    checkEnumDecl(llvm::cast<EnumDecl>(D));
    break;
  case Decl::TypedefDeclKind:
    checkTypedefDecl(llvm::cast<TypedefDecl>(D));
    break;
  case Decl::EnumConstantDeclKind:
    break; // checked with its enum
  }
}

void Sema::checkLocalDecl(Decl *D) {
  switch (D->getKind()) {
  case Decl::VarDeclKind:
    checkVarDecl(llvm::cast<VarDecl>(D));
    break;
  case Decl::FunctionDeclKind:
    Diags.error(D->Loc, "functions cannot be declared inside a function body");
    break;
  case Decl::StructDeclKind:
    checkStructDecl(llvm::cast<StructDecl>(D));
    break;
  case Decl::EnumDeclKind:
    checkEnumDecl(llvm::cast<EnumDecl>(D));
    break;
  case Decl::TypedefDeclKind:
    checkTypedefDecl(llvm::cast<TypedefDecl>(D));
    break;
  case Decl::EnumConstantDeclKind:
    break;
  }
}

bool Sema::checkObjectType(const Type *T, SourceLoc Loc, const std::string &What,
                           bool AllowUnsized) {
  if (T->isVoid()) {
    Diags.error(Loc, What + " has type 'void'");
    return false;
  }
  if (T->isFunction()) {
    Diags.error(Loc, What + " has function type " + quoted(T));
    return false;
  }
  const Type *E = T;
  bool Outer = true;
  while (E->isArray()) {
    if (E->getArraySize() == 0 && !(Outer && AllowUnsized)) {
      Diags.error(Loc, Outer ? What + " needs a positive array size or an initializer"
                             : What + " has an array element type of unknown size");
      return false;
    }
    E = E->getElementType();
    Outer = false;
  }
  if (E->isVoid()) {
    Diags.error(Loc, What + " is an array of 'void'");
    return false;
  }
  if (E->isStruct() && !completeStruct(E->getStructDecl())) {
    Diags.error(Loc, What + " has incomplete type " + quoted(E));
    return false;
  }
  return true;
}

void Sema::checkVarDecl(VarDecl *V) {
  if (!V->Ty) {
    declareName(V);
    declareVarSeq(V);
    return;
  }
  bool InFunction = CurFunction != nullptr;
  // Locals and globals default to varying, as in ISPC.
  const Type *T = bindDeclType(V->Ty, Variability::Varying);
  std::string What = "variable '" + V->Name + "'";
  bool Ok = true;
  if (V->IsShared && T->isVarying()) {
    Diags.error(V->Loc,
                "shared variables must be uniform: '" + V->Name + "' has type " + quoted(T));
    Ok = false;
  }
  (void)InFunction;
  // `T a[][2][] = {...}` takes its unsized dimensions from the initializer.
  if (T->isArray() && V->Init) {
    if (const Type *Sized = sizeUnsizedArray(T, V->Init))
      T = Sized;
    else
      Ok = false;
  }
  if (Ok && !checkObjectType(T, V->Loc, What, /*AllowUnsized=*/false))
    Ok = false;
  if (Ok && soaBlock(T)) {
    Diags.error(V->Loc, "a single " + quoted(T) + " variable is not supported yet: declare an "
                        "array of them (`soa<N> S a[count]`) and index it");
    Ok = false;
  } else if (Ok && V->Init && T->isArray() && soaBlock(T->getElementType())) {
    Diags.error(V->Init->Loc, "initializing an array of soa data is not supported yet");
    Ok = false;
  }
  if (Ok && T->isReference() && !V->Init && !V->IsParam) {
    Diags.error(V->Loc, "reference '" + V->Name + "' must be initialized");
    Ok = false;
  }
  V->Ty = Ok ? T : nullptr;
  if (V->Ty && V->Init) {
    checkInitializer(V);
    // Remember the value of an integer constant now, so that later uses fold
    // without walking a chain of constants recursively.
    if (V->Ty->isConst() && (V->Ty->isInteger() || V->Ty->isEnum() || V->Ty->isBool()) &&
        V->Init->Ty)
      if (std::optional<int64_t> C = evalIntConst(V->Init))
        ConstValues[V] = *C;
  } else if (V->Init && !llvm::isa<InitListExpr>(V->Init))
    checkExpr(V->Init); // still report errors inside the initializer
  declareName(V);
  declareVarSeq(V);
}

/// A global object whose address is known at link time: `g`, `g.f`, `g[2]`.
bool Sema::isGlobalObject(const Expr *E) {
  if (auto *Ref = llvm::dyn_cast<DeclRefExpr>(E)) {
    auto *V = llvm::dyn_cast_or_null<VarDecl>(Ref->D);
    return V && V->IsGlobal && V->Builtin == BuiltinVar::None;
  }
  if (auto *M = llvm::dyn_cast<MemberExpr>(E))
    return !M->IsArrow && isGlobalObject(M->Base);
  if (auto *I = llvm::dyn_cast<IndexExpr>(E))
    return I->Base->Ty && I->Base->Ty->isArray() && isGlobalObject(I->Base) &&
           isConstantInitializer(I->Index);
  return false;
}

/// Whether a checked initializer can be computed at compile time: literals,
/// enumerators, integer constants, operators and conversions of those,
/// sizeof, brace lists of those, and addresses of globals.
bool Sema::isConstantInitializer(const Expr *E) {
  if (!E)
    return false;
  switch (E->getKind()) {
  case Expr::IntegerLiteralKind:
  case Expr::FloatLiteralKind:
  case Expr::BoolLiteralKind:
  case Expr::NullLiteralKind:
  case Expr::StringLiteralKind:
  case Expr::SizeofExprKind:
    return true;
  case Expr::DeclRefExprKind: {
    Decl *D = llvm::cast<DeclRefExpr>(E)->D;
    if (llvm::isa_and_nonnull<EnumConstantDecl>(D) || llvm::isa_and_nonnull<FunctionDecl>(D))
      return true; // an enumerator, or a function's address
    auto *V = llvm::dyn_cast_or_null<VarDecl>(D);
    if (V && (V->Builtin == BuiltinVar::ProgramCount ||
              (ProgramIndexIsConstant && V->Builtin == BuiltinVar::ProgramIndex)))
      return true;
    // Decided once per variable, at its declaration (no walk down chains).
    return V && V->Ty && V->Ty->isConst() && ConstantInitVars.count(V);
  }
  case Expr::ImplicitCastExprKind: {
    auto *IC = llvm::cast<ImplicitCastExpr>(E);
    if (IC->CK == CastKind::ArrayToPointer)
      return isGlobalObject(IC->Operand);
    return isConstantInitializer(IC->Operand);
  }
  case Expr::CastExprKind:
    return isConstantInitializer(llvm::cast<CastExpr>(E)->Operand);
  case Expr::UnaryExprKind: {
    auto *U = llvm::cast<UnaryExpr>(E);
    if (U->Op == UnaryOp::AddrOf) {
      auto *Ref = llvm::dyn_cast<DeclRefExpr>(U->Operand);
      return isGlobalObject(U->Operand) || (Ref && llvm::isa_and_nonnull<FunctionDecl>(Ref->D));
    }
    if (U->Op == UnaryOp::Plus || U->Op == UnaryOp::Minus || U->Op == UnaryOp::Not ||
        U->Op == UnaryOp::BitNot)
      return isConstantInitializer(U->Operand);
    return false;
  }
  case Expr::BinaryExprKind: {
    auto *B = llvm::cast<BinaryExpr>(E);
    return B->Op != BinaryOp::Comma && isConstantInitializer(B->LHS) &&
           isConstantInitializer(B->RHS);
  }
  case Expr::ConditionalExprKind: {
    auto *C = llvm::cast<ConditionalExpr>(E);
    return isConstantInitializer(C->Cond) && isConstantInitializer(C->Then) &&
           isConstantInitializer(C->Else);
  }
  case Expr::InitListExprKind:
    for (const Expr *El : llvm::cast<InitListExpr>(E)->Elements)
      if (!isConstantInitializer(El))
        return false;
    return true;
  default:
    return false;
  }
}

void Sema::checkInitializer(VarDecl *V) {
  unsigned ErrorsBefore = Diags.errorCount();
  checkInitializerValue(V);
  // Globals (and static locals) are initialized before any code runs.
  bool Static = V->IsGlobal || V->Storage == StorageClass::Static;
  if (Diags.errorCount() != ErrorsBefore || V->Ty->isReference())
    return;
  bool Constant = isConstantInitializer(V->Init);
  if (Constant && V->IsGlobal)
    ConstantInitVars.insert(V);
  if (!Static || Constant)
    return;
  // ISPC takes `static int a = 1 + programIndex;`: a constant per lane, which the
  // lowering folds once per lane (ir/Lowering.cpp) for a varying integer or float.
  ProgramIndexIsConstant = true;
  bool PerLane = V->Ty->isVarying() && isConstantInitializer(V->Init);
  ProgramIndexIsConstant = false;
  bool Scalar = V->Ty->isInteger() || V->Ty->isEnum() || V->Ty->isBool() || V->Ty->isFloatingPoint();
  if (PerLane && Scalar)
    V->PerLaneInit = true;
  else if (PerLane)
    Diags.error(V->Init->Loc, "a per-lane initial value (from programIndex) of varying " +
                                  std::string(V->IsGlobal ? "global" : "static") + " variable '" +
                                  V->Name + "' of type " + quoted(V->Ty) +
                                  " is not supported yet (only of a scalar type); assign it in code");
  else
    Diags.error(V->Init->Loc, "initializer of " + std::string(V->IsGlobal ? "global" : "static") +
                                  " variable '" + V->Name + "' is not a compile-time constant");
}

void Sema::checkInitializerValue(VarDecl *V) {
  if (V->Ty->isReference()) {
    // A reference binds to an object of its type (adding const is fine).
    const Type *Target = V->Ty->getPointee();
    if (llvm::isa<InitListExpr>(V->Init) || !checkExpr(V->Init))
      return;
    if (!V->Init->IsLValue)
      Diags.error(V->Init->Loc, "reference '" + V->Name + "' must be bound to an lvalue");
    else if (!sameType(V->Init->Ty, Target) || (V->Init->Ty->isConst() && !Target->isConst()))
      Diags.error(V->Init->Loc, "cannot bind " + quoted(V->Init->Ty) + " to reference '" + V->Name +
                                    "' of type " + quoted(V->Ty));
    return;
  }
  if (auto *L = llvm::dyn_cast<InitListExpr>(V->Init)) {
    checkInitList(L, V->Ty, V->Name);
    return;
  }
  if (V->Ty->isArray() && !V->Ty->isShortVector()) {
    if (checkExpr(V->Init))
      Diags.error(V->Init->Loc, "array '" + V->Name + "' must be initialized with a brace list");
    return;
  }
  ConvContext Where{ConvContext::Init, V->Name};
  if (checkRValue(V->Init))
    convert(V->Init, unqualified(V->Ty), Where);
}

bool Sema::checkInitList(InitListExpr *L, const Type *T, const std::string &VarName) {
  L->Ty = unqualified(T);
  ConvContext Where{ConvContext::Init, VarName};
  bool Ok = true;
  auto CheckElement = [&](Expr *&E, const Type *ElemTy) {
    if (!E) {
      Ok = false;
      return;
    }
    if (auto *Sub = llvm::dyn_cast<InitListExpr>(E)) {
      Ok &= checkInitList(Sub, ElemTy, VarName);
      return;
    }
    if (ElemTy->isArray() && !ElemTy->isShortVector()) {
      if (checkExpr(E))
        Diags.error(E->Loc, "array element of '" + VarName + "' needs a brace initializer");
      Ok = false;
      return;
    }
    if (!checkRValue(E) || !convert(E, unqualified(ElemTy), Where))
      Ok = false;
  };
  if (T->isArray()) {
    uint64_t N = T->getArraySize();
    if (N && L->Elements.size() > N) {
      Diags.error(L->Elements[N] ? L->Elements[N]->Loc : L->Loc,
                  "too many initializers for " + quoted(T));
      Ok = false;
    }
    for (size_t I = 0; I < L->Elements.size() && (I < N || !N); ++I)
      CheckElement(L->Elements[I], T->getElementType());
    return Ok;
  }
  if (T->isStruct()) {
    StructDecl *S = completeStruct(T->getStructDecl());
    if (!S)
      return false;
    if (L->Elements.size() > S->Fields.size()) {
      Expr *Extra = L->Elements[S->Fields.size()];
      Diags.error(Extra ? Extra->Loc : L->Loc, "too many initializers for " + quoted(T));
      Ok = false;
    }
    for (size_t I = 0; I < L->Elements.size() && I < S->Fields.size(); ++I) {
      if (!S->Fields[I].Ty) {
        Ok = false;
        continue;
      }
      CheckElement(L->Elements[I], Types.memberType(S->Fields[I].Ty, T->getVariability()));
    }
    return Ok;
  }
  // A scalar may be written as `{ value }`.
  if (L->Elements.size() != 1) {
    Diags.error(L->Loc, "a brace initializer for " + quoted(T) + " must have exactly one element");
    for (Expr *&E : L->Elements)
      if (E && !llvm::isa<InitListExpr>(E))
        checkExpr(E);
    return false;
  }
  CheckElement(L->Elements[0], T);
  return Ok;
}

void Sema::checkFunctionBody(FunctionDecl *F) {
  CurFunction = F;
  Regions.clear();
  Targets.clear();
  Switches.clear();
  EverywhereDepth = 0;
  pushScope();
  for (VarDecl *P : F->Params) {
    if (!P)
      continue;
    if (!P->Name.empty())
      declareName(P);
    declareVarSeq(P);
  }
  Labels.clear();
  RejectedGotos.clear();
  checkCompound(F->Body, /*NewScope=*/false);
  resolveGotos(F->Body);
  popScope();
  CurFunction = nullptr;
  Regions.clear();
}

void Sema::checkStructDecl(StructDecl *S) {
  declareTag(S);
  if (!S->IsComplete)
    return;
  std::unordered_map<std::string, const FieldDecl *> Seen;
  for (FieldDecl &F : S->Fields) {
    if (!F.Name.empty()) {
      auto [It, New] = Seen.emplace(F.Name, &F);
      if (!New) {
        Diags.error(F.Loc, "duplicate member '" + F.Name + "' in 'struct " + S->Name + "'");
        Diags.note(It->second->Loc, "previous declaration of '" + F.Name + "' is here");
        continue;
      }
    }
    if (!F.Ty)
      continue;
    const Type *E = F.Ty;
    while (E->isArray())
      E = E->getElementType();
    if (E->isStruct() && (E->getStructDecl() == S ||
                          (!S->Name.empty() && E->getStructDecl()->Name == S->Name))) {
      Diags.error(F.Loc, "member '" + F.Name + "' has incomplete type " + quoted(E) +
                             " (a struct cannot contain itself)");
      F.Ty = nullptr;
      continue;
    }
    // Only the last member may be an unsized array (C's flexible array member).
    bool Last = &F == &S->Fields.back();
    if (!Last && F.Ty->isArray() && F.Ty->getArraySize() == 0) {
      Diags.error(F.Loc, "unsized arrays aren't allowed except for the last member in a struct "
                         "definition");
      F.Ty = nullptr;
      continue;
    }
    if (!checkObjectType(F.Ty, F.Loc, "member '" + F.Name + "'", /*AllowUnsized=*/Last))
      F.Ty = nullptr;
  }
}

void Sema::checkEnumDecl(EnumDecl *E) {
  declareTag(E);
  int64_t Next = 0;
  for (EnumConstantDecl *C : E->Constants) {
    if (!C)
      continue;
    if (!C->Ty)
      C->Ty = Types.getEnum(E);
    if (C->Value) {
      if (checkRValue(C->Value)) {
        std::optional<int64_t> V;
        if (C->Value->Ty->isArithmetic() && !C->Value->Ty->isFloatingPoint())
          V = evalIntConst(C->Value);
        if (V)
          Next = *V;
        else
          Diags.error(C->Value->Loc,
                      "value of enumerator '" + C->Name + "' is not an integer constant");
      }
    }
    C->Resolved = Next++;
    declareName(C);
  }
}

void Sema::checkTypedefDecl(TypedefDecl *T) { declareName(T); }

} // namespace spmdc
