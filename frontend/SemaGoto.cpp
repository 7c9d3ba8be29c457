// Sema for labels and `goto`: ISPC's rule and the jumps the structured IR can lower.
//
// ISPC (guide, "Unstructured Control Flow") allows `goto` only where every
// lane that reached it follows it: not under varying control flow. Code after
// a varying `return` qualifies (the lanes that returned stay off wherever the
// gang jumps), as in ISPC. spmdc adds two limits where ISPC's would give
// wrong masks, documented in docs/decisions.md:
// - a jump may enter only blocks and uniform `if`s; entering a loop, a
//   switch, a foreach, a varying `if` or an everywhere/unmasked block would
//   skip the code that sets up that construct's mask;
// - a jump may not leave an `everywhere` block (rule 4 of language.md), nor a
//   loop that lanes may leave early (a varying break/continue/return inside):
//   the lanes that left would come back at the label.
#include "frontend/SemaInternal.h"

#include <algorithm>

namespace spmdc {

namespace {

bool isVaryingCond(const Expr *Cond) { return Cond && Cond->Ty && Cond->Ty->isVarying(); }

/// Can control enter `S` from outside without skipping mask set-up?
bool isEnterable(const Stmt *S) {
  if (llvm::isa<CompoundStmt>(S))
    return true;
  if (auto *If = llvm::dyn_cast<IfStmt>(S))
    return If->Cond && If->Cond->Ty && !isVaryingCond(If->Cond);
  return false;
}

std::string describe(const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::IfStmtKind:
    return "a varying 'if'";
  case Stmt::WhileStmtKind:
  case Stmt::DoStmtKind:
  case Stmt::ForStmtKind:
    return "a loop";
  case Stmt::SwitchStmtKind:
  case Stmt::CaseStmtKind:
  case Stmt::DefaultStmtKind:
    return "a 'switch'";
  case Stmt::ForeachStmtKind:
  case Stmt::ForeachActiveStmtKind:
  case Stmt::ForeachUniqueStmtKind:
    return "a 'foreach'";
  case Stmt::EverywhereStmtKind:
    return "an 'everywhere' block";
  case Stmt::UnmaskedStmtKind:
    return "an 'unmasked' block";
  default:
    return "this statement";
  }
}

/// Does `S` hold a break/continue/return under varying control flow (so that
/// lanes may leave the loop around it early)? Conservative: nested loops'
/// own breaks count too.
bool hasVaryingExit(Stmt *S, bool UnderVarying) {
  switch (S->getKind()) {
  case Stmt::BreakStmtKind:
  case Stmt::ContinueStmtKind:
  case Stmt::ReturnStmtKind:
    return UnderVarying;
  case Stmt::IfStmtKind:
    UnderVarying |= isVaryingCond(llvm::cast<IfStmt>(S)->Cond);
    break;
  case Stmt::WhileStmtKind:
    UnderVarying |= isVaryingCond(llvm::cast<WhileStmt>(S)->Cond);
    break;
  case Stmt::DoStmtKind:
    UnderVarying |= isVaryingCond(llvm::cast<DoStmt>(S)->Cond);
    break;
  case Stmt::ForStmtKind:
    UnderVarying |= isVaryingCond(llvm::cast<ForStmt>(S)->Cond);
    break;
  case Stmt::SwitchStmtKind:
    UnderVarying |= isVaryingCond(llvm::cast<SwitchStmt>(S)->Cond);
    break;
  case Stmt::ForeachStmtKind:
  case Stmt::ForeachActiveStmtKind:
  case Stmt::ForeachUniqueStmtKind:
    UnderVarying = true;
    break;
  default:
    break;
  }
  bool Found = false;
  forEachChild(
      S, [](Expr *&) {}, [&](Stmt *&C) { Found = Found || hasVaryingExit(C, UnderVarying); });
  return Found;
}

/// Every label and goto of a body with the statements enclosing it.
class JumpSites {
public:
  explicit JumpSites(Stmt *Body) { walk(Body); }
  std::unordered_map<const LabelStmt *, std::vector<Stmt *>> Labels;
  std::vector<std::pair<GotoStmt *, std::vector<Stmt *>>> Gotos;

private:
  void walk(Stmt *S) {
    bool IsLabel = false;
    if (auto *L = llvm::dyn_cast<LabelStmt>(S)) {
      Labels[L] = Path;
      IsLabel = true; // a label encloses nothing: its statement is a sibling
    } else if (auto *G = llvm::dyn_cast<GotoStmt>(S)) {
      Gotos.push_back({G, Path});
    }
    if (!IsLabel)
      Path.push_back(S);
    forEachChild(
        S, [](Expr *&) {}, [&](Stmt *&C) { walk(C); });
    if (!IsLabel)
      Path.pop_back();
  }
  std::vector<Stmt *> Path;
};

} // namespace

void Sema::checkLabel(LabelStmt *S) {
  auto [It, New] = Labels.emplace(S->Name, S);
  if (!New) {
    Diags.error(S->Loc, "multiple labels named '" + S->Name + "' in function");
    Diags.note(It->second->Loc, "previous label '" + S->Name + "' is here");
  }
  checkStmtSlot(S->Sub);
}

void Sema::checkGoto(GotoStmt *S) {
  for (auto It = Regions.rbegin(); It != Regions.rend(); ++It) {
    if (It->K == Region::AllOn)
      break;
    bool AfterReturnOnly =
        It->K == Region::Partial &&
        std::all_of(It->Exits.begin(), It->Exits.end(),
                    [](unsigned T) { return T == FunctionTargetId; });
    if (!AfterReturnOnly) {
      Diags.error(S->Loc, "'goto' statements are only legal under uniform control flow");
      RejectedGotos.insert(S);
      return;
    }
  }
}

void Sema::resolveGotos(CompoundStmt *Body) {
  JumpSites Sites(Body);
  for (auto &[G, GotoPath] : Sites.Gotos) {
    auto It = Labels.find(G->Label);
    if (It == Labels.end()) {
      Diags.error(G->LabelLoc, "no label named '" + G->Label + "' found in current function");
      continue;
    }
    G->Target = It->second;
    if (RejectedGotos.count(G))
      continue;
    const std::vector<Stmt *> &LabelPath = Sites.Labels[G->Target];
    size_t Common = 0;
    while (Common < GotoPath.size() && Common < LabelPath.size() &&
           GotoPath[Common] == LabelPath[Common])
      ++Common;
    for (size_t I = Common; I < LabelPath.size(); ++I) {
      if (isEnterable(LabelPath[I]))
        continue;
      Diags.error(G->LabelLoc, "'goto' cannot jump into " + describe(LabelPath[I]) +
                                   ": label '" + G->Label + "' is inside it");
      Diags.note(G->Target->Loc, "label '" + G->Label + "' is here");
      break;
    }
    for (size_t I = Common; I < GotoPath.size(); ++I) {
      Stmt *Left = GotoPath[I];
      bool Loop = llvm::isa<WhileStmt>(Left) || llvm::isa<DoStmt>(Left) || llvm::isa<ForStmt>(Left);
      if (llvm::isa<EverywhereStmt>(Left)) {
        Diags.error(G->Loc, "'goto' cannot leave an 'everywhere' block");
        break;
      }
      if (Loop && hasVaryingExit(Left, false)) {
        Diags.error(G->Loc, "'goto' cannot leave a loop that lanes may leave early (it has a "
                            "'break', 'continue' or 'return' under varying control flow)");
        break;
      }
    }
  }
}

} // namespace spmdc
