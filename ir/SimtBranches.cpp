// NVPTX: chooses the varying ifs and loops that stay real branches (SIMT) instead of masks.
//
// The divergence transform turns every varying branch into uniform control
// flow plus masks, so that a warp's 32 threads never diverge and `vote.sync`
// / `shfl.sync` with the full mask are always correct. Most branches need
// none of that: where a region only computes, loads and stores its own lanes'
// data, the threads may simply branch and leave loops one by one, as nvcc's
// threads do, and meet again where the region ends (the hardware's
// reconvergence). This pass finds those regions, top down: a varying if or
// loop is SIMT when nothing in it (nor in any function it calls) needs the
// mask or the whole warp. See docs/design-spmd-ir.md ("SIMT branches").
#include "ir/SimtBranches.h"

#include "ir/DivergenceTransform.h"
#include "ir/IR.h"

#include <map>
#include <set>
#include <string>

namespace spmdc::ir {

namespace {

/// Standard library hooks (backend/StdlibHooks.cpp) that are one thread's
/// arithmetic: no vote, shuffle, election or barrier.
bool isThreadLocalHook(const std::string &N) {
  static const std::set<std::string> Names = {
      "sqrt",          "trunc",         "floor",         "ceil",
      "round",         "rsqrt",         "rcp",           "rsqrt_fast",
      "rcp_fast",      "abs",           "min",           "max",
      "clamp",         "saturating_add", "saturating_sub", "saturating_mul",
      "count_leading_zeros", "count_trailing_zeros", "intbits", "floatbits",
      "doublebits",    "float16bits",   "assume",        "clock"};
  return Names.count(N) || N.rfind("prefetch_", 0) == 0 || N.rfind("prefetchw_", 0) == 0 ||
         N.rfind("spmd_nvptx_", 0) == 0;
}

/// `atomic_<op>_global(...)` with a varying operand: one atomic per active lane,
/// each lane getting its own old value (a uniform one is made once per gang).
bool isPerLaneGlobalAtomic(const Op &Call) {
  const std::string &N = Call.Callee->Name;
  if (!Call.Callee->IsStdlib || Call.Callee->Body || N.rfind("atomic_", 0) != 0 || N.size() < 14 ||
      N.compare(N.size() - 7, 7, "_global") != 0)
    return false;
  for (const Value *A : Call.Operands)
    if (A->isVarying())
      return true;
  return false;
}

/// The op that defines an address, through element/field steps and pointer casts.
const Op *addressRoot(const Value *Addr) {
  while (Addr->Def && (Addr->Def->Code == OpCode::ElementAddr ||
                       Addr->Def->Code == OpCode::FieldAddr ||
                       (Addr->Def->Code == OpCode::Convert && Addr->Def->Operands[0]->Ty->isPointer())))
    Addr = Addr->Def->Operands[0];
  return Addr->Def;
}

/// Whether every part of a value of type `T` belongs to one lane, so that each
/// thread of a SIMT region may return its own. A uniform part must come out the
/// same in every thread, also in those whose lane is off (the caller branches on
/// it as on any uniform value): a thread that skipped the body or returned early
/// would hand back another. Unbound struct members take the instance's variability.
bool isPerLane(const Type *T) {
  if (T->isVoid())
    return true;
  if (T->isArray())
    return isPerLane(T->getElementType());
  if (!T->isVarying())
    return false;
  if (T->isStruct())
    for (const FieldDecl &Field : T->getStructDecl()->Fields)
      if (Field.Ty->isUniform() || ((Field.Ty->isStruct() || Field.Ty->isArray()) && !isPerLane(Field.Ty)))
        return false;
  return true;
}

using UseMap = std::map<const Value *, std::vector<std::pair<const Op *, unsigned>>>;

void collectUses(const Region &R, UseMap &Uses) {
  for (const auto &O : R.Ops) {
    for (unsigned I = 0; I < O->Operands.size(); ++I)
      Uses[O->Operands[I]].push_back({O.get(), I});
    for (const auto &Sub : O->Regions)
      collectUses(*Sub, Uses);
  }
}

/// Whether a local's address goes anywhere but the address operand of loads
/// and uniform stores (directly or through element/field steps): such a
/// uniform local may live in the warp's shared frame (backend/WarpFrames.cpp),
/// whose loads and stores synchronize the whole warp.
bool addressEscapes(const Value *Addr, const UseMap &Uses) {
  auto It = Uses.find(Addr);
  if (It == Uses.end())
    return false;
  for (auto [User, Index] : It->second) {
    if (Index != 0)
      return true;
    if (User->Code == OpCode::Load)
      continue;
    if (User->Code == OpCode::Store) {
      if (Addr->Ty->isVarying())
        return true;
      continue;
    }
    if ((User->Code == OpCode::ElementAddr || User->Code == OpCode::FieldAddr ||
         User->Code == OpCode::Convert) &&
        User->result() && !addressEscapes(User->result(), Uses))
      continue;
    return true;
  }
  return false;
}

class SimtSelector {
public:
  explicit SimtSelector(Module &M) : M(M) {}

  void run() {
    for (auto &F : M.Functions)
      if (F->Body) {
        markRegion(*F->Body, *F);
        // Only threads whose lane is on run a SIMT body: a uniform result would
        // differ in the others.
        F->SimtBody = functionIsClean(*F) && isPerLane(F->Ty->getReturnType());
      }
  }

private:
  /// One function's facts the scan needs.
  struct FunctionFacts {
    std::set<const Value *> EscapingSlots;
  };

  const FunctionFacts &facts(const Function &F) {
    auto It = Facts.find(&F);
    if (It != Facts.end())
      return It->second;
    FunctionFacts &FF = Facts[&F];
    UseMap Uses;
    collectUses(*F.Body, Uses);
    collectEscaping(*F.Body, Uses, FF);
    return FF;
  }
  void collectEscaping(const Region &R, const UseMap &Uses, FunctionFacts &FF) {
    for (const auto &O : R.Ops) {
      if (O->Code == OpCode::Var && addressEscapes(O->result(), Uses))
        FF.EscapingSlots.insert(O->result());
      for (const auto &Sub : O->Regions)
        collectEscaping(*Sub, Uses, FF);
    }
  }

  /// Whether every op of `F`'s body may run in a SIMT region.
  bool functionIsClean(const Function &F) {
    if (!F.Body)
      return false;
    auto It = Clean.find(&F);
    if (It != Clean.end())
      return It->second;
    // While F is scanned, a call of F itself counts as clean (the answer is
    // consistent if the rest of the body is); a call back into F from another
    // function does not, since that function's answer is kept.
    Clean[&F] = false;
    Scan S(facts(F), /*AllowReturn=*/true);
    S.Self = &F;
    S.PerLaneReturn = isPerLane(F.Ty->getReturnType());
    bool Ok = scanRegion(S, *F.Body);
    Clean[&F] = Ok;
    return Ok;
  }

  /// The state of one scan of a candidate region (a varying if/loop, or a
  /// whole function body).
  struct Scan {
    Scan(const FunctionFacts &Facts, bool AllowReturn) : Facts(Facts), AllowReturn(AllowReturn) {}
    const FunctionFacts &Facts;
    bool AllowReturn;
    const Function *Self = nullptr; ///< the function whose whole body is scanned
    /// The function returns lane values only (isPerLane): a thread may return
    /// alone, under varying branches. Otherwise every return must be outside them.
    bool PerLaneReturn = true;
    unsigned VaryingDepth = 0;  ///< varying ifs/loops around the op, in the candidate
    unsigned LoopDepth = 0;     ///< loops around the op, in the candidate
    std::map<const Value *, unsigned> SlotDepth; ///< Vars defined in the candidate
    std::set<const Value *> Defined;             ///< values defined in the candidate
  };

  /// A value every thread of a branch computes alike without reading memory
  /// that another thread of the branch may be writing: defined before the
  /// candidate (while the warp was converged), a constant, or pure arithmetic
  /// on such values.
  bool isInvariant(const Scan &S, const Value *V) {
    if (!V->Def || !S.Defined.count(V))
      return true;
    switch (V->Def->Code) {
    case OpCode::ConstInt:
    case OpCode::ConstFloat:
    case OpCode::ConstNull:
    case OpCode::Builtin:
    case OpCode::SizeOf:
    case OpCode::GlobalAddr:
    case OpCode::FuncAddr:
      return true;
    case OpCode::Unary:
    case OpCode::Binary:
    case OpCode::Convert:
    case OpCode::Broadcast:
    case OpCode::Select:
      for (const Value *Op : V->Def->Operands)
        if (!isInvariant(S, Op))
          return false;
      return true;
    default:
      return false;
    }
  }

  bool scanRegion(Scan &S, const Region &R) {
    for (const auto &O : R.Ops)
      if (!scanOp(S, *O))
        return false;
    return true;
  }

  bool scanNested(Scan &S, const Op &O, bool Varying, bool IsLoop) {
    S.VaryingDepth += Varying;
    S.LoopDepth += IsLoop;
    bool Ok = true;
    for (const auto &Sub : O.Regions)
      Ok = Ok && scanRegion(S, *Sub);
    S.VaryingDepth -= Varying;
    S.LoopDepth -= IsLoop;
    return Ok;
  }

  bool scanOp(Scan &S, const Op &O) {
    if (O.result())
      S.Defined.insert(O.result());
    switch (O.Code) {
    // The mask or the whole warp by definition.
    case OpCode::Everywhere:
    case OpCode::Unmasked:
    case OpCode::Crev:
    case OpCode::Foreach: // runs every index whatever the mask
    case OpCode::ForeachActive:
    case OpCode::ForeachUnique:
    case OpCode::Print:
    case OpCode::Assert:
    case OpCode::Launch:
    case OpCode::Sync:
    case OpCode::PartialBarrier:
    case OpCode::New:
    case OpCode::Delete:
    case OpCode::Label:
    case OpCode::Goto:
    case OpCode::MaskAllOn:
    case OpCode::Any:
    case OpCode::All:
    case OpCode::LaneCount:
    case OpCode::FirstLane:
    case OpCode::LaneIsSet:
    case OpCode::Extract:
    case OpCode::Insert:
      return false;
    case OpCode::Var:
      S.SlotDepth[O.result()] = S.VaryingDepth;
      return true;
    case OpCode::Call:
      if (!O.Callee || O.Callee->flags().Unmasked)
        return false; // a varying function pointer is called lane group by lane group
      if (O.Callee->Body)
        return O.Callee == S.Self || functionIsClean(*O.Callee);
      // A global atomic with a varying operand is each lane's own: in a SIMT
      // region the thread does it alone (StdlibHooks' ThreadAlone), as a CUDA
      // thread does, where under masks the back end ends it with bar.warp.sync
      // so that every lane sees what one lane wrote. Only in a candidate region
      // (a varying if/loop of a masked body): the back end synchronizes the warp
      // once the region is done, so the code after it reads what every lane's
      // atomic wrote. A function's whole body is one region with no "after" (an
      // ISPC test reading the atomic's target after its `if` read it too early),
      // so a function with such an atomic is never SIMT. Not the other per-lane
      // memory hooks (memcpy to varying addresses).
      if (!S.Self && isPerLaneGlobalAtomic(O))
        return true;
      return O.Callee->IsStdlib &&
             (isThreadLocalHook(O.Callee->Name) ||
              (O.Callee->Name == "popcnt" && O.Operands.size() == 1 &&
               !O.Operands[0]->Ty->isBool())); // a bit count, not a vote
    case OpCode::Load: {
      const Op *Root = addressRoot(O.Operands[0]);
      return !(Root && Root->Code == OpCode::Var && S.Facts.EscapingSlots.count(Root->result()));
    }
    case OpCode::Store:
      return storeIsThreadLocal(S, O);
    case OpCode::If:
      return scanNested(S, O, O.Operands[0]->isVarying(), false);
    case OpCode::Loop:
      return scanNested(S, O, isVaryingLoop(O), true);
    case OpCode::Break:
    case OpCode::Continue:
      return S.LoopDepth > 0; // a jump out of the candidate would cross its mask
    case OpCode::Return:
      return S.AllowReturn && (S.PerLaneReturn || S.VaryingDepth == 0);
    default:
      return true;
    }
  }

  /// A store through a per-lane address, or of varying data, writes the
  /// running thread's own lane. A uniform store is made once per gang under
  /// masks but once per running thread here: right when every thread writes
  /// the same value where every thread that reads it can see it.
  bool storeIsThreadLocal(const Scan &S, const Op &O) {
    const Value *Addr = O.Operands[0];
    const Op *Root = addressRoot(Addr);
    bool IsSlot = Root && Root->Code == OpCode::Var;
    if (IsSlot && S.Facts.EscapingSlots.count(Root->result()))
      return false;
    if (Addr->Ty->isVarying() || Addr->Ty->getPointee()->isVarying())
      return true;
    if (IsSlot) {
      // A uniform local lives in each thread's registers: threads that do not
      // run the store would keep the old value, unless the local was declared
      // under the same varying branches as the store (so only they see it).
      auto It = S.SlotDepth.find(Root->result());
      return It != S.SlotDepth.end() && It->second == S.VaryingDepth;
    }
    return isInvariant(S, O.Operands[1]);
  }

  /// Marks the outermost candidates of `R` that pass the scan.
  void markRegion(Region &R, const Function &F) {
    for (auto &O : R.Ops) {
      bool Varying = (O->Code == OpCode::If && O->Operands[0]->isVarying()) ||
                     (O->Code == OpCode::Loop && isVaryingLoop(*O));
      if (Varying) {
        // A return inside is a thread's real return, so nothing after the
        // candidate may need the whole warp either: the function must be clean.
        Scan S(facts(F), functionIsClean(F));
        S.PerLaneReturn = isPerLane(F.Ty->getReturnType());
        if (scanOp(S, *O)) {
          markAll(*O);
          continue;
        }
      }
      for (auto &Sub : O->Regions)
        markRegion(*Sub, F);
    }
  }

  static void markAll(Region &R) {
    for (auto &O : R.Ops)
      markAll(*O);
  }
  static void markAll(Op &O) {
    if ((O.Code == OpCode::If && O.Operands[0]->isVarying()) ||
        (O.Code == OpCode::Loop && isVaryingLoop(O))) {
      O.Simt = true;
      if (O.Code == OpCode::Loop && !O.Regions[0]->Ops.empty())
        O.Regions[0]->Ops.back()->Simt = true; // its yield
    }
    for (auto &Sub : O.Regions)
      markAll(*Sub);
  }

  Module &M;
  std::map<const Function *, FunctionFacts> Facts;
  std::map<const Function *, bool> Clean;
};

} // namespace

void selectSimtBranches(Module &M) { SimtSelector(M).run(); }

bool hasPerLaneGlobalAtomic(const Region &R) {
  for (const auto &O : R.Ops) {
    if (O->Code == OpCode::Call && O->Callee && !O->Callee->Body && isPerLaneGlobalAtomic(*O))
      return true;
    for (const auto &Sub : O->Regions)
      if (hasPerLaneGlobalAtomic(*Sub))
        return true;
  }
  return false;
}

} // namespace spmdc::ir
