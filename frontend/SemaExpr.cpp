// Sema for expressions: types, l-values, implicit conversions and the
// uniform/varying rules on operators and assignments.
//
// Every checked expression gets `Ty` (null after an error, so that parents stay
// quiet) and `IsLValue`. Values are read through LValueToRValue casts, uniform
// operands of varying operations are broadcast with UniformToVarying, and C's
// arithmetic conversions are spelled out as casts, so the back end never has to
// re-derive a conversion.
#include "frontend/SemaInternal.h"

namespace spmdc {

Expr *Sema::wrap(Expr *E, CastKind CK, const Type *To) {
  return Ctx.makeExpr<ImplicitCastExpr>(E->Loc, CK, E, To);
}

bool Sema::toRValue(Expr *&E) {
  if (!E || !E->Ty)
    return false;
  const Type *T = E->Ty;
  if (T->isArray() && isInSoa(E)) {
    Diags.error(E->Loc, "using an array inside soa data as a pointer is not supported yet; "
                        "index it");
    return false;
  }
  if (T->isArray() && !T->isShortVector()) {
    // An array decays to a pointer to its first element; the pointer is
    // varying when the array itself sits at a per-lane address.
    LValueInfo Info = lvalueInfo(E);
    const Type *Storage = Info.Storage && Info.Storage->isArray() ? Info.Storage : T;
    E = wrap(E, CastKind::ArrayToPointer,
             Types.getPointer(Storage->getElementType(),
                              Info.VaryingAddress ? Variability::Varying : Variability::Uniform));
    return true;
  }
  if (T->isFunction()) {
    // A function designator used as a value is a (uniform) function pointer;
    // the NoOp cast's operand keeps the function type.
    E = wrap(E, CastKind::NoOp, Types.getPointer(T, Variability::Uniform));
    return true;
  }
  if (E->IsLValue)
    E = wrap(E, CastKind::LValueToRValue, unqualified(T));
  return true;
}

/// Converts without diagnostics; the caller has established that the
/// conversion exists (arithmetic to arithmetic, pointer to same pointer...).
static bool convertQuiet(Sema &S, Expr *&E, const Type *To) {
  const Type *From = E->Ty;
  const Type *Mid = S.Types.withVariability(To, From->getVariability());
  if (!S.sameType(From, Mid)) {
    std::optional<CastKind> CK =
        S.kindConversion(From, Mid, Sema::isNullPointerConstant(E), /*Explicit=*/false);
    if (!CK)
      return false;
    E = S.wrap(E, *CK, Mid);
  }
  if (!From->isVarying() && To->isVarying())
    E = S.wrap(E, CastKind::UniformToVarying, To);
  return true;
}

bool Sema::convert(Expr *&E, const Type *To, const ConvContext &Where) {
  const Type *From = E->Ty;
  if (!From || !To)
    return false;
  if (From->isVarying() && To->isUniform()) {
    Diags.error(E->Loc, "cannot convert " + quoted(From) + " to " + quoted(To) + " " +
                            Where.describe() + ": a varying value cannot become uniform");
    return false;
  }
  if (To->isVoid() || From->isVoid() || !convertQuiet(*this, E, To)) {
    if (To->isVoid() && From->isVoid())
      return true;
    Diags.error(E->Loc,
                "cannot convert " + quoted(From) + " to " + quoted(To) + " " + Where.describe());
    return false;
  }
  return true;
}

bool Sema::convertCondition(Expr *&E, const char *What) {
  if (!E->Ty)
    return false;
  if (!E->Ty->isArithmetic() && !E->Ty->isPointer()) {
    Diags.error(E->Loc, std::string(What) + " must be convertible to bool, not " + quoted(E->Ty));
    E->Ty = nullptr;
    return false;
  }
  if (!E->Ty->isBool())
    E = wrap(E, CastKind::ToBool,
             boolTy(E->Ty->isVarying() ? Variability::Varying : Variability::Uniform));
  return true;
}

void Sema::promote(Expr *&E) {
  const Type *T = E->Ty;
  if (!T->isArithmetic() || promotedKind(T) == T->getKind())
    return;
  E = wrap(E, T->isBool() ? CastKind::BoolToIntegral : CastKind::IntegralCast,
           Types.getAtomic(promotedKind(T),
                           T->isVarying() ? Variability::Varying : Variability::Uniform));
}

void Sema::matchVariability(Expr *&E, Variability V) {
  if (V == Variability::Varying && !E->Ty->isVarying())
    E = wrap(E, CastKind::UniformToVarying, varyingOf(E->Ty));
}

static bool isIntegral(const Type *T) { return T->isInteger() || T->isBool() || T->isEnum(); }

//===----------------------------------------------------------------------===//
// L-values
//===----------------------------------------------------------------------===//

Sema::LValueInfo Sema::lvalueInfo(const Expr *E) {
  LValueInfo Info{E->Ty, false};
  if (auto *D = llvm::dyn_cast<DeclRefExpr>(E)) {
    if (auto *V = llvm::dyn_cast_or_null<VarDecl>(D->D); V && V->Ty)
      Info.Storage = V->Ty->isReference() ? V->Ty->getPointee() : V->Ty;
  } else if (auto *U = llvm::dyn_cast<UnaryExpr>(E); U && U->Op == UnaryOp::Deref) {
    const Type *P = U->Operand->Ty;
    if (P && P->isPointer())
      Info = {P->getPointee(), P->isVarying()};
  } else if (auto *I = llvm::dyn_cast<IndexExpr>(E)) {
    const Type *B = I->Base->Ty;
    bool VaryingIndex = I->Index->Ty && I->Index->Ty->isVarying();
    if (B && B->isArray()) {
      LValueInfo BI = lvalueInfo(I->Base);
      const Type *Arr = BI.Storage && BI.Storage->isArray() ? BI.Storage : B;
      Info = {Arr->getElementType(), BI.VaryingAddress || VaryingIndex};
    } else if (B && B->isPointer()) {
      Info = {B->getPointee(), B->isVarying() || VaryingIndex};
    }
    // An element of soa data is stored member by member: its "storage" is
    // the struct it reads as.
    if (isSoaElement(I))
      Info.Storage = uniformOf(E->Ty);
  } else if (auto *M = llvm::dyn_cast<MemberExpr>(E); M && M->Swizzle.size() == 1) {
    // An element of a short vector lives where the vector does.
    const Type *P = M->Base->Ty;
    LValueInfo BI = M->IsArrow ? LValueInfo{P->getPointee(), P->isVarying()} : lvalueInfo(M->Base);
    if (BI.Storage && BI.Storage->isShortVector())
      Info = {BI.Storage->getElementType(), BI.VaryingAddress};
  } else if (auto *M = llvm::dyn_cast<MemberExpr>(E)) {
    const Type *B = M->Base->Ty;
    const Type *StructTy = nullptr;
    bool Varying = false;
    if (M->IsArrow && B && B->isPointer()) {
      StructTy = B->getPointee();
      Varying = B->isVarying();
    } else if (!M->IsArrow && B) {
      LValueInfo BI = lvalueInfo(M->Base);
      StructTy = BI.Storage && BI.Storage->isStruct() ? BI.Storage : B;
      Varying = BI.VaryingAddress;
    }
    if (StructTy && StructTy->isStruct() && M->FieldIndex >= 0) {
      StructDecl *S = completeStruct(StructTy->getStructDecl());
      if (S && size_t(M->FieldIndex) < S->Fields.size() && S->Fields[M->FieldIndex].Ty) {
        const Type *FT = bindDeclType(S->Fields[M->FieldIndex].Ty, StructTy->getVariability());
        if (StructTy->isConst())
          FT = Types.withConst(FT);
        Info = {FT, Varying};
      }
    }
  }
  if (!Info.Storage)
    Info.Storage = E->Ty;
  return Info;
}

VarDecl *Sema::rootVariable(const Expr *E) {
  if (auto *D = llvm::dyn_cast<DeclRefExpr>(E)) {
    // A store through a reference is a store through a pointer, not to a
    // variable of this scope.
    auto *V = llvm::dyn_cast_or_null<VarDecl>(D->D);
    return V && V->Ty && V->Ty->isReference() ? nullptr : V;
  }
  if (auto *M = llvm::dyn_cast<MemberExpr>(E))
    return M->IsArrow ? nullptr : rootVariable(M->Base);
  if (auto *I = llvm::dyn_cast<IndexExpr>(E))
    return I->Base->Ty && I->Base->Ty->isArray() ? rootVariable(I->Base) : nullptr;
  return nullptr;
}

bool Sema::checkModifiable(Expr *E, const char *What) {
  if (!E->Ty)
    return false;
  VarDecl *Root = rootVariable(E);
  if (Root && Root->Builtin != BuiltinVar::None) {
    Diags.error(E->Loc, std::string("cannot ") + What + " built-in '" + Root->Name + "'");
    return false;
  }
  if (auto *M = llvm::dyn_cast<MemberExpr>(E); M && M->Swizzle.size() > 1) {
    Diags.error(E->Loc, std::string("cannot ") + What + " the swizzle '." + M->Member +
                            "': assign its elements one by one (as in ISPC)");
    return false;
  }
  if (!E->IsLValue) {
    Diags.error(E->Loc, std::string("cannot ") + What + " this expression: it is not an lvalue");
    return false;
  }
  if (Root && ForeachVars.count(Root) && llvm::isa<DeclRefExpr>(E)) {
    Diags.error(E->Loc, std::string("cannot ") + What + " iteration variable '" + Root->Name + "'");
    return false;
  }
  if (E->Ty->isArray() && !E->Ty->isShortVector()) {
    Diags.error(E->Loc, std::string("cannot ") + What + " an array of type " + quoted(E->Ty));
    return false;
  }
  if (E->Ty->isConst()) {
    if (Root && llvm::isa<DeclRefExpr>(E))
      Diags.error(E->Loc, std::string("cannot ") + What + " const variable '" + Root->Name + "'");
    else
      Diags.error(E->Loc,
                  std::string("cannot ") + What + " a const value of type " + quoted(E->Ty));
    return false;
  }
  // A uniform variable declared outside the varying control flow that encloses
  // this point changes when any lane is active (ISPC); an opt-in warning says so.
  if (Lang.WarnUniformStoreUnderVarying && Root && !E->Ty->isVarying() &&
      !(CurFunction && CurFunction->IsStdlib)) {
    Region *R = innermostNarrowing(/*SerialNarrows=*/false);
    auto Seq = DeclSeq.find(Root);
    uint64_t DeclaredAt = Seq == DeclSeq.end() ? 0 : Seq->second;
    if (R && DeclaredAt < R->StartSeq) {
      // Point at the variable's name inside `a[i].x`.
      const Expr *Name = E;
      while (!llvm::isa<DeclRefExpr>(Name)) {
        if (auto *M = llvm::dyn_cast<MemberExpr>(Name))
          Name = M->Base;
        else if (auto *I = llvm::dyn_cast<IndexExpr>(Name))
          Name = I->Base;
        else
          break;
      }
      Diags.warning(Name->Loc, "assignment to uniform variable '" + Root->Name +
                                   "' under varying control flow: it is stored when any lane is active");
      if (Root->Loc.isValid())
        Diags.note(Root->Loc, "'" + Root->Name + "' is declared outside the varying control flow");
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

bool Sema::checkExpr(Expr *E) {
  E->Ty = nullptr;
  E->IsLValue = false;
  switch (E->getKind()) {
  case Expr::IntegerLiteralKind: {
    auto *L = llvm::cast<IntegerLiteral>(E);
    const Type *T = L->LiteralType ? L->LiteralType : Types.getAtomic(Type::Int32);
    E->Ty = uniformOf(unqualified(T));
    return true;
  }
  case Expr::FloatLiteralKind: {
    auto *L = llvm::cast<FloatLiteral>(E);
    const Type *T = L->LiteralType ? L->LiteralType : Types.getAtomic(Type::Double);
    E->Ty = uniformOf(unqualified(T));
    return true;
  }
  case Expr::BoolLiteralKind:
    E->Ty = boolTy(Variability::Uniform);
    return true;
  case Expr::StringLiteralKind:
    E->Ty = Types.getPointer(Types.getAtomic(Type::Int8, Variability::Uniform, true),
                             Variability::Uniform);
    return true;
  case Expr::NullLiteralKind:
    E->Ty = Types.getPointer(Types.getVoid(), Variability::Uniform);
    return true;
  case Expr::DeclRefExprKind:
    return checkDeclRef(llvm::cast<DeclRefExpr>(E));
  case Expr::UnaryExprKind:
    return checkUnary(llvm::cast<UnaryExpr>(E));
  case Expr::BinaryExprKind:
    return checkBinary(llvm::cast<BinaryExpr>(E));
  case Expr::AssignExprKind:
    return checkAssign(llvm::cast<AssignExpr>(E));
  case Expr::ConditionalExprKind:
    return checkConditional(llvm::cast<ConditionalExpr>(E));
  case Expr::CallExprKind:
    return resolveTemplateCallee(llvm::cast<CallExpr>(E)) && checkCall(llvm::cast<CallExpr>(E));
  case Expr::IndexExprKind:
    return checkIndex(llvm::cast<IndexExpr>(E));
  case Expr::MemberExprKind:
    return checkMember(llvm::cast<MemberExpr>(E));
  case Expr::CastExprKind:
    return checkCast(llvm::cast<CastExpr>(E));
  case Expr::ImplicitCastExprKind: {
    // Only sema creates these; re-checking one keeps its type.
    auto *IC = llvm::cast<ImplicitCastExpr>(E);
    IC->Ty = IC->Operand ? IC->Operand->Ty : nullptr;
    return IC->Ty != nullptr;
  }
  case Expr::SizeofExprKind:
    return checkSizeof(llvm::cast<SizeofExpr>(E));
  case Expr::InitListExprKind:
    Diags.error(E->Loc, "a brace-enclosed list is only allowed as an initializer");
    return false;
  case Expr::NewExprKind:
    return checkNew(llvm::cast<NewExpr>(E));
  }
  return false;
}

bool Sema::checkDeclRef(DeclRefExpr *E) {
  Decl *D = lookup(E->Name);
  if (!D) {
    Diags.error(E->Loc, "use of undeclared identifier '" + E->Name + "'");
    return false;
  }
  E->D = D;
  switch (D->getKind()) {
  case Decl::VarDeclKind: {
    auto *V = llvm::cast<VarDecl>(D);
    if (!V->Ty)
      return false;
    // A reference names the object it is bound to.
    E->Ty = V->Ty->isReference() ? V->Ty->getPointee() : V->Ty;
    E->IsLValue = true;
    return true;
  }
  case Decl::EnumConstantDeclKind: {
    auto *C = llvm::cast<EnumConstantDecl>(D);
    E->Ty = C->Ty ? uniformOf(unqualified(C->Ty)) : int32Ty(Variability::Uniform);
    return true;
  }
  case Decl::FunctionDeclKind: {
    std::vector<FunctionDecl *> *Set = overloadSet(E->Name);
    if (Set && Set->size() > 1) {
      Diags.error(E->Loc,
                  "reference to overloaded function '" + E->Name + "' is ambiguous without a call");
      return false;
    }
    auto *F = Set && !Set->empty() ? Set->front() : llvm::cast<FunctionDecl>(D);
    E->D = F;
    if (!Checked.count(F))
      return false;
    E->Ty = F->Ty;
    return true;
  }
  case Decl::TypedefDeclKind:
  case Decl::StructDeclKind:
  case Decl::EnumDeclKind:
    Diags.error(E->Loc, "'" + E->Name + "' is a type, not a value");
    return false;
  }
  return false;
}

bool Sema::checkUnary(UnaryExpr *E) {
  Expr *&Op = E->Operand;
  if (!Op)
    return false;
  switch (E->Op) {
  case UnaryOp::PreInc:
  case UnaryOp::PreDec:
  case UnaryOp::PostInc:
  case UnaryOp::PostDec: {
    bool Inc = E->Op == UnaryOp::PreInc || E->Op == UnaryOp::PostInc;
    if (!checkExpr(Op))
      return false;
    if (Op->Ty->isStruct()) {
      // `operator++(S &)` for the prefix form, `operator++(S &, int)` (a dummy
      // int) for the postfix one, as in C++.
      std::vector<Expr *> Operands{Op};
      if (E->Op == UnaryOp::PostInc || E->Op == UnaryOp::PostDec) {
        Operands.push_back(Ctx.makeExpr<IntegerLiteral>(E->Loc, 0, nullptr));
        checkExpr(Operands.back());
      }
      if (auto R = checkOverloadedOperator(E, Inc ? "++" : "--", Operands, E->OperatorCall))
        return *R;
    }
    const Type *T = Op->Ty;
    // `++v` on a short vector steps every element.
    const Type *Scalar = T->isShortVector() ? T->getElementType() : T;
    if (!(Scalar->isArithmetic() && !Scalar->isBool()) && !T->isPointer()) {
      Diags.error(E->Loc, std::string("cannot ") + (Inc ? "increment" : "decrement") +
                              " a value of type " + quoted(T));
      return false;
    }
    if (T->isPointer() && (T->getPointee()->isVoid() || T->getPointee()->isFunction())) {
      Diags.error(E->Loc, "arithmetic on a pointer to " + quoted(T->getPointee()));
      return false;
    }
    if (T->isPointer() && soaBlock(T->getPointee())) {
      soaPointerUnsupported(T, E->Loc, Inc ? "incrementing" : "decrementing");
      return false;
    }
    if (!checkModifiable(Op, Inc ? "increment" : "decrement"))
      return false;
    E->Ty = unqualified(T);
    return true;
  }
  case UnaryOp::Plus:
  case UnaryOp::Minus:
  case UnaryOp::BitNot: {
    if (!checkExpr(Op))
      return false;
    if (Op->Ty->isStruct())
      if (auto R = checkOverloadedOperator(E, unaryOpSpelling(E->Op), {Op}, E->OperatorCall))
        return *R;
    if (!toRValue(Op))
      return false;
    if (Op->Ty->isShortVector())
      return checkVectorUnary(E);
    const Type *T = Op->Ty;
    bool Ok = E->Op == UnaryOp::BitNot ? isIntegral(T) : T->isArithmetic();
    if (!Ok) {
      Diags.error(E->Loc, "invalid argument type " + quoted(T) + " to unary '" +
                              unaryOpSpelling(E->Op) + "'");
      return false;
    }
    promote(Op);
    E->Ty = Op->Ty;
    return true;
  }
  case UnaryOp::Not: {
    if (!checkExpr(Op))
      return false;
    if (Op->Ty->isStruct())
      if (auto R = checkOverloadedOperator(E, "!", {Op}, E->OperatorCall))
        return *R;
    if (!toRValue(Op))
      return false;
    if (Op->Ty->isShortVector())
      return checkVectorUnary(E);
    if (!Op->Ty->isArithmetic() && !Op->Ty->isPointer()) {
      Diags.error(E->Loc, "invalid argument type " + quoted(Op->Ty) + " to unary '!'");
      return false;
    }
    convertCondition(Op, "operand of '!'");
    E->Ty = Op->Ty;
    return true;
  }
  case UnaryOp::Deref: {
    if (!checkRValue(Op))
      return false;
    const Type *P = Op->Ty;
    if (!P->isPointer()) {
      Diags.error(E->Loc,
                  "cannot dereference a value of type " + quoted(P) + ": it is not a pointer");
      return false;
    }
    const Type *Pointee = P->getPointee();
    if (Pointee->isVoid()) {
      Diags.error(E->Loc, "cannot dereference a pointer to 'void'");
      return false;
    }
    if (Pointee->isFunction()) {
      E->Ty = Pointee; // a function designator; calls use it directly
      return true;
    }
    if (soaBlock(Pointee)) {
      soaPointerUnsupported(P, E->Loc, "dereferencing");
      return false;
    }
    // Through a varying pointer each lane reads its own location: a gather.
    E->Ty = P->isVarying() ? varyingOf(Pointee) : Pointee;
    E->IsLValue = true;
    return true;
  }
  case UnaryOp::AddrOf: {
    if (!checkExpr(Op))
      return false;
    if (Op->Ty->isFunction()) {
      E->Ty = Types.getPointer(Op->Ty, Variability::Uniform);
      return true;
    }
    VarDecl *Root = rootVariable(Op);
    if (Root && Root->Builtin != BuiltinVar::None) {
      Diags.error(E->Loc, "cannot take the address of built-in '" + Root->Name + "'");
      return false;
    }
    if (isInSoa(Op) && (Op->Ty->isStruct() || Op->Ty->isArray())) {
      Diags.error(E->Loc, "taking the address of " + quoted(Op->Ty) +
                              " inside soa data is not supported yet; take the address of one "
                              "of its atomic members");
      return false;
    }
    if (!Op->IsLValue) {
      Diags.error(E->Loc, "cannot take the address of a value of type " + quoted(Op->Ty) +
                              ": it is not an lvalue");
      return false;
    }
    LValueInfo Info = lvalueInfo(Op);
    E->Ty = Types.getPointer(Info.Storage,
                             Info.VaryingAddress ? Variability::Varying : Variability::Uniform);
    return true;
  }
  }
  return false;
}

void Sema::invalidOperands(BinaryOp Op, const Expr *L, const Expr *R, SourceLoc Loc) {
  Diags.error(Loc, std::string("invalid operands to binary '") + binaryOpSpelling(Op) +
                       "': " + quoted(L->Ty) + " and " + quoted(R->Ty));
}

/// Converts both arithmetic operands to their common type at variability V.
static const Type *arithmeticCommon(Sema &S, Expr *&L, Expr *&R, Variability V) {
  const Type *CT = S.Types.getAtomic(Sema::commonArithKind(L->Ty, R->Ty), V);
  convertQuiet(S, L, CT);
  convertQuiet(S, R, CT);
  return CT;
}

const Type *Sema::checkArithmetic(BinaryOp Op, Expr *&L, Expr *&R, SourceLoc Loc) {
  const Type *LT = L->Ty, *RT = R->Ty;
  if (LT->isShortVector() || RT->isShortVector())
    return checkVectorArithmetic(Op, L, R, Loc);
  Variability V = combine(LT->getVariability(), RT->getVariability());
  bool LA = LT->isArithmetic(), RA = RT->isArithmetic();
  auto PointerArith = [&](Expr *&P, Expr *&I) -> const Type * {
    const Type *Pointee = P->Ty->getPointee();
    if (soaBlock(Pointee)) {
      soaPointerUnsupported(P->Ty, Loc, "arithmetic on");
      return nullptr;
    }
    if (Pointee->isVoid() || Pointee->isFunction() ||
        (Pointee->isStruct() && !completeStruct(Pointee->getStructDecl()))) {
      Diags.error(Loc, "arithmetic on a pointer to " + quoted(Pointee));
      return nullptr;
    }
    promote(I);
    matchVariability(P, V);
    matchVariability(I, V);
    return P->Ty;
  };
  switch (Op) {
  case BinaryOp::Mul:
  case BinaryOp::Div:
    if (LA && RA)
      return arithmeticCommon(*this, L, R, V);
    break;
  case BinaryOp::Rem:
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
    if (isIntegral(LT) && isIntegral(RT))
      return arithmeticCommon(*this, L, R, V);
    break;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    if (isIntegral(LT) && isIntegral(RT)) {
      promote(L);
      promote(R);
      matchVariability(L, V);
      matchVariability(R, V);
      return L->Ty;
    }
    break;
  case BinaryOp::Add:
    if (LA && RA)
      return arithmeticCommon(*this, L, R, V);
    if (LT->isPointer() && isIntegral(RT))
      return PointerArith(L, R);
    if (isIntegral(LT) && RT->isPointer())
      return PointerArith(R, L);
    break;
  case BinaryOp::Sub:
    if (LA && RA)
      return arithmeticCommon(*this, L, R, V);
    if (LT->isPointer() && isIntegral(RT))
      return PointerArith(L, R);
    if (LT->isPointer() && RT->isPointer() && sameType(LT->getPointee(), RT->getPointee())) {
      if (!PointerArith(L, R))
        return nullptr;
      return Types.getAtomic(Type::Int64, V);
    }
    break;
  case BinaryOp::LT:
  case BinaryOp::GT:
  case BinaryOp::LE:
  case BinaryOp::GE:
  case BinaryOp::EQ:
  case BinaryOp::NE: {
    if (LA && RA) {
      arithmeticCommon(*this, L, R, V);
      return boolTy(V);
    }
    if (LT->isPointer() || RT->isPointer()) {
      bool LNull = isNullPointerConstant(L), RNull = isNullPointerConstant(R);
      bool Equality = Op == BinaryOp::EQ || Op == BinaryOp::NE;
      const Type *PT = nullptr;
      if (LT->isPointer() && RT->isPointer() &&
          (sameType(LT->getPointee(), RT->getPointee()) ||
           (Equality && (LT->getPointee()->isVoid() || RT->getPointee()->isVoid()))))
        PT = LT->getPointee()->isVoid() ? RT : LT;
      else if (LT->isPointer() && RNull && Equality)
        PT = LT;
      else if (RT->isPointer() && LNull && Equality)
        PT = RT;
      if (!PT)
        break;
      PT = Types.withVariability(PT, V);
      if (!sameType(L->Ty, PT))
        convertQuiet(*this, L, PT) || (L = wrap(L, CastKind::PointerCast, PT));
      if (!sameType(R->Ty, PT))
        convertQuiet(*this, R, PT) || (R = wrap(R, CastKind::PointerCast, PT));
      return boolTy(V);
    }
    break;
  }
  default:
    break;
  }
  invalidOperands(Op, L, R, Loc);
  return nullptr;
}

bool Sema::checkBinary(BinaryExpr *E) {
  if (!E->LHS || !E->RHS)
    return false;
  if (E->Op == BinaryOp::Comma) {
    bool OkL = checkExpr(E->LHS);
    bool OkR = checkRValue(E->RHS);
    if (!OkL || !OkR)
      return false;
    E->Ty = E->RHS->Ty;
    return true;
  }
  if (E->Op == BinaryOp::LogicalAnd || E->Op == BinaryOp::LogicalOr) {
    // A struct operand calls a user-defined operator&& / operator|| (which
    // evaluates both sides, as in C++).
    bool OkL = checkExpr(E->LHS);
    if (OkL && E->LHS->Ty->isStruct()) {
      if (!checkExpr(E->RHS))
        return false;
      if (auto R = checkOverloadedOperator(E, binaryOpSpelling(E->Op), {E->LHS, E->RHS},
                                           E->OperatorCall))
        return *R;
    }
    // On short vectors the operators are element-wise and evaluate both sides.
    OkL = OkL && toRValue(E->LHS);
    bool VectorL = OkL && E->LHS->Ty->isShortVector();
    OkL = OkL && (VectorL || convertCondition(E->LHS, "operand of '&&'/'||'"));
    // With a varying left operand the right one runs only in some lanes.
    size_t RS = Regions.size();
    if (OkL && E->LHS->Ty->isVarying())
      pushRegion(Region::Varying);
    bool OkR = checkRValue(E->RHS);
    bool VectorR = OkR && E->RHS->Ty->isShortVector();
    OkR = OkR && (VectorR || convertCondition(E->RHS, "operand of '&&'/'||'"));
    Regions.resize(RS);
    if (!OkL || !OkR)
      return false;
    if (VectorL || VectorR)
      return checkVectorLogical(E);
    Variability V = combine(E->LHS->Ty->getVariability(), E->RHS->Ty->getVariability());
    matchVariability(E->LHS, V);
    matchVariability(E->RHS, V);
    E->Ty = boolTy(V);
    return true;
  }
  bool OkL = checkExpr(E->LHS);
  bool OkR = checkExpr(E->RHS);
  if (OkL && OkR && (E->LHS->Ty->isStruct() || E->RHS->Ty->isStruct()))
    if (auto R = checkOverloadedOperator(E, binaryOpSpelling(E->Op), {E->LHS, E->RHS},
                                         E->OperatorCall))
      return *R;
  OkL = OkL && toRValue(E->LHS);
  OkR = OkR && toRValue(E->RHS);
  if (!OkL || !OkR)
    return false;
  E->Ty = checkArithmetic(E->Op, E->LHS, E->RHS, E->Loc);
  return E->Ty != nullptr;
}

bool Sema::checkAssign(AssignExpr *E) {
  if (!E->LHS || !E->RHS)
    return false;
  bool OkL = checkExpr(E->LHS);
  bool OkR = checkExpr(E->RHS);
  if (OkL && OkR && E->LHS->Ty->isStruct()) {
    // `operator=` / `operator+=` ...: a struct assignment without a matching
    // operator= stays the built-in copy.
    std::string Spelling = E->Op ? std::string(binaryOpSpelling(*E->Op)) + "=" : "=";
    if (auto R = checkOverloadedOperator(E, Spelling, {E->LHS, E->RHS}, E->OperatorCall,
                                         /*OnlyIfViable=*/!E->Op))
      return *R;
  }
  OkR = OkR && toRValue(E->RHS);
  if (!OkL)
    return false;
  if (!checkModifiable(E->LHS, "assign to") || !OkR)
    return false;
  const Type *T = unqualified(E->LHS->Ty);
  if (!E->Op) {
    if (!convert(E->RHS, T, ConvContext{ConvContext::Assign}))
      return false;
    E->Ty = T;
    return true;
  }
  // `a op= b`: the right operand is converted to the type the operation is
  // computed in (the left operand's; for shifts and pointer arithmetic, its
  // own promoted type); the result is converted back to the left operand's type.
  BinaryOp Op = *E->Op;
  const Type *RT = E->RHS->Ty;
  if (T->isShortVector() || RT->isShortVector())
    return checkVectorCompoundAssign(E);
  Variability V = combine(T->getVariability(), RT->getVariability());
  const Type *Computed = nullptr;
  bool Shift = Op == BinaryOp::Shl || Op == BinaryOp::Shr;
  bool Ok = false;
  if (T->isPointer() && (Op == BinaryOp::Add || Op == BinaryOp::Sub) && isIntegral(RT)) {
    Ok = !T->getPointee()->isVoid() && !T->getPointee()->isFunction();
    Computed = Types.withVariability(T, V);
  } else if (T->isArithmetic() && RT->isArithmetic()) {
    bool NeedIntegral = Op == BinaryOp::Rem || Op == BinaryOp::BitAnd || Op == BinaryOp::BitOr ||
                        Op == BinaryOp::BitXor || Shift;
    Ok = !NeedIntegral || (isIntegral(T) && isIntegral(RT));
    // ISPC converts the right operand to the left one's type and computes in
    // that type: `int i = 2; i *= 2.6f;` is 4, `int8 c; c += 200` wraps in int8.
    Computed = Types.getAtomic(promotedKind(T), V);
  }
  if (!Ok) {
    Diags.error(E->Loc, std::string("invalid operands to binary '") + binaryOpSpelling(Op) +
                            "=': " + quoted(T) + " and " + quoted(RT));
    return false;
  }
  if (T->isUniform() && V == Variability::Varying) {
    Diags.error(E->RHS->Loc, "cannot convert " + quoted(Computed) + " to " + quoted(T) +
                                 " in assignment: a varying value cannot become uniform");
    return false;
  }
  if (Shift || T->isPointer()) {
    promote(E->RHS);
    matchVariability(E->RHS, V);
  } else {
    convertQuiet(*this, E->RHS, Computed);
  }
  E->Ty = T;
  return true;
}

bool Sema::checkConditional(ConditionalExpr *E) {
  if (!E->Cond || !E->Then || !E->Else)
    return false;
  bool OkC = checkRValue(E->Cond);
  bool VectorCond = OkC && E->Cond->Ty->isShortVector(); // an element-wise select
  OkC = OkC && (VectorCond || convertCondition(E->Cond, "'?:' condition"));
  size_t RS = Regions.size();
  if (OkC && E->Cond->Ty->isVarying())
    pushRegion(Region::Varying);
  bool OkT = checkRValue(E->Then);
  bool OkE = checkRValue(E->Else);
  Regions.resize(RS);
  if (!OkC || !OkT || !OkE)
    return false;
  if (VectorCond) {
    E->Ty = checkVectorCondition(E);
    return E->Ty != nullptr;
  }
  const Type *TT = E->Then->Ty, *ET = E->Else->Ty;
  Variability V =
      combine(E->Cond->Ty->getVariability(), combine(TT->getVariability(), ET->getVariability()));
  const Type *Result = nullptr;
  if (TT->isArithmetic() && ET->isArithmetic()) {
    Result = Types.getAtomic(commonArithKind(TT, ET), V);
  } else if (TT->isShortVector() || ET->isShortVector()) {
    Result = vectorOperationType(TT, ET, V);
  } else if (TT->isVoid() && ET->isVoid()) {
    E->Ty = TT;
    return true;
  } else if (TT->isPointer() && ET->isPointer() && sameType(TT->getPointee(), ET->getPointee())) {
    Result = Types.withVariability(TT, V);
  } else if (TT->isPointer() && isNullPointerConstant(E->Else)) {
    Result = Types.withVariability(TT, V);
  } else if (ET->isPointer() && isNullPointerConstant(E->Then)) {
    Result = Types.withVariability(ET, V);
  } else if (TT->isPointer() && ET->isPointer() &&
             (TT->getPointee()->isVoid() || ET->getPointee()->isVoid())) {
    Result = Types.withVariability(TT->getPointee()->isVoid() ? TT : ET, V);
  } else if (TT->isStruct() && ET->isStruct() &&
             completeStruct(TT->getStructDecl()) == completeStruct(ET->getStructDecl())) {
    Result = Types.withVariability(TT, V);
  }
  if (!Result) {
    Diags.error(E->Loc,
                "incompatible operand types " + quoted(TT) + " and " + quoted(ET) + " in '?:'");
    return false;
  }
  if (!convertQuiet(*this, E->Then, Result))
    E->Then = wrap(E->Then, CastKind::PointerCast, Result);
  if (!convertQuiet(*this, E->Else, Result))
    E->Else = wrap(E->Else, CastKind::PointerCast, Result);
  E->Ty = Result;
  return true;
}

bool Sema::checkIndex(IndexExpr *E) {
  if (!E->Base || !E->Index)
    return false;
  bool OkB = checkExpr(E->Base);
  bool OkI = checkRValue(E->Index);
  if (!OkB || !OkI)
    return false;
  // ISPC converts a floating subscript to an integer (truncating, as a cast).
  if (E->Index->Ty->isFloatingPoint())
    convertQuiet(*this, E->Index, int32Ty(E->Index->Ty->getVariability()));
  if (!isIntegral(E->Index->Ty)) {
    Diags.error(E->Index->Loc,
                "array subscript is not an integer: it has type " + quoted(E->Index->Ty));
    return false;
  }
  promote(E->Index);
  bool VaryingIndex = E->Index->Ty->isVarying();
  const Type *B = E->Base->Ty;
  if (B->isArray()) {
    const Type *Elem = B->getElementType();
    E->Ty = VaryingIndex ? varyingOf(Elem) : Elem;
    if (soaBlock(Elem))
      E->Ty = soaElementType(Elem, VaryingIndex || lvalueInfo(E->Base).VaryingAddress);
    E->IsLValue = E->Base->IsLValue;
    return true;
  }
  if (B->isPointer() || B->isFunction()) {
    toRValue(E->Base);
    B = E->Base->Ty;
    const Type *Pointee = B->isPointer() ? B->getPointee() : nullptr;
    if (!Pointee || Pointee->isVoid() || Pointee->isFunction()) {
      Diags.error(E->Loc, "cannot subscript a pointer to " + quoted(Pointee ? Pointee : B));
      return false;
    }
    E->Ty = B->isVarying() || VaryingIndex ? varyingOf(Pointee) : Pointee;
    if (soaBlock(Pointee))
      E->Ty = soaElementType(Pointee, B->isVarying() || VaryingIndex);
    E->IsLValue = true;
    return true;
  }
  Diags.error(E->Loc, "subscripted value of type " + quoted(B) + " is not an array or pointer");
  return false;
}

bool Sema::checkMember(MemberExpr *E) {
  if (!E->Base || !checkExpr(E->Base))
    return false;
  const Type *StructTy;
  bool ThroughVaryingPointer = false;
  if (E->IsArrow) {
    toRValue(E->Base);
    const Type *P = E->Base->Ty;
    if (P->isPointer() && P->getPointee()->isShortVector())
      return checkSwizzle(E);
    if (!P->isPointer() || !P->getPointee()->isStruct()) {
      if (P->isStruct())
        Diags.error(E->Loc, "member reference type " + quoted(P) +
                                " is not a pointer; use '.' instead of '->'");
      else
        Diags.error(E->Loc,
                    "member reference base type " + quoted(P) + " is not a pointer to a struct");
      return false;
    }
    StructTy = P->getPointee();
    if (soaBlock(StructTy)) {
      soaPointerUnsupported(P, E->Loc, "'->' on");
      return false;
    }
    ThroughVaryingPointer = P->isVarying();
    E->IsLValue = true;
  } else {
    StructTy = E->Base->Ty;
    if (StructTy->isShortVector())
      return checkSwizzle(E);
    if (StructTy->isPointer() && StructTy->getPointee()->isStruct()) {
      Diags.error(E->Loc, "member reference type " + quoted(StructTy) +
                              " is a pointer; use '->' instead of '.'");
      return false;
    }
    if (!StructTy->isStruct()) {
      Diags.error(E->Loc, "member reference base type " + quoted(StructTy) + " is not a struct");
      return false;
    }
    E->IsLValue = E->Base->IsLValue;
    // An element picked by a varying index (`a[i].x`) lives at a different
    // address in each lane: even a uniform member reads as varying (ISPC).
    if (E->IsLValue)
      ThroughVaryingPointer = lvalueInfo(E->Base).VaryingAddress;
  }
  StructDecl *S = completeStruct(StructTy->getStructDecl());
  if (!S) {
    Diags.error(E->Loc, "member access into incomplete type " + quoted(StructTy));
    E->IsLValue = false;
    return false;
  }
  for (size_t I = 0; I < S->Fields.size(); ++I) {
    if (S->Fields[I].Name != E->Member)
      continue;
    E->FieldIndex = int(I);
    if (!S->Fields[I].Ty) {
      E->IsLValue = false;
      return false;
    }
    // Members take the variability of the instance they belong to.
    const Type *FT = bindDeclType(S->Fields[I].Ty, StructTy->getVariability());
    if (StructTy->isConst())
      FT = Types.withConst(FT);
    E->Ty = ThroughVaryingPointer ? varyingOf(FT) : FT;
    return true;
  }
  Diags.error(E->Loc, "no member named '" + E->Member + "' in " + quoted(unqualified(StructTy)));
  E->IsLValue = false;
  return false;
}

bool Sema::checkCast(CastExpr *E) {
  if (!E->Operand)
    return false;
  bool Ok = checkRValue(E->Operand);
  if (!E->Target)
    return false;
  // An unqualified cast target takes the operand's variability (as in ISPC):
  // `(float)x` keeps x uniform or varying.
  Variability Default =
      Ok && E->Operand->Ty->isVarying() ? Variability::Varying : Variability::Uniform;
  if (!Ok)
    Default = Variability::Varying;
  const Type *T = unqualified(bindDeclType(E->Target, Default));
  E->Target = T;
  if (!Ok)
    return false;
  const Type *From = E->Operand->Ty;
  if ((T->isArray() && !T->isShortVector()) || T->isFunction()) {
    Diags.error(E->Loc, "cannot cast to " + quoted(T));
    return false;
  }
  if (From->isVarying() && T->isUniform()) {
    Diags.error(E->Loc, "cannot cast " + quoted(From) + " to " + quoted(T) +
                            ": a varying value cannot become uniform");
    return false;
  }
  if (T->isVoid()) {
    E->Ty = T;
    return true;
  }
  const Type *Mid = Types.withVariability(T, From->getVariability());
  if (!sameType(From, Mid)) {
    std::optional<CastKind> CK =
        kindConversion(From, Mid, isNullPointerConstant(E->Operand), /*Explicit=*/true);
    if (!CK) {
      Diags.error(E->Loc, "cannot cast " + quoted(From) + " to " + quoted(T));
      return false;
    }
    E->Operand = wrap(E->Operand, *CK, Mid);
  }
  matchVariability(E->Operand, T->getVariability());
  E->Ty = T;
  return true;
}

bool Sema::checkSizeof(SizeofExpr *E) {
  const Type *T = nullptr;
  if (E->OfType) {
    // An unqualified type here is varying, as everywhere else in ISPC:
    // sizeof(float) is 4 * programCount; sizeof(uniform float) is 4.
    T = bindDeclType(E->OfType, Variability::Varying);
    E->OfType = T;
  } else if (E->OfExpr) {
    if (!checkExpr(E->OfExpr))
      return false;
    T = E->OfExpr->Ty;
  }
  if (!T)
    return false;
  if (!sizeOf(T)) {
    Diags.error(E->Loc, "invalid application of 'sizeof' to " +
                            std::string(T->isFunction() ? "a function type " : "type ") +
                            quoted(T));
    return false;
  }
  E->Ty = Types.getAtomic(Type::UInt64, Variability::Uniform);
  return true;
}

} // namespace spmdc
