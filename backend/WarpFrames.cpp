// Finds escaping uniform locals and lays out their per-warp shared-memory frames (NVPTX).
#include "backend/WarpFrames.h"

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "ir/IR.h"

#include <functional>
#include <vector>

namespace spmdc {

namespace {

using ir::OpCode;

struct Use {
  ir::Op *User;
  unsigned Index;
};
using UseMap = std::map<const ir::Value *, std::vector<Use>>;

void collectUses(ir::Region &R, UseMap &Uses) {
  for (auto &O : R.Ops) {
    for (unsigned I = 0; I < O->Operands.size(); ++I)
      Uses[O->Operands[I]].push_back({O.get(), I});
    for (auto &Sub : O->Regions)
      collectUses(*Sub, Uses);
  }
}

/// True when memory of type T holds one value for the whole gang: no varying
/// scalar, member or element (those are one per thread on NVPTX anyway).
bool holdsOnlyUniformData(ir::Module &M, const Type *T) {
  if (T->isArray())
    return holdsOnlyUniformData(M, T->getElementType());
  if (T->isStruct()) {
    if (T->isVarying())
      return false;
    for (const FieldDecl &FD : T->getStructDecl()->Fields)
      if (!holdsOnlyUniformData(M, M.Types.memberType(FD.Ty, T->getVariability())))
        return false;
    return true;
  }
  return !T->isVarying();
}

bool passesAddressThrough(const ir::Op &O) {
  if (O.Code == OpCode::ElementAddr || O.Code == OpCode::FieldAddr)
    return true;
  if (O.Code != OpCode::Convert)
    return false;
  return O.Cast == CastKind::NoOp || O.Cast == CastKind::ArrayToPointer ||
         O.Cast == CastKind::PointerCast || O.Cast == CastKind::LValueToRValue;
}

/// Whether the address `Addr` (of a local or derived from one) is used for
/// anything but loads, and stores through a uniform address; collects the
/// derived addresses into `Derived`. Loads through per-lane addresses are
/// fine (every thread's copy holds the same data); stores through them, calls,
/// atomics and storing the address itself are not.
bool addressEscapes(const ir::Value *Addr, const UseMap &Uses,
                    std::set<const ir::Value *> &Derived) {
  Derived.insert(Addr);
  auto It = Uses.find(Addr);
  if (It == Uses.end())
    return false;
  bool Escapes = false;
  for (const Use &U : It->second) {
    const ir::Op &O = *U.User;
    if (O.Code == OpCode::Load && U.Index == 0)
      continue;
    if (O.Code == OpCode::Store && U.Index == 0) {
      Escapes |= Addr->Ty->isVarying();
      continue;
    }
    if (U.Index == 0 && passesAddressThrough(O) && O.result()) {
      Escapes |= addressEscapes(O.result(), Uses, Derived);
      continue;
    }
    Escapes = true;
  }
  return Escapes;
}

struct FrameSlot {
  const ir::Value *Var;
  const ir::Op *Op;
  uint64_t Offset;
};

void collectVars(ir::Region &R, std::vector<ir::Op *> &Vars) {
  for (auto &O : R.Ops) {
    if (O->Code == OpCode::Var)
      Vars.push_back(O.get());
    for (auto &Sub : O->Regions)
      collectVars(*Sub, Vars);
  }
}

void collectCallees(ir::Region &R, bool &CallsIndirectly, std::set<ir::Function *> &Callees,
                    std::set<ir::Function *> &AddressTaken) {
  for (auto &O : R.Ops) {
    if (O->Code == OpCode::FuncAddr && O->Callee)
      AddressTaken.insert(O->Callee);
    else if (O->Callee && O->Callee->Body)
      Callees.insert(O->Callee);
    else if (O->Code == OpCode::Call && !O->Callee)
      CallsIndirectly = true;
    for (auto &Sub : O->Regions)
      collectCallees(*Sub, CallsIndirectly, Callees, AddressTaken);
  }
}

} // namespace

bool layoutWarpFrames(ir::Module &M, const std::set<ir::Function *> &Functions,
                      const TypeSizeAlign &SizeAlign, uint64_t SharedBytesLeft,
                      DiagnosticEngine &Diags, WarpFrameLayout &Layout) {
  // 1. Each function's frame: its escaping uniform locals, in order.
  std::map<ir::Function *, std::vector<FrameSlot>> Frames;
  std::map<ir::Function *, uint64_t> FrameBytes;
  for (ir::Function *F : Functions) {
    if (!F->Body)
      continue;
    UseMap Uses;
    collectUses(*F->Body, Uses);
    std::vector<ir::Op *> Vars;
    collectVars(*F->Body, Vars);
    uint64_t Size = 0;
    for (ir::Op *V : Vars) {
      if (!holdsOnlyUniformData(M, V->VarType))
        continue;
      std::set<const ir::Value *> Derived;
      if (!addressEscapes(V->result(), Uses, Derived))
        continue;
      auto [Bytes, Align] = SizeAlign(V->VarType);
      Size = (Size + Align - 1) / Align * Align;
      Frames[F].push_back({V->result(), V, Size});
      Size += Bytes;
      Layout.SlotAddresses.insert(Derived.begin(), Derived.end());
    }
    if (Size) {
      FrameBytes[F] = (Size + 15) / 16 * 16;
      Layout.HasSlots.insert(F);
    }
  }
  if (Frames.empty())
    return true;

  // 2. The call graph; an indirect call may reach every function whose address is taken.
  std::map<ir::Function *, std::set<ir::Function *>> Callees;
  std::set<ir::Function *> AddressTaken, Indirect;
  for (ir::Function *F : Functions) {
    if (!F->Body)
      continue;
    bool CallsIndirectly = false;
    collectCallees(*F->Body, CallsIndirectly, Callees[F], AddressTaken);
    if (CallsIndirectly)
      Indirect.insert(F);
  }
  for (ir::Function *F : Indirect)
    Callees[F].insert(AddressTaken.begin(), AddressTaken.end());

  // 3. A frame is static, so its function must not be on the stack twice.
  bool Ok = true;
  for (auto &[F, Slots] : Frames) {
    std::set<ir::Function *> Seen;
    std::vector<ir::Function *> Work(Callees[F].begin(), Callees[F].end());
    bool Recursive = false;
    while (!Work.empty() && !Recursive) {
      ir::Function *G = Work.back();
      Work.pop_back();
      if (G == F)
        Recursive = true;
      else if (Seen.insert(G).second)
        Work.insert(Work.end(), Callees[G].begin(), Callees[G].end());
    }
    if (!Recursive)
      continue;
    const FrameSlot &S = Slots.front();
    Diags.error(S.Op->Loc, "on NVPTX the address of the uniform local '" + S.Var->NameHint +
                               "' cannot escape in recursive function '" + F->Name +
                               "': such locals have one static slot per warp in shared memory");
    Ok = false;
  }
  if (!Ok)
    return false;

  // 4. Frame offsets: above every frame that can be below on the stack (the
  // longest path in the call graph, weighted by frame sizes; no cycle has a
  // frame, so this settles).
  std::map<ir::Function *, uint64_t> Offset;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[F, Cs] : Callees) {
      uint64_t Top = Offset[F] + FrameBytes[F];
      for (ir::Function *G : Cs)
        if (Offset[G] < Top) {
          Offset[G] = Top;
          Changed = true;
        }
    }
  }
  for (auto &[F, Slots] : Frames) {
    for (const FrameSlot &S : Slots)
      Layout.SlotOffset[S.Var] = Offset[F] + S.Offset;
    Layout.BytesPerWarp = std::max(Layout.BytesPerWarp, Offset[F] + FrameBytes[F]);
  }
  if (Layout.BytesPerWarp * MaxWarpsPerBlock > SharedBytesLeft) {
    const FrameSlot &S = Frames.begin()->second.front();
    Diags.error(S.Op->Loc, "on NVPTX the uniform locals whose address escapes need " +
                               std::to_string(Layout.BytesPerWarp) + " bytes per warp (" +
                               std::to_string(Layout.BytesPerWarp * MaxWarpsPerBlock) +
                               " of shared memory per block), more than the " +
                               std::to_string(SharedBytesLeft) + " bytes left");
    return false;
  }
  return true;
}

} // namespace spmdc
