// The type system: atomic, enum, pointer, array, reference, struct and function types,
// each carrying ISPC's variability (uniform | varying | not yet bound) and constness.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spmdc {

class StructDecl;
class EnumDecl;

/// `Unbound` means "not written in the source": sema binds it to the default of
/// its position (varying for locals and parameters, uniform for a pointee, the
/// instance's variability for a struct member), as ISPC does.
enum class Variability : uint8_t { Unbound, Uniform, Varying };

const char *variabilityName(Variability V);

/// Flags of a function type that change how it is called or emitted.
struct FunctionFlags {
  bool Export = false;   ///< callable from C/C++ (x86) / a kernel entry (NVPTX)
  bool Task = false;     ///< launched with `launch`; a kernel on NVPTX
  bool ExternC = false;  ///< `extern "C"`: C linkage, called with C's scalar ABI
  bool Unmasked = false; ///< ISPC's `unmasked` function: starts with all lanes on
  bool operator<(const FunctionFlags &O) const;
  bool operator==(const FunctionFlags &O) const = default;
};

/// Types are immutable and uniqued by TypeContext: compare them by pointer.
class Type {
public:
  enum Kind : uint8_t {
    Void,
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float,
    Double,
    Enum,
    Pointer,
    Array,
    Reference,
    Struct,
    Function,
  };

  Kind getKind() const { return K; }
  Variability getVariability() const { return Var; }
  bool isUniform() const { return Var == Variability::Uniform; }
  bool isVarying() const { return Var == Variability::Varying; }
  bool isUnbound() const { return Var == Variability::Unbound; }
  bool isConst() const { return Const; }

  bool isVoid() const { return K == Void; }
  bool isBool() const { return K == Bool; }
  /// bool, the integers and the floating-point types.
  bool isAtomic() const { return K >= Bool && K <= Double; }
  bool isInteger() const { return K >= Int8 && K <= UInt64; }
  bool isSignedInteger() const { return K >= Int8 && K <= Int64; }
  bool isUnsignedInteger() const { return K >= UInt8 && K <= UInt64; }
  bool isFloatingPoint() const { return K >= Float16 && K <= Double; }
  /// Integers, floating point and enums: operands of C's arithmetic conversions.
  bool isArithmetic() const { return (K >= Int8 && K <= Double) || K == Enum || K == Bool; }
  bool isEnum() const { return K == Enum; }
  bool isPointer() const { return K == Pointer; }
  /// True for short vectors too: a `float<3>` is laid out, loaded and stored
  /// as the array `float[3]` (see isShortVector).
  bool isArray() const { return K == Array; }
  /// ISPC's short vector `T<N>` (docs/language.md 2.3): an Array whose
  /// elements are atomic, with element-wise operators; sema treats it as a
  /// value (no decay to a pointer), the IR and back ends as the array.
  bool isShortVector() const { return K == Array && ShortVector; }
  bool isReference() const { return K == Reference; }
  bool isStruct() const { return K == Struct; }
  bool isFunction() const { return K == Function; }
  /// Values that fit a register: arithmetic, enum and pointer types.
  bool isScalar() const { return isArithmetic() || K == Pointer; }

  /// Width in bits of bool (1), integers, floats and enums (32).
  unsigned getBitWidth() const;

  /// Pointer and reference: the type pointed to / referred to.
  const Type *getPointee() const { return Inner; }
  /// Array: the element type and the element count (0 for `T[]`).
  const Type *getElementType() const { return Inner; }
  uint64_t getArraySize() const { return Size; }
  StructDecl *getStructDecl() const { return StructD; }
  EnumDecl *getEnumDecl() const { return EnumD; }

  /// Function: return type, parameter types, flags.
  const Type *getReturnType() const { return Inner; }
  const std::vector<const Type *> &getParamTypes() const { return Params; }
  const FunctionFlags &getFunctionFlags() const { return Flags; }

  /// ISPC's spelling, e.g. "varying float", "uniform int32 * varying",
  /// "uniform float[16]"; unbound parts print without a qualifier.
  std::string toString() const;

private:
  friend class TypeContext;
  Type() = default;

  Kind K = Void;
  Variability Var = Variability::Unbound;
  bool Const = false;
  bool ShortVector = false;
  const Type *Inner = nullptr;
  uint64_t Size = 0;
  StructDecl *StructD = nullptr;
  EnumDecl *EnumD = nullptr;
  std::vector<const Type *> Params;
  FunctionFlags Flags;
};

/// Owns and uniques every Type of a compilation.
class TypeContext {
public:
  TypeContext();
  ~TypeContext();
  TypeContext(const TypeContext &) = delete;
  TypeContext &operator=(const TypeContext &) = delete;

  /// Void and the atomic kinds (Bool .. Double).
  const Type *getAtomic(Type::Kind K, Variability V = Variability::Unbound, bool Const = false);
  const Type *getVoid() { return getAtomic(Type::Void); }
  const Type *getEnum(EnumDecl *D, Variability V = Variability::Unbound, bool Const = false);
  const Type *getStruct(StructDecl *D, Variability V = Variability::Unbound, bool Const = false);
  /// `V` and `Const` are the pointer's own qualifiers, not the pointee's.
  const Type *getPointer(const Type *Pointee, Variability V = Variability::Unbound,
                         bool Const = false);
  const Type *getArray(const Type *Element, uint64_t Size);
  /// The short vector `Element<Size>` (Element atomic or enum).
  const Type *getShortVector(const Type *Element, uint64_t Size);
  /// An array or short vector like `Like` with another element type.
  const Type *withElement(const Type *Like, const Type *Element);
  const Type *getReference(const Type *Target);
  const Type *getFunction(const Type *Return, std::vector<const Type *> Params,
                          FunctionFlags Flags);

  /// The same type with its own (outer) variability replaced. For arrays and
  /// references the element / target is changed, as their variability is the
  /// element's.
  const Type *withVariability(const Type *T, Variability V);
  const Type *withConst(const Type *T, bool Const = true);

  /// Binds every unbound variability in `T` the way ISPC does: the outer level
  /// takes `Default`; a pointee defaults to uniform; array elements and reference
  /// targets take `Default`; a struct instance takes `Default` (its members are
  /// bound when accessed, see memberType).
  const Type *bindVariability(const Type *T, Variability Default);

  /// The type of a member declared as `Member` inside a struct instance of
  /// variability `Instance`: unbound parts of the member take the instance's.
  const Type *memberType(const Type *Member, Variability Instance);

private:
  using Key = std::vector<uintptr_t>;
  const Type *unique(Type &&Proto);
  std::map<Key, std::unique_ptr<Type>> Types;
};

} // namespace spmdc
