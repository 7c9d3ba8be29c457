// Sema for dynamic memory: `new` expressions and `delete` statements.
//
// As in ISPC (guide, "Dynamic Memory Allocation"): `new` without a qualifier
// (or `varying new`) allocates once per active lane and yields a varying
// pointer; `uniform new` allocates once for the gang and yields a uniform
// pointer. The allocated type, like any pointee, defaults to uniform. An
// element count may be varying only for a varying `new`. `new T(args)`
// initializes the object as `T x = { args }` would (one argument: `T x = a`);
// with a varying `new` each lane stores its own values into its own object.
#include "frontend/SemaInternal.h"

namespace spmdc {

static bool isIntegralType(const Type *T) { return T->isInteger() || T->isBool() || T->isEnum(); }

bool Sema::checkNew(NewExpr *E) {
  bool Ok = true;
  const Type *T = bindDeclType(E->AllocType, Variability::Uniform);
  E->AllocType = T;
  std::string What = "the object of 'new " + typeName(T) + "'";
  if (T->isReference()) {
    Diags.error(E->Loc, "cannot allocate a reference with 'new'");
    Ok = false;
  } else if (!checkObjectType(T, E->Loc, What, /*AllowUnsized=*/false)) {
    Ok = false;
  }
  Variability PtrVar =
      E->NewVar == Variability::Uniform ? Variability::Uniform : Variability::Varying;

  if (E->Count) {
    if (!checkRValue(E->Count)) {
      Ok = false;
    } else if (!isIntegralType(E->Count->Ty)) {
      Diags.error(E->Count->Loc, "the element count of 'new' must be an integer, not " +
                                     quoted(E->Count->Ty));
      Ok = false;
    } else if (E->Count->Ty->isVarying() && PtrVar == Variability::Uniform) {
      Diags.error(E->Count->Loc, "'uniform new' needs a uniform element count, not " +
                                     quoted(E->Count->Ty) + ": it makes one allocation");
      Ok = false;
    } else {
      // Counts are computed in 64 bits (sizes can exceed 32 bits).
      const Type *I64 = Types.getAtomic(Type::Int64, E->Count->Ty->getVariability());
      Ok &= convert(E->Count, I64, ConvContext(ConvContext::Operand));
    }
  }

  if (E->Init && Ok) {
    // Each lane of a varying `new` writes its own values into its own object.
    const Type *InitTy = PtrVar == Variability::Varying ? varyingOf(T) : T;
    std::string Name = "new " + typeName(T);
    if (auto *L = llvm::dyn_cast<InitListExpr>(E->Init)) {
      Ok &= checkInitList(L, InitTy, Name);
    } else if (T->isArray()) {
      Diags.error(E->Init->Loc, "an array allocated with 'new' needs a brace list, not one value");
      Ok = false;
    } else if (checkRValue(E->Init)) {
      Ok &= convert(E->Init, unqualified(InitTy), ConvContext(ConvContext::Init, Name));
    } else {
      Ok = false;
    }
  } else if (E->Init && !llvm::isa<InitListExpr>(E->Init)) {
    checkExpr(E->Init); // still report errors inside the initializer
  }
  if (!Ok)
    return false;
  E->Ty = Types.getPointer(T, PtrVar);
  return true;
}

void Sema::checkDelete(DeleteStmt *S) {
  if (!S->Pointer || !checkRValue(S->Pointer))
    return;
  const Type *T = S->Pointer->Ty;
  if (!T->isPointer()) {
    Diags.error(S->Pointer->Loc,
                "cannot delete a value of type " + quoted(T) + ": it is not a pointer");
    return;
  }
  if (T->getPointee()->isFunction())
    Diags.error(S->Pointer->Loc, "cannot delete a function pointer");
}

} // namespace spmdc
