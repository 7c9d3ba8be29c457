// Horizontal fusion (HFuse): builds kernel hfuse_A_B from independent kernels A and B.
//
// The fused kernel gives each side X its own slice of every block: on the GPU
// gX warps (gangs) of the block, on the CPU blocks_X of the launched tasks. Each
// side runs a clone of its kernel (and of every function it calls that reads the
// launch built-ins, calls barrier() or uses `shared` storage) in which those
// built-ins come from four extra parameters (the side's gangIndex, gangCount,
// blockIndex, blockCount), barrier() is a partial barrier over the side's
// threads, and shared globals used by more than one side are duplicated. The
// pass runs before the divergence transform, so the clones are ordinary SPMD
// functions and everything after it treats them like any other.
#include "ir/HorizontalFusion.h"

#include "frontend/Diagnostics.h"
#include "frontend/SourceManager.h"
#include "ir/IR.h"
#include "target/TargetInfo.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cctype>
#include <map>
#include <set>

namespace spmdc::ir {

//===----------------------------------------------------------------------===//
// Requests: the --hfuse syntax, config files and pragmas
//===----------------------------------------------------------------------===//

namespace {

bool isIdentifier(llvm::StringRef S) {
  if (S.empty() || !(std::isalpha(static_cast<unsigned char>(S[0])) || S[0] == '_'))
    return false;
  for (char C : S)
    if (!(std::isalnum(static_cast<unsigned char>(C)) || C == '_'))
      return false;
  return true;
}

} // namespace

std::optional<FusionRequest> parseFusionSpec(const std::string &Spec, std::string &Error) {
  FusionRequest R;
  R.Spelling = Spec;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  llvm::StringRef(Spec).split(Parts, ':');
  llvm::SmallVector<llvm::StringRef, 8> Names;
  Parts[0].split(Names, ',');
  for (llvm::StringRef N : Names) {
    N = N.trim();
    if (!isIdentifier(N)) {
      Error = N.empty() ? "expected a kernel name" : "'" + N.str() + "' is not a kernel name";
      return std::nullopt;
    }
    R.Kernels.push_back(N.str());
  }
  if (R.Kernels.size() < 2) {
    Error = "a fusion needs at least two kernels (A,B)";
    return std::nullopt;
  }
  bool SawGangs = false, SawMaxNReg = false;
  for (size_t I = 1; I < Parts.size(); ++I) {
    llvm::StringRef P = Parts[I].trim();
    if (P.consume_front("maxnreg")) {
      P = P.ltrim();
      unsigned N;
      if (SawMaxNReg || !P.consume_front("=") || P.trim().getAsInteger(10, N)) {
        Error = SawMaxNReg ? "maxnreg given twice" : "expected 'maxnreg=R' with R a number";
        return std::nullopt;
      }
      R.MaxNReg = N == 0 ? ~0u : N; // 0 is rejected with the other range errors
      SawMaxNReg = true;
      continue;
    }
    if (SawGangs) {
      Error = "expected 'maxnreg=R' after the gang counts, not '" + P.str() + "'";
      return std::nullopt;
    }
    SawGangs = true;
    llvm::SmallVector<llvm::StringRef, 8> Counts;
    P.split(Counts, ',');
    for (llvm::StringRef C : Counts) {
      int64_t G;
      if (C.trim().getAsInteger(10, G)) {
        Error = "expected a gang count, not '" + C.trim().str() + "'";
        return std::nullopt;
      }
      R.Gangs.push_back(G);
    }
  }
  return R;
}

bool readFusionConfig(const std::string &Path, std::vector<FusionRequest> &Out,
                      DiagnosticEngine &Diags) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf) {
    Diags.errorNoLoc("cannot open --hfuse-config file '" + Path + "': " + Buf.getError().message());
    return false;
  }
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  bool Ok = true;
  for (size_t I = 0; I < Lines.size(); ++I) {
    llvm::StringRef L = Lines[I];
    L = L.take_until([](char C) { return C == '#'; }).trim();
    if (L.empty())
      continue;
    std::string Where = Path + ":" + std::to_string(I + 1);
    std::string Problem;
    std::optional<FusionRequest> R = parseFusionSpec(L.str(), Problem);
    if (!R) {
      Diags.errorNoLoc(Where + ": " + Problem);
      Ok = false;
      continue;
    }
    R->Origin = FusionOrigin::ConfigFile;
    R->Spelling = Where;
    Out.push_back(std::move(*R));
  }
  return Ok;
}

namespace {

/// Reads `#pragma hfuse(A, B [: gA, gB] [: maxnreg(R)])`, remembering the
/// column of every word so that errors point at it.
class PragmaReader {
public:
  PragmaReader(const Pragma &P, DiagnosticEngine &Diags) : P(P), Diags(Diags) {
    // The pragma's text as it appears in the user's line (the preprocessor
    // reprints pragmas, so find it rather than assume the spacing).
    BaseCol = 0;
    if (P.Loc.isValid())
      if (auto Line = Diags.getSourceManager().getLine(*P.Loc.File, P.Loc.Line)) {
        size_t From = P.Loc.Col ? P.Loc.Col - 1 : 0;
        size_t At = Line->find(P.Text, From);
        if (At != std::string_view::npos)
          BaseCol = At + 1;
      }
  }

  /// Is this pragma ours at all? (`hfuse` followed by `(` or the end.)
  static bool isFusionPragma(const Pragma &P) {
    llvm::StringRef T(P.Text);
    if (!T.consume_front("hfuse"))
      return false;
    return T.empty() || T.front() == '(' || T.front() == ' ' || T.front() == '\t';
  }

  std::optional<FusionRequest> read() {
    FusionRequest R;
    R.Origin = FusionOrigin::Pragma;
    R.Loc = P.Loc;
    R.Spelling = "#pragma " + P.Text;
    Pos = 5; // after "hfuse"
    if (!expect('('))
      return std::nullopt;
    do {
      size_t At = skipSpace();
      std::string Name = word();
      if (!isIdentifier(Name))
        return fail(At, "expected a kernel name in '#pragma hfuse'");
      R.Kernels.push_back(Name);
      R.KernelCols.push_back(col(At));
    } while (accept(','));
    size_t After = skipSpace();
    if (After < P.Text.size() && P.Text[After] != ':' && P.Text[After] != ')')
      return fail(After, "expected ',', ':' or ')' in '#pragma hfuse'");
    if (R.Kernels.size() < 2)
      return fail(After, "'#pragma hfuse' needs at least two kernels");
    bool SawGangs = false, SawMaxNReg = false;
    while (accept(':')) {
      size_t At = skipSpace();
      if (llvm::StringRef(P.Text).substr(At).starts_with("maxnreg")) {
        word();
        if (SawMaxNReg)
          return fail(At, "maxnreg given twice");
        SawMaxNReg = true;
        if (!expect('('))
          return std::nullopt;
        size_t NumAt = skipSpace();
        unsigned N;
        if (llvm::StringRef(word()).getAsInteger(10, N))
          return fail(NumAt, "expected a register count in 'maxnreg(R)'");
        R.MaxNReg = N == 0 ? ~0u : N;
        R.MaxNRegCol = col(NumAt);
        if (!expect(')'))
          return std::nullopt;
        continue;
      }
      if (SawGangs)
        return fail(At, "expected 'maxnreg(R)' after the gang counts");
      SawGangs = true;
      do {
        size_t NumAt = skipSpace();
        int64_t G;
        if (llvm::StringRef(word()).getAsInteger(10, G))
          return fail(NumAt, "expected a gang count in '#pragma hfuse'");
        R.Gangs.push_back(G);
        R.GangCols.push_back(col(NumAt));
      } while (accept(','));
    }
    if (!expect(')'))
      return std::nullopt;
    size_t End = skipSpace();
    if (End < P.Text.size())
      return fail(End, "unexpected text after '#pragma hfuse(...)'");
    return R;
  }

private:
  size_t skipSpace() {
    while (Pos < P.Text.size() && (P.Text[Pos] == ' ' || P.Text[Pos] == '\t'))
      ++Pos;
    return Pos;
  }
  /// An identifier or a (signed) number; empty if neither starts here.
  std::string word() {
    skipSpace();
    size_t B = Pos;
    if (Pos < P.Text.size() && P.Text[Pos] == '-')
      ++Pos;
    while (Pos < P.Text.size() &&
           (std::isalnum(static_cast<unsigned char>(P.Text[Pos])) || P.Text[Pos] == '_'))
      ++Pos;
    return P.Text.substr(B, Pos - B);
  }
  bool accept(char C) {
    skipSpace();
    if (Pos < P.Text.size() && P.Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  bool expect(char C) {
    if (accept(C))
      return true;
    fail(Pos, std::string("expected '") + C + "' in '#pragma hfuse'");
    return false;
  }
  uint32_t col(size_t Offset) const { return BaseCol ? BaseCol + Offset : 0; }
  std::nullopt_t fail(size_t Offset, const std::string &Message) {
    SourceLoc L = P.Loc;
    if (BaseCol)
      L.Col = BaseCol + Offset;
    Diags.error(L, Message);
    return std::nullopt;
  }

  const Pragma &P;
  DiagnosticEngine &Diags;
  size_t Pos = 0;
  uint32_t BaseCol = 0;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

bool isLaunchBuiltin(BuiltinVar B) {
  return B != BuiltinVar::None && B != BuiltinVar::ProgramIndex && B != BuiltinVar::ProgramCount;
}

bool isBarrierDecl(const Function *F) {
  return F && F->IsStdlib && !F->Body && F->Name == "barrier" && F->Params.empty();
}

/// What each function does, directly and through the functions it calls.
struct FunctionFacts {
  bool Direct = false;  ///< reads a launch built-in, calls barrier() or uses shared storage
  bool Barrier = false; ///< calls barrier(), itself or through a callee
  std::set<Global *> Shared;
  std::set<Function *> Callees; ///< called directly (call / crev)
  bool NeedsSide = false;       ///< must be cloned per side
};

class ModuleFacts {
public:
  explicit ModuleFacts(Module &M) {
    for (auto &F : M.Functions)
      if (F->Body)
        scan(*F->Body, Facts[F.get()]);
    // Propagate up the call graph until nothing changes.
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (auto &[F, Fa] : Facts) {
        bool Needs = Fa.Direct, Bar = Fa.Barrier;
        size_t NShared = Fa.Shared.size();
        for (Function *C : Fa.Callees) {
          auto It = Facts.find(C);
          if (It == Facts.end())
            continue;
          Needs |= It->second.NeedsSide;
          Bar |= It->second.Barrier;
          Fa.Shared.insert(It->second.Shared.begin(), It->second.Shared.end());
        }
        if (Needs != Fa.NeedsSide || Bar != Fa.Barrier || NShared != Fa.Shared.size())
          Changed = true;
        Fa.NeedsSide = Needs;
        Fa.Barrier = Bar;
      }
    }
  }

  FunctionFacts &of(Function *F) { return Facts[F]; }

private:
  void scan(Region &R, FunctionFacts &Fa) {
    for (auto &O : R.Ops) {
      if (O->Code == OpCode::Builtin && isLaunchBuiltin(O->BuiltinId))
        Fa.Direct = true;
      if (O->Code == OpCode::GlobalAddr && O->GlobalRef->IsShared) {
        Fa.Direct = true;
        Fa.Shared.insert(O->GlobalRef);
      }
      if ((O->Code == OpCode::Call || O->Code == OpCode::Crev) && O->Callee) {
        if (isBarrierDecl(O->Callee)) {
          Fa.Direct = true;
          Fa.Barrier = true;
        } else {
          Fa.Callees.insert(O->Callee);
        }
      }
      for (auto &Sub : O->Regions)
        scan(*Sub, Fa);
    }
  }

  std::map<Function *, FunctionFacts> Facts;
};

/// One side of a fusion while it is built.
struct Side {
  Function *Kernel = nullptr;
  int64_t Gangs = DefaultGangsPerSide;
  int BarrierId = -1; ///< -1: the side calls no barrier()
  std::map<Function *, Function *> Clones;
  std::map<Global *, Global *> SharedCopies;
};

class Fuser {
public:
  Fuser(Module &M, const TargetInfo &Target, DiagnosticEngine &Diags)
      : M(M), Target(Target), Diags(Diags), Facts(M), B(M) {
    I32 = M.Types.getAtomic(Type::Int32, Variability::Uniform);
    Bool = M.Types.getAtomic(Type::Bool, Variability::Uniform);
  }

  /// Checks one request; reports its errors in the request's own style.
  bool check(const FusionRequest &R, std::vector<Function *> &Kernels) {
    bool Ok = true;
    std::set<std::string> Seen;
    for (size_t I = 0; I < R.Kernels.size(); ++I) {
      const std::string &N = R.Kernels[I];
      uint32_t Col = I < R.KernelCols.size() ? R.KernelCols[I] : 0;
      if (!Seen.insert(N).second) {
        Ok = error(R, Col, "kernel '" + N + "' is fused with itself");
        continue;
      }
      Function *K = findKernel(N);
      if (!K) {
        Ok = error(R, Col, "unknown kernel '" + N + "'");
        continue;
      }
      if (!(K->flags().Export || K->flags().Task) || !K->Ty->getReturnType()->isVoid() ||
          !K->Body) {
        Ok = error(R, Col, "kernel '" + N + "' is not a void export or task function defined here");
        continue;
      }
      Kernels.push_back(K);
    }
    if (!R.Gangs.empty() && R.Gangs.size() != R.Kernels.size())
      Ok = error(R, R.GangCols.empty() ? 0 : R.GangCols[0],
                 "one gang count per kernel is needed: " + std::to_string(R.Gangs.size()) +
                     " given for " + std::to_string(R.Kernels.size()) + " kernels");
    int64_t Threads = 0;
    for (size_t I = 0; I < R.Gangs.size(); ++I) {
      if (R.Gangs[I] < 1)
        Ok = error(R, I < R.GangCols.size() ? R.GangCols[I] : 0,
                   "side '" + (I < R.Kernels.size() ? R.Kernels[I] : "?") +
                       "' needs at least 1 gang per block, not " + std::to_string(R.Gangs[I]));
      else
        Threads += 32 * std::min<int64_t>(R.Gangs[I], 1 << 20);
    }
    if (R.Gangs.empty())
      Threads = 32 * DefaultGangsPerSide * static_cast<int64_t>(R.Kernels.size());
    if (Threads > MaxThreadsPerBlock)
      Ok = error(R,
                 R.GangCols.empty() ? (R.KernelCols.empty() ? 0 : R.KernelCols[0]) : R.GangCols[0],
                 "the partition needs " + std::to_string(Threads) +
                     " threads per block; a block holds at most " +
                     std::to_string(MaxThreadsPerBlock) + " (32 per gang)");
    if (R.MaxNReg && (R.MaxNReg < 1 || R.MaxNReg > 255))
      Ok = error(R, R.MaxNRegCol, "maxnreg must be between 1 and 255");
    if (!Ok || Kernels.size() != R.Kernels.size())
      return false;
    unsigned BarrierSides = 0;
    for (Function *K : Kernels)
      BarrierSides += Facts.of(K).Barrier;
    if (BarrierSides > 16)
      return error(R, 0,
                   std::to_string(BarrierSides) +
                       " fused kernels call barrier(): that needs more than the GPU's 16 "
                       "barrier ids (one per side)");
    if (findByName(fusedName(R)))
      return error(R, 0, "a function named '" + fusedName(R) + "' already exists");
    return true;
  }

  void fuse(const FusionRequest &R, const std::vector<Function *> &Kernels) {
    std::vector<Side> Sides;
    int NextBarrier = 1; // ids 1..15, then 0: HFuse's numbering, all 16 if needed
    for (size_t I = 0; I < Kernels.size(); ++I) {
      Side S;
      S.Kernel = Kernels[I];
      S.Gangs = R.Gangs.empty() ? DefaultGangsPerSide : R.Gangs[I];
      if (Facts.of(Kernels[I]).Barrier) {
        S.BarrierId = NextBarrier == 16 ? 0 : NextBarrier;
        ++NextBarrier;
      }
      Sides.push_back(std::move(S));
    }
    duplicateShared(Sides);
    for (Side &S : Sides)
      cloneSide(S, S.Kernel);
    buildEntry(R, Sides);
  }

  std::string fusedName(const FusionRequest &R) {
    std::string N = "hfuse";
    for (const std::string &K : R.Kernels)
      N += "_" + K;
    return N;
  }

private:
  bool error(const FusionRequest &R, uint32_t Col, const std::string &Message) {
    if (R.Origin == FusionOrigin::Pragma) {
      SourceLoc L = R.Loc;
      if (Col)
        L.Col = Col;
      Diags.error(L, Message);
    } else if (R.Origin == FusionOrigin::ConfigFile) {
      Diags.errorNoLoc(R.Spelling + ": " + Message);
    } else {
      Diags.errorNoLoc("--hfuse=" + R.Spelling + ": " + Message);
    }
    return false;
  }

  Function *findByName(const std::string &N) {
    for (auto &F : M.Functions)
      if (F->Name == N || F->Symbol == N)
        return F.get();
    return nullptr;
  }

  /// The user's function of that name, preferring a definition.
  Function *findKernel(const std::string &N) {
    Function *Found = nullptr;
    for (auto &F : M.Functions)
      if (F->Name == N && !F->IsStdlib && (!Found || (!Found->Body && F->Body)))
        Found = F.get();
    return Found;
  }

  /// Shared globals that more than one side uses get a copy for every side
  /// after the first that uses them, so that no two sides share storage.
  void duplicateShared(std::vector<Side> &Sides) {
    std::map<Global *, unsigned> Users;
    for (Side &S : Sides)
      for (Global *G : Facts.of(S.Kernel).Shared)
        if (Users[G]++ == 0)
          S.SharedCopies[G] = G;
        else
          S.SharedCopies[G] = copyGlobal(*G, S.Kernel->Name);
  }

  /// `Base`, or `Base_2`, `Base_3`, ... if a function or global has that name.
  std::string uniqueName(const std::string &Base) {
    auto Taken = [&](const std::string &N) {
      for (auto &F : M.Functions)
        if (F->Symbol == N)
          return true;
      for (auto &G : M.Globals)
        if (G->Name == N)
          return true;
      return false;
    };
    std::string N = Base;
    for (unsigned I = 2; Taken(N); ++I)
      N = Base + "_" + std::to_string(I);
    return N;
  }

  Global *copyGlobal(const Global &G, const std::string &Suffix) {
    auto C = std::make_unique<Global>(G);
    C->Name = uniqueName(G.Name + "___hfuse_" + Suffix);
    C->IsStatic = true;
    M.Globals.push_back(std::move(C));
    return M.Globals.back().get();
  }

  /// The clone of `F` for side `S` (made on first use): F's parameters, then
  /// the side's gangIndex, gangCount, blockIndex and blockCount.
  Function *cloneSide(Side &S, Function *F) {
    auto It = S.Clones.find(F);
    if (It != S.Clones.end())
      return It->second;
    auto C = std::make_unique<Function>();
    Function *Clone = C.get();
    S.Clones[F] = Clone;
    // A kernel fused twice (hfuse(A, B) and hfuse(A, C)) has two copies: the
    // second gets a number so that the IR and the object stay readable.
    C->Symbol = uniqueName(F->Symbol + "___hfuse_" + S.Kernel->Name);
    C->Name = F->Name + C->Symbol.substr(F->Symbol.size());
    C->Loc = F->Loc;
    C->IsStatic = true;
    C->LabelCount = F->LabelCount; // the body keeps its label numbers
    std::vector<const Type *> ParamTypes = F->Ty->getParamTypes();
    for (int I = 0; I < 4; ++I)
      ParamTypes.push_back(I32);
    FunctionFlags Flags;
    Flags.Unmasked = F->flags().Unmasked;
    C->Ty = M.Types.getFunction(F->Ty->getReturnType(), ParamTypes, Flags);
    ValueMap Map;
    for (auto &P : F->Params) {
      C->Params.push_back(std::make_unique<Value>(P->Ty, nullptr));
      C->Params.back()->NameHint = P->NameHint;
      Map[P.get()] = C->Params.back().get();
    }
    static const char *const Names[4] = {"__gangIndex", "__gangCount", "__blockIndex",
                                         "__blockCount"};
    for (const char *N : Names) {
      C->Params.push_back(std::make_unique<Value>(I32, nullptr));
      C->Params.back()->NameHint = N;
    }
    C->Body = std::make_unique<Region>();
    M.Functions.push_back(std::move(C));
    Value *Ctx[4] = {
        Clone->Params[F->Params.size()].get(), Clone->Params[F->Params.size() + 1].get(),
        Clone->Params[F->Params.size() + 2].get(), Clone->Params[F->Params.size() + 3].get()};
    cloneRegion(S, *F->Body, *Clone->Body, Map, Ctx);
    return Clone;
  }

  using ValueMap = llvm::DenseMap<Value *, Value *>;

  Value *mapped(ValueMap &Map, Value *V) {
    if (!V)
      return nullptr;
    auto It = Map.find(V);
    return It == Map.end() ? V : It->second;
  }

  /// The side's value of a launch built-in, computed from its four parameters.
  Value *sideBuiltin(BuiltinVar Which, Value *const Ctx[4]) {
    switch (Which) {
    case BuiltinVar::GangIndex:
      return Ctx[0];
    case BuiltinVar::GangCount:
      return Ctx[1];
    case BuiltinVar::BlockIndex:
      return Ctx[2];
    case BuiltinVar::BlockCount:
      return Ctx[3];
    case BuiltinVar::TaskIndex1:
    case BuiltinVar::TaskIndex2:
      return B.constInt(0, I32);
    case BuiltinVar::TaskCount1:
    case BuiltinVar::TaskCount2:
      return B.constInt(1, I32);
    case BuiltinVar::TaskCount:
    case BuiltinVar::TaskCount0:
    case BuiltinVar::ThreadCount:
      return binary(BinaryOp::Mul, Ctx[3], Ctx[1]);
    default: // taskIndex, taskIndex0: blockIndex * gangCount + gangIndex
      return binary(BinaryOp::Add, binary(BinaryOp::Mul, Ctx[2], Ctx[1]), Ctx[0]);
    }
  }

  Value *binary(BinaryOp Op, Value *L, Value *R) {
    bool Compare = Op == BinaryOp::LT || Op == BinaryOp::GE;
    ir::Op *O = B.create(OpCode::Binary, Compare ? Bool : I32, {L, R});
    O->BinOp = Op;
    return O->result();
  }

  void cloneRegion(Side &S, Region &From, Region &To, ValueMap &Map, Value *const Ctx[4]) {
    for (auto &OP : From.Ops) {
      Op &O = *OP;
      B.setInsertRegion(&To);
      B.setLoc(O.Loc);
      if (O.Code == OpCode::Builtin && isLaunchBuiltin(O.BuiltinId)) {
        Value *V = sideBuiltin(O.BuiltinId, Ctx);
        if (O.result()->Ty != V->Ty) { // taskIndex & co. are unsigned, as in ISPC
          ir::Op *C = B.create(OpCode::Convert, O.result()->Ty, {V});
          C->Cast = CastKind::IntegralCast;
          V = C->result();
        }
        Map[O.result()] = V;
        continue;
      }
      if (O.Code == OpCode::Call && isBarrierDecl(O.Callee)) {
        Op *Bar = B.create(OpCode::PartialBarrier, nullptr);
        Bar->Imm = S.BarrierId;
        Bar->BarrierThreads = 32 * S.Gangs;
        continue;
      }
      if (O.Code == OpCode::FuncAddr && O.Callee && Facts.of(O.Callee).NeedsSide)
        Diags.error(O.Loc, "'" + O.Callee->Name +
                               "' reads the launch built-ins, calls barrier() or uses shared "
                               "storage, so its address cannot be taken in fused kernel '" +
                               S.Kernel->Name + "'");
      auto C = std::make_unique<Op>(O.Code, O.Loc);
      for (Value *V : O.Operands)
        C->Operands.push_back(mapped(Map, V));
      if (O.Result) {
        C->Result = std::make_unique<Value>(O.Result->Ty, C.get());
        C->Result->NameHint = O.Result->NameHint;
        Map[O.Result.get()] = C->Result.get();
      }
      C->ParentRegion = &To;
      C->Mask = mapped(Map, O.Mask);
      C->Imm = O.Imm;
      C->FImm = O.FImm;
      C->Text = O.Text;
      C->BuiltinId = O.BuiltinId;
      C->UnOp = O.UnOp;
      C->BinOp = O.BinOp;
      C->Cast = O.Cast;
      C->VarType = O.VarType;
      C->FieldIndex = O.FieldIndex;
      C->Callee = O.Callee;
      C->GlobalRef = O.GlobalRef;
      C->BarrierThreads = O.BarrierThreads;
      C->DoWhile = O.DoWhile;
      C->Tiled = O.Tiled;
      C->Coherent = O.Coherent;
      for (Value *V : O.IndexVars)
        C->IndexVars.push_back(mapped(Map, V));
      for (Value *V : O.LaunchCounts)
        C->LaunchCounts.push_back(mapped(Map, V));
      if (C->GlobalRef && S.SharedCopies.count(C->GlobalRef))
        C->GlobalRef = S.SharedCopies[C->GlobalRef];
      // Calls (not launches: a launched task has its own launch) into code
      // that needs the side's view go to that code's clone.
      if ((O.Code == OpCode::Call || O.Code == OpCode::Crev) && O.Callee &&
          Facts.of(O.Callee).NeedsSide) {
        C->Callee = cloneSide(S, O.Callee);
        C->Operands.insert(C->Operands.end(), Ctx, Ctx + 4);
      }
      Op *Raw = C.get();
      To.Ops.push_back(std::move(C));
      for (auto &Sub : O.Regions) {
        Raw->Regions.push_back(std::make_unique<Region>());
        Raw->Regions.back()->Parent = Raw;
        cloneRegion(S, *Sub, *Raw->Regions.back(), Map, Ctx);
      }
    }
  }

  /// The fused entry `hfuse_A_B(A's params, B's params, blocks_A, blocks_B)`.
  void buildEntry(const FusionRequest &R, std::vector<Side> &Sides) {
    std::string Name = fusedName(R);
    // Parameter names must be unique (they become the host header's fields):
    // a name more than one side uses is prefixed with its kernel's name.
    std::map<std::string, unsigned> NameUses;
    for (Side &S : Sides)
      for (auto &P : S.Kernel->Params)
        ++NameUses[P->NameHint];
    std::vector<const Type *> ParamTypes;
    std::vector<std::string> ParamNames;
    for (Side &S : Sides)
      for (auto &P : S.Kernel->Params) {
        ParamTypes.push_back(P->Ty);
        ParamNames.push_back(NameUses[P->NameHint] > 1 || P->NameHint.empty()
                                 ? S.Kernel->Name + "_" +
                                       (P->NameHint.empty()
                                            ? "arg" + std::to_string(ParamNames.size())
                                            : P->NameHint)
                                 : P->NameHint);
      }
    for (Side &S : Sides) {
      ParamTypes.push_back(I32);
      ParamNames.push_back("blocks_" + S.Kernel->Name);
    }

    auto MakeFunction = [&](const std::string &N, FunctionFlags Flags) {
      auto F = std::make_unique<Function>();
      F->Name = F->Symbol = N;
      F->Loc = R.Origin == FusionOrigin::Pragma ? R.Loc : Sides[0].Kernel->Loc;
      F->Ty = M.Types.getFunction(M.Types.getVoid(), ParamTypes, Flags);
      for (size_t I = 0; I < ParamTypes.size(); ++I) {
        F->Params.push_back(std::make_unique<Value>(ParamTypes[I], nullptr));
        F->Params.back()->NameHint = ParamNames[I];
      }
      F->Body = std::make_unique<Region>();
      M.Functions.push_back(std::move(F));
      return M.Functions.back().get();
    };

    FunctionFlags ExportFlags;
    ExportFlags.Export = true;
    Function *Entry = MakeFunction(Name, ExportFlags);
    int64_t TotalGangs = 0;
    for (Side &S : Sides)
      TotalGangs += S.Gangs;
    Entry->ThreadsPerBlock = static_cast<unsigned>(32 * TotalGangs);
    Entry->MaxNReg = R.MaxNReg;
    FusedKernel Record;
    Record.Entry = Entry;
    for (Side &S : Sides) {
      Record.Sides.push_back(S.Kernel->Name);
      Record.Gangs.push_back(S.Gangs);
    }
    Record.ThreadsPerBlock = Entry->ThreadsPerBlock;
    M.FusedKernels.push_back(Record);

    B.setLoc(Entry->Loc);
    if (Target.isGPU()) {
      dispatchOnWarps(*Entry, Sides);
      return;
    }
    // CPU: one launch of blocks_A + blocks_B + ... tasks, each one block of one side.
    FunctionFlags TaskFlags;
    TaskFlags.Task = true;
    Function *Tasks = MakeFunction(Name + "___tasks", TaskFlags);
    Tasks->IsStatic = true;
    dispatchOnTasks(*Tasks, Sides);
    B.setInsertRegion(Entry->Body.get());
    size_t NSides = Sides.size(), First = Entry->Params.size() - NSides;
    Value *Total = Entry->Params[First].get();
    for (size_t I = 1; I < NSides; ++I)
      Total = binary(BinaryOp::Add, Total, Entry->Params[First + I].get());
    std::vector<Value *> Args;
    for (auto &P : Entry->Params)
      Args.push_back(P.get());
    Op *L = B.create(OpCode::Launch, nullptr, Args);
    L->Callee = Tasks;
    L->LaunchCounts = {Total};
    B.create(OpCode::Sync, nullptr);
  }

  /// The arguments of side `I`'s call: its slice of the entry's parameters,
  /// then its gangIndex, gangCount, blockIndex, blockCount.
  std::vector<Value *> sideArgs(Function &Entry, std::vector<Side> &Sides, size_t I,
                                std::initializer_list<Value *> Ctx) {
    size_t First = 0;
    for (size_t J = 0; J < I; ++J)
      First += Sides[J].Kernel->Params.size();
    std::vector<Value *> Args;
    for (size_t J = 0; J < Sides[I].Kernel->Params.size(); ++J)
      Args.push_back(Entry.Params[First + J].get());
    Args.insert(Args.end(), Ctx);
    return Args;
  }

  /// Appends `if (Cond) { ... }` and moves the insertion point into its body;
  /// returns the region to go back to.
  Region *openIf(Value *Cond) {
    Region *Outer = B.insertRegion();
    Op *If = B.create(OpCode::If, nullptr, {Cond});
    Region *Then = B.addRegion(If);
    B.addRegion(If);
    B.setInsertRegion(Then);
    return Outer;
  }

  void callSide(Side &S, std::vector<Value *> Args) {
    Function *Clone = S.Clones[S.Kernel];
    Op *C = B.create(OpCode::Call, nullptr, std::move(Args));
    C->Callee = Clone;
  }

  /// GPU: warps [off_X, off_X + gX) of every block run side X, in blocks
  /// below blocks_X; the warp index and block index are the entry's own.
  void dispatchOnWarps(Function &Entry, std::vector<Side> &Sides) {
    B.setInsertRegion(Entry.Body.get());
    Op *W = B.create(OpCode::Builtin, I32);
    W->BuiltinId = BuiltinVar::GangIndex;
    Op *Blk = B.create(OpCode::Builtin, I32);
    Blk->BuiltinId = BuiltinVar::BlockIndex;
    size_t NSides = Sides.size(), FirstBlocks = Entry.Params.size() - NSides;
    int64_t Offset = 0;
    for (size_t I = 0; I < NSides; ++I) {
      Side &S = Sides[I];
      Value *Blocks = Entry.Params[FirstBlocks + I].get();
      Region *Outer = openIf(binary(BinaryOp::GE, W->result(), B.constInt(Offset, I32)));
      openIf(binary(BinaryOp::LT, W->result(), B.constInt(Offset + S.Gangs, I32)));
      openIf(binary(BinaryOp::LT, Blk->result(), Blocks));
      Value *Gang = binary(BinaryOp::Sub, W->result(), B.constInt(Offset, I32));
      callSide(S,
               sideArgs(Entry, Sides, I, {Gang, B.constInt(S.Gangs, I32), Blk->result(), Blocks}));
      B.setInsertRegion(Outer);
      Offset += S.Gangs;
    }
  }

  /// CPU: task t runs side X when blocks_A + ... (the sides before X) <= t and
  /// t is below that plus blocks_X, as block t minus that offset of one gang.
  void dispatchOnTasks(Function &Tasks, std::vector<Side> &Sides) {
    B.setInsertRegion(Tasks.Body.get());
    Op *T = B.create(OpCode::Builtin, I32);
    T->BuiltinId = BuiltinVar::TaskIndex;
    size_t NSides = Sides.size(), FirstBlocks = Tasks.Params.size() - NSides;
    Value *Offset = B.constInt(0, I32);
    for (size_t I = 0; I < NSides; ++I) {
      Value *Blocks = Tasks.Params[FirstBlocks + I].get();
      Value *End = binary(BinaryOp::Add, Offset, Blocks);
      Region *Outer = openIf(binary(BinaryOp::GE, T->result(), Offset));
      openIf(binary(BinaryOp::LT, T->result(), End));
      Value *Block = binary(BinaryOp::Sub, T->result(), Offset);
      callSide(Sides[I],
               sideArgs(Tasks, Sides, I, {B.constInt(0, I32), B.constInt(1, I32), Block, Blocks}));
      B.setInsertRegion(Outer);
      Offset = End;
    }
  }

  Module &M;
  const TargetInfo &Target;
  DiagnosticEngine &Diags;
  ModuleFacts Facts;
  Builder B;
  const Type *I32;
  const Type *Bool;
};

} // namespace

bool runHorizontalFusion(Module &M, const std::vector<FusionRequest> &Requested,
                         const TargetInfo &Target, DiagnosticEngine &Diags) {
  unsigned ErrorsBefore = Diags.errorCount();
  // Pragmas first, then the config file's and the command line's (in that
  // order in `Requested`): a later request for the same kernels replaces one.
  std::vector<FusionRequest> All;
  for (const Pragma &P : M.Pragmas)
    if (PragmaReader::isFusionPragma(P))
      if (std::optional<FusionRequest> R = PragmaReader(P, Diags).read())
        All.push_back(std::move(*R));
  All.insert(All.end(), Requested.begin(), Requested.end());
  std::vector<FusionRequest> Chosen;
  std::map<std::vector<std::string>, size_t> ByKernels;
  for (FusionRequest &R : All) {
    auto [It, New] = ByKernels.try_emplace(R.Kernels, Chosen.size());
    if (New)
      Chosen.push_back(std::move(R));
    else
      Chosen[It->second] = std::move(R);
  }
  if (Chosen.empty())
    return Diags.errorCount() == ErrorsBefore;
  Fuser F(M, Target, Diags);
  std::vector<std::pair<const FusionRequest *, std::vector<Function *>>> Checked;
  for (const FusionRequest &R : Chosen) {
    std::vector<Function *> Kernels;
    if (F.check(R, Kernels))
      Checked.push_back({&R, std::move(Kernels)});
  }
  if (Diags.errorCount() != ErrorsBefore)
    return false;
  for (auto &[R, Kernels] : Checked)
    F.fuse(*R, Kernels);
  return Diags.errorCount() == ErrorsBefore;
}

} // namespace spmdc::ir
