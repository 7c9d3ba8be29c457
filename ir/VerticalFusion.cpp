// Vertical fusion (thread composition): kernels run one after another become one kernel.
//
// `vfuse_A_B(params)` means "A(params); B(params)", the parameters unified by
// name. The pass merges the kernels' loops level by level where their index
// spaces are the same (a `foreach` over equal bounds, a uniform loop with the
// same start, condition and step), so each iteration of the fused loop does A's
// work and then B's. That is legal when every buffer one kernel writes and
// another accesses is accessed at one index that is a function of the merged
// loops' variables: then the element B reads in an iteration is the one A wrote
// in that same iteration, by the same program instance (for a `foreach`) or the
// same gang (for a uniform loop). Such an intermediate is then forwarded through
// a local slot (a register after LLVM's SROA) instead of global memory, and not
// stored at all when the request names it a temporary. See docs/fusion.md.
#include "ir/VerticalFusion.h"

#include "frontend/Diagnostics.h"
#include "frontend/SourceManager.h"
#include "ir/FusionLaunchModel.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/PassRequests.h"
#include "ir/RegionSplice.h"
#include "target/TargetInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace spmdc::ir {

//===----------------------------------------------------------------------===//
// Requests
//===----------------------------------------------------------------------===//

namespace {

/// A tiny scanner over a request's text that remembers offsets for errors.
class SpecScanner {
public:
  explicit SpecScanner(llvm::StringRef Text) : Text(Text) {}
  size_t skipSpace() {
    while (Pos < Text.size() && std::isspace(static_cast<unsigned char>(Text[Pos])))
      ++Pos;
    return Pos;
  }
  std::string identifier() {
    skipSpace();
    size_t B = Pos;
    if (Pos < Text.size() &&
        (std::isalpha(static_cast<unsigned char>(Text[Pos])) || Text[Pos] == '_'))
      while (Pos < Text.size() &&
             (std::isalnum(static_cast<unsigned char>(Text[Pos])) || Text[Pos] == '_'))
        ++Pos;
    return Text.substr(B, Pos - B).str();
  }
  bool accept(char C) {
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  bool atEnd() { return skipSpace() == Text.size(); }
  size_t Pos = 0;
  llvm::StringRef Text;
};

} // namespace

std::optional<VerticalFusionRequest> parseVerticalFusionSpec(const std::string &Spec,
                                                             std::string &Error, size_t &ErrorAt) {
  VerticalFusionRequest R;
  R.Spelling = Spec;
  SpecScanner S(Spec);
  auto Fail = [&](size_t At, const std::string &Message) {
    Error = Message;
    ErrorAt = At;
    return std::nullopt;
  };
  // A comma-separated list of names, each with its offset; false after Fail.
  auto names = [&](const char *Expected, std::vector<std::string> &Names,
                   std::vector<uint32_t> &Offsets) {
    do {
      size_t At = S.skipSpace();
      std::string Name = S.identifier();
      if (Name.empty()) {
        Fail(At, Expected);
        return false;
      }
      Names.push_back(Name);
      Offsets.push_back(static_cast<uint32_t>(At));
    } while (S.accept(','));
    return true;
  };
  if (!names("expected a kernel name", R.Kernels, R.KernelCols))
    return std::nullopt;
  if (R.Kernels.size() < 2)
    return Fail(S.skipSpace(), "a vertical fusion needs at least two kernels (A,B)");
  // Sections after the kernels, in any order: `temp=y,...` / `temp(y, ...)` and
  // `compose=block|warp` / `compose(warp)`.
  bool SeenTemp = false, SeenCompose = false;
  while (S.accept(':')) {
    size_t At = S.skipSpace();
    std::string Section = S.identifier();
    if (Section != "temp" && Section != "compose")
      return Fail(At, "expected 'temp' or 'compose' after ':'");
    if ((Section == "temp" ? SeenTemp : SeenCompose))
      return Fail(At, "'" + Section + "' given twice");
    (Section == "temp" ? SeenTemp : SeenCompose) = true;
    bool Paren = S.accept('(');
    if (!Paren && !S.accept('='))
      return Fail(S.skipSpace(), Section == "temp" ? "expected 'temp=y,...' or 'temp(y, ...)'"
                                                   : "expected 'compose=block|warp' or 'compose(block|warp)'");
    if (Section == "compose") {
      size_t NameAt = S.skipSpace();
      std::string Kind = S.identifier();
      if (Kind == "block")
        R.Composition = FusionComposition::Block;
      else if (Kind == "warp")
        R.Composition = FusionComposition::Warp;
      else
        return Fail(NameAt, "expected 'block' or 'warp' (the composition of neighbour reads)");
    } else if (!names("expected the name of a temporary buffer", R.Temps, R.TempCols)) {
      return std::nullopt;
    }
    if (Paren && !S.accept(')'))
      return Fail(S.skipSpace(), Section == "temp" ? "expected ')' after the temporaries"
                                                   : "expected ')' after the composition");
  }
  if (!S.atEnd())
    return Fail(S.Pos, "unexpected '" + Spec.substr(S.Pos) + "'");
  return R;
}

namespace {

/// `#pragma vfuse(A, B : temp(y))`: the text between the parentheses in the
/// --vfuse grammar; columns are turned into the source line's.
std::optional<VerticalFusionRequest> readPragma(const Pragma &P, DiagnosticEngine &Diags) {
  uint32_t TextCol = 0;
  std::optional<VerticalFusionRequest> R =
      readPragmaRequest<VerticalFusionRequest>(P, "vfuse", Diags, parseVerticalFusionSpec, TextCol);
  if (!R)
    return R;
  R->Spelling = "#pragma " + P.Text;
  for (uint32_t &C : R->KernelCols)
    C = TextCol ? TextCol + C : 0;
  for (uint32_t &C : R->TempCols)
    C = TextCol ? TextCol + C : 0;
  return R;
}

//===----------------------------------------------------------------------===//
// Index expressions as keys
//===----------------------------------------------------------------------===//

/// An index expression: `Key` is canonical (equal keys, equal values in the
/// same iteration), `Text` is for messages, `Merged` says whether it depends
/// on a merged loop's variable.
struct IndexExpr {
  std::string Key, Text;
  bool Merged = false;
};

/// What the pass knows about a `var` slot of the fused body.
struct SlotFacts {
  unsigned Stores = 0;
  Value *Stored = nullptr; ///< the value of the only store
  bool Escapes = false;    ///< its address is used other than to load or store it
};

/// Where an access's address points: a parameter or global (`Root`) at an
/// index, a local slot, or something the pass cannot follow.
struct Place {
  enum Kind { Local, Buffer, Unknown } K = Unknown;
  std::string Root; ///< "x" for parameter x, "@g" for global g
  IndexExpr Index;
};

struct Access {
  Op *O;
  unsigned Side;
  bool Write;
  bool ThroughCall;
  Place P;
};

class VerticalFuser {
public:
  VerticalFuser(Module &M, const TargetInfo &Target, DiagnosticEngine &Diags, bool Report)
      : M(M), Target(Target), Diags(Diags), B(M), Report(Report) {}

  /// Checks the request's names and kernels; fills `Kernels`.
  bool check(const VerticalFusionRequest &R, std::vector<Function *> &Kernels) {
    unsigned Before = Diags.errorCount();
    std::set<std::string> Seen;
    for (size_t I = 0; I < R.Kernels.size(); ++I) {
      const std::string &N = R.Kernels[I];
      SourceLoc L = at(R, R.KernelCols, I);
      Function *F = nullptr;
      for (auto &G : M.Functions)
        if (G->Name == N && !G->IsStdlib && (!F || G->Body))
          F = G.get();
      if (!F) {
        report(R, L, "unknown kernel '" + N + "'");
        continue;
      }
      const FunctionFlags &Fl = F->flags();
      if (!F->Body || !(Fl.Export || Fl.Task) || !F->Ty->getReturnType()->isVoid()) {
        report(R, L, "kernel '" + N + "' is not a void export or task function defined here");
        continue;
      }
      if (!Seen.insert(N).second) {
        report(R, L, "kernel '" + N + "' appears twice in the fusion");
        continue;
      }
      if (!Kernels.empty() && (Kernels[0]->flags().Export != Fl.Export)) {
        report(R, L,
               "kernel '" + N + "' is " + (Fl.Export ? "an export" : "a task") + " function but '" +
                   Kernels[0]->Name +
                   "' is not: fused kernels are all "
                   "export or all task functions");
        continue;
      }
      Kernels.push_back(F);
    }
    if (Diags.errorCount() != Before)
      return false;
    std::string Name = fusedName(R);
    for (auto &G : M.Functions)
      if (G->Name == Name) {
        // A prototype of the fused kernel lets the file call or launch it.
        if (!G->Body && !G->IsStdlib && !Declared) {
          Declared = G.get();
          continue;
        }
        report(R, R.Loc, "a function named '" + Name + "' already exists");
        return false;
      }
    return true;
  }

  void fuse(const VerticalFusionRequest &R, std::vector<Function *> &Kernels) {
    Req = &R;
    if (!buildSignature(R, Kernels))
      return;
    // Each kernel's body, cloned with its parameters replaced by the fused
    // entry's, remembering which kernel every op came from.
    std::vector<std::unique_ptr<Region>> Bodies;
    for (size_t K = 0; K < Kernels.size(); ++K) {
      std::map<const Value *, Value *> Map;
      for (auto &P : Kernels[K]->Params)
        Map[P.get()] = asType(ParamFor.at(P->NameHint), P->Ty);
      Bodies.push_back(std::make_unique<Region>());
      cloneRegionInto(*Kernels[K]->Body, *Bodies.back(), Map, *Entry);
      if (!tagSide(*Bodies.back(), static_cast<unsigned>(K), Kernels[K]))
        return;
    }
    for (auto &Body : Bodies)
      collectSlotFacts(*Body);
    std::vector<Region *> Sides;
    for (auto &Body : Bodies)
      Sides.push_back(Body.get());
    merge(Sides, *Entry->Body);
    for (auto &P : Entry->Body->Ops)
      P->ParentRegion = Entry->Body.get();
    // The temporaries' stand-in null pointers and the parameters' conversions
    // go first (the kernels' parameter slots use them).
    std::vector<std::unique_ptr<Op>> Nulls;
    for (auto &P : Prelude)
      Nulls.push_back(std::move(P));
    Entry->Body->Ops.insert(Entry->Body->Ops.begin(), std::make_move_iterator(Nulls.begin()),
                            std::make_move_iterator(Nulls.end()));
    if (!checkAccesses() || !checkTiles())
      return;
    Traffic Apart = traffic(/*Fused=*/false);
    if (!Tiles.empty()) {
      std::optional<FusionComposition> How = chooseComposition();
      if (!How || !(*How == FusionComposition::Warp ? composeWarps() : composeBlocks()))
        return;
    }
    forwardIntermediates();
    if (!checkTemporariesGone())
      return;
    fullVectorPaths();
    judge(Apart, traffic(/*Fused=*/true));
    adoptDeclaration();
  }

  /// Where the file declares the fused kernel (to call or launch it), the
  /// declaration gets the body: calls name that function.
  void adoptDeclaration() {
    if (!Declared)
      return;
    if (Declared->Ty != Entry->Ty) {
      Diags.error(Declared->Loc, "the declaration of '" + Entry->Name +
                                     "' does not match the fused kernel, which is '" +
                                     Entry->Ty->toString() +
                                     "' (the kernels' parameters by name, minus the temporaries)");
      return;
    }
    Declared->Params = std::move(Entry->Params);
    Declared->Body = std::move(Entry->Body);
    Declared->LabelCount = Entry->LabelCount;
    for (auto &P : Declared->Body->Ops)
      P->ParentRegion = Declared->Body.get();
    std::erase_if(M.Functions,
                  [&](const std::unique_ptr<Function> &F) { return F.get() == Entry; });
    Entry = Declared;
  }

  static std::string fusedName(const VerticalFusionRequest &R) {
    std::string N = "vfuse";
    for (const std::string &K : R.Kernels)
      N += "_" + K;
    return N;
  }

private:
  SourceLoc at(const VerticalFusionRequest &R, const std::vector<uint32_t> &Cols, size_t I) {
    SourceLoc L = R.Loc;
    if (R.FromPragma && I < Cols.size() && Cols[I])
      L.Col = Cols[I];
    return L;
  }

  /// Pragma errors point into the source; command-line ones name the option.
  void report(const VerticalFusionRequest &R, SourceLoc L, const std::string &Message) {
    if (R.FromPragma)
      Diags.error(L, Message);
    else
      Diags.errorNoLoc("--vfuse=" + R.Spelling + ": " + Message);
  }

  /// The entry `vfuse_A_B(...)`: every kernel's parameters, the same name
  /// meaning the same argument, minus the temporaries.
  bool buildSignature(const VerticalFusionRequest &R, std::vector<Function *> &Kernels) {
    std::vector<std::string> Names;
    std::map<std::string, const Type *> TypeOf;
    std::map<std::string, std::string> FirstUser;
    for (size_t KI = 0; KI < Kernels.size(); ++KI)
      for (size_t I = 0; I < Kernels[KI]->Params.size(); ++I) {
        Function *K = Kernels[KI];
        const std::string &N = K->Params[I]->NameHint;
        const Type *T = K->Params[I]->Ty;
        if (N.empty()) {
          report(R, at(R, R.KernelCols, KI),
                 "parameter " + std::to_string(I + 1) + " of kernel '" + K->Name +
                     "' has no name; fused kernels match parameters by name");
          return false;
        }
        auto [It, New] = TypeOf.try_emplace(N, T);
        if (New) {
          Names.push_back(N);
          FirstUser[N] = K->Name;
          continue;
        }
        const Type *Old = It->second;
        if (Old == T)
          continue;
        // `const float x[]` in one kernel and `float x[]` in another: the
        // same buffer; the fused parameter is the writable one.
        if (Old->isPointer() && T->isPointer() &&
            M.Types.withConst(Old->getPointee(), false) ==
                M.Types.withConst(T->getPointee(), false) &&
            Old->isVarying() == T->isVarying()) {
          if (!T->getPointee()->isConst())
            It->second = T;
          continue;
        }
        report(R, at(R, R.KernelCols, KI),
               "parameter '" + N + "' is '" + T->toString() + "' in kernel '" + K->Name +
                   "' but '" + Old->toString() + "' in kernel '" + FirstUser[N] +
                   "'; fused kernels match parameters by name");
        return false;
      }
    for (size_t I = 0; I < R.Temps.size(); ++I) {
      const std::string &N = R.Temps[I];
      auto It = TypeOf.find(N);
      if (It == TypeOf.end() || !It->second->isPointer()) {
        report(R, at(R, R.TempCols, I),
               It == TypeOf.end() ? "no kernel of the fusion has a parameter '" + N + "'"
                                  : "temporary '" + N + "' is not a pointer or array parameter");
        return false;
      }
      Temps.insert(N);
    }
    std::vector<const Type *> Types;
    for (const std::string &N : Names)
      if (!Temps.count(N))
        Types.push_back(TypeOf[N]);
    auto F = std::make_unique<Function>();
    F->Name = F->Symbol = fusedName(R);
    F->Loc = R.FromPragma ? R.Loc : Kernels[0]->Loc;
    F->Ty = M.Types.getFunction(M.Types.getVoid(), Types, Kernels[0]->flags());
    F->Body = std::make_unique<Region>();
    for (const std::string &N : Names) {
      if (Temps.count(N)) {
        // A temporary has no argument: its uses must all be forwarded; a
        // null stand-in keeps the kernels' parameter slots well-formed.
        auto Null = std::make_unique<Op>(OpCode::ConstNull, F->Loc);
        Null->Result = std::make_unique<Value>(TypeOf[N], Null.get());
        Null->Result->NameHint = N;
        Null->ParentRegion = F->Body.get();
        ParamFor[N] = Null->result();
        Prelude.push_back(std::move(Null));
        continue;
      }
      F->Params.push_back(std::make_unique<Value>(TypeOf[N], nullptr));
      F->Params.back()->NameHint = N;
      ParamFor[N] = F->Params.back().get();
    }
    Entry = F.get();
    M.Functions.push_back(std::move(F));
    return true;
  }

  /// `V` as a kernel's parameter type (`const float *` for a fused `float *`).
  Value *asType(Value *V, const Type *T) {
    if (V->Ty == T)
      return V;
    auto C = std::make_unique<Op>(OpCode::Convert, Entry->Loc);
    C->Cast = CastKind::NoOp;
    C->Operands = {V};
    C->Result = std::make_unique<Value>(T, C.get());
    C->Result->NameHint = V->NameHint;
    C->ParentRegion = Entry->Body.get();
    Prelude.push_back(std::move(C));
    return Prelude.back()->result();
  }

  /// Records each op's kernel; an early `return` would skip the later
  /// kernels' work, so it is refused.
  bool tagSide(Region &R, unsigned Side, Function *Kernel) {
    for (auto &P : R.Ops) {
      SideOf[P.get()] = Side;
      if (P->Code == OpCode::Return || P->Code == OpCode::Goto) {
        Diags.error(P->Loc, std::string("kernel '") + Kernel->Name + "' has a '" +
                                (P->Code == OpCode::Return ? "return" : "goto") +
                                "': in fused kernel '" + Entry->Name +
                                "' it would skip the work of the kernels after it");
        return false;
      }
      for (auto &Sub : P->Regions)
        if (!tagSide(*Sub, Side, Kernel))
          return false;
    }
    return true;
  }

  void collectSlotFacts(Region &R) {
    for (auto &P : R.Ops) {
      Op &O = *P;
      for (size_t I = 0; I < O.Operands.size(); ++I) {
        Value *V = O.Operands[I];
        if (!V || !V->Def || V->Def->Code != OpCode::Var)
          continue;
        SlotFacts &S = Slots[V];
        if (O.Code == OpCode::Store && I == 0) {
          ++S.Stores;
          S.Stored = O.Operands[1];
        } else if (!(O.Code == OpCode::Load && I == 0)) {
          S.Escapes = true;
        }
      }
      for (Value *V : O.IndexVars)
        Slots[V].Stores += 2; // written by the loop: never a single-store slot
      for (auto &Sub : O.Regions)
        collectSlotFacts(*Sub);
    }
  }

  //===--------------------------------------------------------------------===//
  // Keys
  //===--------------------------------------------------------------------===//

  IndexExpr keyOf(Value *V, unsigned Depth = 0) {
    if (!V || Depth > 64)
      return unknown(V);
    Op *D = V->Def;
    if (!D) {
      for (auto &P : Entry->Params)
        if (P.get() == V)
          return {"p:" + V->NameHint, V->NameHint, false};
      return unknown(V);
    }
    switch (D->Code) {
    case OpCode::ConstInt:
      return {"#" + std::to_string(D->Imm), std::to_string(D->Imm), false};
    case OpCode::ConstFloat:
      return {"#f" + std::to_string(D->FImm), std::to_string(D->FImm), false};
    case OpCode::Builtin:
      return {std::string("b:") + builtinName(D->BuiltinId), builtinName(D->BuiltinId), false};
    case OpCode::Broadcast:
    case OpCode::Convert:
      // Variability and integer width do not change which element is named.
      return keyOf(D->Operands[0], Depth + 1);
    case OpCode::Unary: {
      IndexExpr A = keyOf(D->Operands[0], Depth + 1);
      std::string S = unaryOpSpelling(D->UnOp);
      return {"(" + S + " " + A.Key + ")", S + A.Text, A.Merged};
    }
    case OpCode::Binary: {
      IndexExpr A = keyOf(D->Operands[0], Depth + 1), C = keyOf(D->Operands[1], Depth + 1);
      std::string S = binaryOpSpelling(D->BinOp);
      return {"(" + S + " " + A.Key + " " + C.Key + ")", A.Text + " " + S + " " + C.Text,
              A.Merged || C.Merged};
    }
    case OpCode::Select: {
      IndexExpr A = keyOf(D->Operands[0], Depth + 1), C = keyOf(D->Operands[1], Depth + 1),
                E = keyOf(D->Operands[2], Depth + 1);
      return {"(? " + A.Key + " " + C.Key + " " + E.Key + ")",
              A.Text + " ? " + C.Text + " : " + E.Text, A.Merged || C.Merged || E.Merged};
    }
    case OpCode::Call: {
      if (!D->Callee || !D->Callee->IsStdlib)
        return unknown(V);
      IndexExpr R{"(call " + D->Callee->Symbol, D->Callee->Name + "(", false};
      for (size_t I = 0; I < D->Operands.size(); ++I) {
        IndexExpr A = keyOf(D->Operands[I], Depth + 1);
        if (A.Key.starts_with("?"))
          return unknown(V);
        R.Key += " " + A.Key;
        R.Text += (I ? ", " : "") + A.Text;
        R.Merged |= A.Merged;
      }
      R.Key += ")";
      R.Text += ")";
      return R;
    }
    case OpCode::Load: {
      Value *Slot = D->Operands[0];
      auto Tok = Tokens.find(Slot);
      if (Tok != Tokens.end())
        return {Tok->second, Slot->NameHint, true};
      auto S = Slots.find(Slot);
      if (Slot->Def && Slot->Def->Code == OpCode::Var && S != Slots.end() &&
          S->second.Stores == 1 && !S->second.Escapes)
        return keyOf(S->second.Stored, Depth + 1);
      return unknown(V);
    }
    default:
      return unknown(V);
    }
  }

  /// A value the pass cannot name: equal only to itself.
  IndexExpr unknown(Value *V) {
    std::string Text = V && !V->NameHint.empty() ? V->NameHint : "?";
    if (V && V->Def && V->Def->Code == OpCode::Load && !V->Def->Operands[0]->NameHint.empty())
      Text = V->Def->Operands[0]->NameHint;
    return {"?" + std::to_string(reinterpret_cast<uintptr_t>(V)), Text, false};
  }

  Place placeOf(Value *Addr, unsigned Depth = 0) {
    Place P;
    if (!Addr || Depth > 64)
      return P;
    Op *D = Addr->Def;
    if (!D) {
      if (keyOf(Addr).Key.starts_with("p:")) {
        P.K = Place::Buffer;
        P.Root = Addr->NameHint;
      }
      return P;
    }
    switch (D->Code) {
    case OpCode::Var:
    case OpCode::New:
      P.K = Place::Local;
      return P;
    case OpCode::ConstNull:
      // A temporary's stand-in.
      P.K = Place::Buffer;
      P.Root = Addr->NameHint;
      return P;
    case OpCode::GlobalAddr:
      P.K = Place::Buffer;
      P.Root = "@" + D->GlobalRef->Name;
      return P;
    case OpCode::Convert:
    case OpCode::Broadcast:
      return placeOf(D->Operands[0], Depth + 1);
    case OpCode::ElementAddr: {
      P = placeOf(D->Operands[0], Depth + 1);
      IndexExpr I = keyOf(D->Operands[1]);
      P.Index.Key += "[" + I.Key + "]";
      P.Index.Text += "[" + I.Text + "]";
      P.Index.Merged |= I.Merged;
      return P;
    }
    case OpCode::FieldAddr:
      P = placeOf(D->Operands[0], Depth + 1);
      P.Index.Key += "." + std::to_string(D->FieldIndex);
      P.Index.Text += ".field" + std::to_string(D->FieldIndex);
      return P;
    case OpCode::Load: {
      // A pointer read from a slot that holds one value (a parameter's slot).
      Value *Slot = D->Operands[0];
      auto S = Slots.find(Slot);
      if (Slot->Def && Slot->Def->Code == OpCode::Var && S != Slots.end() &&
          S->second.Stores == 1 && !S->second.Escapes)
        return placeOf(S->second.Stored, Depth + 1);
      return P;
    }
    default:
      return P;
    }
  }

  //===--------------------------------------------------------------------===//
  // Merging the kernels' loops
  //===--------------------------------------------------------------------===//

  /// A standard-library call with a result and no pointer argument (min, exp).
  static bool isPureStdlibCall(const Op &O) {
    if (!O.Callee || !O.Callee->IsStdlib || !O.Result)
      return false;
    for (Value *V : O.Operands)
      if (V->Ty->isPointer())
        return false;
    return true;
  }

  /// Ops that may move past another kernel's loop: no memory but local
  /// slots, no calls but pure standard-library ones, no control flow.
  bool isLocal(Op &O) {
    switch (O.Code) {
    case OpCode::ConstInt:
    case OpCode::ConstFloat:
    case OpCode::ConstNull:
    case OpCode::Builtin:
    case OpCode::Unary:
    case OpCode::Binary:
    case OpCode::Convert:
    case OpCode::Broadcast:
    case OpCode::Select:
    case OpCode::SizeOf:
    case OpCode::Var:
    case OpCode::GlobalAddr:
    case OpCode::FuncAddr:
    case OpCode::ElementAddr:
    case OpCode::FieldAddr:
      return true;
    case OpCode::Load:
    case OpCode::Store:
      return placeOf(O.Operands[0]).K == Place::Local;
    case OpCode::Call:
      return isPureStdlibCall(O);
    default:
      return false;
    }
  }

  /// Does `R` hold a break/continue of the loop that owns it?
  static bool leavesLoop(Region &R) {
    for (auto &P : R.Ops) {
      if (P->Code == OpCode::Break || P->Code == OpCode::Continue)
        return true;
      if (P->Code == OpCode::Loop || P->Code == OpCode::Foreach)
        continue; // their own break/continue
      for (auto &Sub : P->Regions)
        if (leavesLoop(*Sub))
          return true;
    }
    return false;
  }

  /// The variable a uniform loop steps: the one slot its step region stores.
  Value *loopVariable(Op &L) {
    Value *Var = nullptr;
    for (auto &P : L.region(2).Ops) {
      if (P->Code == OpCode::Store) {
        if (Var || !P->Operands[0]->Def || P->Operands[0]->Def->Code != OpCode::Var)
          return nullptr;
        Var = P->Operands[0];
      } else if (!isLocal(*P)) {
        return nullptr;
      }
    }
    if (!Var || Slots[Var].Escapes)
      return nullptr;
    return Var;
  }

  /// The value stored last into `Slot` among `Ops` before position `End`.
  static Value *lastStore(Region &R, size_t End, Value *Slot) {
    Value *V = nullptr;
    for (size_t I = 0; I < End; ++I)
      if (R.Ops[I]->Code == OpCode::Store && R.Ops[I]->Operands[0] == Slot)
        V = R.Ops[I]->Operands[1];
    return V;
  }

  /// Could side `S`'s loop `L` run as one loop with side 0's loop `L0`?
  /// Assigns the shared tokens to the loops' variables when it can.
  bool sameIterations(Region &R0, size_t At0, Region &R, size_t At, std::string &Why) {
    Op &L0 = *R0.Ops[At0], &L = *R.Ops[At];
    std::string Token = "L" + std::to_string(++TokenCount);
    if (L0.Code != L.Code) {
      Why = "one is a 'foreach' and the other a uniform loop";
      return false;
    }
    if (L.Code == OpCode::Foreach) {
      if (L0.Operands.size() != L.Operands.size() || L0.Tiled != L.Tiled) {
        Why = "their 'foreach' loops have different dimensions";
        return false;
      }
      for (size_t I = 0; I < L.Operands.size(); ++I) {
        IndexExpr A = keyOf(L0.Operands[I]), C = keyOf(L.Operands[I]);
        if (A.Key != C.Key) {
          Why =
              "their 'foreach' loops run over different ranges (" + A.Text + " vs " + C.Text + ")";
          return false;
        }
      }
      for (size_t I = 0; I < L.IndexVars.size(); ++I)
        Tokens[L0.IndexVars[I]] = Tokens[L.IndexVars[I]] = Token + "." + std::to_string(I);
      return true;
    }
    Value *V0 = loopVariable(L0), *V = loopVariable(L);
    Value *Init0 = V0 ? lastStore(R0, At0, V0) : nullptr, *Init = V ? lastStore(R, At, V) : nullptr;
    if (!Init0 || !Init || L0.DoWhile != L.DoWhile) {
      Why = "a uniform loop is not a counted loop (one variable, set before it and stepped)";
      return false;
    }
    if (keyOf(Init0).Key != keyOf(Init).Key) {
      Why = "their loops start at different values";
      return false;
    }
    Tokens[V0] = Tokens[V] = Token;
    Value *Cond0 = L0.region(0).Ops.back()->Operands[0],
          *Cond = L.region(0).Ops.back()->Operands[0];
    Value *Step0 = lastStore(L0.region(2), L0.region(2).Ops.size(), V0);
    Value *Step = lastStore(L.region(2), L.region(2).Ops.size(), V);
    bool Same = keyOf(Cond0).Key == keyOf(Cond).Key && keyOf(Step0).Key == keyOf(Step).Key;
    for (auto &P : L0.region(0).Ops)
      Same &= isLocal(*P) || P->Code == OpCode::Yield;
    for (auto &P : L.region(0).Ops)
      Same &= isLocal(*P) || P->Code == OpCode::Yield;
    if (!Same) {
      Tokens.erase(V0);
      Tokens.erase(V);
      Why = "their loops have different conditions or steps";
      return false;
    }
    return true;
  }

  /// The position of the one loop of `R`, if everything else in it is local.
  std::optional<size_t> singleLoop(Region &R, std::string &Why) {
    std::optional<size_t> At;
    for (size_t I = 0; I < R.Ops.size(); ++I) {
      Op &O = *R.Ops[I];
      if (O.Code == OpCode::Loop || O.Code == OpCode::Foreach) {
        if (At) {
          Why =
              "a kernel has two loops at the same level (line " + std::to_string(O.Loc.Line) + ")";
          return std::nullopt;
        }
        At = I;
      } else if (!isLocal(O)) {
        Why = "a kernel has work outside its loop (line " + std::to_string(O.Loc.Line) + ")";
        return std::nullopt;
      }
    }
    if (!At)
      Why = "a kernel has no loop at this level";
    else if (leavesLoop(R.Ops[*At]->region(R.Ops[*At]->Code == OpCode::Loop ? 1 : 0))) {
      Why = "a loop has a 'break' or 'continue'";
      return std::nullopt;
    }
    return At;
  }

  /// Moves the sides' ops into `Out`: if every side is one loop over the same
  /// iterations, one fused loop whose body merges the sides' bodies (each
  /// side's local set-up before it); otherwise the sides one after another.
  void merge(std::vector<Region *> Sides, Region &Out) {
    std::string Why;
    std::vector<size_t> At;
    bool Fusable = true;
    for (Region *S : Sides) {
      std::optional<size_t> L = singleLoop(*S, Why);
      if (!L) {
        Fusable = false;
        break;
      }
      At.push_back(*L);
    }
    for (size_t K = 1; Fusable && K < Sides.size(); ++K)
      Fusable = sameIterations(*Sides[0], At[0], *Sides[K], At[K], Why);
    auto Move = [&](Region &From, size_t Begin, size_t End) {
      for (size_t I = Begin; I < End; ++I) {
        From.Ops[I]->ParentRegion = &Out;
        Out.Ops.push_back(std::move(From.Ops[I]));
      }
    };
    bool AnyLoop = false;
    for (Region *S : Sides)
      for (auto &P : S->Ops)
        AnyLoop |= P->Code == OpCode::Loop || P->Code == OpCode::Foreach;
    if (!Fusable) {
      if (AnyLoop && NotMerged.empty())
        NotMerged = Why;
      for (Region *S : Sides)
        Move(*S, 0, S->Ops.size());
      return;
    }
    for (size_t K = 0; K < Sides.size(); ++K)
      Move(*Sides[K], 0, At[K]);
    Op &L0 = *Sides[0]->Ops[At[0]];
    unsigned BodyIdx = L0.Code == OpCode::Loop ? 1 : 0;
    std::vector<std::unique_ptr<Region>> OldBodies;
    OldBodies.push_back(std::move(L0.Regions[BodyIdx]));
    L0.Regions[BodyIdx] = std::make_unique<Region>();
    L0.Regions[BodyIdx]->Parent = &L0;
    for (size_t K = 1; K < Sides.size(); ++K) {
      Op &L = *Sides[K]->Ops[At[K]];
      // Side K's index variables are side 0's from now on.
      if (L.Code == OpCode::Foreach) {
        for (size_t I = 0; I < L.IndexVars.size(); ++I)
          replaceUses(*L.Regions[0], L.IndexVars[I], L0.IndexVars[I]);
      } else {
        replaceUses(*L.Regions[1], loopVariable(L), loopVariable(L0));
      }
      OldBodies.push_back(std::move(L.Regions[BodyIdx]));
    }
    std::vector<Region *> Bodies;
    for (auto &Bd : OldBodies)
      Bodies.push_back(Bd.get());
    Region &NewBody = *L0.Regions[BodyIdx];
    merge(Bodies, NewBody);
    MergedBodies.insert(&NewBody);
    Move(*Sides[0], At[0], At[0] + 1);
    for (size_t K = 0; K < Sides.size(); ++K)
      Move(*Sides[K], At[K] + 1, Sides[K]->Ops.size());
  }

  //===--------------------------------------------------------------------===//
  // Dependencies between the kernels
  //===--------------------------------------------------------------------===//

  void collectAccesses(Region &R) {
    for (auto &P : R.Ops) {
      Op &O = *P;
      auto Side = SideOf.find(&O);
      if (Side != SideOf.end()) {
        if (O.Code == OpCode::Load || O.Code == OpCode::Store) {
          Place Pl = placeOf(O.Operands[0]);
          if (Pl.K != Place::Local)
            Accesses.push_back({&O, Side->second, O.Code == OpCode::Store, false, Pl});
        } else if (O.Code == OpCode::Call || O.Code == OpCode::Crev || O.Code == OpCode::Launch) {
          for (Value *V : O.Operands)
            if (V->Ty->isPointer()) {
              Place Pl = placeOf(V);
              if (Pl.K != Place::Local)
                Accesses.push_back({&O, Side->second, true, true, Pl});
            }
        }
      }
      for (auto &Sub : O.Regions)
        collectAccesses(*Sub);
    }
  }

  std::string kernelName(unsigned Side) const { return Req->Kernels[Side]; }

  /// Where to point for an access: the subscript that forms its address
  /// (a store's own location is its right-hand side's).
  static SourceLoc where(const Access &A) {
    Value *Addr = A.ThroughCall ? nullptr : A.O->Operands[0];
    if (Addr && Addr->Def && Addr->Def->Loc.isValid())
      return Addr->Def->Loc;
    return A.O->Loc;
  }

  std::string describe(const Access &A) {
    std::string Root = A.P.Root.starts_with("@") ? A.P.Root.substr(1) : A.P.Root;
    std::string Index = A.P.Index.Text.empty() ? "[0]" : A.P.Index.Text;
    if (A.ThroughCall)
      return "passes '" + Root + Index + "' to '" +
             (A.O->Callee ? A.O->Callee->Name : std::string("a function pointer")) + "'";
    return std::string(A.Write ? "writes " : "reads ") + Root + Index;
  }

  void explainNotMerged() {
    if (NotMerged.empty())
      return;
    std::string Message = "the kernels' loops were not merged: " + NotMerged;
    if (Req->FromPragma)
      Diags.note(Req->Loc, Message);
    else
      llvm::errs() << "spmdc: note: " << Message << "\n";
  }

  /// Every buffer that one kernel writes and another accesses must be
  /// accessed at one index that names the same iteration of a merged loop.
  bool checkAccesses() {
    collectAccesses(*Entry->Body);
    unsigned Before = Diags.errorCount();
    std::map<std::string, std::vector<const Access *>> ByRoot;
    for (const Access &A : Accesses)
      if (A.P.K == Place::Buffer)
        ByRoot[A.P.Root].push_back(&A);
    // An access through a pointer the pass cannot follow may touch any buffer.
    for (const Access &A : Accesses) {
      if (A.P.K != Place::Unknown)
        continue;
      bool Conflict = false;
      for (const Access &O : Accesses)
        Conflict |= O.Side != A.Side && (O.Write || A.Write);
      if (!Conflict)
        continue;
      Diags.error(where(A),
                  "cannot fuse '" + kernelName(A.Side) +
                      "' vertically: this access goes through a pointer whose buffer "
                      "the compiler cannot tell, so it may depend on another kernel of '" +
                      Entry->Name + "'");
      return false;
    }
    for (auto &[Root, List] : ByRoot) {
      std::set<unsigned> Users;
      const Access *FirstWrite = nullptr;
      for (const Access *A : List) {
        Users.insert(A->Side);
        if (A->Write && !FirstWrite)
          FirstWrite = A;
      }
      if (Users.size() < 2 || !FirstWrite)
        continue;
      Intermediates.insert(Root);
      const Access *Neighbour = nullptr;
      for (const Access *A : List)
        if (A->P.Index.Key != FirstWrite->P.Index.Key && !Neighbour)
          Neighbour = A;
      std::string NoTile;
      if (Neighbour && planTile(Root, List, *FirstWrite, NoTile))
        continue; // block composition: through a tile with a halo
      for (const Access *A : List) {
        if (A != Neighbour)
          continue;
        Diags.error(where(*A),
                    "cannot fuse '" + kernelName(A->Side) + "' with '" +
                        kernelName(FirstWrite->Side) + "': '" + kernelName(A->Side) + "' " +
                        describe(*A) + " but '" + kernelName(FirstWrite->Side) + "' " +
                        describe(*FirstWrite) +
                        "; that element belongs to another iteration, which may run in another "
                        "gang or block; thread composition needs both at the same index, and "
                        "neither block nor warp composition applies: " +
                        NoTile);
        explainNotMerged();
        return false;
      }
      if (!FirstWrite->P.Index.Merged) {
        const Access *Reader = nullptr;
        for (const Access *A : List)
          if (A->Side != FirstWrite->Side && !Reader)
            Reader = A;
        Diags.error(
            where(*FirstWrite),
            "cannot fuse '" + kernelName(FirstWrite->Side) + "' with '" + kernelName(Reader->Side) +
                "': '" + kernelName(FirstWrite->Side) + "' " + describe(*FirstWrite) +
                " from every iteration (a reduction across the whole grid) and '" +
                kernelName(Reader->Side) + "' " + describe(*Reader) + " (line " +
                std::to_string(where(*Reader).Line) + "), so it needs every gang and block of '" +
                kernelName(FirstWrite->Side) + "' to have finished");
        explainNotMerged();
        return false;
      }
    }
    return Diags.errorCount() == Before;
  }

  //===--------------------------------------------------------------------===//
  // Block composition: a consumer reading the producer's output at
  // neighbouring indices, through a tile with a recomputed halo
  //===--------------------------------------------------------------------===//

  /// An intermediate that goes through a tile: written by side `Writer` at
  /// the merged `foreach`'s own index, read by later sides at that index plus
  /// a constant in [MinD, MaxD].
  struct TileFlow {
    std::string Root;
    Op *Loop = nullptr;
    unsigned Writer = 0;
    int64_t MinD = 0, MaxD = 0;
    const Type *Elem = nullptr; ///< the stored values' (varying) type
  };

  /// The merged one-dimensional `foreach` whose body holds `O` directly.
  Op *mergedForeachOf(Op *O) {
    Region *R = O->ParentRegion;
    if (!R || !MergedBodies.count(R) || !R->Parent)
      return nullptr;
    Op *L = R->Parent;
    if (L->Code != OpCode::Foreach || L->Operands.size() != 2 || L->Tiled)
      return nullptr;
    return L;
  }

  static Value *strip(Value *V) {
    while (V && V->Def && (V->Def->Code == OpCode::Convert || V->Def->Code == OpCode::Broadcast))
      V = V->Def->Operands[0];
    return V;
  }

  static std::optional<int64_t> constantOf(Value *V) {
    V = strip(V);
    if (V && V->Def && V->Def->Code == OpCode::ConstInt)
      return V->Def->Imm;
    return std::nullopt;
  }

  /// `V` as `Own + d` for a constant d (the index `Own` plus or minus constants).
  std::optional<int64_t> offsetFrom(Value *V, const std::string &OwnKey, unsigned Depth = 0) {
    if (!V || Depth > 16)
      return std::nullopt;
    if (keyOf(V).Key == OwnKey)
      return 0;
    Value *S = strip(V);
    if (!S || !S->Def || S->Def->Code != OpCode::Binary)
      return std::nullopt;
    Op &D = *S->Def;
    if (D.BinOp == BinaryOp::Add) {
      if (auto C = constantOf(D.Operands[1]))
        if (auto O = offsetFrom(D.Operands[0], OwnKey, Depth + 1))
          return *O + *C;
      if (auto C = constantOf(D.Operands[0]))
        if (auto O = offsetFrom(D.Operands[1], OwnKey, Depth + 1))
          return *O + *C;
    } else if (D.BinOp == BinaryOp::Sub) {
      if (auto C = constantOf(D.Operands[1]))
        if (auto O = offsetFrom(D.Operands[0], OwnKey, Depth + 1))
          return *O - *C;
    }
    return std::nullopt;
  }

  /// The index value of an access's address (`root[index]`), or null.
  static Value *indexOf(const Access &A) {
    Value *Addr = A.ThroughCall ? nullptr : A.O->Operands[0];
    if (Addr && Addr->Def && Addr->Def->Code == OpCode::ElementAddr)
      return Addr->Def->Operands[1];
    return nullptr;
  }

  /// Can `Root`, written by one kernel and read by later ones at other
  /// indices, go through a tile? Sets `Why` (naming the access) when not.
  bool planTile(const std::string &Root, const std::vector<const Access *> &List,
                const Access &FirstWrite, std::string &Why) {
    TileFlow T;
    T.Root = Root;
    T.Writer = FirstWrite.Side;
    T.Loop = FirstWrite.ThroughCall ? nullptr : mergedForeachOf(FirstWrite.O);
    if (!T.Loop) {
      Why = "'" + kernelName(T.Writer) +
            "' does not write it directly in a one-dimensional 'foreach' merged with the "
            "readers'";
      return false;
    }
    // The index of this iteration's element (`i` of the merged `foreach`).
    std::string OwnKey = Tokens[T.Loop->IndexVars[0]];
    for (const Access *A : List) {
      if (A->ThroughCall) {
        Why = "'" + kernelName(A->Side) + "' " + describe(*A) + ", which cannot be tiled";
        return false;
      }
      if (A->Write) {
        if (A->Side != T.Writer || A->O->ParentRegion != FirstWrite.O->ParentRegion ||
            A->P.Index.Key != "[" + OwnKey + "]") {
          Why = "'" + kernelName(A->Side) + "' " + describe(*A) +
                ", not one element at its own index directly in the merged 'foreach'";
          return false;
        }
        const Type *Ty = A->O->Operands[1]->Ty;
        if (T.Elem && T.Elem != Ty) {
          Why = "it is written with two types";
          return false;
        }
        if (!Ty->isVarying() || !Ty->isAtomic()) {
          Why = "only varying scalars are tiled, and '" + kernelName(A->Side) + "' writes a '" +
                Ty->toString() + "'";
          return false;
        }
        T.Elem = Ty;
        continue;
      }
      std::optional<int64_t> D;
      if (Value *I = indexOf(*A))
        D = offsetFrom(I, OwnKey);
      if (!D || !ancestorIn(A->O, &T.Loop->region(0)) ||
          A->P.Index.Key.find('[') != A->P.Index.Key.rfind('[')) {
        Why = "'" + kernelName(A->Side) + "' " + describe(*A) +
              ", not this iteration's element plus a constant in the same 'foreach'";
        return false;
      }
      if (A->Side <= T.Writer && *D != 0) {
        Why = "'" + kernelName(A->Side) + "' " + describe(*A) +
              ", a neighbour of an element it writes itself";
        return false;
      }
      if (*D < -MaxHalo || *D > MaxHalo) {
        Why = "'" + kernelName(A->Side) + "' " + describe(*A) + ", more than " +
              std::to_string(MaxHalo) + " elements away (the largest halo tiled)";
        return false;
      }
      T.MinD = std::min(T.MinD, *D);
      T.MaxD = std::max(T.MaxD, *D);
    }
    if (!T.Elem) {
      Why = "no kernel writes it";
      return false;
    }
    Tiles.push_back(T);
    return true;
  }

  /// After every buffer was looked at: the tiled intermediates split the
  /// merged `foreach` into the kernels before the split (stage 1, run over
  /// the tile and its halo) and after it (stage 2). Intermediates crossing
  /// the split at the same index go through the tile too; stage 1 must be
  /// free of effects that recomputing the halo would repeat.
  bool checkTiles() {
    if (Tiles.empty())
      return true;
    Op *Loop = Tiles[0].Loop;
    unsigned Split = 0;
    for (const TileFlow &T : Tiles) {
      if (T.Loop != Loop) {
        Diags.error(Loop->Loc, "cannot fuse '" + Entry->Name +
                                   "' by block or warp composition: neighbour reads in two different "
                                   "loops ('" +
                                   Tiles[0].Root + "' and '" + T.Root + "')");
        return false;
      }
      Split = std::max(Split, T.Writer + 1);
    }
    // Every buffer accessed on both sides of the split.
    std::map<std::string, std::vector<const Access *>> ByRoot;
    for (const Access &A : Accesses)
      if (A.P.K == Place::Buffer)
        ByRoot[A.P.Root].push_back(&A);
    for (auto &[Root, List] : ByRoot) {
      bool Before = false, After = false, WriteBefore = false, WriteAfter = false;
      for (const Access *A : List) {
        (A->Side < Split ? Before : After) = true;
        if (A->Write)
          (A->Side < Split ? WriteBefore : WriteAfter) = true;
      }
      bool IsTiled = false;
      for (const TileFlow &T : Tiles)
        IsTiled |= T.Root == Root;
      if (!Before || !After || IsTiled || (!WriteBefore && !WriteAfter))
        continue;
      const Access *Culprit = nullptr;
      for (const Access *A : List)
        if ((WriteAfter && A->Side < Split) || (!WriteAfter && A->Side >= Split && !Culprit))
          Culprit = Culprit ? Culprit : A;
      if (!WriteAfter) {
        // Same-index flow across the split: a tile with no halo.
        const Access *W = nullptr;
        for (const Access *A : List)
          if (A->Write && !W)
            W = A;
        std::string Why;
        if (planTile(Root, List, *W, Why) && Tiles.back().Loop == Loop)
          continue;
        Diags.error(where(*Culprit), "cannot fuse '" + Entry->Name + "' by block or warp composition: '" +
                                         Root + "' crosses the tile's stages: " + Why);
        return false;
      }
      const Access *Writer = nullptr;
      for (const Access *A : List)
        if (A->Write && A->Side >= Split && !Writer)
          Writer = A;
      Diags.error(where(*Culprit),
                  "cannot fuse '" + kernelName(Culprit->Side) + "' by block or warp composition: '" +
                      kernelName(Culprit->Side) + "' " + describe(*Culprit) + " and '" +
                      kernelName(Writer->Side) + "' " + describe(*Writer) + " (line " +
                      std::to_string(where(*Writer).Line) +
                      "); recomputing the halo reads other gangs' elements, which they may "
                      "already have overwritten");
      return false;
    }
    for (const Access &A : Accesses) {
      if (A.Side >= Split || !ancestorIn(A.O, &Loop->region(0)))
        continue;
      if (A.ThroughCall || A.P.K == Place::Unknown) {
        Diags.error(where(A), "cannot fuse '" + kernelName(A.Side) + "' by block or warp composition: '" +
                                  kernelName(A.Side) + "' " + describe(A) +
                                  ", an effect that recomputing the halo would repeat");
        return false;
      }
    }
    for (auto &P : Loop->region(0).Ops) {
      unsigned Side = SideOf.count(P.get()) ? SideOf[P.get()] : 0;
      if (Side < Split && (containsSideFrom(*P, Split) || hasEffect(*P))) {
        Diags.error(P->Loc, "cannot fuse '" + kernelName(Side) +
                                "' by block or warp composition: this statement " +
                                (hasEffect(*P) ? "has an effect (a print, a call, an atomic) "
                                                 "that recomputing the halo would repeat"
                                               : "mixes the kernels before and after the tile"));
        return false;
      }
    }
    TileSplit = Split;
    for (const TileFlow &T : Tiles)
      HaloLeft = std::max(HaloLeft, -T.MinD), HaloRight = std::max(HaloRight, T.MaxD);
    int64_t Width = Target.GangWidth;
    TileItems = Target.isGPU() ? GpuTileGangs * Width : (CpuTileItems + Width - 1) / Width * Width;
    return true;
  }

  bool containsSideFrom(Op &O, unsigned Split) {
    for (auto &Sub : O.Regions)
      for (auto &P : Sub->Ops) {
        auto S = SideOf.find(P.get());
        if ((S != SideOf.end() && S->second >= Split) || containsSideFrom(*P, Split))
          return true;
      }
    return false;
  }

  static bool hasEffect(Op &O) {
    switch (O.Code) {
    case OpCode::Print:
    case OpCode::Assert:
    case OpCode::Crev:
    case OpCode::Launch:
    case OpCode::New:
    case OpCode::Delete:
      return true;
    case OpCode::Call:
      if (!isPureStdlibCall(O))
        return true;
      break;
    default:
      break;
    }
    for (auto &Sub : O.Regions)
      for (auto &P : Sub->Ops)
        if (hasEffect(*P))
          return true;
    return false;
  }

  /// `V` with the task index replaced by `TaskIndex`, built into `B`'s region
  /// (only what depends on it is rebuilt). Null when `V` depends on a
  /// built-in the pass cannot replace (the block or gang index).
  Value *atTask(Value *V, Value *TaskIndex, std::string &Why, unsigned Depth = 0) {
    if (!V || Depth > 64)
      return nullptr;
    Op *D = V->Def;
    if (!D)
      return V;
    switch (D->Code) {
    case OpCode::ConstInt:
    case OpCode::ConstFloat:
      return V;
    case OpCode::Builtin:
      switch (D->BuiltinId) {
      case BuiltinVar::TaskIndex:
      case BuiltinVar::TaskIndex0:
        return asIntType(TaskIndex, V->Ty);
      case BuiltinVar::BlockIndex:
      case BuiltinVar::GangIndex:
      case BuiltinVar::TaskIndex1:
      case BuiltinVar::TaskIndex2:
      case BuiltinVar::ThreadIndex:
        Why = std::string("its bounds depend on '") + builtinName(D->BuiltinId) + "'";
        return nullptr;
      default:
        return V;
      }
    case OpCode::Load: {
      auto S = Slots.find(D->Operands[0]);
      if (S != Slots.end() && S->second.Stores == 1 && !S->second.Escapes) {
        Value *Stored = S->second.Stored;
        Value *R = atTask(Stored, TaskIndex, Why, Depth + 1);
        if (R == Stored)
          return V; // independent of the task: the load itself is fine
        return R ? asIntType(R, V->Ty) : nullptr;
      }
      Why = "its bounds are read from a variable assigned more than once";
      return nullptr;
    }
    case OpCode::Unary:
    case OpCode::Binary:
    case OpCode::Convert:
    case OpCode::Select:
    case OpCode::Call: {
      if (D->Code == OpCode::Call && !isPureStdlibCall(*D)) {
        Why = "its bounds call a function";
        return nullptr;
      }
      std::vector<Value *> Ops;
      bool Changed = false;
      for (Value *O : D->Operands) {
        Value *R = atTask(O, TaskIndex, Why, Depth + 1);
        if (!R)
          return nullptr;
        Changed |= R != O;
        Ops.push_back(R);
      }
      if (!Changed)
        return V;
      Op *C = B.create(D->Code, V->Ty, Ops);
      C->UnOp = D->UnOp;
      C->BinOp = D->BinOp;
      C->Cast = D->Cast;
      C->Callee = D->Callee;
      return C->result();
    }
    default:
      Why = "the pass cannot follow how its bounds are computed";
      return nullptr;
    }
  }

  Value *asIntType(Value *V, const Type *T) {
    if (V->Ty == T)
      return V;
    Op *C = B.create(OpCode::Convert, T, {V});
    C->Cast = CastKind::IntegralCast;
    return C->result();
  }

  Value *binary(BinaryOp Op_, Value *A, Value *C, const Type *T) {
    Op *O = B.create(OpCode::Binary, T, {A, C});
    O->BinOp = Op_;
    return O->result();
  }

  Value *minOrMax(bool Min, Value *A, Value *C) {
    Value *Less = binary(BinaryOp::LT, A, C, M.Types.getAtomic(Type::Bool, Variability::Uniform));
    return B.create(OpCode::Select, A->Ty, {Less, Min ? A : C, Min ? C : A})->result();
  }

  /// Where any gang's `foreach` runs (the halo's domain): its bounds with the
  /// task index at 0 and taskCount - 1, built at the insertion point.
  bool gangDomain(Op &Loop, Value *&DomLo, Value *&DomHi) {
    const Type *I32 = M.Types.getAtomic(Type::Int32, Variability::Uniform);
    std::string Why;
    Value *First = B.constInt(0, I32);
    Op *Count = B.create(OpCode::Builtin, M.Types.withConst(I32), {});
    Count->BuiltinId = BuiltinVar::TaskCount;
    Value *Last = binary(BinaryOp::Sub, Count->result(), B.constInt(1, I32), I32);
    DomLo = atTask(Loop.Operands[0], First, Why);
    DomHi = DomLo ? atTask(Loop.Operands[1], Last, Why) : nullptr;
    if (DomLo && DomHi)
      return true;
    Diags.error(Loop.Loc, "cannot fuse '" + Entry->Name +
                              "' by block or warp composition: the halo needs the range of "
                              "every gang's 'foreach', but " +
                              Why);
    return false;
  }

  /// Rewrites the merged `foreach (i = lo ... hi) { stage 1; stage 2 }` into
  ///
  ///   for (t = lo; t < hi; t += Tile) {
  ///     te = min(t + Tile, hi);  base = t - left halo
  ///     foreach (j = max(base, domain lo) ... min(te + right halo, domain hi))
  ///       stage 1, writing the tiled intermediates' tile[j - base]
  ///     foreach (i = t ... te)
  ///       stage 2, reading tile[i + d - base]
  ///   }
  ///
  /// The domain is where any gang's `foreach` runs: its bounds with the task
  /// index at 0 and taskCount - 1. A halo element outside it is not computed
  /// (the kernels apart never write it either).
  bool composeBlocks() {
    Op *Loop = Tiles[0].Loop;
    int64_t Left = HaloLeft, Right = HaloRight;
    Value *Lo = Loop->Operands[0], *Hi = Loop->Operands[1];
    Region Pre;
    B.setInsertRegion(&Pre);
    B.setLoc(Loop->Loc);
    Value *DomLo, *DomHi;
    if (!gangDomain(*Loop, DomLo, DomHi))
      return false;
    const Type *IdxTy = M.Types.withConst(Lo->Ty, false);
    Hi = asIntType(Hi, IdxTy);
    std::map<std::string, Value *> TileOf;
    for (const TileFlow &T : Tiles) {
      const Type *Elem = M.Types.withVariability(T.Elem, Variability::Uniform);
      TileOf[T.Root] = B.var(M.Types.getArray(Elem, TileItems + Left + Right), T.Root + "_tile");
    }
    Value *Counter = B.var(IdxTy, "tile");
    B.store(Counter, Lo);
    Op *TileLoop = B.create(OpCode::Loop, nullptr);
    Region *Cond = B.addRegion(TileLoop), *Body = B.addRegion(TileLoop),
           *Step = B.addRegion(TileLoop);
    B.setInsertRegion(Cond);
    B.create(OpCode::Yield, nullptr,
             {binary(BinaryOp::LT, B.load(Counter), Hi,
                     M.Types.getAtomic(Type::Bool, Variability::Uniform))});
    B.setInsertRegion(Step);
    B.store(Counter, binary(BinaryOp::Add, B.load(Counter), B.constInt(TileItems, IdxTy), IdxTy));
    B.setInsertRegion(Body);
    Value *T0 = B.load(Counter);
    Value *TEnd =
        minOrMax(true, binary(BinaryOp::Add, T0, B.constInt(TileItems, IdxTy), IdxTy), Hi);
    Value *Base = binary(BinaryOp::Sub, T0, B.constInt(Left, IdxTy), IdxTy);
    Value *From = minOrMax(false, Base, asIntType(DomLo, IdxTy));
    Value *To = minOrMax(true, binary(BinaryOp::Add, TEnd, B.constInt(Right, IdxTy), IdxTy),
                         asIntType(DomHi, IdxTy));
    // The two stages' loops, each with its own index slot.
    const Type *SlotTy = Loop->IndexVars[0]->Def->VarType;
    Op *Stages[2];
    Value *Begins[2] = {From, T0}, *Ends[2] = {To, TEnd};
    for (int S = 0; S < 2; ++S) {
      Value *Slot = B.var(SlotTy, Loop->IndexVars[0]->NameHint);
      Stages[S] = B.create(OpCode::Foreach, nullptr, {Begins[S], Ends[S]});
      Stages[S]->IndexVars = {Slot};
      B.addRegion(Stages[S]);
    }
    for (auto &P : Loop->region(0).Ops) {
      unsigned Side = SideOf.count(P.get()) ? SideOf[P.get()] : 0;
      Region &To_ = Stages[Side < TileSplit ? 0 : 1]->region(0);
      P->ParentRegion = &To_;
      To_.Ops.push_back(std::move(P));
    }
    for (int S = 0; S < 2; ++S)
      replaceUses(Stages[S]->region(0), Loop->IndexVars[0], Stages[S]->IndexVars[0]);
    // The tiled intermediates' accesses become the tile's.
    for (const Access &A : Accesses) {
      if (A.P.K != Place::Buffer || !TileOf.count(A.P.Root))
        continue;
      Region New;
      B.setInsertRegion(&New);
      B.setLoc(A.O->Loc);
      Value *Tile = TileOf[A.P.Root];
      const Type *Elem = Tile->Ty->getPointee()->getElementType();
      Op *Decay = B.create(OpCode::Convert, M.Types.getPointer(Elem, Variability::Uniform), {Tile});
      Decay->Cast = CastKind::ArrayToPointer;
      Value *Index = indexOf(A);
      Value *BaseV =
          Index->isVarying()
              ? B.create(
                     OpCode::Broadcast, Index->Ty,
                     {asIntType(Base, M.Types.withVariability(Index->Ty, Variability::Uniform))})
                    ->result()
              : asIntType(Base, Index->Ty);
      Value *Off = binary(BinaryOp::Sub, Index, BaseV, Index->Ty);
      Value *Addr = B.create(OpCode::ElementAddr,
                             M.Types.getPointer(Elem, Index->isVarying() ? Variability::Varying
                                                                         : Variability::Uniform),
                             {Decay->result(), Off})
                        ->result();
      if (A.Write)
        B.create(OpCode::Store, nullptr, {Addr, A.O->Operands[1]});
      spliceBefore(*A.O, New);
      Removed.insert(A.O);
      if (!A.Write)
        A.O->Operands[0] = Addr;
      else if (Temps.count(A.P.Root))
        bury(*A.O);
      Forwarded.insert(A.P.Root);
      TiledRoots.insert(A.P.Root);
    }
    spliceBefore(*Loop, Pre); // the merged foreach's place
    bury(*Loop);
    for (const TileFlow &T : Tiles)
      Intermediates.erase(T.Root);
    return true;
  }

  /// Block or warp composition of the neighbour reads: the request's, else the
  /// cost model's: the window of registers wherever every offset lies within a
  /// gang width and stage 1 reads no neighbour, the tile otherwise. Both move
  /// the same global elements; the window moves nothing through shared memory
  /// or the stack, needs no barrier, and recomputes one vector of stage 1 per
  /// chunk (a halo's lanes). Measured on the examples' stencil
  /// (docs/fusion.md, "Warp composition"): on the H200 0.219 ms against the
  /// best tiled launch's 0.304, on the CPU 1.2 to 1.6 times the tile's speed
  /// on every x86 target.
  std::optional<FusionComposition> chooseComposition() {
    SourceLoc At = Tiles[0].Loop->Loc;
    std::string Obstacle = warpCompositionObstacle(At);
    if (Req->Composition == FusionComposition::Warp && !Obstacle.empty()) {
      Diags.error(At, "cannot fuse '" + Entry->Name + "' by warp composition: " + Obstacle);
      return std::nullopt;
    }
    if (Req->Composition != FusionComposition::Auto)
      Composition = Req->Composition;
    else
      Composition = Obstacle.empty() ? FusionComposition::Warp : FusionComposition::Block;
    Entry->WarpComposition = Composition == FusionComposition::Warp;
    return Composition;
  }

  /// Why the tiled intermediates cannot go through registers and lane
  /// shuffles instead (empty: they can): every offset stage 2 reads must lie
  /// within a gang width, and stage 1 may read them only at its own index.
  std::string warpCompositionObstacle(SourceLoc &At) {
    int64_t W = Target.GangWidth;
    std::string OwnKey = Tokens[Tiles[0].Loop->IndexVars[0]];
    for (const Access &A : Accesses) {
      if (A.P.K != Place::Buffer || A.Write || !isTiled(A.P.Root))
        continue;
      std::optional<int64_t> D = offsetFrom(indexOf(A), OwnKey);
      if (!D)
        continue; // not in the merged loop: checkTiles refused it already
      At = where(A);
      if (*D < -W || *D > W)
        return "'" + kernelName(A.Side) + "' " + describe(A) + ", more than a gang width (" +
               std::to_string(W) + ") away";
      if (A.Side < TileSplit && *D != 0)
        return "'" + kernelName(A.Side) + "' " + describe(A) +
               ", a neighbour, before the last kernel that writes a neighbour-read buffer";
      if (A.O->result() && A.O->result()->Ty != tileOf(A.P.Root).Elem)
        return "'" + kernelName(A.Side) + "' " + describe(A) + " with another type than it is written";
    }
    return "";
  }

  bool isTiled(const std::string &Root) const {
    for (const TileFlow &T : Tiles)
      if (T.Root == Root)
        return true;
    return false;
  }

  const TileFlow &tileOf(const std::string &Root) const {
    for (const TileFlow &T : Tiles)
      if (T.Root == Root)
        return T;
    return Tiles[0];
  }

  /// Warp composition: every neighbour a stage-2 kernel reads lies within a
  /// gang width W, so the values stay in registers, in a window of three
  /// gang-wide vectors, and reach their readers by lane shuffles. The merged
  /// `foreach (i = lo ... hi) { stage 1; stage 2 }` becomes
  ///
  ///   if (lo < hi)
  ///     for (u = lo - W (lo without a left halo); u < hi + W; u += W) {
  ///       j = u + programIndex
  ///       if (max(lo - left halo, dlo) <= j < min(hi + right halo, dhi))
  ///         stage 1, writing next = b[j]
  ///       if (u >= lo + W) {           // prev, cur, next hold [u - 2W, u + W)
  ///         b_d = shuffle(prev, cur, programIndex + W + d) for d < 0,
  ///               shuffle(cur, next, programIndex + d) for d > 0
  ///         i = u - W + programIndex
  ///         if (i < hi)
  ///           stage 2, reading b[i + d] as b_d (cur at d = 0)
  ///       }
  ///       prev = cur; cur = next
  ///     }
  ///
  /// Stage 1 runs once per element, plus the vector before the chunk (its
  /// lanes outside the halo idle): no memory holds the intermediates, and no
  /// barrier is needed. dlo, dhi: the halo's domain, as for block composition.
  /// All of it runs with every lane on (`unmasked`), as the `foreach` did.
  bool composeWarps() {
    Op *Loop = Tiles[0].Loop;
    int64_t W = Target.GangWidth;
    std::string OwnKey = Tokens[Loop->IndexVars[0]];
    Region Pre;
    B.setInsertRegion(&Pre);
    B.setLoc(Loop->Loc);
    Value *DomLo, *DomHi;
    if (!gangDomain(*Loop, DomLo, DomHi))
      return false;
    const Type *IdxTy = M.Types.withConst(Loop->Operands[0]->Ty, false);
    const Type *VIdxTy = M.Types.withVariability(IdxTy, Variability::Varying);
    const Type *Bool = M.Types.getAtomic(Type::Bool, Variability::Uniform);
    const Type *VBool = M.Types.getAtomic(Type::Bool, Variability::Varying);
    const Type *VI32 = M.Types.getAtomic(Type::Int32, Variability::Varying);
    Value *Lo = asIntType(Loop->Operands[0], IdxTy), *Hi = asIntType(Loop->Operands[1], IdxTy);
    auto constant = [&](int64_t V) { return B.constInt(V, IdxTy); };
    Value *From = minOrMax(false, binary(BinaryOp::Sub, Lo, constant(HaloLeft), IdxTy),
                           asIntType(DomLo, IdxTy));
    Value *To = minOrMax(true, binary(BinaryOp::Add, Hi, constant(HaloRight), IdxTy),
                         asIntType(DomHi, IdxTy));
    // The window of each intermediate, and a slot per offset stage 2 reads.
    struct Window {
      Value *Prev, *Cur, *Next;
      std::map<int64_t, Value *> AtOffset;
    };
    std::map<std::string, Window> Windows;
    for (const TileFlow &T : Tiles)
      Windows[T.Root] = {B.var(T.Elem, T.Root + "_prev"), B.var(T.Elem, T.Root + "_cur"),
                         B.var(T.Elem, T.Root + "_next"), {}};
    // (The offsets before the index's uses move to the new loop's slots.)
    std::map<const Op *, int64_t> OffsetOf;
    for (const Access &A : Accesses)
      if (A.P.K == Place::Buffer && !A.Write && isTiled(A.P.Root) && A.Side >= TileSplit) {
        int64_t D = OffsetOf[A.O] = *offsetFrom(indexOf(A), OwnKey);
        Value *&Slot = Windows[A.P.Root].AtOffset[D];
        if (D != 0 && !Slot)
          Slot = B.var(tileOf(A.P.Root).Elem, A.P.Root + "_at" + std::to_string(D));
      }
    // A `foreach` runs all its lanes whatever the mask it is reached under; so
    // does its replacement.
    Op *AllLanes = B.create(OpCode::Unmasked, nullptr);
    B.setInsertRegion(B.addRegion(AllLanes));
    Op *NonEmpty = B.create(OpCode::If, nullptr, {binary(BinaryOp::LT, Lo, Hi, Bool)});
    Region *Then = B.addRegion(NonEmpty);
    B.addRegion(NonEmpty);
    B.setInsertRegion(Then);
    // The window starts defined (zero): its lanes outside the halo are never read, but
    // an undefined register carried around the loop lets ptxas merge it with others.
    for (auto &[Root, Win] : Windows)
      for (Value *Slot : {Win.Prev, Win.Cur, Win.Next})
        B.store(Slot, zeroOf(tileOf(Root).Elem));
    Value *Counter = B.var(IdxTy, "window");
    B.store(Counter, HaloLeft > 0 ? binary(BinaryOp::Sub, Lo, constant(W), IdxTy) : Lo);
    Value *End = binary(BinaryOp::Add, Hi, constant(W), IdxTy);
    Value *Ready = binary(BinaryOp::Add, Lo, constant(W), IdxTy);
    WindowLoop = B.create(OpCode::Loop, nullptr);
    Region *Cond = B.addRegion(WindowLoop), *Body = B.addRegion(WindowLoop),
           *Step = B.addRegion(WindowLoop);
    B.setInsertRegion(Cond);
    B.create(OpCode::Yield, nullptr, {binary(BinaryOp::LT, B.load(Counter), End, Bool)});
    B.setInsertRegion(Step);
    B.store(Counter, binary(BinaryOp::Add, B.load(Counter), constant(W), IdxTy));
    B.setInsertRegion(Body);
    Value *U = B.load(Counter);
    Op *PI = B.create(OpCode::Builtin, VI32);
    PI->BuiltinId = BuiltinVar::ProgramIndex;
    Value *Lane32 = PI->result();
    Value *Lane = asIntType(Lane32, VIdxTy);
    auto splat = [&](Value *V) { return B.create(OpCode::Broadcast, VIdxTy, {V})->result(); };
    const Type *SlotTy = Loop->IndexVars[0]->Def->VarType;
    const Type *IndexTy = M.Types.withConst(SlotTy, false);
    // Stage 1 at j = u + programIndex.
    Value *JSlot = B.var(SlotTy, Loop->IndexVars[0]->NameHint);
    Value *J = binary(BinaryOp::Add, splat(U), Lane, VIdxTy);
    B.store(JSlot, asIntType(J, IndexTy));
    Value *InRange = binary(BinaryOp::BitAnd, binary(BinaryOp::GE, J, splat(From), VBool),
                            binary(BinaryOp::LT, J, splat(To), VBool), VBool);
    if (!Target.isGPU()) // the whole vector in range (see fullVectorPaths)
      FullVectorIfs.push_back(
          {nullptr, binary(BinaryOp::BitAnd, binary(BinaryOp::GE, U, From, Bool),
                           binary(BinaryOp::LE, binary(BinaryOp::Add, U, constant(W), IdxTy), To, Bool),
                           Bool)});
    Op *StageOne = B.create(OpCode::If, nullptr, {InRange});
    if (!Target.isGPU())
      FullVectorIfs.back().first = StageOne;
    B.addRegion(StageOne);
    B.addRegion(StageOne);
    // Stage 2 at i = u - W + programIndex, once the window holds its chunk.
    Op *Full = B.create(OpCode::If, nullptr, {binary(BinaryOp::GE, U, Ready, Bool)});
    Region *FullBody = B.addRegion(Full);
    B.addRegion(Full);
    B.setInsertRegion(FullBody);
    for (auto &[Root, Win] : Windows)
      for (auto &[D, Slot] : Win.AtOffset) {
        if (D == 0)
          continue;
        const Type *Elem = tileOf(Root).Elem;
        Value *Perm = binary(BinaryOp::Add, Lane32,
                             B.create(OpCode::Broadcast, VI32,
                                      {B.constInt(D > 0 ? D : D + W,
                                                  M.Types.getAtomic(Type::Int32, Variability::Uniform))})
                                 ->result(),
                             VI32);
        Op *Call = B.create(OpCode::Call, Elem,
                            {B.load(D > 0 ? Win.Cur : Win.Prev), B.load(D > 0 ? Win.Next : Win.Cur), Perm});
        Call->Callee = shuffleFunction(Elem);
        B.store(Slot, Call->result());
      }
    Value *ISlot = B.var(SlotTy, Loop->IndexVars[0]->NameHint);
    Value *I = binary(BinaryOp::Add, splat(binary(BinaryOp::Sub, U, constant(W), IdxTy)), Lane, VIdxTy);
    B.store(ISlot, asIntType(I, IndexTy));
    Value *WholeChunk = Target.isGPU() ? nullptr : binary(BinaryOp::LE, U, Hi, Bool);
    Op *StageTwo = B.create(OpCode::If, nullptr, {binary(BinaryOp::LT, I, splat(Hi), VBool)});
    if (WholeChunk)
      FullVectorIfs.push_back({StageTwo, WholeChunk});
    B.addRegion(StageTwo);
    B.addRegion(StageTwo);
    B.setInsertRegion(Body);
    for (auto &[Root, Win] : Windows) {
      B.store(Win.Prev, B.load(Win.Cur));
      B.store(Win.Cur, B.load(Win.Next));
    }
    // The merged body's statements go to their stage.
    for (auto &P : Loop->region(0).Ops) {
      unsigned Side = SideOf.count(P.get()) ? SideOf[P.get()] : 0;
      Region &Into = (Side < TileSplit ? StageOne : StageTwo)->region(0);
      P->ParentRegion = &Into;
      Into.Ops.push_back(std::move(P));
    }
    replaceUses(StageOne->region(0), Loop->IndexVars[0], JSlot);
    replaceUses(StageTwo->region(0), Loop->IndexVars[0], ISlot);
    // The intermediates' accesses become the window's.
    for (const Access &A : Accesses) {
      if (A.P.K != Place::Buffer || !isTiled(A.P.Root))
        continue;
      Window &Win = Windows[A.P.Root];
      if (!A.Write) {
        int64_t D = A.Side < TileSplit ? 0 : OffsetOf.at(A.O);
        A.O->Operands[0] = A.Side < TileSplit ? Win.Next : D == 0 ? Win.Cur : Win.AtOffset[D];
        Removed.insert(A.O);
        continue;
      }
      Region New;
      B.setInsertRegion(&New);
      B.setLoc(A.O->Loc);
      B.store(Win.Next, A.O->Operands[1]);
      spliceBefore(*A.O, New);
      Removed.insert(A.O);
      if (Temps.count(A.P.Root))
        bury(*A.O);
    }
    for (const TileFlow &T : Tiles) {
      Forwarded.insert(T.Root);
      TiledRoots.insert(T.Root);
      Intermediates.erase(T.Root);
    }
    spliceBefore(*Loop, Pre); // the merged foreach's place
    bury(*Loop);
    return true;
  }

  /// CPU: a warp composition's stages run under a varying `if` (the lanes in
  /// range), which makes every load and store masked (`vmaskmovps`); a
  /// `foreach` has an unmasked body for its full chunks. So each stage gets
  /// the same: `if (whole vector in range) { a copy, all lanes on } else { as
  /// before }`. Last, after forwarding, so that the copies read the slots too.
  /// (On the GPU the varying `if` is a branch every thread takes: no copy.)
  void fullVectorPaths() {
    for (auto &[Masked, WholeVector] : FullVectorIfs) {
      Region &Parent = *Masked->ParentRegion;
      size_t At = 0;
      while (Parent.Ops[At].get() != Masked)
        ++At;
      Region Outer;
      B.setInsertRegion(&Outer);
      B.setLoc(Masked->Loc);
      Op *Full = B.create(OpCode::If, nullptr, {WholeVector});
      Region *Then = B.addRegion(Full), *Else = B.addRegion(Full);
      std::map<const Value *, Value *> Map;
      cloneRegionInto(Masked->region(0), *Then, Map, *Entry);
      std::unique_ptr<Op> Own = std::move(Parent.Ops[At]);
      Own->ParentRegion = Else;
      Else->Ops.push_back(std::move(Own));
      Full->ParentRegion = &Parent;
      Parent.Ops[At] = std::move(Outer.Ops.back());
    }
  }

  /// Takes `O` out of its region; the graveyard keeps it (and its result) alive.
  void bury(Op &O) {
    Region &R = *O.ParentRegion;
    size_t At = 0;
    while (R.Ops[At].get() != &O)
      ++At;
    Graveyard.push_back(std::move(R.Ops[At]));
    R.Ops.erase(R.Ops.begin() + At);
  }

  /// A varying zero of the scalar type `T` (integer, bool, floating point).
  Value *zeroOf(const Type *T) {
    const Type *U = M.Types.withConst(M.Types.withVariability(T, Variability::Uniform), false);
    Value *Z;
    if (U->isFloatingPoint()) {
      Op *C = B.create(OpCode::ConstFloat, U);
      C->FImm = 0.0;
      Z = C->result();
    } else {
      Z = B.constInt(0, U);
    }
    return B.create(OpCode::Broadcast, M.Types.withConst(T, false), {Z})->result();
  }

  /// The standard library's two-vector `shuffle(v0, v1, permutation)` for
  /// `Elem` (a back-end hook): declared once per type.
  Function *shuffleFunction(const Type *Elem) {
    const Type *VI32 = M.Types.getAtomic(Type::Int32, Variability::Varying);
    const Type *Ty = M.Types.getFunction(Elem, {Elem, Elem, VI32}, FunctionFlags{});
    for (auto &F : M.Functions)
      if (F->IsStdlib && F->Name == "shuffle" && F->Ty == Ty)
        return F.get();
    auto F = std::make_unique<Function>();
    F->Name = "shuffle";
    F->Symbol = "shuffle___vfuse_" + Elem->toString();
    F->Loc = Entry->Loc;
    F->Ty = Ty;
    F->IsStdlib = true;
    for (const Type *P : {Elem, Elem, VI32})
      F->Params.push_back(std::make_unique<Value>(P, nullptr));
    M.Functions.push_back(std::move(F));
    return M.Functions.back().get();
  }

  //===--------------------------------------------------------------------===//
  // Forwarding
  //===--------------------------------------------------------------------===//

  /// The op of `R` that holds `O` (itself or an ancestor), or null.
  static Op *ancestorIn(Op *O, const Region *R) {
    while (O && O->ParentRegion) {
      if (O->ParentRegion == R)
        return O;
      O = O->ParentRegion->Parent;
    }
    return nullptr;
  }

  /// An intermediate whose stores are all direct stores at the top level of
  /// one region, of one type, and whose other accesses are loads of that type
  /// inside that region, goes through a slot: loads after the first store read
  /// the slot; stores also write it (and only it, for a temporary).
  void forwardIntermediates() {
    for (const std::string &Root : Intermediates) {
      std::vector<const Access *> List;
      for (const Access &A : Accesses)
        if (A.P.K == Place::Buffer && A.P.Root == Root)
          List.push_back(&A);
      Region *G = nullptr;
      const Type *Ty = nullptr;
      bool Ok = true;
      for (const Access *A : List) {
        if (A->ThroughCall) {
          Ok = false;
          break;
        }
        if (!A->Write)
          continue;
        const Type *T = A->O->Operands[1]->Ty;
        if ((G && G != A->O->ParentRegion) || (Ty && Ty != T)) {
          Ok = false;
          break;
        }
        G = A->O->ParentRegion;
        Ty = T;
      }
      if (!Ok || !G)
        continue;
      size_t FirstStore = G->Ops.size();
      for (size_t I = 0; I < G->Ops.size(); ++I)
        for (const Access *A : List)
          if (A->Write && A->O == G->Ops[I].get())
            FirstStore = std::min(FirstStore, I);
      std::vector<Op *> Loads;
      for (const Access *A : List) {
        if (A->Write)
          continue;
        Op *Anc = ancestorIn(A->O, G);
        if (!Anc || A->O->result()->Ty != Ty) {
          Ok = false;
          break;
        }
        size_t Pos = 0;
        while (G->Ops[Pos].get() != Anc)
          ++Pos;
        if (Pos > FirstStore)
          Loads.push_back(A->O);
      }
      if (!Ok)
        continue;
      // The slot, first in the region; stores feed it; later loads read it.
      B.setInsertRegion(G);
      B.setLoc(G->Ops[FirstStore]->Loc);
      Value *Slot = B.var(Ty, Root.starts_with("@") ? Root.substr(1) : Root);
      std::unique_ptr<Op> SlotOp = std::move(G->Ops.back());
      G->Ops.pop_back();
      std::vector<std::unique_ptr<Op>> Ops;
      Ops.push_back(std::move(SlotOp));
      bool Temp = Temps.count(Root);
      for (auto &P : G->Ops) {
        bool IsStore = false;
        for (const Access *A : List)
          IsStore |= A->Write && A->O == P.get();
        if (!IsStore) {
          Ops.push_back(std::move(P));
          continue;
        }
        auto S = std::make_unique<Op>(OpCode::Store, P->Loc);
        S->Operands = {Slot, P->Operands[1]};
        S->ParentRegion = G;
        if (!Temp)
          Ops.push_back(std::move(P));
        else
          Removed.insert(P.get()), Graveyard.push_back(std::move(P));
        Ops.push_back(std::move(S));
      }
      G->Ops = std::move(Ops);
      for (Op *L : Loads)
        L->Operands[0] = Slot, Removed.insert(L);
      Forwarded.insert(Root);
    }
  }

  //===--------------------------------------------------------------------===//
  // The cost model
  //===--------------------------------------------------------------------===//

  /// Global memory traffic per work item, counted in array elements: each
  /// buffer a kernel reads per item counts once, each buffer it writes once
  /// (reads of one buffer in one iteration of the merged loops are assumed to
  /// hit the cache after the first: a row, a chunk). Only per-item (varying)
  /// accesses count: a value per row or per gang is small next to them.
  struct Traffic {
    unsigned Elements = 0;
    unsigned Launches = 0;
  };

  Traffic traffic(bool Fused) {
    Traffic T;
    std::set<std::pair<unsigned, std::string>> Reads, Writes;
    for (const Access &A : Accesses) {
      if (A.P.K != Place::Buffer || (Fused && Removed.count(A.O)))
        continue;
      Value *Addr = A.ThroughCall ? nullptr : A.O->Operands[0];
      if (!Addr || !Addr->isVarying())
        continue;
      unsigned Scope = Fused ? 0 : A.Side;
      (A.Write ? Writes : Reads).insert({Scope, A.P.Root});
    }
    T.Elements = static_cast<unsigned>(Reads.size() + Writes.size());
    T.Launches = Fused ? 1 : static_cast<unsigned>(Req->Kernels.size());
    return T;
  }

  /// FusionStitching's question: does fusing save global traffic? The
  /// composition is the one the kernels' loops allow (thread composition in a
  /// merged `foreach`, a gang per iteration of a merged uniform loop); the
  /// registers the fused kernel needs are ptxas's to report (docs/fusion.md).
  void judge(const Traffic &Apart, const Traffic &Fused) {
    std::string Kept;
    std::string InTiles;
    for (const std::string &R : Forwarded)
      (TiledRoots.count(R) ? InTiles : Kept) +=
          std::string((TiledRoots.count(R) ? InTiles : Kept).empty() ? "" : ", ") + R +
          (Temps.count(R) ? " (temporary)" : "");
    // Block composition recomputes stage 1 over the halo: per item of a
    // full tile, (left + right halo) / tile items more of stage 1's reads.
    double Cost = Fused.Elements, Recomputed = 0;
    std::string Tiling;
    if (!Tiles.empty()) {
      Recomputed = double(HaloLeft + HaloRight) / double(TileItems);
      Cost += stageOneReads() * Recomputed;
      std::string Stage1;
      for (unsigned K = 0; K < TileSplit; ++K)
        Stage1 += (K ? ", '" : "'") + kernelName(K) + "'";
      char Pct[32];
      std::snprintf(Pct, sizeof Pct, "%.2f%%", 100 * Recomputed);
      if (Composition == FusionComposition::Warp)
        Tiling = "warp composition: a window of three gang-wide vectors in registers, "
                 "neighbours by lane shuffles, halo " +
                 std::to_string(HaloLeft) + "+" + std::to_string(HaloRight) +
                 " recomputed per chunk (" + Pct + " more work for " + Stage1 + " at " +
                 std::to_string(TileItems) + " items per chunk); ";
      else
        Tiling = "block composition: tiles of " + std::to_string(TileItems) + " items" +
                 (Target.isGPU() ? " per warp in shared memory" : " per task on the stack") +
                 ", halo " + std::to_string(HaloLeft) + "+" + std::to_string(HaloRight) +
                 " recomputed (" + Pct + " more work for " + Stage1 + "); ";
    }
    char Ratio[32];
    std::snprintf(Ratio, sizeof Ratio, "%.2f", Cost > 0 ? double(Apart.Elements) / Cost : 0.0);
    std::string Summary = "per item, the kernels apart move " + std::to_string(Apart.Elements) +
                          " array elements through global memory in " +
                          std::to_string(Apart.Launches) + " launches, '" + Entry->Name +
                          "' moves " + std::to_string(Fused.Elements) + " in 1";
    if (Report) {
      llvm::errs() << where() << "remark: " << Entry->Name << ": " << MergedBodies.size()
                   << " loop level(s) merged; " << Tiling
                   << "in registers: " << (Kept.empty() ? "none" : Kept)
                   << (InTiles.empty() ? ""
                       : (Composition == FusionComposition::Warp ? "; in the window: "
                                                                  : "; in tiles: ") +
                             InTiles)
                   << "; " << Summary
                   << ": predicted " << Ratio << "x faster when memory-bound: "
                   << (Cost < Apart.Elements ? "fusing pays" : "fusing does not pay") << "\n";
    }
    if (Target.isGPU())
      chooseLaunchOnGPU(Fused);
    if (Cost >= Apart.Elements && Req->FromPragma)
      Diags.warning(Req->Loc,
                    "fusing saves no global memory traffic: " + Summary +
                        " (a later kernel reads no intermediate in the same iteration?)",
                    WarningGroup::Perf);
  }

  /// The launch model (ir/FusionLaunchModel.h): the fused kernel's thread
  /// coarsening (applied by the coarsening pass unless a request names the
  /// kernel) and launch coarsening (the -h header's constant), and its remark.
  void chooseLaunchOnGPU(const Traffic &Fused) {
    FusedKernelFacts Facts;
    Facts.ElementsMoved = Fused.Elements;
    if (!Tiles.empty() && Composition == FusionComposition::Warp) {
      Facts.Shape = FusedShape::Window;
      Facts.WindowLoop = WindowLoop;
    } else if (!Tiles.empty()) {
      Facts.Shape = FusedShape::Tiles;
      // One tile per warp slot of the block (32), with its halo.
      Facts.SharedBytes =
          static_cast<unsigned>(Tiles.size() * (TileItems + HaloLeft + HaloRight) * 4 * 32);
    } else {
      for (const Region *R : MergedBodies)
        if (R->Parent && R->Parent->Code == OpCode::Loop)
          Facts.Shape = FusedShape::Rows;
    }
    if (Facts.Shape == FusedShape::Rows) {
      std::map<std::string, std::set<unsigned>> Readers;
      for (const Access &A : Accesses)
        if (A.P.K == Place::Buffer && !A.Write && !A.ThroughCall && !Removed.count(A.O) &&
            A.O->Operands[0]->isVarying())
          Readers[A.P.Root].insert(A.Side);
      for (const auto &[Root, Sides] : Readers)
        Facts.RowPasses = std::max(Facts.RowPasses, static_cast<unsigned>(Sides.size()));
    }
    Facts.KernelOf = [&](const Op &O) {
      auto It = SideOf.find(&O);
      return It == SideOf.end() ? -1 : static_cast<int>(It->second);
    };
    LaunchChoice C = chooseLaunch(*Entry, Facts, Target);
    Entry->ModelLaunchCoarsening = C.LaunchCoarsening;
    Entry->ModelThreadCoarsening = C.ThreadCoarsening;
    if (Report)
      llvm::errs() << where() << "remark: " << Entry->Name << ": "
                   << describeLaunch(C, Facts, Entry->Symbol.empty() ? Entry->Name : Entry->Symbol)
                   << "\n";
  }

  /// Where a remark about the whole fusion points: the pragma, or the option.
  std::string where() const {
    return Req->FromPragma && Req->Loc.isValid()
               ? *Req->Loc.File + ":" + std::to_string(Req->Loc.Line) + ":" +
                     std::to_string(Req->Loc.Col) + ": "
               : "spmdc: ";
  }

  /// Arrays stage 1 of a block composition reads per item (what the halo re-reads).
  unsigned stageOneReads() {
    std::set<std::string> Roots;
    for (const Access &A : Accesses)
      if (A.P.K == Place::Buffer && !A.Write && A.Side < TileSplit && !Removed.count(A.O) &&
          !A.ThroughCall && A.O->Operands[0]->isVarying())
        Roots.insert(A.P.Root);
    return static_cast<unsigned>(Roots.size());
  }

  /// A temporary has no memory: every access must have become the slot's.
  bool checkTemporariesGone() {
    for (const Access &A : Accesses) {
      if (A.P.K != Place::Buffer || !Temps.count(A.P.Root) || Removed.count(A.O))
        continue;
      std::string Why =
          !A.Write && !A.ThroughCall && Forwarded.count(A.P.Root)
              ? "it is read before any kernel of the chain writes it"
              : "it is " + std::string(A.ThroughCall ? "passed to a function" : "written") +
                    " somewhere the fused kernel cannot keep it in a register (inside a "
                    "branch or an inner loop that was not merged, or with another type)";
      Diags.error(where(A), "temporary '" + A.P.Root + "' of '" + Entry->Name +
                                "' needs memory: '" + kernelName(A.Side) + "' " + describe(A) +
                                " and " + Why);
      return false;
    }
    return true;
  }

  /// Block composition's tile: items per gang step on the GPU (in gang
  /// widths; a per-warp `.shared` buffer), items on the CPU (a stack buffer of
  /// 16 KiB of floats, inside L1 with the inputs' lines); the largest halo.
  static constexpr int64_t GpuTileGangs = 4, CpuTileItems = 4096, MaxHalo = 64;

  Module &M;
  const TargetInfo &Target;
  DiagnosticEngine &Diags;
  Builder B;
  const VerticalFusionRequest *Req = nullptr;
  Function *Entry = nullptr;
  std::map<std::string, Value *> ParamFor;
  std::set<std::string> Temps, Intermediates, Forwarded;
  std::vector<std::unique_ptr<Op>> Prelude, Graveyard;
  std::unordered_map<const Op *, unsigned> SideOf;
  std::unordered_map<const Value *, SlotFacts> Slots;
  std::unordered_map<const Value *, std::string> Tokens;
  std::set<const Region *> MergedBodies;
  std::set<const Op *> Removed;
  std::vector<Access> Accesses;
  std::string NotMerged;
  unsigned TokenCount = 0;
  bool Report = false;
  Function *Declared = nullptr; ///< the file's prototype of the fused kernel
  std::vector<TileFlow> Tiles;
  std::set<std::string> TiledRoots;
  unsigned TileSplit = 0;
  int64_t HaloLeft = 0, HaloRight = 0, TileItems = 0;
  FusionComposition Composition = FusionComposition::Auto; ///< of the tiled intermediates
  Op *WindowLoop = nullptr; ///< warp composition's loop over gang-width steps
  /// CPU: warp composition's masked stages, each with the uniform condition
  /// under which its whole vector is in range.
  std::vector<std::pair<Op *, Value *>> FullVectorIfs;
};

} // namespace

bool runVerticalFusion(Module &M, const std::vector<VerticalFusionRequest> &Requested,
                       const TargetInfo &Target, DiagnosticEngine &Diags, bool Report) {
  unsigned ErrorsBefore = Diags.errorCount();
  auto Chosen = gatherRequests(
      M, "vfuse", Requested, [&](const Pragma &P) { return readPragma(P, Diags); },
      [](const VerticalFusionRequest &R) { return R.Kernels; });
  for (const VerticalFusionRequest &R : Chosen) {
    VerticalFuser F(M, Target, Diags, Report);
    std::vector<Function *> Kernels;
    if (F.check(R, Kernels))
      F.fuse(R, Kernels);
  }
  return Diags.errorCount() == ErrorsBefore;
}

} // namespace spmdc::ir
