// Sema for unsized array declarations: every unsized dimension sized from the brace initializer.
//
// As in ISPC (guide, "Declarations and Initializers"): `int bar[][] = {{1, 2, 3, 4}, {5, 6, 7,
// 8}}` is `int bar[2][4]`. The outermost unsized dimension is the number of
// elements of the outer list; an inner unsized dimension needs every list at
// its depth to have the same length (ISPC's rule), which becomes its size.
#include "frontend/SemaInternal.h"

namespace spmdc {

namespace {

/// The lengths of the brace lists at each array depth of an initializer.
class ListShape {
public:
  ListShape(const std::vector<uint64_t> &Dims) : Dims(Dims), Lengths(Dims.size()) {}

  void walk(const InitListExpr *L, size_t Depth) {
    if (Depth >= Dims.size())
      return; // below the array dimensions: a struct's or scalar's braces
    uint64_t N = L->Elements.size();
    if (Dims[Depth] == 0) {
      if (!Lengths[Depth])
        Lengths[Depth] = N;
      else if (*Lengths[Depth] != N && Depth > 0 && !Inconsistent)
        Inconsistent = L;
    }
    for (const Expr *E : L->Elements)
      if (auto *Sub = llvm::dyn_cast_or_null<InitListExpr>(E))
        walk(Sub, Depth + 1);
  }

  const std::vector<uint64_t> &Dims;
  std::vector<std::optional<uint64_t>> Lengths;
  const InitListExpr *Inconsistent = nullptr; ///< the first list of a deviating length
};

} // namespace

const Type *Sema::sizeUnsizedArray(const Type *T, Expr *Init) {
  std::vector<uint64_t> Dims;
  const Type *Elem = T;
  for (; Elem->isArray(); Elem = Elem->getElementType())
    Dims.push_back(Elem->getArraySize());
  auto *L = llvm::dyn_cast<InitListExpr>(Init);
  if (!L || std::find(Dims.begin(), Dims.end(), 0) == Dims.end())
    return T;
  ListShape Shape(Dims);
  Shape.walk(L, 0);
  if (Shape.Inconsistent) {
    Diags.error(Shape.Inconsistent->Loc, "inconsistent initializer list lengths make it "
                                         "impossible to size the unsized array dimensions");
    return nullptr;
  }
  const Type *Sized = Elem;
  for (size_t D = Dims.size(); D-- > 0;)
    Sized = Types.getArray(Sized, Dims[D] ? Dims[D] : Shape.Lengths[D].value_or(0));
  return Sized;
}

} // namespace spmdc
