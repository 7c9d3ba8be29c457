// Variability analysis: varying values and slots that are provably uniform or affine in
// programIndex.
//
// The front end types values by what the source says; a `varying int` local
// that only ever holds one value per gang, or a foreach index, pays for vector
// registers and gathers it does not need. This pass runs on the structured IR
// (varying control flow still explicit, before the divergence transform) and
//  1. finds varying `var` slots that are uniform: every store writes a uniform
//     value, no store sits under varying control flow between the slot's
//     declaration and the store, and the address is only loaded from and
//     stored to. This is an optimistic fixpoint: loop-carried slots
//     (`sum += uniform`) are uniform unless a store proves otherwise. Such slots
//     get a uniform type; their loads, and pure ops whose varying operands are
//     all uniform, are computed once as uniform ops whose result is broadcast,
//     so the varying value keeps its identity and every user stays valid.
//     Varying `if` and loop conditions that turn out uniform become uniform.
//  2. makes the outer index slots of a (non-tiled) foreach uniform and lets the
//     innermost slot hold the chunk's first index; the divergence transform
//     then stores the uniform values (docs/design-spmd-ir.md), and loads of the
//     innermost slot become `broadcast(first) + programIndex`.
//  3. records, for every varying integer that is `b + programIndex * s` with b
//     uniform and s a constant, Value::AffineBase = b and AffineStride = s,
//     materializing b as uniform ops before the value. Varying integer slots
//     whose stores are all affine with one stride get a uniform companion slot
//     holding b, so `int c = y * w + x; a[c + 1]` stays affine through `c`.
// The divergence analysis of Karrenberg and Hack, and of the CREV paper's
// references, restricted to what this structured IR needs.
#include "ir/VariabilityAnalysis.h"

#include "ir/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace spmdc::ir {

namespace {

bool isPure(OpCode C) {
  return C == OpCode::Unary || C == OpCode::Binary || C == OpCode::Convert || C == OpCode::Select ||
         C == OpCode::ElementAddr || C == OpCode::FieldAddr;
}

/// &v[i] or &v->f into varying data gives each lane the address of its own
/// element, which differs between lanes even when `i` does not.
bool isAddressIntoVaryingData(const Op &D) {
  return (D.Code == OpCode::ElementAddr || D.Code == OpCode::FieldAddr) &&
         D.Operands[0]->Ty->isPointer() && D.Operands[0]->Ty->getPointee()->isVarying();
}

/// A load through a varying pointer to uniform data: every lane reads the same
/// element when the pointer is uniform.
bool isLoadOfUniformData(const Op &D) {
  const Type *AddrTy = D.Operands[0]->Ty;
  return AddrTy->isVarying() && AddrTy->getPointee()->isScalar() &&
         !AddrTy->getPointee()->isVarying();
}

/// What the pass knows about one varying scalar slot.
struct SlotUses {
  Op *VarOp = nullptr;
  Region *Home = nullptr; ///< the region declaring the slot
  std::vector<Op *> Stores, Loads;
  Op *Foreach = nullptr; ///< the foreach writing it, if an index slot
  bool Innermost = false;
  bool Escapes = false;
};

class FunctionAnalysis {
public:
  FunctionAnalysis(Module &M, Function &F) : M(M), F(F), B(M) {}

  void run() {
    collect(*F.Body, nullptr);
    findUniformSlots();
    findAffineSlots();
    rewriteRegion(*F.Body);
  }

private:
  // Collection: parents, slots and how their addresses are used.
  void collect(Region &R, Op *Parent) {
    RegionParent[&R] = Parent;
    for (auto &O : R.Ops) {
      OpRegion[O.get()] = &R;
      if (O->Code == OpCode::Var && O->VarType->isVarying() && O->VarType->isScalar() &&
          !O->VarType->isBool())
        Slots[O->result()] = SlotUses{O.get(), &R, {}, {}, nullptr, false, false};
      for (size_t I = 0; I < O->Operands.size(); ++I) {
        auto It = Slots.find(O->Operands[I]);
        if (It == Slots.end())
          continue;
        if (I == 0 && O->Code == OpCode::Load)
          It->second.Loads.push_back(O.get());
        else if (I == 0 && O->Code == OpCode::Store)
          It->second.Stores.push_back(O.get());
        else
          It->second.Escapes = true;
      }
      for (size_t I = 0; I < O->IndexVars.size(); ++I) {
        auto It = Slots.find(O->IndexVars[I]);
        if (It == Slots.end())
          continue;
        if (O->Code == OpCode::Foreach && !O->Tiled) {
          It->second.Foreach = O.get();
          It->second.Innermost = I + 1 == O->IndexVars.size();
        } else {
          It->second.Escapes = true;
        }
      }
      for (Value *V : O->LaunchCounts)
        if (auto It = Slots.find(V); It != Slots.end())
          It->second.Escapes = true;
      for (auto &Sub : O->Regions)
        collect(*Sub, O.get());
    }
  }

  // Uniformity under the current assumption `Uniform` (the candidate slots).
  bool uniformVal(Value *V) {
    if (!V->isVarying())
      return true;
    if (!V->Def)
      return false;
    auto It = Memo.find(V);
    if (It != Memo.end())
      return It->second;
    Op &D = *V->Def;
    bool R = false;
    if (D.Code == OpCode::Broadcast)
      R = true;
    else if (D.Code == OpCode::Load)
      R = Uniform.count(D.Operands[0]) != 0 ||
          (isLoadOfUniformData(D) && uniformVal(D.Operands[0]));
    else if (isPure(D.Code) && !isAddressIntoVaryingData(D)) {
      R = true;
      for (Value *O : D.Operands)
        R = R && uniformVal(O);
    }
    Memo[V] = R;
    return R;
  }

  /// Does `R` contain a break/continue/return below a varying branch?
  bool jumpUnderVarying(Region &R, bool Under) {
    for (auto &O : R.Ops) {
      switch (O->Code) {
      case OpCode::Break:
      case OpCode::Continue:
      case OpCode::Return:
        if (Under)
          return true;
        break;
      default:
        break;
      }
      bool SubUnder = Under || isVaryingRegionOp(*O);
      for (auto &Sub : O->Regions)
        if (jumpUnderVarying(*Sub, SubUnder))
          return true;
    }
    return false;
  }

  /// Does `O` run (some of) its regions under a narrower mask than its own?
  bool isVaryingRegionOp(Op &O) {
    switch (O.Code) {
    case OpCode::If:
      return !uniformVal(O.Operands[0]);
    case OpCode::Loop: {
      Region &Cond = *O.Regions[0];
      Op *Y = Cond.Ops.empty() ? nullptr : Cond.Ops.back().get();
      if (Y && Y->Code == OpCode::Yield && !uniformVal(Y->Operands[0]))
        return true;
      for (auto &Sub : O.Regions)
        if (jumpUnderVarying(*Sub, false))
          return true;
      return false;
    }
    case OpCode::Foreach:
    case OpCode::ForeachActive:
    case OpCode::ForeachUnique:
      return true;
    default:
      return false;
    }
  }

  /// Is `O` (in the slot's home region or nested in it) under varying control
  /// flow relative to that region?
  bool underVaryingControl(Op *O, Region *Home) {
    Region *R = OpRegion[O];
    while (R != Home) {
      Op *P = RegionParent[R];
      if (!P)
        return true; // not nested in the home region: be safe
      if (isVaryingRegionOp(*P))
        return true;
      R = OpRegion[P];
    }
    return false;
  }

  void findUniformSlots() {
    for (auto &[Slot, U] : Slots)
      if (!U.Escapes && !U.Innermost && (U.Foreach ? U.Stores.empty() : !U.Stores.empty()))
        Uniform.insert(Slot);
    bool Changed = true;
    while (Changed) {
      Changed = false;
      Memo.clear();
      for (auto &[Slot, U] : Slots) {
        if (!Uniform.count(Slot))
          continue;
        bool Ok = !U.Foreach || !underVaryingControl(U.Foreach, U.Home);
        for (Op *S : U.Stores)
          Ok = Ok && uniformVal(S->Operands[1]) && !underVaryingControl(S, U.Home);
        if (!Ok) {
          Uniform.erase(Slot);
          Changed = true;
        }
      }
    }
    // The innermost foreach index: its slot becomes the chunk's first index.
    for (auto &[Slot, U] : Slots)
      if (U.Innermost && !U.Escapes && U.Stores.empty() && U.VarOp->VarType->isInteger())
        ChunkBase.insert(Slot);
  }

  // Strides (the analysis half of step 3; bases are built by the rewrite).
  std::optional<int64_t> strideOf(Value *V) {
    if (!V->Ty->isInteger())
      return std::nullopt;
    if (!V->isVarying() || uniformVal(V))
      return 0;
    if (!V->Def)
      return std::nullopt;
    auto It = StrideMemo.find(V);
    if (It != StrideMemo.end())
      return It->second;
    Op &D = *V->Def;
    std::optional<int64_t> S;
    switch (D.Code) {
    case OpCode::Builtin:
      if (D.BuiltinId == BuiltinVar::ProgramIndex)
        S = 1;
      break;
    case OpCode::Load:
      if (ChunkBase.count(D.Operands[0]))
        S = 1;
      else if (auto A = AffineSlots.find(D.Operands[0]); A != AffineSlots.end())
        S = A->second;
      break;
    case OpCode::Convert:
      if (isWideningIntCast(D))
        S = strideOf(D.Operands[0]);
      break;
    case OpCode::Binary: {
      auto L = strideOf(D.Operands[0]), R = strideOf(D.Operands[1]);
      if (!L || !R)
        break;
      // A stride beyond int64 (constants such as 7 * 2^62) is not affine for us.
      int64_t Out = 0;
      if (D.BinOp == BinaryOp::Add) {
        if (!llvm::AddOverflow(*L, *R, Out))
          S = Out;
      } else if (D.BinOp == BinaryOp::Sub) {
        if (!llvm::SubOverflow(*L, *R, Out))
          S = Out;
      } else if (D.BinOp == BinaryOp::Mul) {
        std::optional<int64_t> Factor, Stride;
        if (auto C = constantOf(D.Operands[1]); C && *R == 0)
          Factor = C, Stride = L;
        else if (auto C = constantOf(D.Operands[0]); C && *L == 0)
          Factor = C, Stride = R;
        if (Factor && !llvm::MulOverflow(*Stride, *Factor, Out))
          S = Out;
      } else if (D.BinOp == BinaryOp::Shl) {
        if (auto C = constantOf(D.Operands[1]); C && *R == 0 && *C >= 0 && *C < 32 &&
                                                 !llvm::MulOverflow(*L, int64_t(1) << *C, Out))
          S = Out;
      }
      break;
    }
    default:
      break;
    }
    StrideMemo[V] = S;
    return S;
  }

  static bool isWideningIntCast(Op &D) {
    const Type *From = D.Operands[0]->Ty, *To = D.result()->Ty;
    if (!From->isInteger() || !To->isInteger())
      return false;
    if (D.Cast != CastKind::IntegralCast && D.Cast != CastKind::NoOp)
      return false;
    return intBits(To) >= intBits(From);
  }

  static unsigned intBits(const Type *T) {
    switch (T->getKind()) {
    case Type::Int8:
    case Type::UInt8:
      return 8;
    case Type::Int16:
    case Type::UInt16:
      return 16;
    case Type::Int32:
    case Type::UInt32:
      return 32;
    default:
      return 64;
    }
  }

  /// The integer constant `V` is (or broadcasts), if it is one.
  static std::optional<int64_t> constantOf(Value *V) {
    Op *D = V->Def;
    if (D && D->Code == OpCode::Broadcast)
      D = D->Operands[0]->Def;
    if (D && D->Code == OpCode::Convert && D->Operands[0]->Ty->isInteger())
      D = D->Operands[0]->Def;
    if (D && D->Code == OpCode::ConstInt)
      return D->Imm;
    return std::nullopt;
  }

  /// Varying integer slots (not uniform) whose stores all hold affine values of
  /// one non-zero stride; pessimistic: a slot read before its stride is known
  /// (loop-carried) stays unknown.
  void findAffineSlots() {
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (auto &[Slot, U] : Slots) {
        if (U.Escapes || U.Foreach || Uniform.count(Slot) || AffineSlots.count(Slot) ||
            U.Stores.empty() || !U.VarOp->VarType->isInteger())
          continue;
        std::optional<int64_t> Common;
        bool Ok = true;
        for (Op *S : U.Stores) {
          auto St = strideOf(S->Operands[1]);
          Ok = Ok && St && *St != 0 && (!Common || *Common == *St) &&
               !underVaryingControl(S, U.Home);
          Common = St;
        }
        if (Ok) {
          AffineSlots[Slot] = *Common;
          StrideMemo.clear();
          Changed = true;
        }
      }
    }
  }

  // The rewrite, in program order so that operands are rewritten before users.
  void rewriteRegion(Region &R) {
    std::vector<std::unique_ptr<Op>> Old = std::move(R.Ops);
    R.Ops.clear();
    for (auto &OP : Old) {
      Op *O = OP.get();
      B.setInsertRegion(&R);
      B.setLoc(O->Loc);
      rewriteOp(*O);
      for (auto &Sub : O->Regions)
        rewriteRegion(*Sub);
      B.setInsertRegion(&R);
      B.setLoc(O->Loc);
      if (Value *Res = O->result())
        recordAffine(*Res);
      O->ParentRegion = &R;
      R.Ops.push_back(std::move(OP));
    }
  }

  const Type *uniformOfType(const Type *T) {
    return M.Types.withVariability(T, Variability::Uniform);
  }

  /// The uniform value a provably uniform varying value broadcasts.
  Value *uniformOf(Value *V) {
    if (!V->isVarying())
      return V;
    return V->Def->Operands[0]; // rewritten into a broadcast before its users
  }

  /// Turns `O` into `broadcast U`, keeping its result (and so all its users).
  static void becomeBroadcast(Op &O, Value *U) {
    O.Code = OpCode::Broadcast;
    O.Operands = {U};
  }

  void rewriteOp(Op &O) {
    switch (O.Code) {
    case OpCode::Var:
      if (Uniform.count(O.result()) || ChunkBase.count(O.result())) {
        O.VarType = uniformOfType(O.VarType);
        O.result()->Ty = M.Types.getPointer(O.VarType, Variability::Uniform);
      } else if (AffineSlots.count(O.result())) {
        Companion[O.result()] = B.var(uniformOfType(M.Types.withConst(O.VarType, false)),
                                      O.result()->NameHint + ".base");
      }
      return;
    case OpCode::Store: {
      Value *Slot = O.Operands[0];
      if (Uniform.count(Slot))
        O.Operands[1] = uniformOf(O.Operands[1]);
      else if (auto C = Companion.find(Slot); C != Companion.end())
        B.store(C->second, affineBase(*O.Operands[1]));
      return;
    }
    case OpCode::Load: {
      Value *Slot = O.Operands[0];
      if (Uniform.count(Slot)) {
        becomeBroadcast(O, B.load(Slot));
      } else if (isLoadOfUniformData(O) && uniformVal(O.result())) {
        // One scalar load instead of a gather of W equal addresses. Like
        // ISPC, this reads the element even if no lane is on (code only runs
        // with some lane on: the transform guards narrowed regions by any()).
        becomeBroadcast(O, B.load(uniformOf(Slot)));
      } else if (ChunkBase.count(Slot)) {
        // lane l's index: the chunk's first index + l
        Value *First = B.load(Slot);
        const Type *VT = O.result()->Ty;
        Op *PI = B.create(OpCode::Builtin, M.Types.getAtomic(Type::Int32, Variability::Varying));
        PI->BuiltinId = BuiltinVar::ProgramIndex;
        Value *Lanes = PI->result();
        if (Lanes->Ty != VT) {
          Op *C = B.create(OpCode::Convert, VT, {Lanes});
          C->Cast = CastKind::IntegralCast;
          Lanes = C->result();
        }
        Value *Splat = B.create(OpCode::Broadcast, VT, {First})->result();
        O.Code = OpCode::Binary;
        O.BinOp = BinaryOp::Add;
        O.Operands = {Splat, Lanes};
        O.result()->AffineBase = First;
        O.result()->AffineStride = 1;
      } else if (auto C = Companion.find(Slot); C != Companion.end()) {
        O.result()->AffineBase = B.load(C->second);
        O.result()->AffineStride = AffineSlots[Slot];
      }
      return;
    }
    case OpCode::If:
      if (O.Operands[0]->isVarying() && uniformVal(O.Operands[0]))
        O.Operands[0] = uniformOf(O.Operands[0]);
      return;
    case OpCode::Yield:
      if (O.Operands[0]->isVarying() && uniformVal(O.Operands[0]))
        O.Operands[0] = uniformOf(O.Operands[0]);
      return;
    default:
      break;
    }
    if (!isPure(O.Code) || !O.result()->isVarying() || !uniformVal(O.result()))
      return;
    if (O.Code == OpCode::Convert && O.Cast == CastKind::UniformToVarying) {
      becomeBroadcast(O, O.Operands[0]);
      return;
    }
    std::vector<Value *> Ops;
    for (Value *V : O.Operands)
      Ops.push_back(uniformOf(V));
    Op *U = B.create(O.Code, uniformOfType(O.result()->Ty), Ops);
    U->UnOp = O.UnOp;
    U->BinOp = O.BinOp;
    U->Cast = O.Cast;
    U->FieldIndex = O.FieldIndex; // a field.addr whose base became uniform
    becomeBroadcast(O, U->result());
  }

  // Affine bases, built as uniform ops just before the value.
  /// Index arithmetic is assumed not to overflow (as ISPC assumes for its
  /// 32-bit addressing): `nsw` lets LLVM widen b + r to 64-bit offsets and
  /// share one address computation between a[c], a[c + 1], ...
  Value *binary(BinaryOp K, Value *L, Value *R) {
    Op *O = B.create(OpCode::Binary, L->Ty, {L, R});
    O->BinOp = K;
    O->NoSignedWrap = L->Ty->isSignedInteger();
    return O->result();
  }

  /// The uniform b of an affine value (a uniform value is its own base).
  Value *affineBase(Value &V) {
    if (!V.isVarying())
      return &V;
    if (V.Def && V.Def->Code == OpCode::Broadcast)
      return V.Def->Operands[0];
    return V.AffineBase;
  }

  void recordAffine(Value &V) {
    if (!V.isVarying() || !V.Ty->isInteger() || V.AffineBase)
      return;
    // Stride 0 too (`i - programIndex`: varying, yet the same on every lane):
    // a value with a stride needs a base, or a sum or widening of it would
    // have none (difftest seed 301042).
    std::optional<int64_t> S = strideOf(&V);
    if (!S)
      return;
    Op &D = *V.Def;
    const Type *UT = uniformOfType(M.Types.withConst(V.Ty, false));
    Value *Base = nullptr;
    switch (D.Code) {
    case OpCode::Builtin:
      Base = B.constInt(0, UT);
      break;
    case OpCode::Convert: {
      Value *From = affineBase(*D.Operands[0]);
      if (!From)
        return;
      Op *C = B.create(OpCode::Convert, UT, {From});
      C->Cast = D.Cast;
      Base = C->result();
      break;
    }
    case OpCode::Binary: {
      Value *L = affineBase(*D.Operands[0]), *R = affineBase(*D.Operands[1]);
      if (!L || !R)
        return;
      Base = binary(D.BinOp, L, R);
      break;
    }
    default:
      return; // loads got their base in rewriteOp
    }
    V.AffineBase = Base;
    V.AffineStride = *S;
  }

  Module &M;
  Function &F;
  Builder B;
  llvm::DenseMap<Region *, Op *> RegionParent;
  llvm::DenseMap<Op *, Region *> OpRegion;
  llvm::DenseMap<Value *, SlotUses> Slots;
  llvm::DenseSet<Value *> Uniform;   ///< slots that become uniform
  llvm::DenseSet<Value *> ChunkBase; ///< innermost foreach index slots
  llvm::DenseMap<Value *, int64_t> AffineSlots;
  llvm::DenseMap<Value *, Value *> Companion; ///< affine slot -> uniform base slot
  llvm::DenseMap<Value *, bool> Memo;
  llvm::DenseMap<Value *, std::optional<int64_t>> StrideMemo;
};

} // namespace

void runVariabilityAnalysis(Module &M) {
  for (auto &F : M.Functions)
    if (F->Body)
      FunctionAnalysis(M, *F).run();
}

} // namespace spmdc::ir
