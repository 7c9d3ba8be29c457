// Sema for statements: scopes, conditions, loops, switch, foreach, everywhere,
// and the control-flow side of the uniform/varying rules.
//
// The checker tracks a stack of mask regions. A Varying region is code under a
// varying condition (if/while/for/do/switch/?:/&&/|| or a foreach body); a
// Partial region is code after a varying break/continue/return, where some
// lanes have left until the construct they left for ends; AllOn regions
// (everywhere, unmasked) turn every lane back on; Serial regions
// (foreach_active, foreach_unique) run their body once per lane or value.
// Each variable records a sequence number at its declaration and each region
// one at its start, so "declared outside the current varying control flow"
// is a comparison of two numbers.
#include "frontend/SemaInternal.h"

#include <algorithm>

namespace spmdc {

static constexpr unsigned NoTarget = ~0u;

std::vector<unsigned> Sema::takeRegionsAbove(size_t Size) {
  std::vector<unsigned> Exits;
  while (Regions.size() > Size) {
    for (unsigned T : Regions.back().Exits)
      if (std::find(Exits.begin(), Exits.end(), T) == Exits.end())
        Exits.push_back(T);
    Regions.pop_back();
  }
  return Exits;
}

void Sema::pushPartials(const std::vector<unsigned> &Exits, unsigned EndingTarget) {
  std::vector<unsigned> Open;
  for (unsigned T : Exits)
    if (T != EndingTarget)
      Open.push_back(T);
  if (!Open.empty())
    Regions.push_back({Region::Partial, ++Seq, std::move(Open)});
}

Sema::Region *Sema::innermostNarrowing(bool SerialNarrows) {
  for (auto It = Regions.rbegin(); It != Regions.rend(); ++It) {
    switch (It->K) {
    case Region::AllOn:
      return nullptr;
    case Region::Serial:
      return SerialNarrows ? &*It : nullptr;
    case Region::Varying:
    case Region::Partial:
      return &*It;
    }
  }
  return nullptr;
}

void Sema::noteExit(unsigned TargetId, uint64_t TargetBodyStart) {
  if (Regions.empty())
    return;
  Region &R = Regions.back();
  if (R.K == Region::AllOn || R.StartSeq <= TargetBodyStart)
    return;
  if (std::find(R.Exits.begin(), R.Exits.end(), TargetId) == R.Exits.end())
    R.Exits.push_back(TargetId);
}

/// Sub-statements of if/while/for/... get their own block scope (C99).
static void checkScoped(Sema &S, Stmt *Sub) {
  if (!Sub)
    return;
  S.pushScope();
  S.checkStmt(Sub);
  S.popScope();
}

static bool isIntegralType(const Type *T) { return T->isInteger() || T->isBool() || T->isEnum(); }

void Sema::checkStmt(Stmt *S) {
  if (Diags.shouldStop())
    return;
  switch (S->getKind()) {
  case Stmt::CompoundStmtKind:
    checkCompound(llvm::cast<CompoundStmt>(S), /*NewScope=*/true);
    return;
  case Stmt::DeclStmtKind:
    for (Decl *D : llvm::cast<DeclStmt>(S)->Decls)
      if (D)
        checkLocalDecl(D);
    return;
  case Stmt::ExprStmtKind:
    checkExprSlot(llvm::cast<ExprStmt>(S)->E);
    return;
  case Stmt::EmptyStmtKind:
  case Stmt::SyncStmtKind:
    return;
  case Stmt::IfStmtKind:
    checkIf(llvm::cast<IfStmt>(S));
    return;
  case Stmt::WhileStmtKind:
    checkWhile(llvm::cast<WhileStmt>(S));
    return;
  case Stmt::DoStmtKind:
    checkDo(llvm::cast<DoStmt>(S));
    return;
  case Stmt::ForStmtKind:
    checkFor(llvm::cast<ForStmt>(S));
    return;
  case Stmt::BreakStmtKind:
    checkBreakContinue(S, /*IsBreak=*/true);
    return;
  case Stmt::ContinueStmtKind:
    checkBreakContinue(S, /*IsBreak=*/false);
    return;
  case Stmt::ReturnStmtKind:
    checkReturn(llvm::cast<ReturnStmt>(S));
    return;
  case Stmt::SwitchStmtKind:
    checkSwitch(llvm::cast<SwitchStmt>(S));
    return;
  case Stmt::CaseStmtKind:
    checkCase(llvm::cast<CaseStmt>(S));
    return;
  case Stmt::DefaultStmtKind:
    checkDefault(llvm::cast<DefaultStmt>(S));
    return;
  case Stmt::ForeachStmtKind:
    checkForeach(llvm::cast<ForeachStmt>(S));
    return;
  case Stmt::ForeachActiveStmtKind:
    checkForeachActive(llvm::cast<ForeachActiveStmt>(S));
    return;
  case Stmt::ForeachUniqueStmtKind:
    checkForeachUnique(llvm::cast<ForeachUniqueStmt>(S));
    return;
  case Stmt::UnmaskedStmtKind: {
    size_t Size = Regions.size();
    pushRegion(Region::AllOn);
    checkScoped(*this, llvm::cast<UnmaskedStmt>(S)->Body);
    endRegionsAt(Size, NoTarget);
    return;
  }
  case Stmt::EverywhereStmtKind: {
    // All lanes are on inside; control may not leave (checked at the exits).
    size_t Size = Regions.size();
    ++EverywhereDepth;
    pushRegion(Region::AllOn);
    checkScoped(*this, llvm::cast<EverywhereStmt>(S)->Body);
    takeRegionsAbove(Size);
    --EverywhereDepth;
    return;
  }
  case Stmt::AssertStmtKind: {
    auto *A = llvm::cast<AssertStmt>(S);
    if (A->Cond && checkRValue(A->Cond))
      convertCondition(A->Cond, "'assert' condition");
    return;
  }
  case Stmt::PrintStmtKind:
    checkPrint(llvm::cast<PrintStmt>(S));
    return;
  case Stmt::DeleteStmtKind:
    checkDelete(llvm::cast<DeleteStmt>(S));
    return;
  case Stmt::LabelStmtKind:
    checkLabel(llvm::cast<LabelStmt>(S));
    return;
  case Stmt::GotoStmtKind:
    checkGoto(llvm::cast<GotoStmt>(S));
    return;
  }
}

void Sema::checkCompound(CompoundStmt *S, bool NewScope) {
  if (NewScope)
    pushScope();
  size_t Size = Regions.size();
  for (Stmt *Sub : S->Body) {
    if (Diags.shouldStop())
      break;
    checkStmtSlot(Sub);
  }
  // Partial masks from exits inside outlive the block, up to their target.
  endRegionsAt(Size, NoTarget);
  if (NewScope)
    popScope();
}

void Sema::checkIf(IfStmt *S) {
  bool Ok = S->Cond && checkRValue(S->Cond) && convertCondition(S->Cond, "'if' condition");
  bool Varying = Ok && S->Cond->Ty->isVarying();
  size_t Size = Regions.size();
  if (Varying)
    pushRegion(Region::Varying);
  checkScoped(*this, S->Then);
  std::vector<unsigned> Exits = takeRegionsAbove(Size);
  if (S->Else) {
    if (Varying)
      pushRegion(Region::Varying);
    checkScoped(*this, S->Else);
    for (unsigned T : takeRegionsAbove(Size))
      if (std::find(Exits.begin(), Exits.end(), T) == Exits.end())
        Exits.push_back(T);
  }
  pushPartials(Exits, NoTarget);
}

/// while and do: the condition is checked first (for do too: it decides whether
/// the body runs under varying control flow, and it cannot see the body's
/// declarations anyway).
void Sema::checkConditionLoop(Expr *&Cond, Stmt *Body, const char *What) {
  bool Ok = Cond && checkRValue(Cond) && convertCondition(Cond, What);
  size_t Size = Regions.size();
  if (Ok && Cond->Ty->isVarying())
    pushRegion(Region::Varying);
  unsigned Id = NextTargetId++;
  Targets.push_back({ExitTarget::Loop, Id, EverywhereDepth, ++Seq, nullptr});
  checkScoped(*this, Body);
  Targets.pop_back();
  endRegionsAt(Size, Id);
}

void Sema::checkWhile(WhileStmt *S) { checkConditionLoop(S->Cond, S->Body, "'while' condition"); }

void Sema::checkDo(DoStmt *S) { checkConditionLoop(S->Cond, S->Body, "'do' condition"); }

void Sema::checkFor(ForStmt *S) {
  pushScope(); // the for-init scope
  checkStmtSlot(S->Init);
  bool Varying = false;
  if (S->Cond && checkRValue(S->Cond) && convertCondition(S->Cond, "'for' condition"))
    Varying = S->Cond->Ty->isVarying();
  size_t Size = Regions.size();
  if (Varying)
    pushRegion(Region::Varying);
  size_t LoopSize = Regions.size();
  unsigned Id = NextTargetId++;
  Targets.push_back({ExitTarget::Loop, Id, EverywhereDepth, ++Seq, nullptr});
  checkScoped(*this, S->Body);
  Targets.pop_back();
  // break/continue narrow the mask for the rest of the body only: the
  // increment runs after lanes that continued have rejoined.
  endRegionsAt(LoopSize, Id);
  checkExprSlot(S->Inc);
  endRegionsAt(Size, Id);
  popScope();
}

void Sema::checkSwitch(SwitchStmt *S) {
  SwitchInfo Info;
  bool Ok = S->Cond && checkRValue(S->Cond);
  // ISPC switches on an int32 at least: a floating condition is truncated to
  // one, a narrower integer widened (so that `case 255:` stays 255 for int8).
  if (Ok && (S->Cond->Ty->isFloatingPoint() ||
             (S->Cond->Ty->isInteger() && S->Cond->Ty->getBitWidth() < 32)))
    convert(S->Cond, int32Ty(S->Cond->Ty->getVariability()), ConvContext{ConvContext::Condition});
  if (Ok && !isIntegralType(S->Cond->Ty)) {
    Diags.error(S->Cond->Loc, "switch condition must be an integer, not " + quoted(S->Cond->Ty));
    Ok = false;
  }
  if (Ok) {
    promote(S->Cond);
    Info.CondTy = S->Cond->Ty;
  }
  size_t Size = Regions.size();
  if (Ok && S->Cond->Ty->isVarying())
    pushRegion(Region::Varying);
  unsigned Id = NextTargetId++;
  Targets.push_back({ExitTarget::Switch, Id, EverywhereDepth, ++Seq, nullptr});
  Switches.push_back(&Info);
  checkScoped(*this, S->Body);
  Switches.pop_back();
  Targets.pop_back();
  endRegionsAt(Size, Id);
}

void Sema::checkCase(CaseStmt *S) {
  SwitchInfo *Info = Switches.empty() ? nullptr : Switches.back();
  if (!Info)
    Diags.error(S->Loc, "'case' label not in a switch statement");
  if (S->Value && checkRValue(S->Value)) {
    std::optional<int64_t> V;
    if (isIntegralType(S->Value->Ty))
      V = evalIntConst(S->Value);
    if (!V) {
      Diags.error(S->Value->Loc, "case value is not an integer constant");
    } else if (Info && Info->CondTy) {
      const Type *To = uniformOf(Info->CondTy);
      if (!sameType(S->Value->Ty, To))
        S->Value =
            wrap(S->Value,
                 S->Value->Ty->isBool() ? CastKind::BoolToIntegral : CastKind::IntegralCast, To);
      S->Resolved = evalIntConst(S->Value).value_or(*V);
      auto [It, New] = Info->Values.emplace(S->Resolved, S);
      if (!New) {
        Diags.error(S->Value->Loc, "duplicate case value '" + std::to_string(S->Resolved) + "'");
        Diags.note(It->second->Loc, "previous case is here");
      }
    } else {
      S->Resolved = *V;
    }
  }
  checkStmtSlot(S->Sub);
}

void Sema::checkDefault(DefaultStmt *S) {
  SwitchInfo *Info = Switches.empty() ? nullptr : Switches.back();
  if (!Info) {
    Diags.error(S->Loc, "'default' label not in a switch statement");
  } else if (Info->Default) {
    Diags.error(S->Loc, "multiple 'default' labels in one switch");
    Diags.note(Info->Default->Loc, "previous 'default' label is here");
  } else {
    Info->Default = S;
  }
  checkStmtSlot(S->Sub);
}

void Sema::checkBreakContinue(Stmt *S, bool IsBreak) {
  const char *Word = IsBreak ? "'break'" : "'continue'";
  const ExitTarget *T = nullptr;
  for (auto It = Targets.rbegin(); It != Targets.rend() && !T; ++It)
    if (IsBreak || It->K != ExitTarget::Switch)
      T = &*It;
  if (!T) {
    Diags.error(S->Loc, std::string(Word) + (IsBreak ? " statement not in a loop or switch"
                                                     : " statement not in a loop"));
    return;
  }
  if (EverywhereDepth > T->EverywhereDepth) {
    Diags.error(S->Loc, std::string(Word) + " cannot leave an 'everywhere' block");
    return;
  }
  if (IsBreak && T->K == ExitTarget::Foreach) {
    Diags.error(S->Loc, std::string("'break' is not allowed inside '") + T->Name +
                            "'; use 'continue' or a flag");
    return;
  }
  noteExit(T->Id, T->BodyStartSeq);
}

/// `return x;` from `T &f(...)`: x must be an object of type T (const may be
/// added), whose address is returned.
void Sema::checkReferenceReturn(Expr *Value, const Type *Ret, const std::string &Name) {
  const Type *Target = Ret->getPointee();
  if (!checkExpr(Value))
    return;
  if (!Value->IsLValue)
    Diags.error(Value->Loc, "'" + Name + "' returns a reference, but the returned value of type " +
                                quoted(Value->Ty) + " is a temporary");
  else if (!sameType(Value->Ty, Target) || (Value->Ty->isConst() && !Target->isConst()))
    Diags.error(Value->Loc, "cannot return " + quoted(Value->Ty) + " from '" + Name +
                                "', which returns " + quoted(Ret));
}

void Sema::checkReturn(ReturnStmt *S) {
  if (!CurFunction)
    return;
  const std::string &Name = CurFunction->Name;
  const Type *Ret = CurFunction->Ty->getReturnType();
  if (EverywhereDepth > 0)
    Diags.error(S->Loc, "'return' cannot leave an 'everywhere' block");
  if (S->Value && Ret->isReference()) {
    checkReferenceReturn(S->Value, Ret, Name);
  } else if (S->Value) {
    bool Ok = checkRValue(S->Value);
    if (Ret->isVoid()) {
      if (Ok && !S->Value->Ty->isVoid())
        Diags.error(S->Value->Loc, "void function '" + Name + "' should not return a value");
    } else if (Ok && convert(S->Value, unqualified(Ret), ConvContext{ConvContext::Return, Name}) &&
               Ret->isUniform() && underVaryingControl(/*SerialNarrows=*/true)) {
      // Rule 3: ISPC returns the value of the last return executed.
      Diags.warning(S->Loc, "returning a uniform value under varying control flow: the last return "
                            "executed wins");
    }
  } else if (!Ret->isVoid()) {
    Diags.error(S->Loc, "non-void function '" + Name + "' should return a value");
  }
  noteExit(FunctionTargetId, 0);
}

/// A foreach bound: a uniform integer, converted to uniform int32.
static bool checkForeachBound(Sema &S, Expr *&E) {
  if (!E || !S.checkRValue(E))
    return false;
  if (!isIntegralType(E->Ty)) {
    S.Diags.error(E->Loc, "foreach bound must be an integer, not " + S.quoted(E->Ty));
    return false;
  }
  if (E->Ty->isVarying()) {
    S.Diags.error(E->Loc,
                  "foreach bounds must be uniform, but this one has type " + S.quoted(E->Ty));
    return false;
  }
  return S.convert(E, S.int32Ty(Variability::Uniform), ConvContext{ConvContext::Operand});
}

void Sema::checkForeach(ForeachStmt *S) {
  for (ForeachDim &D : S->Dims) {
    checkForeachBound(*this, D.Begin);
    checkForeachBound(*this, D.End);
  }
  pushScope();
  size_t Size = Regions.size();
  pushRegion(Region::Varying);
  for (ForeachDim &D : S->Dims) {
    if (!D.Var)
      continue;
    D.Var->Ty = Types.getAtomic(Type::Int32, Variability::Varying, /*Const=*/true);
    ForeachVars.insert(D.Var);
    declareName(D.Var);
    declareVarSeq(D.Var);
  }
  unsigned Id = NextTargetId++;
  Targets.push_back(
      {ExitTarget::Foreach, Id, EverywhereDepth, ++Seq, S->Tiled ? "foreach_tiled" : "foreach"});
  checkScoped(*this, S->Body);
  Targets.pop_back();
  endRegionsAt(Size, Id);
  popScope();
}

void Sema::checkForeachActive(ForeachActiveStmt *S) {
  pushScope();
  size_t Size = Regions.size();
  pushRegion(Region::Serial);
  if (S->Index) {
    // ISPC: the active lane's index is a const uniform int64.
    S->Index->Ty = Types.getAtomic(Type::Int64, Variability::Uniform, /*Const=*/true);
    ForeachVars.insert(S->Index);
    declareName(S->Index);
    declareVarSeq(S->Index);
  }
  unsigned Id = NextTargetId++;
  Targets.push_back({ExitTarget::Foreach, Id, EverywhereDepth, ++Seq, "foreach_active"});
  checkScoped(*this, S->Body);
  Targets.pop_back();
  endRegionsAt(Size, Id);
  popScope();
}

void Sema::checkForeachUnique(ForeachUniqueStmt *S) {
  bool Ok = S->Seq && checkRValue(S->Seq);
  if (Ok && !S->Seq->Ty->isArithmetic() && !S->Seq->Ty->isPointer()) {
    Diags.error(S->Seq->Loc, "foreach_unique needs a value of atomic, enum or pointer type, not " +
                                 quoted(S->Seq->Ty));
    Ok = false;
  }
  // A uniform value has one distinct value: broadcast it, so the loop (and the
  // code generators after it) only ever see a varying sequence (ISPC rejects a
  // uniform one; docs/decisions.md).
  if (Ok)
    matchVariability(S->Seq, Variability::Varying);
  pushScope();
  size_t Size = Regions.size();
  pushRegion(Region::Serial);
  if (S->Var) {
    // The uniform version of the sequence's type; null after an error.
    S->Var->Ty = Ok ? Types.withConst(uniformOf(S->Seq->Ty)) : nullptr;
    ForeachVars.insert(S->Var);
    declareName(S->Var);
    declareVarSeq(S->Var);
  }
  unsigned Id = NextTargetId++;
  Targets.push_back({ExitTarget::Foreach, Id, EverywhereDepth, ++Seq, "foreach_unique"});
  checkScoped(*this, S->Body);
  Targets.pop_back();
  endRegionsAt(Size, Id);
  popScope();
}

void Sema::checkPrint(PrintStmt *S) {
  bool Ok = true;
  for (Expr *&A : S->Args) {
    if (!A || !checkRValue(A)) {
      Ok = false;
      continue;
    }
    if (!A->Ty->isArithmetic() && !A->Ty->isPointer()) {
      Diags.error(A->Loc, "cannot print a value of type " + quoted(A->Ty));
      Ok = false;
    }
  }
  size_t Placeholders = std::count(S->Format.begin(), S->Format.end(), '%');
  if (Ok && Placeholders != S->Args.size())
    Diags.error(S->Loc, "print format has " + std::to_string(Placeholders) + " '%' placeholder" +
                            (Placeholders == 1 ? "" : "s") + " but " +
                            std::to_string(S->Args.size()) + " argument" +
                            (S->Args.size() == 1 ? "" : "s") + " were given");
}

} // namespace spmdc
