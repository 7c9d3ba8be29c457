// The context-stack divergence transform: varying control flow -> explicit masks.
//
// The transform walks each function's regions with a stack of contexts. Each
// context owns a `var` slot holding the mask its code runs under; pushing a
// context installs a new mask (narrowed by a varying condition, or all-on for
// `everywhere`/`crev`), popping it restores the enclosing slot, which was never
// written by the nested code except to remove lanes that left through
// break/continue/return. Straight-line ops are moved into the new regions;
// control ops are rebuilt. See docs/design-spmd-ir.md.
#include "ir/DivergenceTransform.h"

#include "ir/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

namespace spmdc::ir {

namespace {

/// True if the op's effect depends on which lanes are active.
bool needsMask(const Op &O) {
  switch (O.Code) {
  case OpCode::Store:
  case OpCode::Call:
  case OpCode::Print:
  case OpCode::Assert:
  case OpCode::Launch:
  case OpCode::New:
  case OpCode::Delete:
    return true;
  case OpCode::Load:
    // A gather through per-lane pointers must not touch inactive lanes' addresses.
    return O.Operands[0]->Ty->isVarying();
  default:
    return false;
  }
}

enum class JumpKind { Break, Continue, Return };

/// Does `R` contain a break/continue for the enclosing loop (not one of a
/// nested loop) or a return, under varying control flow?
bool hasVaryingJump(const Region &R, bool UnderVarying, bool LookForReturn) {
  for (const auto &O : R.Ops) {
    switch (O->Code) {
    case OpCode::Break:
    case OpCode::Continue:
      if (UnderVarying && !LookForReturn)
        return true;
      break;
    case OpCode::Return:
      if (UnderVarying && LookForReturn)
        return true;
      break;
    case OpCode::If: {
      // A SIMT branch (ir/SimtBranches.cpp) jumps for real: no lanes to clear.
      bool V = UnderVarying || (O->Operands[0]->isVarying() && !O->Simt);
      for (const auto &Sub : O->Regions)
        if (hasVaryingJump(*Sub, V, LookForReturn))
          return true;
      break;
    }
    case OpCode::Loop: {
      if (!LookForReturn)
        break; // its breaks are its own
      const Op *Y = O->Regions[0]->Ops.empty() ? nullptr : O->Regions[0]->Ops.back().get();
      bool V = UnderVarying || (!O->Simt && ((Y && Y->Operands[0]->isVarying()) ||
                                             hasVaryingJump(*O->Regions[1], false, false)));
      for (const auto &Sub : O->Regions)
        if (hasVaryingJump(*Sub, V, true))
          return true;
      break;
    }
    case OpCode::Foreach:
    case OpCode::ForeachActive:
    case OpCode::ForeachUnique:
      if (LookForReturn && hasVaryingJump(*O->Regions[0], true, true))
        return true;
      break;
    case OpCode::Everywhere:
    case OpCode::Unmasked:
      if (hasVaryingJump(*O->Regions[0], false, LookForReturn))
        return true;
      break;
    default:
      break;
    }
  }
  return false;
}

/// Does `R` or a region nested in it hold an op with this code?
bool containsOp(const Region &R, OpCode Code) {
  for (const auto &O : R.Ops) {
    if (O->Code == Code)
      return true;
    for (const auto &Sub : O->Regions)
      if (containsOp(*Sub, Code))
        return true;
  }
  return false;
}

} // namespace

bool isVaryingLoop(const Op &O) {
  const Region &Cond = *O.Regions[0];
  const Op *Y = Cond.Ops.empty() ? nullptr : Cond.Ops.back().get();
  // A return under varying control flow inside makes the loop varying too:
  // lanes that returned must stop iterating while the others go on.
  return (Y && Y->Operands[0]->isVarying()) || hasVaryingJump(*O.Regions[1], false, false) ||
         hasVaryingJump(*O.Regions[2], false, false) ||
         hasVaryingJump(*O.Regions[1], false, true);
}

namespace {

/// The varying slots of each varying loop that only the loop reads: declared in the
/// region the loop is in, before it, stored outside the loop only between the
/// declaration and the loop (no label between them), read only inside the loop and
/// never addressed otherwise: a for statement's own variable. Lanes that leave such a
/// loop never read the slot again, and every entry to the loop passes its
/// initialization, so a store under the loop's own mask (its condition and step) may
/// write every lane.
class LoopConfinedSlots {
public:
  explicit LoopConfinedSlots(const Region &Body) {
    if (containsOp(Body, OpCode::Goto))
      return; // a goto could enter a loop past its slots' initialization
    collectUses(Body, nullptr);
    findConfined(Body);
  }

  /// The slots confined to `Loop` (an op of the region analysed), or null.
  const llvm::SmallPtrSet<const Value *, 4> *of(const Op &Loop) const {
    auto It = Confined.find(&Loop);
    return It == Confined.end() ? nullptr : &It->second;
  }

private:
  struct Use {
    const Op *Loop; ///< the innermost loop around the use (null: none)
    const Region *In;
    size_t Index; ///< of the using op in `In`
    bool IsLoad;
  };

  static bool isSlot(const Value *V) { return V->Def && V->Def->Code == OpCode::Var; }

  /// Is `Inner` (a loop, or null) `Outer` or inside it?
  bool isWithin(const Op *Inner, const Op *Outer) const {
    for (; Inner; Inner = EnclosingLoop.lookup(Inner))
      if (Inner == Outer)
        return true;
    return false;
  }

  void collectUses(const Region &R, const Op *Loop) {
    for (size_t I = 0; I < R.Ops.size(); ++I) {
      const Op &O = *R.Ops[I];
      for (size_t N = 0; N < O.Operands.size(); ++N) {
        const Value *V = O.Operands[N];
        if (!isSlot(V))
          continue;
        bool Access = N == 0 && (O.Code == OpCode::Load || O.Code == OpCode::Store);
        if (Access)
          Uses[V].push_back({Loop, &R, I, O.Code == OpCode::Load});
        else
          Escaping.insert(V);
      }
      for (const Value *V : O.IndexVars)
        Escaping.insert(V);
      for (const Value *V : O.LaunchCounts)
        Escaping.insert(V);
      if (O.Code == OpCode::Loop)
        EnclosingLoop[&O] = Loop;
      for (const auto &Sub : O.Regions)
        collectUses(*Sub, O.Code == OpCode::Loop ? &O : Loop);
    }
  }

  void findConfined(const Region &R) {
    for (size_t K = 0; K < R.Ops.size(); ++K) {
      const Op &O = *R.Ops[K];
      for (const auto &Sub : O.Regions)
        findConfined(*Sub);
      if (O.Code != OpCode::Loop || O.Simt || !isVaryingLoop(O))
        continue;
      // The slots declared before the loop, back to the nearest label.
      for (size_t J = K; J-- > 0;) {
        const Op &D = *R.Ops[J];
        if (D.Code == OpCode::Label)
          break;
        if (D.Code == OpCode::Var && D.result() && D.VarType->isVarying() &&
            isConfined(D.result(), O, R, J, K))
          Confined[&O].insert(D.result());
      }
    }
  }

  bool isConfined(const Value *Slot, const Op &Loop, const Region &R, size_t Decl,
                  size_t LoopIndex) const {
    if (Escaping.count(Slot))
      return false;
    auto It = Uses.find(Slot);
    if (It == Uses.end())
      return false;
    for (const Use &U : It->second) {
      bool InLoop = isWithin(U.Loop, &Loop);
      bool Initializes = !U.IsLoad && U.In == &R && U.Index > Decl && U.Index < LoopIndex;
      if (!InLoop && !Initializes)
        return false;
    }
    return true;
  }

  llvm::DenseMap<const Value *, std::vector<Use>> Uses;
  llvm::DenseMap<const Op *, const Op *> EnclosingLoop; ///< loop -> the loop around it, or null
  llvm::SmallPtrSet<const Value *, 16> Escaping;
  llvm::DenseMap<const Op *, llvm::SmallPtrSet<const Value *, 4>> Confined;
};

struct Context {
  enum Kind {
    Function,        ///< the function's own mask (entry & ~returned)
    Branch,          ///< a varying if arm, a foreach_active/unique lane set
    AllOn,           ///< everywhere, unmasked
    UniformLoopBody, ///< break/continue here are real jumps
    VaryingLoopBody, ///< break/continue clear lanes; the loop's slot is just below
    LoopMask,        ///< the lanes still running a varying loop
    ForeachBody,     ///< continue clears lanes for the rest of the chunk
    Simt,            ///< inside a SIMT branch: the threads running are the active lanes
  };
  Kind K;
  Value *MaskSlot;        ///< var slot holding this context's mask
  bool AllOnForGood = false; ///< the slot holds all-on and no lane can leave it
  /// An arm of a predicated `?:`, `&&` or `||`: the expression's temporary and the slot
  /// of the arm's condition alone (without the enclosing mask), which its store takes.
  Value *ExprTemp = nullptr;
  Value *ExprArmSlot = nullptr;
  /// LoopMask: the slots only this loop reads (LoopConfinedSlots), or null.
  const llvm::SmallPtrSet<const Value *, 4> *LoopConfined = nullptr;
};

class FunctionTransform {
public:
  FunctionTransform(Module &M, Function &F, unsigned GangWidth) : M(M), F(F), W(GangWidth), B(M) {}

  void run() {
    Types = &M.Types;
    Bool = Types->getAtomic(Type::Bool, Variability::Uniform);
    VBool = Types->getAtomic(Type::Bool, Variability::Varying);
    I32 = Types->getAtomic(Type::Int32, Variability::Uniform);
    VI32 = Types->getAtomic(Type::Int32, Variability::Varying);

    std::unique_ptr<Region> Old = std::move(F.Body);
    F.Body = std::make_unique<Region>();
    B.setInsertRegion(F.Body.get());

    // Every function but extern "C" ones receives its caller's mask.
    Value *Entry;
    bool EntryIsParam = false;
    if (!F.flags().ExternC) {
      auto MaskParam = std::make_unique<Value>(VBool, nullptr);
      MaskParam->NameHint = "__mask";
      Entry = MaskParam.get();
      F.Params.insert(F.Params.begin(), std::move(MaskParam));
      F.HasMaskParam = true;
      EntryIsParam = !F.flags().Unmasked;
      if (F.flags().Unmasked)
        Entry = allOn();
    } else {
      Entry = allOn();
    }
    FuncSlot = B.var(VBool, "__func_mask");
    const Type *Ret = F.Ty->getReturnType();
    VaryingReturns = hasVaryingJump(*Old, false, true);
    if (VaryingReturns && !Ret->isVoid())
      RetSlot = B.var(Ret, "__ret");
    if (F.SimtBody) {
      // Threads whose lane is off skip the body: in a SIMT region they would
      // run its top-level code, recursive calls included, on stale values.
      B.store(FuncSlot, Entry);
      Stack.push_back({Context::Function, FuncSlot});
      Region *Saved = enterSimt();
      region(*Old);
      leaveSimt(Saved);
      std::vector<Value *> Undefined; // the value an off lane gets back
      if (!Ret->isVoid())
        Undefined.push_back(B.load(B.var(Ret, "__off_lane_result")));
      B.create(OpCode::Return, nullptr, Undefined);
      return;
    }
    if (!EntryIsParam || !F.AllOnCopy)
      return body(*Old, Entry);
    // `if (all(__mask)) { the body all-on } else { the body }`: the copy's
    // values are fresh, the original body stays in the else arm.
    Region Copy;
    std::map<const Value *, Value *> Map;
    cloneRegionInto(*Old, Copy, Map, F);
    Op *If = B.create(OpCode::If, nullptr, {B.create(OpCode::All, Bool, {Entry})->result()});
    Region *Then = B.addRegion(If), *Else = B.addRegion(If);
    B.setInsertRegion(Then);
    body(Copy, allOn());
    B.setInsertRegion(Else);
    body(*Old, Entry);
  }

private:
  /// The function's body under the entry mask `Entry`.
  void body(Region &R, Value *Entry) {
    Confined = std::make_unique<LoopConfinedSlots>(R);
    B.store(FuncSlot, Entry);
    Stack.push_back({Context::Function, FuncSlot});
    region(R);
    if (VaryingReturns)
      emitReturnFromSlot();
    Stack.pop_back();
  }

  // Masks.
  Value *allOn() { return B.create(OpCode::MaskAllOn, VBool)->result(); }
  Value *mask() { return B.load(Stack.back().MaskSlot); }
  Value *any(Value *M) { return B.create(OpCode::Any, Bool, {M})->result(); }
  Value *bin(BinaryOp Kind, Value *L, Value *R, const Type *T) {
    Op *O = B.create(OpCode::Binary, T, {L, R});
    O->BinOp = Kind;
    return O->result();
  }
  Value *notV(Value *V) {
    Op *O = B.create(OpCode::Unary, V->Ty, {V});
    O->UnOp = UnaryOp::Not;
    return O->result();
  }
  Value *andMask(Value *A, Value *Bm) { return bin(BinaryOp::BitAnd, A, Bm, VBool); }
  Value *andNotMask(Value *A, Value *Bm) { return andMask(A, notV(Bm)); }
  Value *broadcast(Value *U, const Type *VT) {
    return B.create(OpCode::Broadcast, VT, {U})->result();
  }
  Value *programIndex() {
    Op *O = B.create(OpCode::Builtin, VI32);
    O->BuiltinId = BuiltinVar::ProgramIndex;
    return O->result();
  }
  /// The lanes whose programIndex is `Lane` (a uniform int32).
  Value *laneMask(Value *Lane) {
    return bin(BinaryOp::EQ, programIndex(), broadcast(Lane, VI32), VBool);
  }
  Value *freshSlot(Value *Init, const char *Name) {
    Value *S = B.var(VBool, Name);
    B.store(S, Init);
    return S;
  }

  /// Emits `if (Cond) { ... }` with the builder inside the then-region; returns
  /// the region to restore afterwards.
  Region *openIf(Value *Cond) {
    Op *If = B.create(OpCode::If, nullptr, {Cond});
    Region *Saved = B.insertRegion();
    B.setInsertRegion(B.addRegion(If));
    B.addRegion(If); // empty else
    return Saved;
  }
  /// `loop { body }` with `yield true`; the builder is left in the body.
  Region *openLoop() {
    Op *L = B.create(OpCode::Loop, nullptr);
    Region *Saved = B.insertRegion();
    B.setInsertRegion(B.addRegion(L));
    B.create(OpCode::Yield, nullptr, {B.constBool(true)});
    Region *Body = B.addRegion(L);
    B.addRegion(L); // empty step
    B.setInsertRegion(Body);
    return Saved;
  }
  void breakUnless(Value *Cond) {
    Region *Saved = openIf(notV(Cond));
    B.create(OpCode::Break, nullptr);
    B.setInsertRegion(Saved);
  }

  /// The outermost SIMT op of a region: only the threads whose lanes are
  /// active run it (`if (mask)`, itself a per-thread branch), and inside it
  /// the mask is all-on, since a thread that runs is an active lane. Nested
  /// SIMT ops need no guard of their own. The guard is made where the mask is
  /// all-on for good too: on NVPTX its condition is an opaque copy until the
  /// LLVM pipeline is done (backend/NVPTXSimt.cpp), so no threading can carry a
  /// block with a warp operation from before the region into paths that the
  /// region's plain conditions (a SIMT loop's test) tell apart; the copy of a
  /// constant is folded away after the pipeline. Returns the region to restore.
  Region *enterSimt() {
    if (SimtDepth++ > 0)
      return nullptr;
    Op *Guard = B.create(OpCode::If, nullptr, {mask()});
    Guard->Simt = true;
    Region *Saved = B.insertRegion();
    B.setInsertRegion(B.addRegion(Guard));
    B.addRegion(Guard); // empty else
    Stack.push_back({Context::Simt, freshSlot(allOn(), "__simt_mask"), true});
    return Saved;
  }
  /// Whether the current mask is all-on wherever the current op runs: an
  /// everywhere block, a SIMT region, or a full foreach chunk that no lane
  /// leaves by continue or return (UniformLoopBody shares its parent's slot).
  bool maskIsAllOnForGood() const {
    for (auto It = Stack.rbegin(); It != Stack.rend(); ++It)
      if (It->K != Context::UniformLoopBody)
        return It->AllOnForGood;
    return false;
  }
  void leaveSimt(Region *Saved) {
    if (--SimtDepth > 0)
      return;
    Stack.pop_back();
    B.setInsertRegion(Saved);
  }

  Value *remap(Value *V) {
    auto It = Replaced.find(V);
    return It == Replaced.end() ? V : It->second;
  }

  // Regions and ops.
  void region(Region &R) {
    std::vector<std::unique_ptr<Op>> Ops = std::move(R.Ops);
    R.Ops.clear();
    std::vector<Region *> Guards; // regions opened by `if (any(mask))` guards
    for (auto &O : Ops) {
      // In and after a SIMT op lanes leave by real jumps: there is no mask to
      // test (and a vote after a thread's real return would wait for it).
      bool MayNarrow = SimtDepth == 0 && !O->Simt && mayNarrowMask(*O);
      op(std::move(O));
      // After lanes may have left, run the rest only if some lane remains.
      if (MayNarrow)
        Guards.push_back(openIf(any(mask())));
    }
    for (auto It = Guards.rbegin(); It != Guards.rend(); ++It)
      B.setInsertRegion(*It);
  }

  /// Can lanes leave the current context inside `O` (so later ops need a guard)?
  static bool mayNarrowMask(const Op &O) {
    switch (O.Code) {
    case OpCode::Break:
    case OpCode::Continue:
    case OpCode::Return:
      return true;
    case OpCode::If:
      for (const auto &Sub : O.Regions)
        if (hasVaryingJump(*Sub, true, false) || hasVaryingJump(*Sub, true, true))
          return true;
      return false;
    case OpCode::Loop:
    case OpCode::Foreach:
    case OpCode::ForeachActive:
    case OpCode::ForeachUnique:
      for (const auto &Sub : O.Regions)
        if (hasVaryingJump(*Sub, true, true))
          return true;
      return false;
    default:
      return false;
    }
  }

  void op(std::unique_ptr<Op> O) {
    for (Value *&V : O->Operands)
      V = remap(V);
    for (Value *&V : O->LaunchCounts)
      V = remap(V);
    B.setLoc(O->Loc);
    switch (O->Code) {
    case OpCode::If:
      return ifOp(*O);
    case OpCode::Loop:
      return loopOp(*O);
    case OpCode::Break:
    case OpCode::Continue:
      return jump(*O);
    case OpCode::Return:
      return returnOp(*O);
    case OpCode::Foreach:
      return foreachOp(*O);
    case OpCode::ForeachActive:
      return foreachActive(*O);
    case OpCode::ForeachUnique:
      return foreachUnique(*O);
    case OpCode::Everywhere:
    case OpCode::Unmasked: {
      Stack.push_back({Context::AllOn, freshSlot(allOn(), "__all_on"), true});
      region(*O->Regions[0]);
      Stack.pop_back();
      return;
    }
    case OpCode::Crev:
      return crev(std::move(O));
    default:
      break;
    }
    // Straight-line op: keep it, with its mask where it needs one.
    if (O->Code == OpCode::Var && O->result())
      SlotDepth[O->result()] = Stack.size();
    if (needsMask(*O) && !isDeadLaneStore(*O))
      O->Mask = isExpressionTempStore(*O) ? B.load(Stack.back().ExprArmSlot) : mask();
    O->ParentRegion = B.insertRegion();
    B.insertRegion()->Ops.push_back(std::move(O));
  }

  /// The store of a predicated `?:`, `&&` or `||` arm into the expression's temporary
  /// (ir/Lowering.cpp): the temporary is a value, read only where the expression is, so
  /// its lanes that are off in the enclosing mask are never used, and the store may take
  /// the arm's condition alone. `c ? a : b` is then `select(c, a, b)` and `a || b`
  /// `a | b`, as ISPC's, with no mask and-ed into them (which LLVM cannot fold away).
  bool isExpressionTempStore(const Op &O) {
    return O.Code == OpCode::Store && Stack.back().ExprTemp &&
           O.Operands[0] == Stack.back().ExprTemp;
  }

  /// The temporary a predicated `?:`, `&&` or `||` stores its value into: the slot every
  /// arm's last op stores to (null when the if is not of that shape).
  static Value *expressionTemp(const Op &If) {
    if (!If.Predicated || !If.FromExpression)
      return nullptr;
    Value *Temp = nullptr;
    for (const auto &Arm : If.Regions) {
      if (Arm->Ops.empty())
        continue;
      const Op &Last = *Arm->Ops.back();
      if (Last.Code != OpCode::Store || !Last.Operands[0]->Def ||
          Last.Operands[0]->Def->Code != OpCode::Var || (Temp && Temp != Last.Operands[0]))
        return nullptr;
      Temp = Last.Operands[0];
    }
    return Temp;
  }

  /// A store into one of the function's own slots under the function's mask
  /// (or all-on): the lanes that are off there are off for the rest of the
  /// call and their slot values are never read again (a lane re-enabled by
  /// everywhere/crev reads an unspecified value, SPEC 2.2), so it may write
  /// every lane. Unmasked, LLVM promotes the slot to registers cleanly.
  /// The same holds for a slot declared in a foreach body, a varying loop's
  /// body or a varying if's arm, stored under that body's or arm's mask: the
  /// lanes off there (past the end, done or broken out, off at the if) are off
  /// for the rest of the iteration or arm, and the next one declares the slot
  /// anew (ISPC, too, initializes a declared variable with an unmasked store).
  /// Masked, each such store would keep the previous iteration's value for the
  /// lanes that are off: a register per variable carried around the loop and a
  /// blend per store (on NVPTX, 12 more registers and a quarter of the
  /// occupancy for Black-Scholes; on AVX2 three blends per key in the scatter
  /// loop of examples/ispc/sort).
  bool isDeadLaneStore(const Op &O) {
    if (O.Code != OpCode::Store || !O.Operands[0]->Def || O.Operands[0]->Def->Code != OpCode::Var)
      return false;
    for (size_t I = Stack.size(); I-- > 0;) {
      Context::Kind K = Stack[I].K;
      if (K == Context::UniformLoopBody)
        continue; // shares its parent's mask
      if (K == Context::ForeachBody || K == Context::VaryingLoopBody || K == Context::Branch) {
        auto It = SlotDepth.find(O.Operands[0]);
        return It != SlotDepth.end() && It->second > I;
      }
      if (K == Context::LoopMask)
        return Stack[I].LoopConfined && Stack[I].LoopConfined->contains(O.Operands[0]);
      return K == Context::Function || K == Context::AllOn || K == Context::Simt;
    }
    return false;
  }

  void ifOp(Op &O) {
    Value *C = O.Operands[0];
    if (!C->isVarying() || O.Simt) {
      Region *SavedSimt = O.Simt ? enterSimt() : nullptr;
      Op *If = B.create(OpCode::If, nullptr, {C});
      If->Coherent = O.Coherent;
      If->Simt = O.Simt;
      Region *Saved = B.insertRegion();
      for (auto &Sub : O.Regions) {
        B.setInsertRegion(B.addRegion(If));
        region(*Sub);
      }
      B.setInsertRegion(Saved);
      if (O.Simt)
        leaveSimt(SavedSimt);
      return;
    }
    Value *ParentSlot = Stack.back().MaskSlot;
    Value *ExprTemp = expressionTemp(O);
    if (ExprTemp)
      ExprTemp = remap(ExprTemp);
    for (size_t Arm = 0; Arm < O.Regions.size(); ++Arm) {
      if (O.Regions[Arm]->Ops.empty())
        continue;
      // Re-read the parent's mask: the then-arm may have removed lanes.
      Value *Cur = B.load(ParentSlot);
      Value *M = Arm == 0 ? andMask(Cur, C) : andNotMask(Cur, C);
      Value *Slot = freshSlot(M, Arm == 0 ? "__then_mask" : "__else_mask");
      // A predicated arm (ir/IfPredication.cpp) runs whatever the mask: its
      // stores are blends, cheaper than testing the mask and branching.
      Region *Saved = O.Predicated ? B.insertRegion() : openIf(any(B.load(Slot)));
      Value *ArmSlot = ExprTemp ? freshSlot(Arm == 0 ? C : notV(C), "__expr_arm") : nullptr;
      Stack.push_back({Context::Branch, Slot, false, ExprTemp, ArmSlot});
      region(*O.Regions[Arm]);
      Stack.pop_back();
      B.setInsertRegion(Saved);
    }
  }

  void loopOp(Op &O) {
    if (!isVaryingLoop(O) || O.Simt) {
      // A SIMT loop is built like a uniform one: its varying condition and
      // its break/continue are per-thread branches.
      Region *SavedSimt = O.Simt ? enterSimt() : nullptr;
      Op *L = B.create(OpCode::Loop, nullptr);
      L->DoWhile = O.DoWhile;
      L->Simt = O.Simt;
      Region *Saved = B.insertRegion();
      // A return in the body under varying control clears the lanes of the
      // contexts around the loop; when none is left the uniform loop must
      // stop too: its step and every store in it are masked, so it would
      // never reach its exit (ISPC leaves such a loop as well: its uniform
      // stores are not masked). Difftest seed 20228.
      bool LeaveWhenNoLaneLeft = VaryingReturns && !maskIsAllOnForGood() &&
                                 O.Regions.size() > 1 && containsOp(*O.Regions[1], OpCode::Return);
      for (size_t I = 0; I < O.Regions.size(); ++I) {
        B.setInsertRegion(B.addRegion(L));
        // The body's break/continue are real jumps of this uniform loop.
        if (I == 1)
          Stack.push_back({Context::UniformLoopBody, Stack.back().MaskSlot});
        region(*O.Regions[I]);
        if (I == 1 && LeaveWhenNoLaneLeft)
          breakUnless(any(mask()));
        if (I == 1)
          Stack.pop_back();
      }
      B.setInsertRegion(Saved);
      if (O.Simt)
        leaveSimt(SavedSimt);
      return;
    }
    // loop { [cond]; body under a body mask; step; [do-while cond] }
    Value *LoopSlot = freshSlot(mask(), "__loop_mask");
    Region *Saved = openLoop();
    Stack.push_back({Context::LoopMask, LoopSlot});
    Stack.back().LoopConfined = Confined ? Confined->of(O) : nullptr;
    auto EvalCond = [&] {
      Region &Cond = *O.Regions[0];
      std::unique_ptr<Op> Yield = std::move(Cond.Ops.back());
      Cond.Ops.pop_back();
      region(Cond);
      Value *C = remap(Yield->Operands[0]);
      if (!C->isVarying())
        C = broadcast(C, VBool);
      B.store(LoopSlot, andMask(B.load(LoopSlot), C));
      breakUnless(any(B.load(LoopSlot)));
    };
    if (!O.DoWhile)
      EvalCond();
    Value *BodySlot = freshSlot(B.load(LoopSlot), "__body_mask");
    Stack.push_back({Context::VaryingLoopBody, BodySlot});
    region(*O.Regions[1]);
    Stack.pop_back();
    // Continued lanes come back for the step; broken ones left LoopSlot.
    region(*O.Regions[2]);
    if (O.DoWhile)
      EvalCond();
    else
      breakUnless(any(B.load(LoopSlot)));
    Stack.pop_back();
    B.setInsertRegion(Saved);
  }

  /// Clears the current lanes from every context up to the target.
  void clearLanesUpTo(size_t TargetDepth, Value *Lanes) {
    for (size_t I = Stack.size(); I-- > TargetDepth;) {
      B.store(Stack[I].MaskSlot, andNotMask(B.load(Stack[I].MaskSlot), Lanes));
    }
  }

  void jump(Op &O) {
    size_t Body = Stack.size();
    while (Body > 0 && Stack[Body - 1].K != Context::UniformLoopBody &&
           Stack[Body - 1].K != Context::VaryingLoopBody &&
           Stack[Body - 1].K != Context::ForeachBody)
      --Body;
    if (Body == 0 || Stack[Body - 1].K == Context::UniformLoopBody) {
      // A uniform loop reached under uniform control: a real jump.
      B.create(O.Code, nullptr);
      return;
    }
    size_t Target = Body - 1;
    // A break leaves a varying loop for good: clear the loop mask below the
    // body too. (In foreach, sema rejects break; continue ends the chunk.)
    if (O.Code == OpCode::Break && Stack[Target].K == Context::VaryingLoopBody)
      --Target;
    clearLanesUpTo(Target, mask());
  }

  void returnOp(Op &O) {
    if (!VaryingReturns) {
      B.create(OpCode::Return, nullptr, O.Operands);
      return;
    }
    Value *Lanes = mask();
    if (RetSlot && !O.Operands.empty()) {
      Op *S = B.create(OpCode::Store, nullptr, {RetSlot, O.Operands[0]});
      S->Mask = Lanes;
    }
    clearLanesUpTo(0, Lanes);
    // Leave as soon as no lane is left to run.
    Region *Saved = openIf(notV(any(B.load(FuncSlot))));
    emitReturnFromSlot();
    B.setInsertRegion(Saved);
  }

  void emitReturnFromSlot() {
    std::vector<Value *> Ops;
    if (RetSlot)
      Ops.push_back(B.load(RetSlot));
    B.create(OpCode::Return, nullptr, Ops);
  }

  /// Runs `Body` once per gang-sized chunk of [Begin, End) for the innermost
  /// dimension, with `Outer` (uniform) values for the outer ones.
  void foreachDim(Op &O, size_t Dim, Value *Entry) {
    Value *Begin = O.Operands[2 * Dim], *End = O.Operands[2 * Dim + 1];
    bool Innermost = Dim + 1 == O.IndexVars.size();
    const Type *IdxTy = Begin->Ty;
    const Type *VIdxTy = Types->withVariability(IdxTy, Variability::Varying);
    Value *Counter = B.var(IdxTy, "__foreach_counter");
    B.store(Counter, Begin);
    if (Innermost)
      fullChunks(O, Dim, Entry, Counter);
    Region *Saved = openLoop();
    Value *Base = B.load(Counter);
    breakUnless(bin(BinaryOp::LT, Base, End, Bool));
    if (Innermost) {
      Value *PI = B.create(OpCode::Convert, VIdxTy, {programIndex()})->result();
      PI->Def->Cast = CastKind::IntegralCast;
      Value *Idx = bin(BinaryOp::Add, broadcast(Base, VIdxTy), PI, VIdxTy);
      Value *InRange = bin(BinaryOp::LT, Idx, broadcast(End, VIdxTy), VBool);
      // A uniform index slot (ir/VariabilityAnalysis.cpp) holds the chunk's first index.
      B.store(O.IndexVars[Dim], isUniformSlot(O.IndexVars[Dim]) ? Base : Idx);
      Value *BodySlot = freshSlot(andMask(Entry, InRange), "__foreach_mask");
      Stack.push_back({Context::ForeachBody, BodySlot});
      region(*O.Regions[0]);
      Stack.pop_back();
      B.store(Counter, bin(BinaryOp::Add, B.load(Counter), B.constInt(W, IdxTy), IdxTy));
    } else {
      B.store(O.IndexVars[Dim], isUniformSlot(O.IndexVars[Dim]) ? Base : broadcast(Base, VIdxTy));
      foreachDim(O, Dim + 1, Entry);
      B.store(Counter, bin(BinaryOp::Add, B.load(Counter), B.constInt(1, IdxTy), IdxTy));
    }
    B.setInsertRegion(Saved);
  }

  static bool isUniformSlot(Value *Slot) { return !Slot->Ty->getPointee()->isVarying(); }

  /// The full chunks of the innermost dimension, as ISPC runs them: when every
  /// lane of `Entry` is on, `while (End - counter >= W)` runs a copy of the
  /// body with the all-on mask (no in-range test, unmasked memory ops once
  /// LLVM folds the constant mask) and advances the counter; the general loop
  /// after it then sees only the last, partial chunk (or every chunk when some
  /// lane of `Entry` is off).
  void fullChunks(Op &O, size_t Dim, Value *Entry, Value *Counter) {
    Value *Begin = O.Operands[2 * Dim], *End = O.Operands[2 * Dim + 1];
    const Type *IdxTy = Begin->Ty;
    const Type *VIdxTy = Types->withVariability(IdxTy, Variability::Varying);
    Region *SavedIf = openIf(B.create(OpCode::All, Bool, {Entry})->result());
    Region *SavedLoop = openLoop();
    Value *Base = B.load(Counter);
    Value *Left = bin(BinaryOp::Sub, End, Base, IdxTy);
    breakUnless(bin(BinaryOp::GE, Left, B.constInt(W, IdxTy), Bool));
    if (isUniformSlot(O.IndexVars[Dim])) {
      B.store(O.IndexVars[Dim], Base);
    } else {
      Value *PI = B.create(OpCode::Convert, VIdxTy, {programIndex()})->result();
      PI->Def->Cast = CastKind::IntegralCast;
      B.store(O.IndexVars[Dim], bin(BinaryOp::Add, broadcast(Base, VIdxTy), PI, VIdxTy));
    }
    // The copy's own values are fresh; the general loop keeps the original body.
    Region Copy;
    std::map<const Value *, Value *> Map;
    cloneRegionInto(*O.Regions[0], Copy, Map, F);
    // No guard is needed inside unless a lane can leave the chunk early.
    bool LanesStay = !hasVaryingJump(Copy, true, false) && !hasVaryingJump(Copy, true, true);
    Stack.push_back({Context::ForeachBody, freshSlot(allOn(), "__foreach_full_mask"), LanesStay});
    region(Copy);
    Stack.pop_back();
    // Cannot overflow: counter + W <= End. (`nsw` lets LLVM widen the index.)
    Value *Next = bin(BinaryOp::Add, B.load(Counter), B.constInt(W, IdxTy), IdxTy);
    Next->Def->NoSignedWrap = IdxTy->isSignedInteger();
    B.store(Counter, Next);
    B.setInsertRegion(SavedLoop);
    B.setInsertRegion(SavedIf);
  }

  /// ISPC: "the execution mask starts out all on at the start of each foreach
  /// loop iteration", whatever the mask around the loop (a foreach under a
  /// varying if, or in a function called under one, runs every index).
  void foreachOp(Op &O) {
    if (O.Tiled && O.IndexVars.size() > 1) {
      std::vector<Value *> Corners(O.IndexVars.size());
      tiledDim(O, 0, tiledSpans(O.IndexVars.size()), Corners);
      return;
    }
    foreachDim(O, 0, allOn());
  }

  /// How ISPC packs a gang into the tile of a foreach_tiled over `Dims`
  /// dimensions (its lGetSpans): from the outermost, a dimension gets a span of
  /// 1 while the dimensions after it could use up the gang two by two, else 4
  /// for the last outer one of a gang of 16 or more, else 2; the innermost the
  /// lanes left. At 8 lanes, 2D: 2 x 4, 3D: 2 x 2 x 2; at 32 lanes, 2D: 4 x 8.
  std::vector<unsigned> tiledSpans(size_t Dims) const {
    std::vector<unsigned> Spans(Dims);
    unsigned Items = W;
    for (size_t D = 0; D + 1 < Dims; ++D) {
      size_t After = Dims - 1 - D;
      unsigned Log2 = 0;
      while ((2u << Log2) <= Items)
        ++Log2;
      Spans[D] = After >= Log2 ? 1 : Items >= 16 && After == 1 ? 4 : 2;
      Items /= Spans[D];
    }
    Spans[Dims - 1] = Items;
    return Spans;
  }

  /// The loop over dimension `Dim` of a multi-dimensional foreach_tiled: its tile
  /// corners step by the span; inside the innermost, lane l's index in dimension
  /// d is the corner plus (l / (the spans after d multiplied)) % span(d), and the
  /// lanes past an end are off (the mask starts all on, as foreach's).
  void tiledDim(Op &O, size_t Dim, const std::vector<unsigned> &Spans,
                std::vector<Value *> &Corners) {
    Value *Begin = O.Operands[2 * Dim], *End = O.Operands[2 * Dim + 1];
    const Type *IdxTy = Begin->Ty;
    Corners[Dim] = B.var(IdxTy, "__foreach_tile");
    B.store(Corners[Dim], Begin);
    Region *Saved = openLoop();
    breakUnless(bin(BinaryOp::LT, B.load(Corners[Dim]), End, Bool));
    if (Dim + 1 < Spans.size()) {
      tiledDim(O, Dim + 1, Spans, Corners);
    } else {
      Value *InRange = allOn();
      unsigned StrideLog2 = 0; // log2 of the spans after the dimension (all powers of 2)
      for (size_t D = Spans.size(); D-- > 0;) {
        const Type *T = O.Operands[2 * D]->Ty;
        const Type *VT = Types->withVariability(T, Variability::Varying);
        Value *Offset = bin(BinaryOp::BitAnd,
                            bin(BinaryOp::Shr, programIndex(),
                                broadcast(B.constInt(StrideLog2, I32), VI32), VI32),
                            broadcast(B.constInt(Spans[D] - 1, I32), VI32), VI32);
        if (VT != VI32) {
          Offset = B.create(OpCode::Convert, VT, {Offset})->result();
          Offset->Def->Cast = CastKind::IntegralCast;
        }
        Value *Corner = B.load(Corners[D]);
        Value *Idx = bin(BinaryOp::Add, broadcast(Corner, VT), Offset, VT);
        InRange = andMask(InRange, bin(BinaryOp::LT, Idx, broadcast(O.Operands[2 * D + 1], VT), VBool));
        B.store(O.IndexVars[D], isUniformSlot(O.IndexVars[D]) ? Corner : Idx);
        for (unsigned S = Spans[D]; S > 1; S /= 2)
          ++StrideLog2;
      }
      Stack.push_back({Context::ForeachBody, freshSlot(InRange, "__foreach_mask")});
      region(*O.Regions[0]);
      Stack.pop_back();
    }
    B.store(Corners[Dim],
            bin(BinaryOp::Add, B.load(Corners[Dim]), B.constInt(Spans[Dim], IdxTy), IdxTy));
    B.setInsertRegion(Saved);
  }

  /// `loop { if !any(remaining) break; l = first lane; remaining &= ~lane(l); Body(l) }`
  template <typename BodyFn> void forEachActiveLane(Value *Lanes, const char *Name, BodyFn Body) {
    Value *Remaining = freshSlot(Lanes, Name);
    Region *Saved = openLoop();
    breakUnless(any(B.load(Remaining)));
    Value *Lane = B.create(OpCode::FirstLane, I32, {B.load(Remaining)})->result();
    Body(Lane, Remaining);
    B.setInsertRegion(Saved);
  }

  void foreachActive(Op &O) {
    forEachActiveLane(mask(), "__active_lanes", [&](Value *Lane, Value *Remaining) {
      Value *One = laneMask(Lane);
      B.store(Remaining, andNotMask(B.load(Remaining), One));
      Value *Idx = Lane;
      const Type *IdxTy = O.IndexVars[0]->Ty->getPointee();
      if (IdxTy != I32) {
        Op *C = B.create(OpCode::Convert, IdxTy, {Lane});
        C->Cast = CastKind::IntegralCast;
        Idx = C->result();
      }
      B.store(O.IndexVars[0], Idx);
      Stack.push_back({Context::Branch, freshSlot(One, "__lane_mask")});
      region(*O.Regions[0]);
      Stack.pop_back();
    });
  }

  void foreachUnique(Op &O) {
    Value *Seq = O.Operands[0];
    forEachActiveLane(mask(), "__unique_lanes", [&](Value *Lane, Value *Remaining) {
      const Type *UTy = Types->withVariability(Seq->Ty, Variability::Uniform);
      Value *V = B.create(OpCode::Extract, UTy, {Seq, Lane})->result();
      Value *Same = bin(BinaryOp::EQ, Seq, broadcast(V, Seq->Ty), VBool);
      Value *Lanes = andMask(B.load(Remaining), Same);
      B.store(Remaining, andNotMask(B.load(Remaining), Lanes));
      B.store(O.IndexVars[0], V);
      Stack.push_back({Context::Branch, freshSlot(Lanes, "__unique_mask")});
      region(*O.Regions[0]);
      Stack.pop_back();
    });
  }

  void crev(std::unique_ptr<Op> O) {
    Value *Result = O->result();
    Value *ResultSlot = Result ? B.var(Result->Ty, "__crev_result") : nullptr;
    forEachActiveLane(mask(), "__crev_lanes", [&](Value *Lane, Value *Remaining) {
      B.store(Remaining, andNotMask(B.load(Remaining), laneMask(Lane)));
      std::vector<Value *> Args;
      for (Value *A : O->Operands)
        Args.push_back(A->isVarying()
                           ? B.create(OpCode::Extract,
                                      Types->withVariability(A->Ty, Variability::Uniform),
                                      {A, Lane})
                                 ->result()
                           : A);
      const Type *RetTy = O->Callee->Ty->getReturnType();
      Value *AllOn = allOn();
      Op *Call = B.create(OpCode::Call, RetTy->isVoid() ? nullptr : RetTy, Args);
      Call->Callee = O->Callee;
      Call->Mask = AllOn;
      if (ResultSlot) {
        Value *R = Call->result();
        Value *Inserted =
            B.create(OpCode::Insert, Result->Ty, {B.load(ResultSlot), Lane, R})->result();
        B.store(ResultSlot, Inserted);
      }
    });
    if (ResultSlot)
      Replaced[Result] = B.load(ResultSlot);
    // The old op dies here; later uses were remapped to the loaded result.
    Dead.push_back(std::move(O));
  }

  Module &M;
  Function &F;
  unsigned W;
  Builder B;
  TypeContext *Types = nullptr;
  const Type *Bool = nullptr, *VBool = nullptr, *I32 = nullptr, *VI32 = nullptr;
  Value *FuncSlot = nullptr;
  Value *RetSlot = nullptr;
  bool VaryingReturns = false;
  unsigned SimtDepth = 0; ///< SIMT ops around the current position
  std::vector<Context> Stack;
  /// Each slot declared in the body: the size of Stack where it was declared.
  llvm::DenseMap<const Value *, size_t> SlotDepth;
  std::unique_ptr<LoopConfinedSlots> Confined; ///< of the body being transformed
  llvm::DenseMap<Value *, Value *> Replaced;
  std::vector<std::unique_ptr<Op>> Dead; // keeps replaced values alive for remapping
};

} // namespace

void runDivergenceTransform(Module &M, unsigned GangWidth) {
  for (auto &F : M.Functions) {
    if (!F->Body) {
      if (!F->flags().ExternC && !F->IsStdlib) {
        auto MaskParam =
            std::make_unique<Value>(M.Types.getAtomic(Type::Bool, Variability::Varying), nullptr);
        MaskParam->NameHint = "__mask";
        F->Params.insert(F->Params.begin(), std::move(MaskParam));
        F->HasMaskParam = true;
      }
      continue;
    }
    FunctionTransform(M, *F, GangWidth).run();
  }
}

} // namespace spmdc::ir
