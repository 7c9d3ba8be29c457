// Per-op lowering of unary and binary operators, conversions and broadcasts.
#include "backend/LLVMEmitterInternal.h"

namespace spmdc::emitter {

void OpLowering::unary(ir::Op &O) {
  llvm::Value *V = val(O.Operands[0]);
  const Type *T = O.Operands[0]->Ty;
  switch (O.UnOp) {
  case UnaryOp::Minus:
    set(O, T->isFloatingPoint() ? B.CreateFNeg(V) : B.CreateNeg(V));
    return;
  case UnaryOp::Not:
  case UnaryOp::BitNot:
    set(O, B.CreateNot(V));
    return;
  default:
    unsupported(O, "this unary operator");
  }
}

void OpLowering::binary(ir::Op &O) {
  llvm::Value *L = val(O.Operands[0]), *R = val(O.Operands[1]);
  const Type *T = O.Operands[0]->Ty;
  bool Float = T->isFloatingPoint();
  bool Signed = T->isSignedInteger() || T->isEnum();
  using P = llvm::CmpInst::Predicate;
  auto Cmp = [&](P FP, P SP, P UP) {
    if (Float)
      return B.CreateFCmp(FP, L, R);
    return B.CreateICmp(Signed ? SP : UP, L, R);
  };
  // Integer division traps on x86 for a zero divisor and for INT_MIN / -1, also
  // in lanes that are off (a vector division is scalarized lane by lane): give
  // those lanes a divisor of one. An active lane's INT_MIN / -1 then wraps to
  // INT_MIN (remainder 0), the two's-complement result, where C leaves it undefined.
  auto SafeDivisor = [&]() -> llvm::Value * {
    if (!R->getType()->isVectorTy())
      return R;
    llvm::Type *Ty = R->getType();
    llvm::Value *Trap = B.CreateICmpEQ(R, llvm::Constant::getNullValue(Ty));
    if (Signed) {
      unsigned Bits = Ty->getScalarSizeInBits();
      llvm::Value *Overflow =
          B.CreateAnd(B.CreateICmpEQ(R, llvm::Constant::getAllOnesValue(Ty)),
                      B.CreateICmpEQ(L, llvm::ConstantInt::get(Ty, llvm::APInt::getSignedMinValue(Bits))));
      Trap = B.CreateOr(Trap, Overflow);
    }
    return B.CreateSelect(Trap, llvm::ConstantInt::get(Ty, 1), R);
  };
  llvm::Value *Res = nullptr;
  switch (O.BinOp) {
  case BinaryOp::Add:
    Res = Float ? B.CreateFAdd(L, R) : B.CreateAdd(L, R, "", false, O.NoSignedWrap);
    break;
  case BinaryOp::Sub:
    Res = Float ? B.CreateFSub(L, R) : B.CreateSub(L, R, "", false, O.NoSignedWrap);
    break;
  case BinaryOp::Mul:
    Res = Float ? B.CreateFMul(L, R) : B.CreateMul(L, R, "", false, O.NoSignedWrap);
    break;
  case BinaryOp::Div:
    Res = Float    ? B.CreateFDiv(L, R)
          : Signed ? B.CreateSDiv(L, SafeDivisor())
                   : B.CreateUDiv(L, SafeDivisor());
    break;
  case BinaryOp::Rem:
    Res = Float    ? B.CreateFRem(L, R)
          : Signed ? B.CreateSRem(L, SafeDivisor())
                   : B.CreateURem(L, SafeDivisor());
    break;
  case BinaryOp::Shl:
    Res = B.CreateShl(L, R);
    break;
  case BinaryOp::Shr:
    Res = Signed ? B.CreateAShr(L, R) : B.CreateLShr(L, R);
    break;
  case BinaryOp::BitAnd:
  case BinaryOp::LogicalAnd:
    Res = B.CreateAnd(L, R);
    break;
  case BinaryOp::BitOr:
  case BinaryOp::LogicalOr:
    Res = B.CreateOr(L, R);
    break;
  case BinaryOp::BitXor:
    Res = B.CreateXor(L, R);
    break;
  case BinaryOp::LT:
    Res = Cmp(P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT);
    break;
  case BinaryOp::GT:
    Res = Cmp(P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT);
    break;
  case BinaryOp::LE:
    Res = Cmp(P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE);
    break;
  case BinaryOp::GE:
    Res = Cmp(P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE);
    break;
  case BinaryOp::EQ:
    Res = Cmp(P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ);
    break;
  case BinaryOp::NE:
    Res = Cmp(P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE);
    break;
  case BinaryOp::Comma:
    Res = R;
    break;
  }
  set(O, Res);
}

void OpLowering::convert(ir::Op &O) {
  llvm::Value *V = val(O.Operands[0]);
  const Type *From = O.Operands[0]->Ty, *To = O.result()->Ty;
  llvm::Type *DstTy = llvmType(To);
  bool SrcSigned = From->isSignedInteger() || From->isEnum();
  bool DstSigned = To->isSignedInteger() || To->isEnum();
  switch (O.Cast) {
  case CastKind::ToBool:
    if (From->isFloatingPoint())
      set(O, B.CreateFCmpUNE(V, llvm::Constant::getNullValue(V->getType())));
    else
      set(O, B.CreateICmpNE(V, llvm::Constant::getNullValue(V->getType())));
    return;
  case CastKind::IntegralCast:
  case CastKind::BoolToIntegral:
    set(O, B.CreateIntCast(V, DstTy, SrcSigned && !From->isBool()));
    return;
  case CastKind::IntegralToFloating:
  case CastKind::BoolToFloating:
    set(O, SrcSigned && !From->isBool() ? B.CreateSIToFP(V, DstTy) : B.CreateUIToFP(V, DstTy));
    return;
  case CastKind::FloatingToIntegral:
    set(O, DstSigned ? B.CreateFPToSI(V, DstTy) : B.CreateFPToUI(V, DstTy));
    return;
  case CastKind::FloatingCast:
    set(O, B.CreateFPCast(V, DstTy));
    return;
  case CastKind::PointerToIntegral:
    set(O, B.CreatePtrToInt(V, DstTy));
    return;
  case CastKind::IntegralToPointer:
    set(O, B.CreateIntToPtr(V, DstTy));
    return;
  case CastKind::NoOp:
  case CastKind::LValueToRValue:
  case CastKind::ArrayToPointer:
  case CastKind::NullToPointer:
  case CastKind::PointerCast:
    set(O, V->getType() == DstTy ? V : B.CreateBitOrPointerCast(V, DstTy));
    return;
  case CastKind::UniformToVarying:
    set(O, splat(V));
    return;
  case CastKind::VectorSplat:
  case CastKind::VectorConvert:
  case CastKind::MaterializeTemporary:
    // The lowering expands short-vector conversions element by element and
    // gives temporaries a slot.
    llvm_unreachable("front-end-only cast left in the IR");
  }
}

/// A uniform value as the varying type `To`: scalars are splatted, structs
/// and arrays member by member (members declared uniform stay as they are).
llvm::Value *OpLowering::broadcast(llvm::Value *V, const Type *From, const Type *To) {
  if (To->isStruct()) {
    llvm::Value *R = llvm::PoisonValue::get(llvmType(To));
    const auto &Fields = To->getStructDecl()->Fields;
    for (unsigned I = 0; I < Fields.size(); ++I) {
      const Type *FF = IRM.Types.memberType(Fields[I].Ty, From->getVariability());
      const Type *FT = IRM.Types.memberType(Fields[I].Ty, To->getVariability());
      R = B.CreateInsertValue(R, broadcast(B.CreateExtractValue(V, I), FF, FT), I);
    }
    return R;
  }
  if (To->isArray()) {
    llvm::Value *R = llvm::PoisonValue::get(llvmType(To));
    for (unsigned I = 0; I < To->getArraySize(); ++I)
      R = B.CreateInsertValue(
          R, broadcast(B.CreateExtractValue(V, I), From->getElementType(), To->getElementType()),
          I);
    return R;
  }
  if (From->isVarying() || !To->isVarying())
    return V;
  // Struct members live in memory form (bools as bytes), scalars in registers.
  return splat(V);
}

} // namespace spmdc::emitter
