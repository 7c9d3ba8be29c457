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

const Type *loadedType(TypeContext &Types, const Type *AddrTy) {
  const Type *Pointee = AddrTy->getPointee();
  if (AddrTy->isVarying())
    Pointee = Types.withVariability(Pointee, Variability::Varying);
  return Types.withConst(Pointee, false);
}

} // namespace spmdc::ir
