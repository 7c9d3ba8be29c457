// Sin/cos pairing: sin(x) and cos(x) of the same x in one region become one sincos(x).
#include "ir/SinCosPairing.h"

#include "ir/IR.h"

#include <algorithm>
#include <iterator>

namespace spmdc::ir {

namespace {

bool isStdlibCall(const Op &O, const char *Name) {
  return O.Code == OpCode::Call && O.Callee && O.Callee->IsStdlib && O.Callee->Name == Name &&
         O.Operands.size() == 1 && O.result();
}

/// The standard library's sincos for an argument of type `T` (results through two
/// uniform pointers to T), or null.
Function *findSinCos(Module &M, const Type *T) {
  const Type *Slot = M.Types.getPointer(T, Variability::Uniform);
  for (auto &F : M.Functions)
    if (F->IsStdlib && F->Name == "sincos" && F->Body && F->Params.size() == 3 &&
        F->Params[0]->Ty == T && F->Params[1]->Ty == Slot && F->Params[2]->Ty == Slot)
      return F.get();
  return nullptr;
}

/// Does `O` (or an op nested in it) use `Slot` other than by loading from it?
bool touches(const Op &O, const Value *Slot) {
  for (size_t I = 0; I < O.Operands.size(); ++I)
    if (O.Operands[I] == Slot && !(O.Code == OpCode::Load && I == 0))
      return true;
  for (const auto &Sub : O.Regions)
    for (const auto &N : Sub->Ops)
      if (touches(*N, Slot))
        return true;
  return false;
}

struct Pairing {
  Module &M;
  Region &Body;

  void region(Region &R) {
    for (auto &O : R.Ops)
      for (auto &Sub : O->Regions)
        region(*Sub);
    for (size_t I = 0; I < R.Ops.size(); ++I) {
      bool FirstIsSin = isStdlibCall(*R.Ops[I], "sin");
      if (!FirstIsSin && !isStdlibCall(*R.Ops[I], "cos"))
        continue;
      Value *X = R.Ops[I]->Operands[0];
      size_t J = I + 1;
      while (J < R.Ops.size() && !(isStdlibCall(*R.Ops[J], FirstIsSin ? "cos" : "sin") &&
                                   sameValue(R, I, J, X, R.Ops[J]->Operands[0])))
        ++J;
      Function *SinCos = J < R.Ops.size() ? findSinCos(M, X->Ty) : nullptr;
      if (!SinCos)
        continue;
      pair(R, I, J, FirstIsSin, SinCos);
    }
  }

  /// Are `X` (the argument of R's op I) and `Y` (of op J) the same value: the same
  /// SSA value, or loads of one local slot that nothing between the calls writes or
  /// takes the address of (`cos(phi)`, `sin(phi)`)?
  static bool sameValue(const Region &R, size_t I, size_t J, const Value *X, const Value *Y) {
    if (X == Y)
      return true;
    if (!X->Def || !Y->Def || X->Def->Code != OpCode::Load || Y->Def->Code != OpCode::Load)
      return false;
    const Value *Slot = X->Def->Operands[0];
    if (Slot != Y->Def->Operands[0] || !Slot->Def || Slot->Def->Code != OpCode::Var)
      return false;
    // Both loads in R, and nothing from the first of them to the second call.
    size_t LoadX = R.Ops.size(), LoadY = R.Ops.size();
    for (size_t K = 0; K < J; ++K) {
      LoadX = R.Ops[K].get() == X->Def ? K : LoadX;
      LoadY = R.Ops[K].get() == Y->Def ? K : LoadY;
    }
    if (LoadX == R.Ops.size() || LoadY == R.Ops.size())
      return false;
    for (size_t K = std::min(LoadX, LoadY) + 1; K < J; ++K)
      if (K != I && touches(*R.Ops[K], Slot))
        return false;
    return true;
  }

  /// Replaces the calls at `First` and `Second` of `R` by `sincos(x, &s, &c)` at `First`.
  void pair(Region &R, size_t First, size_t Second, bool FirstIsSin, Function *SinCos) {
    Op &A = *R.Ops[First];
    Value *X = A.Operands[0];
    Region New;
    Builder B(M);
    B.setInsertRegion(&New);
    B.setLoc(A.Loc);
    Value *SinSlot = B.var(X->Ty, "__sin"), *CosSlot = B.var(X->Ty, "__cos");
    B.create(OpCode::Call, nullptr, {X, SinSlot, CosSlot})->Callee = SinCos;
    Value *Sin = B.load(SinSlot), *Cos = B.load(CosSlot);
    replaceUses(Body, A.result(), FirstIsSin ? Sin : Cos);
    replaceUses(Body, R.Ops[Second]->result(), FirstIsSin ? Cos : Sin);
    for (auto &O : New.Ops)
      O->ParentRegion = &R;
    R.Ops.erase(R.Ops.begin() + Second);
    R.Ops.erase(R.Ops.begin() + First);
    R.Ops.insert(R.Ops.begin() + First, std::make_move_iterator(New.Ops.begin()),
                 std::make_move_iterator(New.Ops.end()));
  }
};

} // namespace

void runSinCosPairing(Module &M) {
  for (auto &F : M.Functions)
    if (F->Body && !F->IsStdlib)
      Pairing{M, *F->Body}.region(*F->Body);
}

} // namespace spmdc::ir
