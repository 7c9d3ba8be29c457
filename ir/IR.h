// The SPMD IR: structured regions of typed operations whose values carry variability.
//
// See docs/design-spmd-ir.md. Control flow is structured (ops own regions);
// values are SSA and may be used in the region that defines them and in regions
// nested inside it. Mutable state lives in `var` slots read with `load` and
// written with `store`, so the IR needs no phi nodes. Types are the front end's
// (frontend/Types.h): every value's type says uniform or varying.
#pragma once

#include "frontend/AST.h"
#include "frontend/SourceLocation.h"
#include "frontend/Types.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spmdc::ir {

class Op;
class Region;
class Function;

/// An SSA value: an op's result or a function parameter.
class Value {
public:
  Value(const Type *Ty, Op *Def) : Ty(Ty), Def(Def) {}
  const Type *Ty;
  Op *Def;              ///< null for parameters
  unsigned Id = 0;      ///< numbered by the printer
  std::string NameHint; ///< the source variable, when there is one
  /// Set by the variability analysis on varying integers that equal
  /// AffineBase + programIndex * AffineStride (AffineBase uniform, defined
  /// before this value); null when unknown.
  Value *AffineBase = nullptr;
  int64_t AffineStride = 0;

  bool isVarying() const { return Ty->isVarying(); }
};

enum class OpCode {
  // Values.
  ConstInt,   ///< Imm; result type atomic/enum (uniform)
  ConstFloat, ///< FImm
  ConstNull,  ///< null pointer of the result type
  Builtin,    ///< BuiltinId: programIndex, programCount, taskIndex, ...
  Unary,      ///< UnaryOp: Minus, Not (logical), BitNot on operand 0
  Binary,     ///< BinOp on operands 0, 1 (arithmetic, bitwise, shifts, compares)
  Convert,    ///< CastKind from operand 0 to the result type
  Broadcast,  ///< uniform operand 0 -> the varying result
  Select,     ///< operand 0 ? operand 1 : operand 2 (no side effects on either)
  SizeOf,     ///< uniform int64: the byte size of VarType (the back end knows layouts)
  // Memory. Addresses are pointer-typed values; a `uniform T * varying`
  // address is one pointer per lane (gather/scatter). A `varying T * varying`
  // address names a whole varying object per lane; loads and stores through it
  // touch each lane's own lane of that object (ISPC's rule).
  Var,         ///< a slot of type VarType; result: `VarType * uniform`
  GlobalAddr,  ///< the address of Global
  FuncAddr,    ///< the address of Callee (a function pointer)
  Load,        ///< *operand 0
  Store,       ///< *operand 0 = operand 1
  ElementAddr, ///< &operand0[operand1] (operand 0 a pointer to the first element)
  FieldAddr,   ///< &operand0->field FieldIndex
  // Calls.
  Call,   ///< Callee(operands...) or, with no Callee, operand 0(operands 1...)
  Crev,   ///< for each active lane: Callee(lane's operands) with all lanes on
  Launch, ///< Callee(operands...) as tasks; counts in LaunchCounts
  Sync,
  // Structured control flow.
  If,    ///< operand 0 cond; Regions[0] then, Regions[1] else
  Loop,  ///< Regions[0] cond (ends in Yield), [1] body, [2] step; DoWhile flag
  Yield, ///< ends a Loop's cond region with operand 0
  Break,
  Continue,
  Return,        ///< optional operand 0
  Foreach,       ///< operands: begin0, end0, begin1, end1, ...; IndexVars; Regions[0]
  ForeachActive, ///< IndexVars[0] receives the lane; Regions[0]
  ForeachUnique, ///< operand 0 the varying value; IndexVars[0] receives it; Regions[0]
  Everywhere,    ///< Regions[0] with every lane on
  Unmasked,      ///< Regions[0] with every lane on (ISPC's unmasked)
  // Effects.
  Print,  ///< Text = format; operands the values
  Assert, ///< operand 0; Text = message
  /// Dynamic memory: `new` allocates operand 0 bytes (a uniform or varying
  /// int64), Imm-aligned, once for a uniform result pointer or once per active
  /// lane for a varying one (inactive lanes get null); `delete` frees operand 0,
  /// per active lane when it is varying.
  New,
  Delete,
  /// Unstructured jumps (only under uniform control flow, see sema): `label`
  /// marks the position Imm (a number unique in the function), `goto` jumps
  /// to the label with the same Imm.
  Label,
  Goto,
  /// A barrier over part of a block (horizontal fusion): named barrier Imm
  /// (0-15) waited on by BarrierThreads threads; on the CPU a memory fence.
  PartialBarrier,
  // Introduced by the divergence transform; the back ends lower these.
  MaskAllOn, ///< the all-on varying bool
  Any,       ///< uniform bool: some lane of operand 0 set
  All,       ///< uniform bool: every lane of operand 0 set
  LaneCount, ///< uniform int32: lanes set in operand 0
  FirstLane, ///< uniform int32: index of the lowest set lane of operand 0
  LaneIsSet, ///< uniform bool: lane operand 1 of mask operand 0 is set
  Extract,   ///< uniform: lane operand 1 of varying operand 0
  Insert,    ///< varying: operand 0 with lane operand 1 replaced by operand 2
};

const char *opName(OpCode C);

/// A list of operations, executed in order.
class Region {
public:
  std::vector<std::unique_ptr<Op>> Ops;
  Op *Parent = nullptr;
};

class Global {
public:
  std::string Name;
  const Type *Ty; ///< the object's type
  bool IsShared = false;
  bool IsExtern = false;
  bool IsStatic = false;
  /// Constant initializer as flattened scalars (empty: zero-initialized).
  std::vector<double> InitFloat;
  std::vector<int64_t> InitInt;
  /// Scalars of the initializer that hold a function's address, by index.
  std::map<size_t, Function *> InitFuncs;
  /// A varying scalar whose initializer reads programIndex: Init* hold one value
  /// per lane of the gang (else one value, the same in every lane).
  bool PerLaneInit = false;
};

class Op {
public:
  Op(OpCode Code, SourceLoc Loc) : Code(Code), Loc(Loc) {}

  OpCode Code;
  SourceLoc Loc;
  std::vector<Value *> Operands;
  std::unique_ptr<Value> Result; ///< null for ops without a result
  std::vector<std::unique_ptr<Region>> Regions;
  Region *ParentRegion = nullptr;

  /// Set by the divergence transform on every op whose effect depends on the
  /// active lanes (stores, calls, loads through varying pointers, prints...).
  Value *Mask = nullptr;

  // Attributes; which ones an op uses depends on its code (see OpCode).
  int64_t Imm = 0;
  double FImm = 0;
  std::string Text;
  BuiltinVar BuiltinId = BuiltinVar::None;
  UnaryOp UnOp = UnaryOp::Minus;
  BinaryOp BinOp = BinaryOp::Add;
  CastKind Cast = CastKind::NoOp;
  const Type *VarType = nullptr;
  int FieldIndex = -1;
  Function *Callee = nullptr;
  Global *GlobalRef = nullptr;
  std::vector<Value *> IndexVars; ///< Var slots written by foreach-family ops
  std::vector<Value *> LaunchCounts;
  int64_t BarrierThreads = 0; ///< PartialBarrier: the threads taking part
  bool DoWhile = false;
  bool Tiled = false;
  bool Coherent = false;
  /// A varying If whose arms run without an any-lane branch, as blends (set by
  /// ir/IfPredication.cpp on cheap arms that are safe with no lane on).
  bool Predicated = false;
  /// An If lowered from a varying `?:`, `&&` or `||`: ISPC evaluates both
  /// sides of these when that is safe with no lane on, whatever they cost, so
  /// ir/IfPredication.cpp predicates them without its budget.
  bool FromExpression = false;
  /// Signed integer add/sub/mul that may not overflow (LLVM `nsw`): set by the
  /// variability analysis on the uniform index arithmetic it builds.
  bool NoSignedWrap = false;
  /// A varying `if`/`loop` (and its loop's `yield`) that NVPTX runs as a real
  /// per-thread branch, the warp reconverging in hardware: set by
  /// ir/SimtBranches.cpp where nothing inside needs the gang's mask.
  bool Simt = false;

  Value *result() const { return Result.get(); }
  Region &region(unsigned I) { return *Regions[I]; }
};

class Function {
public:
  std::string Name;
  SourceLoc Loc;  ///< of the declaration
  const Type *Ty; ///< the bound function type
  std::vector<std::unique_ptr<Value>> Params;
  std::unique_ptr<Region> Body; ///< null for a declaration
  bool IsStatic = false;
  bool IsStdlib = false;
  /// ISPC's `inline` forces inlining and `noinline` forbids it (not hints).
  bool IsInline = false;
  bool IsNoInline = false;
  /// The divergence transform emits the body twice, a copy for an all-on entry
  /// mask first (set by ir/AllOnSpecialization.cpp).
  bool AllOnCopy = false;
  /// True once the divergence transform ran: Params[0] is then the entry mask
  /// (except for export, task and extern "C" functions, which start all-on).
  bool HasMaskParam = false;
  /// NVPTX: nothing in the body needs the mask (ir/SimtBranches.cpp), so the
  /// whole body is one SIMT region: only threads whose lane is on run it.
  bool SimtBody = false;
  /// `label`/`goto` ops name their label by a number unique in the function:
  /// 0 .. LabelCount - 1. A copy of a region (all-on bodies, coarsening) is a
  /// second block, so its labels take new numbers from here.
  int64_t LabelCount = 0;
  int64_t newLabelId() { return LabelCount++; }
  const FunctionFlags &flags() const { return Ty->getFunctionFlags(); }
  /// A unique symbol for overloads: Name, or Name + a type suffix.
  std::string Symbol;
  /// GPU kernels built by horizontal fusion: `.maxnreg` (0: none) and the
  /// threads of every block (`.maxntid`; 0: not fixed).
  unsigned MaxNReg = 0;
  unsigned ThreadsPerBlock = 0;
  /// GPU kernels built by vertical fusion: the launch model's launch
  /// coarsening k (0: not such a kernel) and thread coarsening c
  /// (ir/FusionLaunchModel.h); the thread coarsening the coarsening pass
  /// applied (the model's c unless a request names the kernel).
  unsigned ModelLaunchCoarsening = 0;
  unsigned ModelThreadCoarsening = 0;
  /// Its neighbour reads (a stencil's) went through registers and lane
  /// shuffles (warp composition) rather than a tile (block composition);
  /// null when it has none.
  std::optional<bool> WarpComposition;
  unsigned AppliedThreadCoarsening = 1;
};

/// A kernel built by horizontal fusion (ir/HorizontalFusion.h): its entry
/// takes the sides' parameters in order, then one `blocks_X` per side.
struct FusedKernel {
  Function *Entry = nullptr;
  std::vector<std::string> Sides; ///< the fused kernels' names, in order
  std::vector<int64_t> Gangs;     ///< gangs (GPU warps) per block of each side
  unsigned ThreadsPerBlock = 0;   ///< 32 * the sum of Gangs
};

class Module {
public:
  explicit Module(TypeContext &Types) : Types(Types) {}
  TypeContext &Types;
  std::vector<std::unique_ptr<Function>> Functions;
  std::vector<std::unique_ptr<Global>> Globals;
  std::vector<Pragma> Pragmas;
  std::vector<FusedKernel> FusedKernels;
};

/// Appends ops to a region; the lowering and the passes build IR through it.
class Builder {
public:
  Builder(Module &M) : M(M) {}
  Module &M;
  TypeContext &types() { return M.Types; }

  void setInsertRegion(Region *R) { Insert = R; }
  Region *insertRegion() const { return Insert; }
  void setLoc(SourceLoc L) { Loc = L; }

  /// Creates an op at the end of the insertion region. `ResultTy` null: no result.
  Op *create(OpCode Code, const Type *ResultTy, std::vector<Value *> Operands = {});
  /// Adds an empty region to `O` and returns it.
  Region *addRegion(Op *O);

  Value *constInt(int64_t V, const Type *Ty);
  Value *constBool(bool V);
  Value *load(Value *Addr);
  void store(Value *Addr, Value *V);
  Value *var(const Type *T, const std::string &NameHint = "");

private:
  Region *Insert = nullptr;
  SourceLoc Loc;
};

/// Appends copies of `From`'s ops to `To`. Values defined inside `From` are
/// replaced by their copies in the copies' operands; `Map` starts with any
/// other replacements and ends with old value -> copy for every result. A
/// label defined inside `From` gets a new number from `Owner` (the function the
/// copy goes into), and the copied gotos to it follow; gotos to labels outside
/// `From` keep theirs.
void cloneRegionInto(const Region &From, Region &To, std::map<const Value *, Value *> &Map,
                     Function &Owner);

/// Replaces every use of `From` inside `R` (and the regions nested in it) by `To`.
void replaceUses(Region &R, const Value *From, Value *To);

/// The type of a value at the address `Addr` points to, with the address's
/// variability: loading through a varying pointer yields a varying value.
const Type *loadedType(TypeContext &Types, const Type *AddrTy);

} // namespace spmdc::ir
