// The SPMD IR: op names, the builder and the address-type helper.
#include "ir/IR.h"

namespace spmdc::ir {

const char *opName(OpCode C) {
  switch (C) {
  case OpCode::ConstInt:
    return "const.int";
  case OpCode::ConstFloat:
    return "const.float";
  case OpCode::ConstNull:
    return "const.null";
  case OpCode::Builtin:
    return "builtin";
  case OpCode::Unary:
    return "unary";
  case OpCode::Binary:
    return "binary";
  case OpCode::Convert:
    return "convert";
  case OpCode::Broadcast:
    return "broadcast";
  case OpCode::Select:
    return "select";
  case OpCode::SizeOf:
    return "sizeof";
  case OpCode::Var:
    return "var";
  case OpCode::GlobalAddr:
    return "global.addr";
  case OpCode::FuncAddr:
    return "func.addr";
  case OpCode::Load:
    return "load";
  case OpCode::Store:
    return "store";
  case OpCode::ElementAddr:
    return "element.addr";
  case OpCode::FieldAddr:
    return "field.addr";
  case OpCode::Call:
    return "call";
  case OpCode::Crev:
    return "crev";
  case OpCode::Launch:
    return "launch";
  case OpCode::Sync:
    return "sync";
  case OpCode::If:
    return "if";
  case OpCode::Loop:
    return "loop";
  case OpCode::Yield:
    return "yield";
  case OpCode::Break:
    return "break";
  case OpCode::Continue:
    return "continue";
  case OpCode::Return:
    return "return";
  case OpCode::Foreach:
    return "foreach";
  case OpCode::ForeachActive:
    return "foreach_active";
  case OpCode::ForeachUnique:
    return "foreach_unique";
  case OpCode::Everywhere:
    return "everywhere";
  case OpCode::Unmasked:
    return "unmasked";
  case OpCode::Print:
    return "print";
  case OpCode::Assert:
    return "assert";
  case OpCode::PartialBarrier:
    return "barrier.partial";
  case OpCode::New:
    return "new";
  case OpCode::Delete:
    return "delete";
  case OpCode::Label:
    return "label";
  case OpCode::Goto:
    return "goto";
  case OpCode::MaskAllOn:
    return "mask.all_on";
  case OpCode::Any:
    return "mask.any";
  case OpCode::All:
    return "mask.all";
  case OpCode::LaneCount:
    return "mask.count";
  case OpCode::FirstLane:
    return "mask.first_lane";
  case OpCode::LaneIsSet:
    return "mask.lane_is_set";
  case OpCode::Extract:
    return "extract";
  case OpCode::Insert:
    return "insert";
  }
  return "?";
}

Op *Builder::create(OpCode Code, const Type *ResultTy, std::vector<Value *> Operands) {
  auto O = std::make_unique<Op>(Code, Loc);
  O->Operands = std::move(Operands);
  if (ResultTy)
    O->Result = std::make_unique<Value>(ResultTy, O.get());
  O->ParentRegion = Insert;
  Op *Raw = O.get();
  Insert->Ops.push_back(std::move(O));
  return Raw;
}

Region *Builder::addRegion(Op *O) {
  O->Regions.push_back(std::make_unique<Region>());
  O->Regions.back()->Parent = O;
  return O->Regions.back().get();
}

Value *Builder::constInt(int64_t V, const Type *Ty) {
  Op *O = create(OpCode::ConstInt, Ty);
  O->Imm = V;
  return O->result();
}

Value *Builder::constBool(bool V) {
  return constInt(V, types().getAtomic(Type::Bool, Variability::Uniform));
}

Value *Builder::load(Value *Addr) {
  return create(OpCode::Load, loadedType(types(), Addr->Ty), {Addr})->result();
}

void Builder::store(Value *Addr, Value *V) { create(OpCode::Store, nullptr, {Addr, V}); }

Value *Builder::var(const Type *T, const std::string &NameHint) {
  Op *O = create(OpCode::Var, types().getPointer(T, Variability::Uniform));
  O->VarType = T;
  O->result()->NameHint = NameHint;
  return O->result();
}

namespace {

using LabelRenumbering = std::map<int64_t, int64_t>;

/// Every label `R` (and the regions nested in it) defines, with a new number from `Owner`.
void renumberLabels(const Region &R, Function &Owner, LabelRenumbering &Labels) {
  for (const auto &O : R.Ops) {
    if (O->Code == OpCode::Label)
      Labels[O->Imm] = Owner.newLabelId();
    for (const auto &Sub : O->Regions)
      renumberLabels(*Sub, Owner, Labels);
  }
}

void cloneOps(const Region &From, Region &To, std::map<const Value *, Value *> &Map,
              const LabelRenumbering &Labels) {
  auto MapV = [&](Value *V) -> Value * {
    if (!V)
      return nullptr;
    auto It = Map.find(V);
    return It == Map.end() ? V : It->second;
  };
  for (const auto &O : From.Ops) {
    auto C = std::make_unique<Op>(O->Code, O->Loc);
    for (Value *V : O->Operands)
      C->Operands.push_back(MapV(V));
    for (Value *V : O->IndexVars)
      C->IndexVars.push_back(MapV(V));
    for (Value *V : O->LaunchCounts)
      C->LaunchCounts.push_back(MapV(V));
    C->Mask = MapV(O->Mask);
    C->Imm = O->Imm;
    if (O->Code == OpCode::Label || O->Code == OpCode::Goto)
      if (auto It = Labels.find(O->Imm); It != Labels.end())
        C->Imm = It->second;
    C->FImm = O->FImm;
    C->Text = O->Text;
    C->BuiltinId = O->BuiltinId;
    C->UnOp = O->UnOp;
    C->BinOp = O->BinOp;
    C->Cast = O->Cast;
    C->VarType = O->VarType;
    C->FieldIndex = O->FieldIndex;
    C->Callee = O->Callee;
    C->GlobalRef = O->GlobalRef;
    C->DoWhile = O->DoWhile;
    C->Tiled = O->Tiled;
    C->Coherent = O->Coherent;
    C->Predicated = O->Predicated;
    C->FromExpression = O->FromExpression;
    C->BarrierThreads = O->BarrierThreads;
    C->NoSignedWrap = O->NoSignedWrap;
    C->Simt = O->Simt;
    if (Value *R = O->result()) {
      C->Result = std::make_unique<Value>(R->Ty, C.get());
      C->Result->NameHint = R->NameHint;
      C->Result->AffineBase = MapV(R->AffineBase);
      C->Result->AffineStride = R->AffineStride;
      Map[R] = C->Result.get();
    }
    for (const auto &Sub : O->Regions) {
      C->Regions.push_back(std::make_unique<Region>());
      C->Regions.back()->Parent = C.get();
      cloneOps(*Sub, *C->Regions.back(), Map, Labels);
    }
    C->ParentRegion = &To;
    To.Ops.push_back(std::move(C));
  }
}

} // namespace

void cloneRegionInto(const Region &From, Region &To, std::map<const Value *, Value *> &Map,
                     Function &Owner) {
  LabelRenumbering Labels;
  renumberLabels(From, Owner, Labels);
  cloneOps(From, To, Map, Labels);
}

void replaceUses(Region &R, const Value *From, Value *To) {
  for (auto &P : R.Ops) {
    for (Value *&V : P->Operands)
      if (V == From)
        V = To;
    for (Value *&V : P->IndexVars)
      if (V == From)
        V = To;
    for (Value *&V : P->LaunchCounts)
      if (V == From)
        V = To;
    for (auto &Sub : P->Regions)
      replaceUses(*Sub, From, To);
  }
}

const Type *loadedType(TypeContext &Types, const Type *AddrTy) {
  const Type *Pointee = AddrTy->getPointee();
  if (AddrTy->isVarying())
    Pointee = Types.withVariability(Pointee, Variability::Varying);
  return Types.withConst(Pointee, false);
}

} // namespace spmdc::ir
