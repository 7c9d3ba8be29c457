// The type system: atomic, enum, pointer, array, reference, struct and function types,
// each carrying ISPC's variability (uniform | varying | not yet bound) and constness.
#include "frontend/Types.h"

#include "frontend/AST.h"

#include <tuple>

namespace spmdc {

const char *variabilityName(Variability V) {
  switch (V) {
  case Variability::Uniform:
    return "uniform";
  case Variability::Varying:
    return "varying";
  case Variability::Unbound:
    return "";
  }
  return "";
}

bool FunctionFlags::operator<(const FunctionFlags &O) const {
  return std::tie(Export, Task, ExternC, Unmasked) <
         std::tie(O.Export, O.Task, O.ExternC, O.Unmasked);
}

unsigned Type::getBitWidth() const {
  switch (K) {
  case Bool:
    return 1;
  case Int8:
  case UInt8:
    return 8;
  case Int16:
  case UInt16:
  case Float16:
    return 16;
  case Int32:
  case UInt32:
  case Float:
  case Enum:
    return 32;
  case Int64:
  case UInt64:
  case Double:
    return 64;
  default:
    return 0;
  }
}

static const char *atomicName(Type::Kind K) {
  switch (K) {
  case Type::Void:
    return "void";
  case Type::Bool:
    return "bool";
  case Type::Int8:
    return "int8";
  case Type::Int16:
    return "int16";
  case Type::Int32:
    return "int32";
  case Type::Int64:
    return "int64";
  case Type::UInt8:
    return "unsigned int8";
  case Type::UInt16:
    return "unsigned int16";
  case Type::UInt32:
    return "unsigned int32";
  case Type::UInt64:
    return "unsigned int64";
  case Type::Float16:
    return "float16";
  case Type::Float:
    return "float";
  case Type::Double:
    return "double";
  default:
    return "?";
  }
}

static std::string qualifiers(const Type &T) {
  std::string S;
  if (T.isConst())
    S += "const ";
  if (!T.isUnbound()) {
    S += variabilityName(T.getVariability());
    S += ' ';
  }
  return S;
}

std::string Type::toString() const {
  switch (K) {
  case Pointer: {
    std::string S = Inner->toString() + " *";
    if (Const)
      S += " const";
    if (!isUnbound())
      S += std::string(" ") + variabilityName(Var);
    return S;
  }
  case Reference:
    return Inner->toString() + " &";
  case Array: {
    if (ShortVector)
      return Inner->toString() + "<" + std::to_string(Size) + ">";
    // Print T[2][3] with the outermost dimension first, as it was declared.
    std::string Dims;
    const Type *E = this;
    while (E->K == Array) {
      Dims += "[" + (E->Size ? std::to_string(E->Size) : std::string()) + "]";
      E = E->Inner;
    }
    return E->toString() + Dims;
  }
  case Struct:
    return qualifiers(*this) + "struct " + (StructD ? StructD->Name : std::string("<anon>"));
  case Enum:
    return qualifiers(*this) + "enum " + (EnumD ? EnumD->Name : std::string("<anon>"));
  case Function: {
    std::string S;
    if (Flags.Export)
      S += "export ";
    if (Flags.Task)
      S += "task ";
    if (Flags.ExternC)
      S += "extern \"C\" ";
    if (Flags.Unmasked)
      S += "unmasked ";
    S += Inner->toString() + "(";
    for (size_t I = 0; I < Params.size(); ++I)
      S += (I ? ", " : "") + Params[I]->toString();
    return S + ")";
  }
  default:
    return qualifiers(*this) + atomicName(K);
  }
}

TypeContext::TypeContext() = default;
TypeContext::~TypeContext() = default;

const Type *TypeContext::unique(Type &&Proto) {
  Key K = {Proto.K,
           static_cast<uintptr_t>(Proto.Var),
           Proto.Const,
           Proto.ShortVector,
           reinterpret_cast<uintptr_t>(Proto.Inner),
           static_cast<uintptr_t>(Proto.Size),
           reinterpret_cast<uintptr_t>(Proto.StructD),
           reinterpret_cast<uintptr_t>(Proto.EnumD),
           static_cast<uintptr_t>(Proto.Flags.Export | Proto.Flags.Task << 1 |
                                  Proto.Flags.ExternC << 2 | Proto.Flags.Unmasked << 3)};
  for (const Type *P : Proto.Params)
    K.push_back(reinterpret_cast<uintptr_t>(P));
  auto &Slot = Types[K];
  if (!Slot)
    Slot.reset(new Type(std::move(Proto)));
  return Slot.get();
}

const Type *TypeContext::getAtomic(Type::Kind K, Variability V, bool Const) {
  Type T;
  T.K = K;
  // void has no variability: one void type serves every position.
  T.Var = K == Type::Void ? Variability::Unbound : V;
  T.Const = K == Type::Void ? false : Const;
  return unique(std::move(T));
}

const Type *TypeContext::getEnum(EnumDecl *D, Variability V, bool Const) {
  Type T;
  T.K = Type::Enum;
  T.EnumD = D;
  T.Var = V;
  T.Const = Const;
  return unique(std::move(T));
}

const Type *TypeContext::getStruct(StructDecl *D, Variability V, bool Const) {
  Type T;
  T.K = Type::Struct;
  T.StructD = D;
  T.Var = V;
  T.Const = Const;
  return unique(std::move(T));
}

const Type *TypeContext::getPointer(const Type *Pointee, Variability V, bool Const) {
  Type T;
  T.K = Type::Pointer;
  T.Inner = Pointee;
  T.Var = V;
  T.Const = Const;
  return unique(std::move(T));
}

const Type *TypeContext::getArray(const Type *Element, uint64_t Size) {
  Type T;
  T.K = Type::Array;
  T.Inner = Element;
  T.Size = Size;
  T.Var = Element->getVariability();
  T.Const = Element->isConst();
  return unique(std::move(T));
}

const Type *TypeContext::getShortVector(const Type *Element, uint64_t Size) {
  Type T;
  T.K = Type::Array;
  T.ShortVector = true;
  T.Inner = Element;
  T.Size = Size;
  T.Var = Element->getVariability();
  T.Const = Element->isConst();
  return unique(std::move(T));
}

const Type *TypeContext::withElement(const Type *Like, const Type *Element) {
  return Like->isShortVector() ? getShortVector(Element, Like->getArraySize())
                               : getArray(Element, Like->getArraySize());
}

const Type *TypeContext::getReference(const Type *Target) {
  Type T;
  T.K = Type::Reference;
  T.Inner = Target;
  T.Var = Target->getVariability();
  return unique(std::move(T));
}

const Type *TypeContext::getFunction(const Type *Return, std::vector<const Type *> Params,
                                     FunctionFlags Flags) {
  Type T;
  T.K = Type::Function;
  T.Inner = Return;
  T.Params = std::move(Params);
  T.Flags = Flags;
  T.Var = Variability::Uniform;
  return unique(std::move(T));
}

const Type *TypeContext::withVariability(const Type *T, Variability V) {
  switch (T->getKind()) {
  case Type::Void:
  case Type::Function:
    return T;
  case Type::Array:
    return withElement(T, withVariability(T->getElementType(), V));
  case Type::Reference:
    return getReference(withVariability(T->getPointee(), V));
  case Type::Pointer:
    return getPointer(T->getPointee(), V, T->isConst());
  case Type::Struct:
    return getStruct(T->getStructDecl(), V, T->isConst());
  case Type::Enum:
    return getEnum(T->getEnumDecl(), V, T->isConst());
  default:
    return getAtomic(T->getKind(), V, T->isConst());
  }
}

const Type *TypeContext::withConst(const Type *T, bool Const) {
  switch (T->getKind()) {
  case Type::Void:
  case Type::Function:
    return T;
  case Type::Array:
    return withElement(T, withConst(T->getElementType(), Const));
  case Type::Reference:
    return getReference(withConst(T->getPointee(), Const));
  case Type::Pointer:
    return getPointer(T->getPointee(), T->getVariability(), Const);
  case Type::Struct:
    return getStruct(T->getStructDecl(), T->getVariability(), Const);
  case Type::Enum:
    return getEnum(T->getEnumDecl(), T->getVariability(), Const);
  default:
    return getAtomic(T->getKind(), T->getVariability(), Const);
  }
}

const Type *TypeContext::bindVariability(const Type *T, Variability Default) {
  switch (T->getKind()) {
  case Type::Void:
    return T;
  case Type::Function: {
    // A function type's parameters and result default to varying wherever it
    // is written (a function pointer member of a uniform struct included).
    std::vector<const Type *> Params;
    for (const Type *P : T->getParamTypes())
      Params.push_back(bindVariability(P, Variability::Varying));
    return getFunction(bindVariability(T->getReturnType(), Variability::Varying), std::move(Params),
                       T->getFunctionFlags());
  }
  case Type::Array:
    return withElement(T, bindVariability(T->getElementType(), Default));
  case Type::Reference:
    return getReference(bindVariability(T->getPointee(), Default));
  case Type::Pointer: {
    const Type *Pointee = bindVariability(T->getPointee(), Variability::Uniform);
    Variability V = T->isUnbound() ? Default : T->getVariability();
    return getPointer(Pointee, V, T->isConst());
  }
  default:
    return T->isUnbound() ? withVariability(T, Default) : T;
  }
}

const Type *TypeContext::memberType(const Type *Member, Variability Instance) {
  return bindVariability(Member, Instance);
}

} // namespace spmdc
