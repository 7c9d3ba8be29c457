// Element-by-element lowering of ISPC's short vectors (`float<3>`).
#include "ir/LowerVector.h"

namespace spmdc::ir {

Value *VectorLowering::elementAddr(Value *VecAddr, unsigned I) {
  const Type *Elt = VecAddr->Ty->getPointee()->getElementType();
  const Type *EltPtr = B.types().getPointer(Elt, VecAddr->Ty->getVariability());
  Op *Decay = B.create(OpCode::Convert, EltPtr, {VecAddr});
  Decay->Cast = CastKind::ArrayToPointer;
  Value *Index = B.constInt(I, B.types().getAtomic(Type::Int64, Variability::Uniform));
  return B.create(OpCode::ElementAddr, EltPtr, {Decay->result(), Index})->result();
}

Value *VectorLowering::spill(Value *V) {
  Value *Slot = B.var(V->Ty);
  B.store(Slot, V);
  return Slot;
}

Value *VectorLowering::elementwise(
    const Type *ResultTy, llvm::ArrayRef<Value *> Operands,
    llvm::function_ref<Value *(llvm::ArrayRef<Value *>, const Type *)> PerElement) {
  std::vector<Value *> Slots;
  for (Value *V : Operands)
    Slots.push_back(V->Ty->isShortVector() ? spill(V) : nullptr);
  Value *Result = B.var(ResultTy);
  for (unsigned I = 0; I < ResultTy->getArraySize(); ++I) {
    std::vector<Value *> Elements;
    for (size_t K = 0; K < Operands.size(); ++K)
      Elements.push_back(Slots[K] ? B.load(elementAddr(Slots[K], I)) : Operands[K]);
    B.store(elementAddr(Result, I), PerElement(Elements, ResultTy->getElementType()));
  }
  return B.load(Result);
}

Value *VectorLowering::shuffle(Value *BaseAddr, llvm::ArrayRef<unsigned> Indices,
                               const Type *ResultTy) {
  Value *Result = B.var(ResultTy);
  for (unsigned I = 0; I < Indices.size(); ++I) {
    Value *Elt = B.load(elementAddr(BaseAddr, Indices[I]));
    if (!Elt->isVarying() && ResultTy->isVarying())
      Elt = B.create(OpCode::Broadcast, ResultTy->getElementType(), {Elt})->result();
    B.store(elementAddr(Result, I), Elt);
  }
  return B.load(Result);
}

} // namespace spmdc::ir
