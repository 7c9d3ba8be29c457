// Sema for ISPC's short vectors (`float<3>`): conversions, element-wise
// operators, swizzles (`v.xy`) and vector conditions, as the ISPC guide's
// "Short Vector Types" section defines them.
//
// A short vector is an Array type with the ShortVector flag (Types.h): the IR
// and the back ends see the array of its elements, and the lowering expands
// every operator on it element by element. Sema makes both operands of an
// operator short vectors of the operation's type (a scalar operand gets a
// VectorSplat cast), so the lowering never re-derives a conversion.
#include "frontend/SemaInternal.h"

namespace spmdc {

namespace {

bool isIntegralElement(const Type *T) { return T->isInteger() || T->isBool() || T->isEnum(); }

/// The element type of a short vector, or `T` itself for a scalar.
const Type *elementOrSelf(const Type *T) {
  return T->isShortVector() ? T->getElementType() : T;
}

/// `x y z w` and `r g b a` name the first four elements (HLSL's spelling).
std::optional<unsigned> swizzleIndex(char C) {
  switch (C) {
  case 'x':
  case 'r':
    return 0;
  case 'y':
  case 'g':
    return 1;
  case 'z':
  case 'b':
    return 2;
  case 'w':
  case 'a':
    return 3;
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<CastKind> Sema::vectorKindConversion(const Type *From, const Type *To,
                                                   bool Explicit) {
  if (!To->isShortVector())
    return std::nullopt; // a vector never becomes a scalar implicitly or by a cast
  const Type *ToElt = To->getElementType();
  if (!From->isShortVector()) {
    if (!From->isArithmetic() || !kindConversion(From, ToElt, false, Explicit))
      return std::nullopt;
    return CastKind::VectorSplat;
  }
  if (From->getArraySize() != To->getArraySize())
    return std::nullopt;
  const Type *FromElt = From->getElementType();
  if (sameType(FromElt, ToElt))
    return CastKind::NoOp;
  if (!kindConversion(FromElt, ToElt, false, Explicit))
    return std::nullopt;
  return CastKind::VectorConvert;
}

/// Converts `E` (an rvalue) to the short vector `To`; the caller checked that
/// the conversion exists.
static void convertToVector(Sema &S, Expr *&E, const Type *To) {
  const Type *Mid = S.Types.withVariability(To, E->Ty->getVariability());
  if (!S.sameType(E->Ty, Mid))
    if (std::optional<CastKind> CK = S.vectorKindConversion(E->Ty, Mid, /*Explicit=*/false))
      E = S.wrap(E, *CK, Mid);
  S.matchVariability(E, To->getVariability());
}

const Type *Sema::vectorOperationType(const Type *L, const Type *R, Variability V) {
  uint64_t N = L->isShortVector() ? L->getArraySize() : R->getArraySize();
  if (L->isShortVector() && R->isShortVector() && L->getArraySize() != R->getArraySize())
    return nullptr;
  const Type *LE = elementOrSelf(L), *RE = elementOrSelf(R);
  if (!LE->isArithmetic() || !RE->isArithmetic())
    return nullptr;
  return Types.getShortVector(Types.getAtomic(commonArithKind(LE, RE), V), N);
}

const Type *Sema::checkVectorArithmetic(BinaryOp Op, Expr *&L, Expr *&R, SourceLoc Loc) {
  const Type *LT = L->Ty, *RT = R->Ty;
  if (LT->isShortVector() && RT->isShortVector() && LT->getArraySize() != RT->getArraySize()) {
    Diags.error(Loc, std::string("invalid operands to binary '") + binaryOpSpelling(Op) +
                         "': short vectors of different lengths, " + quoted(LT) + " and " +
                         quoted(RT));
    return nullptr;
  }
  Variability V = combine(LT->getVariability(), RT->getVariability());
  const Type *OpTy = vectorOperationType(LT, RT, V);
  bool Ok = OpTy != nullptr;
  switch (Op) {
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::LT:
  case BinaryOp::GT:
  case BinaryOp::LE:
  case BinaryOp::GE:
  case BinaryOp::EQ:
  case BinaryOp::NE:
    break;
  case BinaryOp::Rem:
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    Ok = Ok && isIntegralElement(elementOrSelf(LT)) && isIntegralElement(elementOrSelf(RT));
    break;
  default:
    Ok = false;
    break;
  }
  if (!Ok) {
    invalidOperands(Op, L, R, Loc);
    return nullptr;
  }
  convertToVector(*this, L, OpTy);
  convertToVector(*this, R, OpTy);
  bool Compare = Op == BinaryOp::LT || Op == BinaryOp::GT || Op == BinaryOp::LE ||
                 Op == BinaryOp::GE || Op == BinaryOp::EQ || Op == BinaryOp::NE;
  return Compare ? Types.getShortVector(boolTy(V), OpTy->getArraySize()) : OpTy;
}

bool Sema::checkVectorUnary(UnaryExpr *E) {
  const Type *T = E->Operand->Ty;
  const Type *Elt = T->getElementType();
  bool Ok = E->Op == UnaryOp::BitNot ? isIntegralElement(Elt)
                                      : Elt->isArithmetic(); // + - ! on any element type
  if (!Ok) {
    Diags.error(E->Loc, "invalid argument type " + quoted(T) + " to unary '" +
                            unaryOpSpelling(E->Op) + "'");
    return false;
  }
  if (E->Op == UnaryOp::Not) {
    // `!v` is element-wise: a bool vector of the same length.
    const Type *BoolVec = Types.getShortVector(boolTy(T->getVariability()), T->getArraySize());
    convertToVector(*this, E->Operand, BoolVec);
    E->Ty = BoolVec;
    return true;
  }
  E->Ty = unqualified(T);
  return true;
}

bool Sema::checkVectorLogical(BinaryExpr *E) {
  const Type *LT = E->LHS->Ty, *RT = E->RHS->Ty;
  Variability V = combine(LT->getVariability(), RT->getVariability());
  const Type *OpTy = vectorOperationType(LT, RT, V);
  if (!OpTy) {
    invalidOperands(E->Op, E->LHS, E->RHS, E->Loc);
    return false;
  }
  const Type *BoolVec = Types.getShortVector(boolTy(V), OpTy->getArraySize());
  convertToVector(*this, E->LHS, BoolVec);
  convertToVector(*this, E->RHS, BoolVec);
  E->Ty = BoolVec;
  return true;
}

bool Sema::checkVectorCompoundAssign(AssignExpr *E) {
  const Type *T = unqualified(E->LHS->Ty), *RT = E->RHS->Ty;
  BinaryOp Op = *E->Op;
  if (!T->isShortVector()) {
    Diags.error(E->Loc, std::string("invalid operands to binary '") + binaryOpSpelling(Op) +
                            "=': " + quoted(T) + " and " + quoted(RT));
    return false;
  }
  Expr *Probe = E->LHS; // the operation's type as for `lhs op rhs`, without rewriting lhs
  const Type *OpTy = checkVectorArithmetic(Op, Probe, E->RHS, E->Loc);
  if (!OpTy)
    return false;
  if (T->isUniform() && OpTy->isVarying()) {
    Diags.error(E->RHS->Loc, "cannot convert " + quoted(OpTy) + " to " + quoted(T) +
                                 " in assignment: a varying value cannot become uniform");
    return false;
  }
  E->Ty = T;
  return true;
}

bool Sema::checkSwizzle(MemberExpr *E) {
  // `v.x`, or `p->x` through a pointer to a vector (a gather when the
  // pointer is varying).
  const Type *VecTy = E->Base->Ty;
  bool Lvalue = E->Base->IsLValue;
  if (E->IsArrow) {
    const Type *P = VecTy;
    VecTy = P->isVarying() ? varyingOf(P->getPointee()) : P->getPointee();
    Lvalue = true;
  }
  uint64_t N = VecTy->getArraySize();
  std::vector<unsigned> Indices;
  for (char C : E->Member) {
    std::optional<unsigned> I = swizzleIndex(C);
    if (!I) {
      Diags.error(E->Loc, "invalid element '" + std::string(1, C) + "' in '." + E->Member +
                              "' of short vector " + quoted(VecTy) +
                              ": use x, y, z, w or r, g, b, a");
      return false;
    }
    if (*I >= N) {
      Diags.error(E->Loc, "element '" + std::string(1, C) + "' of '." + E->Member +
                              "' is past the end of " + quoted(VecTy) + " (" + std::to_string(N) +
                              (N == 1 ? " element)" : " elements)"));
      return false;
    }
    Indices.push_back(*I);
  }
  E->Swizzle = std::move(Indices);
  const Type *Elt = VecTy->getElementType();
  if (E->Swizzle.size() == 1) {
    // One element: an object of the vector, assignable when the vector is.
    E->Ty = Elt;
    E->IsLValue = Lvalue;
    return true;
  }
  // Several: a new vector value (ISPC does not assign to swizzles either).
  E->Ty = Types.getShortVector(unqualified(Elt), E->Swizzle.size());
  return true;
}

const Type *Sema::checkVectorCondition(ConditionalExpr *E) {
  const Type *CT = E->Cond->Ty, *TT = E->Then->Ty, *ET = E->Else->Ty;
  uint64_t N = CT->getArraySize();
  auto Length = [](const Type *T) { return T->isShortVector() ? T->getArraySize() : 0; };
  Variability V =
      combine(CT->getVariability(), combine(TT->getVariability(), ET->getVariability()));
  const Type *Result = nullptr;
  if ((!Length(TT) || Length(TT) == N) && (!Length(ET) || Length(ET) == N)) {
    const Type *TE = elementOrSelf(TT), *EE = elementOrSelf(ET);
    if (TE->isArithmetic() && EE->isArithmetic())
      Result = Types.getShortVector(Types.getAtomic(commonArithKind(TE, EE), V), N);
  }
  if (!Result) {
    Diags.error(E->Loc, "incompatible operand types " + quoted(TT) + " and " + quoted(ET) +
                            " for the element-wise '?:' on " + quoted(CT));
    return nullptr;
  }
  if (!CT->getElementType()->isArithmetic()) {
    Diags.error(E->Cond->Loc, "'?:' condition must be convertible to bool, not " + quoted(CT));
    return nullptr;
  }
  convertToVector(*this, E->Cond,
                  Types.getShortVector(boolTy(CT->getVariability()), N));
  convertToVector(*this, E->Then, Result);
  convertToVector(*this, E->Else, Result);
  return Result;
}

} // namespace spmdc
