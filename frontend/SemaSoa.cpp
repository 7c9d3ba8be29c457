// Sema for soa<N> structs: element access into arrays of and pointers to soa blocks.
//
// `soa<8> Point pts[10]` is an array of 10 blocks, each holding 8 Points member by
// member (`struct { uniform float x[8], y[8], z[8]; }`, built by the parser). As in ISPC
// (guide, "Structure of Array Types"), `pts[i]` is element i of the 80 and reads as a
// `Point`: uniform for a uniform index, varying (one element per lane) for a varying one;
// `pts[i].x` is the member, whole elements can be read and assigned. Members that are
// arrays or structs are soa too (ISPC's layout: `float y[3]` is `uniform float y[3][8]`, a
// struct member its own soa<8> block), so `pts[i].y[2]` and `pts[i].in.a` work. The lowering
// turns `pts[i].x` into `pts[i / 8].x[i % 8]`. Not lowered yet (an error naming the
// construct): pointers to a single element or to a struct or array inside one (`&pts[i]`),
// an array member used as a pointer, and dereferencing, `->` or arithmetic on a pointer to
// soa blocks; index the pointer instead.
#include "frontend/SemaInternal.h"

namespace spmdc {

bool Sema::isSoaElement(const Expr *E) {
  auto *I = llvm::dyn_cast<IndexExpr>(E);
  if (!I || !I->Base || !I->Base->Ty)
    return false;
  const Type *B = I->Base->Ty;
  if (B->isArray())
    return soaBlock(B->getElementType());
  if (B->isPointer())
    return soaBlock(B->getPointee());
  return false;
}

bool Sema::isInSoa(const Expr *E) {
  if (isSoaElement(E))
    return true;
  if (auto *M = llvm::dyn_cast<MemberExpr>(E))
    return !M->IsArrow && M->Base && isInSoa(M->Base);
  if (auto *I = llvm::dyn_cast<IndexExpr>(E))
    return I->Base && I->Base->Ty && I->Base->Ty->isArray() && isInSoa(I->Base);
  return false;
}

bool Sema::containsSoa(const Type *T) {
  while (T && (T->isPointer() || T->isArray() || T->isReference()))
    T = T->isArray() ? T->getElementType() : T->getPointee();
  return soaBlock(T);
}

const Type *Sema::soaElementType(const Type *Block, bool Varying) {
  StructDecl *S = soaBlock(Block)->SoaOf;
  return Types.getStruct(S, Varying ? Variability::Varying : Variability::Uniform,
                         Block->isConst());
}

void Sema::soaPointerUnsupported(const Type *Ptr, SourceLoc Loc, const char *What) {
  Diags.error(Loc, std::string(What) + " a pointer to soa data (" + quoted(Ptr) +
                       ") is not supported yet; index the pointer instead");
}

} // namespace spmdc
