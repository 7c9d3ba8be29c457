// Index no-wrap: marks nsw on the signed varying arithmetic that computes a varying subscript.
#include "ir/IndexNoWrap.h"

#include "ir/IR.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace spmdc::ir {

namespace {

struct IndexMarker {
  /// The values stored into each of the function's `var` slots.
  std::unordered_map<const Value *, std::vector<Value *>> StoredInto;
  std::unordered_set<const Value *> Visited;

  void collectStores(Region &R) {
    for (auto &O : R.Ops) {
      if (O->Code == OpCode::Store && O->Operands[0]->Def &&
          O->Operands[0]->Def->Code == OpCode::Var)
        StoredInto[O->Operands[0]].push_back(O->Operands[1]);
      for (auto &Sub : O->Regions)
        collectStores(*Sub);
    }
  }

  /// Marks `V`'s defining `+`/`-`/`*` and those of its operands, also through
  /// loads of a local slot (`int i010 = i000 + n; a[i010 + 1]`: what was
  /// stored there), down to values of any other kind (conversions, loads
  /// through pointers, calls, uniform values, ...).
  void mark(Value *V) {
    if (!V->isVarying() || !V->Ty->isSignedInteger() || !V->Def || !Visited.insert(V).second)
      return;
    Op *D = V->Def;
    if (D->Code == OpCode::Load) {
      auto It = StoredInto.find(D->Operands[0]);
      if (It != StoredInto.end())
        for (Value *Stored : It->second)
          mark(Stored);
      return;
    }
    if (D->Code != OpCode::Binary ||
        (D->BinOp != BinaryOp::Add && D->BinOp != BinaryOp::Sub && D->BinOp != BinaryOp::Mul))
      return;
    D->NoSignedWrap = true;
    for (Value *Operand : D->Operands)
      mark(Operand);
  }

  void markSubscripts(Region &R) {
    for (auto &O : R.Ops) {
      if (O->Code == OpCode::ElementAddr)
        mark(O->Operands[1]);
      for (auto &Sub : O->Regions)
        markSubscripts(*Sub);
    }
  }
};

} // namespace

void runIndexNoWrap(Module &M) {
  for (auto &F : M.Functions) {
    if (!F->Body)
      continue;
    IndexMarker Marker;
    Marker.collectStores(*F->Body);
    Marker.markSubscripts(*F->Body);
  }
}

} // namespace spmdc::ir
