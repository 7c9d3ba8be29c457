// Element-by-element lowering of ISPC's short vectors (`float<3>`).
#pragma once

#include "ir/IR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace spmdc::ir {

/// A short vector is an array in the IR: its operators become one scalar
/// operation per element. Operand vectors are written to `var` slots and read
/// back element by element (mem2reg turns the slots into registers again).
class VectorLowering {
public:
  explicit VectorLowering(Builder &B) : B(B) {}

  /// The address of element `I` of the vector (or array) at `VecAddr`.
  Value *elementAddr(Value *VecAddr, unsigned I);
  /// A slot holding `V`, so that its elements can be addressed.
  Value *spill(Value *V);
  /// The vector of type `ResultTy` whose element i is
  /// `PerElement(element i of each operand, element type of ResultTy)`;
  /// scalar operands are passed as they are to every element.
  Value *elementwise(const Type *ResultTy, llvm::ArrayRef<Value *> Operands,
                     llvm::function_ref<Value *(llvm::ArrayRef<Value *>, const Type *)> PerElement);
  /// `Base`'s elements `Indices` (a swizzle) as a new vector of type `ResultTy`.
  Value *shuffle(Value *BaseAddr, llvm::ArrayRef<unsigned> Indices, const Type *ResultTy);

private:
  Builder &B;
};

} // namespace spmdc::ir
