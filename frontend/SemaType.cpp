// Sema's type helpers: variability binding of declarations, C's arithmetic
// conversions, implicit-conversion ranking, sizes, and integer constant folding.
#include "frontend/SemaInternal.h"

namespace spmdc {

const Type *Sema::bindDeclType(const Type *T, Variability Default) {
  switch (T->getKind()) {
  case Type::Void:
    return T;
  case Type::Function: {
    // A function's own parameters and result default to varying wherever the
    // function type is written (e.g. as a function pointer's pointee).
    std::vector<const Type *> Params;
    for (const Type *P : T->getParamTypes()) {
      const Type *B = bindDeclType(P, Variability::Varying);
      if (B->isArray() && !B->isShortVector())
        B = Types.getPointer(B->getElementType(), Variability::Uniform);
      Params.push_back(B);
    }
    return Types.getFunction(bindDeclType(T->getReturnType(), Variability::Varying),
                             std::move(Params), T->getFunctionFlags());
  }
  case Type::Pointer: {
    const Type *Pointee = bindDeclType(T->getPointee(), Variability::Uniform);
    Variability V = T->isUnbound() ? Default : T->getVariability();
    return Types.getPointer(Pointee, V, T->isConst());
  }
  case Type::Array:
    return Types.withElement(T, bindDeclType(T->getElementType(), Default));
  case Type::Reference:
    return Types.getReference(bindDeclType(T->getPointee(), Default));
  default:
    return T->isUnbound() ? Types.withVariability(T, Default) : T;
  }
}

Type::Kind Sema::promotedKind(const Type *T) {
  switch (T->getKind()) {
  // ISPC has no integer promotion: int8/int16 (and unsigned) arithmetic stays
  // in its type and wraps; only bool and enums compute as int32.
  case Type::Bool:
  case Type::Enum:
    return Type::Int32;
  default:
    return T->getKind();
  }
}

static unsigned kindWidth(Type::Kind K) {
  switch (K) {
  case Type::Int64:
  case Type::UInt64:
  case Type::Double:
    return 64;
  case Type::Int16:
  case Type::UInt16:
  case Type::Float16:
    return 16;
  case Type::Int8:
  case Type::UInt8:
    return 8;
  default:
    return 32;
  }
}

static bool kindIsUnsigned(Type::Kind K) { return K >= Type::UInt8 && K <= Type::UInt64; }

static Type::Kind unsignedOf(Type::Kind K) {
  switch (K) {
  case Type::Int8:
    return Type::UInt8;
  case Type::Int16:
    return Type::UInt16;
  case Type::Int32:
    return Type::UInt32;
  case Type::Int64:
    return Type::UInt64;
  default:
    return K;
  }
}

Type::Kind Sema::commonArithKind(const Type *A, const Type *B) {
  Type::Kind KA = A->getKind(), KB = B->getKind();
  if (KA == Type::Double || KB == Type::Double)
    return Type::Double;
  // The guide's ranking puts the 64-bit integers above float: `int64 * 0.5f`
  // converts 0.5f to int64 (0) and multiplies integers, as ISPC does. float16
  // ranks below int32 there, but ISPC computes int32 and smaller with a float16
  // in float16; only the 64-bit integers win over it.
  bool AFloat = KA == Type::Float || KA == Type::Float16;
  bool BFloat = KB == Type::Float || KB == Type::Float16;
  if (AFloat != BFloat) {
    Type::Kind Int = AFloat ? KB : KA;
    if (kindWidth(Int) == 64)
      return Int;
  }
  if (KA == Type::Float || KB == Type::Float)
    return Type::Float;
  if (KA == Type::Float16 || KB == Type::Float16)
    return Type::Float16;
  KA = promotedKind(A);
  KB = promotedKind(B);
  if (KA == KB)
    return KA;
  bool UA = kindIsUnsigned(KA), UB = kindIsUnsigned(KB);
  if (UA == UB)
    return kindWidth(KA) >= kindWidth(KB) ? KA : KB;
  Type::Kind U = UA ? KA : KB, S = UA ? KB : KA;
  if (kindWidth(U) >= kindWidth(S))
    return U;
  if (kindWidth(S) > kindWidth(U))
    return S;
  return unsignedOf(S);
}

std::string Sema::functionSignature(const FunctionDecl *F) const {
  const Type *T = F->Ty;
  std::string S;
  const FunctionFlags &Fl = T->getFunctionFlags();
  if (Fl.Export)
    S += "export ";
  if (Fl.Task)
    S += "task ";
  S += T->getReturnType()->toString() + " " + F->Name + "(";
  for (size_t I = 0; I < T->getParamTypes().size(); ++I)
    S += (I ? ", " : "") + T->getParamTypes()[I]->toString();
  return S + ")";
}

std::optional<uint64_t> Sema::sizeOf(const Type *T) const {
  uint64_t Lanes = T->isVarying() ? Target.GangWidth : 1;
  switch (T->getKind()) {
  case Type::Void:
  case Type::Function:
    return std::nullopt;
  case Type::Bool:
    return Lanes * 1;
  case Type::Pointer:
    return Lanes * 8;
  case Type::Reference:
    return 8;
  case Type::Array: {
    auto E = sizeOf(T->getElementType());
    if (!E)
      return std::nullopt;
    return *E * T->getArraySize();
  }
  case Type::Struct: {
    StructDecl *S = completeStruct(T->getStructDecl());
    if (!S)
      return std::nullopt;
    // An empty struct takes one byte, uniform or varying (C++, ISPC).
    if (S->Fields.empty())
      return 1;
    uint64_t Offset = 0, MaxAlign = 1;
    for (const FieldDecl &F : S->Fields) {
      if (!F.Ty)
        return std::nullopt;
      const Type *M = const_cast<TypeContext &>(Types).memberType(F.Ty, T->getVariability());
      auto Sz = sizeOf(M);
      auto Al = alignOf(M);
      if (!Sz || !Al)
        return std::nullopt;
      Offset = (Offset + *Al - 1) / *Al * *Al + *Sz;
      MaxAlign = std::max(MaxAlign, *Al);
    }
    return (Offset + MaxAlign - 1) / MaxAlign * MaxAlign;
  }
  default:
    return Lanes * (T->getBitWidth() / 8);
  }
}

std::optional<uint64_t> Sema::alignOf(const Type *T) const {
  switch (T->getKind()) {
  case Type::Array:
    return alignOf(T->getElementType());
  case Type::Struct: {
    StructDecl *S = completeStruct(T->getStructDecl());
    if (!S)
      return std::nullopt;
    uint64_t A = 1;
    for (const FieldDecl &F : S->Fields) {
      if (!F.Ty)
        return std::nullopt;
      auto FA = alignOf(const_cast<TypeContext &>(Types).memberType(F.Ty, T->getVariability()));
      if (!FA)
        return std::nullopt;
      A = std::max(A, *FA);
    }
    return A;
  }
  default: {
    auto Sz = sizeOf(T);
    if (!Sz)
      return std::nullopt;
    // Vectors align to their size, capped at a cache line (64 bytes).
    uint64_t A = 1;
    while (A < *Sz && A < 64)
      A *= 2;
    return A;
  }
  }
}

bool Sema::isNullPointerConstant(const Expr *E) {
  while (auto *IC = llvm::dyn_cast<ImplicitCastExpr>(E)) {
    if (IC->CK != CastKind::NoOp && IC->CK != CastKind::LValueToRValue)
      return false;
    E = IC->Operand;
  }
  if (llvm::isa<NullLiteral>(E))
    return true;
  if (auto *I = llvm::dyn_cast<IntegerLiteral>(E))
    return I->Value == 0;
  return false;
}

std::optional<CastKind> Sema::kindConversion(const Type *From, const Type *To, bool IsNull,
                                             bool Explicit) {
  if (sameType(From, To))
    return CastKind::NoOp;
  if (From->isShortVector() || To->isShortVector())
    return vectorKindConversion(From, To, Explicit);
  if (To->isVoid())
    return Explicit ? std::optional<CastKind>(CastKind::NoOp) : std::nullopt;
  if (To->isBool()) {
    if (From->isArithmetic() || From->isPointer())
      return CastKind::ToBool;
    return std::nullopt;
  }
  if (To->isInteger() || To->isEnum()) {
    if (From->isBool())
      return CastKind::BoolToIntegral;
    if (From->isInteger() || From->isEnum())
      return CastKind::IntegralCast;
    if (From->isFloatingPoint())
      return CastKind::FloatingToIntegral;
    if (From->isPointer() && Explicit && To->isInteger())
      return CastKind::PointerToIntegral;
    return std::nullopt;
  }
  if (To->isFloatingPoint()) {
    if (From->isBool())
      return CastKind::BoolToFloating;
    if (From->isInteger() || From->isEnum())
      return CastKind::IntegralToFloating;
    if (From->isFloatingPoint())
      return CastKind::FloatingCast;
    return std::nullopt;
  }
  if (To->isPointer()) {
    if (IsNull)
      return CastKind::NullToPointer;
    if (From->isPointer()) {
      if (Explicit)
        return CastKind::PointerCast;
      const Type *FP = From->getPointee(), *TP = To->getPointee();
      // Adding const to the pointee is free; void * converts both ways (C).
      if (sameType(FP, TP) && (!FP->isConst() || TP->isConst()))
        return CastKind::NoOp;
      if (FP->isVoid() || TP->isVoid())
        return CastKind::PointerCast;
      return std::nullopt;
    }
    if (From->isInteger() && Explicit)
      return CastKind::IntegralToPointer;
    return std::nullopt;
  }
  if (To->isStruct() && From->isStruct() &&
      completeStruct(From->getStructDecl()) == completeStruct(To->getStructDecl()))
    return CastKind::NoOp;
  return std::nullopt;
}

bool Sema::implicitlyConvertible(const Type *From, const Type *To, bool IsNull) {
  if (!From || !To || (From->isVarying() && To->isUniform()))
    return false;
  return kindConversion(From, Types.withVariability(To, From->getVariability()), IsNull,
                        /*Explicit=*/false)
      .has_value();
}

/// Truncates `V` to the width and signedness of `T` (an integer, enum or bool).
static int64_t truncateTo(int64_t V, const Type *T) {
  if (T->isBool())
    return V != 0;
  unsigned Bits = T->getBitWidth();
  if (Bits == 0 || Bits >= 64)
    return V;
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  uint64_t U = uint64_t(V) & Mask;
  if (!T->isUnsignedInteger() && (U >> (Bits - 1)) & 1)
    U |= ~Mask;
  return int64_t(U);
}

static bool isIntegralType(const Type *T) {
  return T && (T->isInteger() || T->isEnum() || T->isBool());
}

std::optional<int64_t> Sema::evalIntConst(const Expr *E) {
  if (!E || !E->Ty)
    return std::nullopt;
  switch (E->getKind()) {
  case Expr::IntegerLiteralKind:
    return truncateTo(int64_t(llvm::cast<IntegerLiteral>(E)->Value), E->Ty);
  case Expr::BoolLiteralKind:
    return llvm::cast<BoolLiteral>(E)->Value ? 1 : 0;
  case Expr::DeclRefExprKind: {
    Decl *D = llvm::cast<DeclRefExpr>(E)->D;
    if (auto *C = llvm::dyn_cast_or_null<EnumConstantDecl>(D))
      return C->Resolved;
    auto *V = llvm::dyn_cast_or_null<VarDecl>(D);
    if (!V)
      return std::nullopt;
    if (V->Builtin == BuiltinVar::ProgramCount)
      return int64_t(Target.GangWidth);
    auto It = ConstValues.find(V);
    if (It == ConstValues.end())
      return std::nullopt;
    return It->second;
  }
  case Expr::ImplicitCastExprKind: {
    auto *IC = llvm::cast<ImplicitCastExpr>(E);
    switch (IC->CK) {
    case CastKind::NoOp:
    case CastKind::LValueToRValue:
    case CastKind::UniformToVarying:
      return evalIntConst(IC->Operand);
    case CastKind::IntegralCast:
    case CastKind::BoolToIntegral:
    case CastKind::ToBool: {
      if (!isIntegralType(IC->Operand->Ty))
        return std::nullopt;
      auto V = evalIntConst(IC->Operand);
      if (!V)
        return std::nullopt;
      return truncateTo(*V, E->Ty);
    }
    default:
      return std::nullopt;
    }
  }
  case Expr::CastExprKind: {
    auto *C = llvm::cast<CastExpr>(E);
    if (!isIntegralType(E->Ty))
      return std::nullopt;
    const Expr *Op = C->Operand;
    while (auto *IC = llvm::dyn_cast<ImplicitCastExpr>(Op))
      Op = IC->Operand;
    if (auto *F = llvm::dyn_cast<FloatLiteral>(Op)) {
      if (!(F->Value > -9.2e18 && F->Value < 9.2e18))
        return std::nullopt;
      return truncateTo(int64_t(F->Value), E->Ty);
    }
    if (!isIntegralType(C->Operand->Ty))
      return std::nullopt;
    auto V = evalIntConst(C->Operand);
    if (!V)
      return std::nullopt;
    return truncateTo(*V, E->Ty);
  }
  case Expr::UnaryExprKind: {
    auto *U = llvm::cast<UnaryExpr>(E);
    if (!isIntegralType(U->Operand->Ty))
      return std::nullopt;
    auto V = evalIntConst(U->Operand);
    if (!V)
      return std::nullopt;
    switch (U->Op) {
    case UnaryOp::Plus:
      return truncateTo(*V, E->Ty);
    case UnaryOp::Minus:
      return truncateTo(int64_t(0 - uint64_t(*V)), E->Ty);
    case UnaryOp::BitNot:
      return truncateTo(~*V, E->Ty);
    case UnaryOp::Not:
      return *V == 0 ? 1 : 0;
    default:
      return std::nullopt;
    }
  }
  case Expr::BinaryExprKind: {
    auto *B = llvm::cast<BinaryExpr>(E);
    if (B->Op == BinaryOp::Comma || !isIntegralType(B->LHS->Ty) || !isIntegralType(B->RHS->Ty))
      return std::nullopt;
    auto L = evalIntConst(B->LHS);
    if (!L)
      return std::nullopt;
    if (B->Op == BinaryOp::LogicalAnd && !*L)
      return 0;
    if (B->Op == BinaryOp::LogicalOr && *L)
      return 1;
    auto R = evalIntConst(B->RHS);
    if (!R)
      return std::nullopt;
    bool Unsigned = B->LHS->Ty->isUnsignedInteger();
    uint64_t UL = uint64_t(*L), UR = uint64_t(*R);
    int64_t Res;
    switch (B->Op) {
    case BinaryOp::Mul:
      Res = int64_t(UL * UR);
      break;
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (*R == 0 || (!Unsigned && *L == INT64_MIN && *R == -1))
        return std::nullopt;
      if (B->Op == BinaryOp::Div)
        Res = Unsigned ? int64_t(UL / UR) : *L / *R;
      else
        Res = Unsigned ? int64_t(UL % UR) : *L % *R;
      break;
    case BinaryOp::Add:
      Res = int64_t(UL + UR);
      break;
    case BinaryOp::Sub:
      Res = int64_t(UL - UR);
      break;
    case BinaryOp::Shl:
      if (UR >= 64)
        return std::nullopt;
      Res = int64_t(UL << UR);
      break;
    case BinaryOp::Shr:
      if (UR >= 64)
        return std::nullopt;
      Res = Unsigned ? int64_t(UL >> UR) : (*L >> UR);
      break;
    case BinaryOp::LT:
    case BinaryOp::GT:
    case BinaryOp::LE:
    case BinaryOp::GE:
    case BinaryOp::EQ:
    case BinaryOp::NE:
      return *compareIntegerConstants(B->Op, *L, *R, Unsigned);
    case BinaryOp::BitAnd:
      Res = *L & *R;
      break;
    case BinaryOp::BitXor:
      Res = *L ^ *R;
      break;
    case BinaryOp::BitOr:
      Res = *L | *R;
      break;
    case BinaryOp::LogicalAnd:
    case BinaryOp::LogicalOr:
      return *R != 0;
    default:
      return std::nullopt;
    }
    return truncateTo(Res, E->Ty);
  }
  case Expr::ConditionalExprKind: {
    auto *C = llvm::cast<ConditionalExpr>(E);
    auto Cond = evalIntConst(C->Cond);
    if (!Cond)
      return std::nullopt;
    return evalIntConst(*Cond ? C->Then : C->Else);
  }
  case Expr::SizeofExprKind: {
    auto *S = llvm::cast<SizeofExpr>(E);
    const Type *T = S->OfType ? S->OfType : (S->OfExpr ? S->OfExpr->Ty : nullptr);
    if (!T)
      return std::nullopt;
    auto Sz = sizeOf(T);
    if (!Sz)
      return std::nullopt;
    return int64_t(*Sz);
  }
  default:
    return std::nullopt;
  }
}

} // namespace spmdc
