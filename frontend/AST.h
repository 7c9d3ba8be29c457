// The abstract syntax tree: one class per construct, owned by an ASTContext arena.
//
// Nodes are plain data with public fields: the parser fills in the syntax, sema
// fills in `Ty`/`IsLValue` on expressions and resolved declarations, and inserts
// ImplicitCastExpr nodes for conversions. Dispatch uses LLVM-style RTTI (isa/cast)
// on the node's kind, and the visitors at the end of this file.
#pragma once

#include "frontend/SourceLocation.h"
#include "frontend/Types.h"

#include "llvm/Support/Casting.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace spmdc {

class Expr;
class CallExpr;
class Stmt;
class Decl;
class CompoundStmt;
class FunctionDecl;
class VarDecl;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum Kind {
#define EXPR(Name) Name##Kind,
#include "frontend/ASTNodes.def"
  };
  virtual ~Expr() = default;
  Kind getKind() const { return K; }

  SourceLoc Loc;
  /// Set by sema. Null before checking or after an error in this expression.
  const Type *Ty = nullptr;
  /// Set by sema: the expression designates an object (may be assigned / addressed).
  bool IsLValue = false;
  /// Height of the tree below and including this node; the parser refuses
  /// expressions deeper than ASTContext::MaxNestingDepth so that recursive
  /// passes cannot overflow the stack.
  uint32_t Depth = 1;

protected:
  Expr(Kind K, SourceLoc Loc) : Loc(Loc), K(K) {}

private:
  Kind K;
};

/// Integer or character literal. `Ty` is preset by the parser from the suffix
/// and magnitude (C's rules: int32, then int64; `u` -> unsigned; `l`/`ll` -> 64).
class IntegerLiteral : public Expr {
public:
  IntegerLiteral(SourceLoc L, uint64_t Value, const Type *LiteralType)
      : Expr(IntegerLiteralKind, L), Value(Value), LiteralType(LiteralType) {}
  uint64_t Value;
  const Type *LiteralType; ///< unbound-variability atomic type of the literal
  static bool classof(const Expr *E) { return E->getKind() == IntegerLiteralKind; }
};

/// Floating literal: `1.0` is double, `1.0f` float, `1.0f16` float16. ISPC
/// treats an unsuffixed literal as float unless --double-literals is given; we
/// follow C and record what was written (see docs/language.md).
class FloatLiteral : public Expr {
public:
  FloatLiteral(SourceLoc L, double Value, const Type *LiteralType)
      : Expr(FloatLiteralKind, L), Value(Value), LiteralType(LiteralType) {}
  double Value;
  const Type *LiteralType;
  static bool classof(const Expr *E) { return E->getKind() == FloatLiteralKind; }
};

class BoolLiteral : public Expr {
public:
  BoolLiteral(SourceLoc L, bool Value) : Expr(BoolLiteralKind, L), Value(Value) {}
  bool Value;
  static bool classof(const Expr *E) { return E->getKind() == BoolLiteralKind; }
};

/// A string literal (adjacent literals already concatenated, escapes decoded).
/// Only `print` formats and `assert` messages take strings.
class StringLiteral : public Expr {
public:
  StringLiteral(SourceLoc L, std::string Value)
      : Expr(StringLiteralKind, L), Value(std::move(Value)) {}
  std::string Value;
  static bool classof(const Expr *E) { return E->getKind() == StringLiteralKind; }
};

/// `NULL`.
class NullLiteral : public Expr {
public:
  explicit NullLiteral(SourceLoc L) : Expr(NullLiteralKind, L) {}
  static bool classof(const Expr *E) { return E->getKind() == NullLiteralKind; }
};

/// A template argument: a type (`add<int>`) or an integer / enumerator
/// value (`foo<2>`), as written; sema binds a type's variability.
struct TemplateArg {
  const Type *Ty = nullptr; ///< set for a type argument
  int64_t Value = 0;        ///< a non-type argument's value
};

/// A use of a name. Sema sets `D` to the variable, enumerator or (for a call's
/// callee, after overload resolution) function it names.
class DeclRefExpr : public Expr {
public:
  DeclRefExpr(SourceLoc L, std::string Name) : Expr(DeclRefExprKind, L), Name(std::move(Name)) {}
  std::string Name;
  Decl *D = nullptr;
  /// `add<int>`: a function template's name with explicit arguments.
  bool HasTemplateArgs = false;
  std::vector<TemplateArg> TemplateArgs;
  static bool classof(const Expr *E) { return E->getKind() == DeclRefExprKind; }
};

enum class UnaryOp { PreInc, PreDec, PostInc, PostDec, Plus, Minus, Not, BitNot, Deref, AddrOf };
const char *unaryOpSpelling(UnaryOp Op);

class UnaryExpr : public Expr {
public:
  UnaryExpr(SourceLoc L, UnaryOp Op, Expr *Operand)
      : Expr(UnaryExprKind, L), Op(Op), Operand(Operand) {}
  UnaryOp Op;
  Expr *Operand;
  /// Set by sema when a user-defined `operator-` (etc.) implements this
  /// operator on a struct: the call, whose argument is `Operand`.
  CallExpr *OperatorCall = nullptr;
  static bool classof(const Expr *E) { return E->getKind() == UnaryExprKind; }
};

enum class BinaryOp {
  Mul,
  Div,
  Rem,
  Add,
  Sub,
  Shl,
  Shr,
  LT,
  GT,
  LE,
  GE,
  EQ,
  NE,
  BitAnd,
  BitXor,
  BitOr,
  LogicalAnd,
  LogicalOr,
  Comma
};
const char *binaryOpSpelling(BinaryOp Op);
/// `L op R` for a comparison operator on integer constants (unsigned or
/// signed); nullopt for any other operator. Shared by the constant folders.
std::optional<bool> compareIntegerConstants(BinaryOp Op, int64_t L, int64_t R, bool Unsigned);

class BinaryExpr : public Expr {
public:
  BinaryExpr(SourceLoc L, BinaryOp Op, Expr *LHS, Expr *RHS)
      : Expr(BinaryExprKind, L), Op(Op), LHS(LHS), RHS(RHS) {}
  BinaryOp Op;
  Expr *LHS, *RHS;
  /// Set by sema when a user-defined `operator+` (etc.) implements this
  /// operator on a struct: the call, whose arguments are LHS and RHS.
  CallExpr *OperatorCall = nullptr;
  static bool classof(const Expr *E) { return E->getKind() == BinaryExprKind; }
};

/// `=` (Op empty) or a compound assignment `op=` (Op is the arithmetic operator).
class AssignExpr : public Expr {
public:
  AssignExpr(SourceLoc L, std::optional<BinaryOp> Op, Expr *LHS, Expr *RHS)
      : Expr(AssignExprKind, L), Op(Op), LHS(LHS), RHS(RHS) {}
  std::optional<BinaryOp> Op;
  Expr *LHS, *RHS;
  /// Set by sema when a user-defined `operator=` / `operator+=` (etc.)
  /// implements this assignment: the call, whose arguments are LHS and RHS.
  CallExpr *OperatorCall = nullptr;
  static bool classof(const Expr *E) { return E->getKind() == AssignExprKind; }
};

class ConditionalExpr : public Expr {
public:
  ConditionalExpr(SourceLoc L, Expr *Cond, Expr *Then, Expr *Else)
      : Expr(ConditionalExprKind, L), Cond(Cond), Then(Then), Else(Else) {}
  Expr *Cond, *Then, *Else;
  static bool classof(const Expr *E) { return E->getKind() == ConditionalExprKind; }
};

/// How a call runs: an ordinary call; `crev f(...)` (once per active lane, all
/// lanes on, arguments broadcast); `launch[n] f(...)` (n tasks).
enum class CallKind { Plain, Crev, Launch };

class CallExpr : public Expr {
public:
  CallExpr(SourceLoc L, Expr *Callee, std::vector<Expr *> Args)
      : Expr(CallExprKind, L), Callee(Callee), Args(std::move(Args)) {}
  Expr *Callee;
  std::vector<Expr *> Args;
  CallKind Kind = CallKind::Plain;
  /// `launch[a]`, `launch[a, b]`, `launch[a, b, c]` (or `launch[a][b][c]`): the
  /// task counts; empty for `launch f()` (one task) and for other kinds.
  std::vector<Expr *> LaunchCounts;
  /// Set by sema: the function chosen by overload resolution.
  FunctionDecl *ResolvedCallee = nullptr;
  static bool classof(const Expr *E) { return E->getKind() == CallExprKind; }
};

class IndexExpr : public Expr {
public:
  IndexExpr(SourceLoc L, Expr *Base, Expr *Index)
      : Expr(IndexExprKind, L), Base(Base), Index(Index) {}
  Expr *Base, *Index;
  static bool classof(const Expr *E) { return E->getKind() == IndexExprKind; }
};

/// `base.member` or `base->member`.
class MemberExpr : public Expr {
public:
  MemberExpr(SourceLoc L, Expr *Base, std::string Member, bool IsArrow)
      : Expr(MemberExprKind, L), Base(Base), Member(std::move(Member)), IsArrow(IsArrow) {}
  Expr *Base;
  std::string Member;
  bool IsArrow;
  int FieldIndex = -1; ///< set by sema
  /// Set by sema when the base is a short vector: the element indices the
  /// member names (`v.y` -> {1}, `v.zyx` -> {2, 1, 0}); one index is an
  /// element (an lvalue if the base is), several a new short vector.
  std::vector<unsigned> Swizzle;
  static bool classof(const Expr *E) { return E->getKind() == MemberExprKind; }
};

/// An explicit `(type) expr`.
class CastExpr : public Expr {
public:
  CastExpr(SourceLoc L, const Type *Target, Expr *Operand)
      : Expr(CastExprKind, L), Target(Target), Operand(Operand) {}
  const Type *Target; ///< as written; sema binds its variability
  Expr *Operand;
  static bool classof(const Expr *E) { return E->getKind() == CastExprKind; }
};

/// What an implicit (or the semantic part of an explicit) conversion does.
enum class CastKind {
  NoOp,             ///< same representation (e.g. adding const)
  LValueToRValue,   ///< load of an object's value
  UniformToVarying, ///< broadcast a uniform value to every lane
  IntegralCast,     ///< integer -> integer (width/signedness), enum <-> integer
  IntegralToFloating,
  FloatingToIntegral,
  FloatingCast, ///< float <-> double <-> float16
  ToBool,       ///< scalar != 0
  BoolToIntegral,
  BoolToFloating,
  ArrayToPointer, ///< array decays to a pointer to its first element
  NullToPointer,
  PointerCast, ///< pointer -> pointer of another type
  PointerToIntegral,
  IntegralToPointer,
  VectorSplat,   ///< scalar -> short vector: every element gets the value
  VectorConvert, ///< short vector -> short vector of the same length, element by element
  /// A value put in a temporary object, so that a reference can bind to it
  /// (an operand of a user-defined operator taking `S &`); an lvalue.
  MaterializeTemporary,
};
const char *castKindName(CastKind K);

/// Inserted by sema wherever a value changes type without a written cast.
class ImplicitCastExpr : public Expr {
public:
  ImplicitCastExpr(SourceLoc L, CastKind CK, Expr *Operand, const Type *To)
      : Expr(ImplicitCastExprKind, L), CK(CK), Operand(Operand) {
    Ty = To;
    Depth = Operand->Depth + 1;
  }
  CastKind CK;
  Expr *Operand;
  static bool classof(const Expr *E) { return E->getKind() == ImplicitCastExprKind; }
};

/// `sizeof(type)` or `sizeof expr`: exactly one of the two is set.
class SizeofExpr : public Expr {
public:
  SizeofExpr(SourceLoc L, const Type *OfType, Expr *OfExpr)
      : Expr(SizeofExprKind, L), OfType(OfType), OfExpr(OfExpr) {}
  const Type *OfType;
  Expr *OfExpr;
  static bool classof(const Expr *E) { return E->getKind() == SizeofExprKind; }
};

/// `{ a, b, { c, d } }` in an initializer.
class InitListExpr : public Expr {
public:
  InitListExpr(SourceLoc L, std::vector<Expr *> Elements)
      : Expr(InitListExprKind, L), Elements(std::move(Elements)) {}
  std::vector<Expr *> Elements;
  static bool classof(const Expr *E) { return E->getKind() == InitListExprKind; }
};

/// `new T`, `new T(args)`, `new T[count]`, qualified `uniform new` / `varying
/// new` (guide, "Dynamic Memory Allocation"): one allocation for the gang
/// (uniform) or one per active lane (varying, the default).
class NewExpr : public Expr {
public:
  NewExpr(SourceLoc L, Variability NewVar, const Type *AllocType, Expr *Count, Expr *Init)
      : Expr(NewExprKind, L), NewVar(NewVar), AllocType(AllocType), Count(Count), Init(Init) {}
  Variability NewVar;    ///< as written before `new`; Unbound means varying
  const Type *AllocType; ///< as written; sema binds it (the pointee defaults to uniform)
  Expr *Count;           ///< `[count]`, or null for a single object
  Expr *Init;            ///< `(args)`: one value or an InitListExpr; null when absent
  static bool classof(const Expr *E) { return E->getKind() == NewExprKind; }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum Kind {
#define STMT(Name) Name##Kind,
#include "frontend/ASTNodes.def"
  };
  virtual ~Stmt() = default;
  Kind getKind() const { return K; }
  SourceLoc Loc;
  /// Height of the statement tree, as Expr::Depth.
  uint32_t Depth = 1;

protected:
  Stmt(Kind K, SourceLoc Loc) : Loc(Loc), K(K) {}

private:
  Kind K;
};

class CompoundStmt : public Stmt {
public:
  CompoundStmt(SourceLoc L, std::vector<Stmt *> Body)
      : Stmt(CompoundStmtKind, L), Body(std::move(Body)) {}
  std::vector<Stmt *> Body;
  static bool classof(const Stmt *S) { return S->getKind() == CompoundStmtKind; }
};

/// Local declarations: variables, and block-scope typedefs, structs and enums.
class DeclStmt : public Stmt {
public:
  DeclStmt(SourceLoc L, std::vector<Decl *> Decls)
      : Stmt(DeclStmtKind, L), Decls(std::move(Decls)) {}
  std::vector<Decl *> Decls;
  static bool classof(const Stmt *S) { return S->getKind() == DeclStmtKind; }
};

class ExprStmt : public Stmt {
public:
  ExprStmt(SourceLoc L, Expr *E) : Stmt(ExprStmtKind, L), E(E) {}
  Expr *E;
  static bool classof(const Stmt *S) { return S->getKind() == ExprStmtKind; }
};

class EmptyStmt : public Stmt {
public:
  explicit EmptyStmt(SourceLoc L) : Stmt(EmptyStmtKind, L) {}
  static bool classof(const Stmt *S) { return S->getKind() == EmptyStmtKind; }
};

/// `if` / `cif` (Coherent: the programmer expects all lanes to agree).
class IfStmt : public Stmt {
public:
  IfStmt(SourceLoc L, Expr *Cond, Stmt *Then, Stmt *Else, bool Coherent)
      : Stmt(IfStmtKind, L), Cond(Cond), Then(Then), Else(Else), Coherent(Coherent) {}
  Expr *Cond;
  Stmt *Then, *Else; ///< Else may be null
  bool Coherent;
  static bool classof(const Stmt *S) { return S->getKind() == IfStmtKind; }
};

class WhileStmt : public Stmt {
public:
  WhileStmt(SourceLoc L, Expr *Cond, Stmt *Body, bool Coherent)
      : Stmt(WhileStmtKind, L), Cond(Cond), Body(Body), Coherent(Coherent) {}
  Expr *Cond;
  Stmt *Body;
  bool Coherent;
  static bool classof(const Stmt *S) { return S->getKind() == WhileStmtKind; }
};

class DoStmt : public Stmt {
public:
  DoStmt(SourceLoc L, Stmt *Body, Expr *Cond, bool Coherent)
      : Stmt(DoStmtKind, L), Body(Body), Cond(Cond), Coherent(Coherent) {}
  Stmt *Body;
  Expr *Cond;
  bool Coherent;
  static bool classof(const Stmt *S) { return S->getKind() == DoStmtKind; }
};

class ForStmt : public Stmt {
public:
  ForStmt(SourceLoc L, Stmt *Init, Expr *Cond, Expr *Inc, Stmt *Body, bool Coherent)
      : Stmt(ForStmtKind, L), Init(Init), Cond(Cond), Inc(Inc), Body(Body), Coherent(Coherent) {}
  Stmt *Init; ///< DeclStmt, ExprStmt or null
  Expr *Cond; ///< may be null (true)
  Expr *Inc;  ///< may be null
  Stmt *Body;
  bool Coherent;
  static bool classof(const Stmt *S) { return S->getKind() == ForStmtKind; }
};

class BreakStmt : public Stmt {
public:
  explicit BreakStmt(SourceLoc L) : Stmt(BreakStmtKind, L) {}
  static bool classof(const Stmt *S) { return S->getKind() == BreakStmtKind; }
};

class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(SourceLoc L) : Stmt(ContinueStmtKind, L) {}
  static bool classof(const Stmt *S) { return S->getKind() == ContinueStmtKind; }
};

class ReturnStmt : public Stmt {
public:
  ReturnStmt(SourceLoc L, Expr *Value) : Stmt(ReturnStmtKind, L), Value(Value) {}
  Expr *Value; ///< may be null
  static bool classof(const Stmt *S) { return S->getKind() == ReturnStmtKind; }
};

class SwitchStmt : public Stmt {
public:
  SwitchStmt(SourceLoc L, Expr *Cond, Stmt *Body)
      : Stmt(SwitchStmtKind, L), Cond(Cond), Body(Body) {}
  Expr *Cond;
  Stmt *Body;
  static bool classof(const Stmt *S) { return S->getKind() == SwitchStmtKind; }
};

/// `case V: Sub` — as in C, the label applies to the statement that follows.
class CaseStmt : public Stmt {
public:
  CaseStmt(SourceLoc L, Expr *Value, Stmt *Sub) : Stmt(CaseStmtKind, L), Value(Value), Sub(Sub) {}
  Expr *Value;
  Stmt *Sub;
  int64_t Resolved = 0; ///< constant value, set by sema
  static bool classof(const Stmt *S) { return S->getKind() == CaseStmtKind; }
};

class DefaultStmt : public Stmt {
public:
  DefaultStmt(SourceLoc L, Stmt *Sub) : Stmt(DefaultStmtKind, L), Sub(Sub) {}
  Stmt *Sub;
  static bool classof(const Stmt *S) { return S->getKind() == DefaultStmtKind; }
};

/// One dimension of `foreach (i = a ... b, j = c ... d)`. `Var` is the
/// (varying int32) iteration variable the statement declares.
struct ForeachDim {
  VarDecl *Var;
  Expr *Begin, *End;
};

/// `foreach` or `foreach_tiled` over 1..3 dimensions.
class ForeachStmt : public Stmt {
public:
  ForeachStmt(SourceLoc L, std::vector<ForeachDim> Dims, Stmt *Body, bool Tiled)
      : Stmt(ForeachStmtKind, L), Dims(std::move(Dims)), Body(Body), Tiled(Tiled) {}
  std::vector<ForeachDim> Dims;
  Stmt *Body;
  bool Tiled;
  static bool classof(const Stmt *S) { return S->getKind() == ForeachStmtKind; }
};

/// `foreach_active (i) body`: body once per active lane, `i` the uniform lane index.
class ForeachActiveStmt : public Stmt {
public:
  ForeachActiveStmt(SourceLoc L, VarDecl *Index, Stmt *Body)
      : Stmt(ForeachActiveStmtKind, L), Index(Index), Body(Body) {}
  VarDecl *Index;
  Stmt *Body;
  static bool classof(const Stmt *S) { return S->getKind() == ForeachActiveStmtKind; }
};

/// `foreach_unique (v in expr) body`: body once per distinct value of the
/// varying `expr` over the active lanes, `v` the uniform value.
class ForeachUniqueStmt : public Stmt {
public:
  ForeachUniqueStmt(SourceLoc L, VarDecl *Var, Expr *Seq, Stmt *Body)
      : Stmt(ForeachUniqueStmtKind, L), Var(Var), Seq(Seq), Body(Body) {}
  VarDecl *Var;
  Expr *Seq;
  Stmt *Body;
  static bool classof(const Stmt *S) { return S->getKind() == ForeachUniqueStmtKind; }
};

/// `unmasked { ... }`: ISPC's block that runs with all lanes on.
class UnmaskedStmt : public Stmt {
public:
  UnmaskedStmt(SourceLoc L, Stmt *Body) : Stmt(UnmaskedStmtKind, L), Body(Body) {}
  Stmt *Body;
  static bool classof(const Stmt *S) { return S->getKind() == UnmaskedStmtKind; }
};

/// `everywhere { ... }`: all lanes on inside, the previous mask restored after
/// (SPEC 2.2). Control may not leave it by break/continue/return.
class EverywhereStmt : public Stmt {
public:
  EverywhereStmt(SourceLoc L, Stmt *Body) : Stmt(EverywhereStmtKind, L), Body(Body) {}
  Stmt *Body;
  static bool classof(const Stmt *S) { return S->getKind() == EverywhereStmtKind; }
};

class SyncStmt : public Stmt {
public:
  explicit SyncStmt(SourceLoc L) : Stmt(SyncStmtKind, L) {}
  static bool classof(const Stmt *S) { return S->getKind() == SyncStmtKind; }
};

/// `assert(cond);` — the message is the condition's source text.
class AssertStmt : public Stmt {
public:
  AssertStmt(SourceLoc L, Expr *Cond, std::string Text)
      : Stmt(AssertStmtKind, L), Cond(Cond), Text(std::move(Text)) {}
  Expr *Cond;
  std::string Text;
  static bool classof(const Stmt *S) { return S->getKind() == AssertStmtKind; }
};

/// `print("format with % placeholders", args...);`
class PrintStmt : public Stmt {
public:
  PrintStmt(SourceLoc L, std::string Format, std::vector<Expr *> Args)
      : Stmt(PrintStmtKind, L), Format(std::move(Format)), Args(std::move(Args)) {}
  std::string Format;
  std::vector<Expr *> Args;
  static bool classof(const Stmt *S) { return S->getKind() == PrintStmtKind; }
};

/// `delete p;` or `delete[] p;`: frees what `new` allocated, per lane for a
/// varying pointer.
class DeleteStmt : public Stmt {
public:
  DeleteStmt(SourceLoc L, Expr *Pointer, bool IsArray)
      : Stmt(DeleteStmtKind, L), Pointer(Pointer), IsArray(IsArray) {}
  Expr *Pointer;
  bool IsArray;
  static bool classof(const Stmt *S) { return S->getKind() == DeleteStmtKind; }
};

/// `name: statement`, a target of `goto`.
class LabelStmt : public Stmt {
public:
  LabelStmt(SourceLoc L, std::string Name, Stmt *Sub)
      : Stmt(LabelStmtKind, L), Name(std::move(Name)), Sub(Sub) {}
  std::string Name;
  Stmt *Sub;
  static bool classof(const Stmt *S) { return S->getKind() == LabelStmtKind; }
};

/// `goto name;`: only under uniform control flow (guide, "Unstructured
/// Control Flow"); sema resolves `Target`.
class GotoStmt : public Stmt {
public:
  GotoStmt(SourceLoc L, std::string Label, SourceLoc LabelLoc)
      : Stmt(GotoStmtKind, L), Label(std::move(Label)), LabelLoc(LabelLoc) {}
  std::string Label;
  SourceLoc LabelLoc;
  LabelStmt *Target = nullptr;
  static bool classof(const Stmt *S) { return S->getKind() == GotoStmtKind; }
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

class Decl {
public:
  enum Kind {
#define DECL(Name) Name##Kind,
#include "frontend/ASTNodes.def"
  };
  virtual ~Decl() = default;
  Kind getKind() const { return K; }
  SourceLoc Loc;
  std::string Name;

protected:
  Decl(Kind K, SourceLoc Loc, std::string Name) : Loc(Loc), Name(std::move(Name)), K(K) {}

private:
  Kind K;
};

enum class StorageClass { None, Static, Extern };

/// Names sema predeclares; their values come from the target (SPEC 2.1, 2.3).
enum class BuiltinVar {
  None,
  ProgramIndex,
  ProgramCount,
  TaskIndex,
  TaskIndex0,
  TaskIndex1,
  TaskIndex2,
  TaskCount,
  TaskCount0,
  TaskCount1,
  TaskCount2,
  BlockIndex,
  BlockCount,
  GangIndex,
  GangCount,
  ThreadIndex, ///< in a task: the task system's thread running it (ISPC's threadIndex)
  ThreadCount, ///< in a task: the task system's thread count (ISPC's threadCount)
};

/// A global, local or parameter variable.
class VarDecl : public Decl {
public:
  VarDecl(SourceLoc L, std::string Name, const Type *Ty)
      : Decl(VarDeclKind, L, std::move(Name)), Ty(Ty) {}
  const Type *Ty;       ///< as written by the parser; sema replaces it with the bound type
  Expr *Init = nullptr; ///< initializer, or a parameter's default argument
  StorageClass Storage = StorageClass::None;
  bool IsShared = false; ///< `shared` (SPEC 2.3): one copy per block
  bool IsParam = false;
  bool IsGlobal = false;
  /// A varying global or static whose constant initializer reads programIndex
  /// (`static int a = 1 + programIndex;`): one initial value per lane.
  bool PerLaneInit = false;
  BuiltinVar Builtin = BuiltinVar::None;
  static bool classof(const Decl *D) { return D->getKind() == VarDeclKind; }
};

class FunctionDecl : public Decl {
public:
  FunctionDecl(SourceLoc L, std::string Name, const Type *Ty)
      : Decl(FunctionDeclKind, L, std::move(Name)), Ty(Ty) {}
  const Type *Ty; ///< a function type; sema binds parameter/return variability
  std::vector<VarDecl *> Params;
  CompoundStmt *Body = nullptr; ///< null for a prototype
  StorageClass Storage = StorageClass::None;
  bool IsInline = false;
  bool IsNoInline = false;
  /// Declared by the standard library prelude rather than the user's source.
  bool IsStdlib = false;
  /// `template <> int goo<int>(int a)`: an explicit specialization of the
  /// function template `Name` for these arguments (sema renames it to the
  /// instance's name).
  bool IsSpecialization = false;
  std::vector<TemplateArg> SpecializationArgs;
  /// A function template's instance: the call that first needed it.
  SourceLoc InstantiatedAt;
  const FunctionFlags &flags() const { return Ty->getFunctionFlags(); }
  static bool classof(const Decl *D) { return D->getKind() == FunctionDeclKind; }
};

struct FieldDecl {
  SourceLoc Loc;
  std::string Name;
  const Type *Ty; ///< member type as declared (unbound parts bind per instance)
};

class StructDecl : public Decl {
public:
  StructDecl(SourceLoc L, std::string Name) : Decl(StructDeclKind, L, std::move(Name)) {}
  std::vector<FieldDecl> Fields;
  bool IsComplete = false; ///< false for a forward declaration `struct S;`
  /// `soa<SoaWidth> SoaOf`: the block of SoaWidth elements of struct SoaOf laid
  /// out member by member (each field a `uniform T[SoaWidth]`); made by the parser.
  StructDecl *SoaOf = nullptr;
  unsigned SoaWidth = 0;
  /// A function template's type parameter `T` while the template's pattern
  /// is parsed: its struct type stands for T (with the written variability).
  bool IsTemplateParam = false;
  static bool classof(const Decl *D) { return D->getKind() == StructDeclKind; }
};

class EnumConstantDecl : public Decl {
public:
  EnumConstantDecl(SourceLoc L, std::string Name, Expr *Value)
      : Decl(EnumConstantDeclKind, L, std::move(Name)), Value(Value) {}
  Expr *Value;              ///< explicit `= value`, or null
  int64_t Resolved = 0;     ///< set by sema
  const Type *Ty = nullptr; ///< the enum type, set by the parser
  static bool classof(const Decl *D) { return D->getKind() == EnumConstantDeclKind; }
};

class EnumDecl : public Decl {
public:
  EnumDecl(SourceLoc L, std::string Name) : Decl(EnumDeclKind, L, std::move(Name)) {}
  std::vector<EnumConstantDecl *> Constants;
  static bool classof(const Decl *D) { return D->getKind() == EnumDeclKind; }
};

class TypedefDecl : public Decl {
public:
  TypedefDecl(SourceLoc L, std::string Name, const Type *Ty)
      : Decl(TypedefDeclKind, L, std::move(Name)), Ty(Ty) {}
  const Type *Ty;
  static bool classof(const Decl *D) { return D->getKind() == TypedefDeclKind; }
};

/// A `#pragma` line the preprocessor passed through, e.g. `ignore warning(perf)`
/// or `fuse(A, B)`; `Text` is everything after the word `pragma`.
struct Pragma {
  SourceLoc Loc;
  std::string Text;
};

class TranslationUnit {
public:
  std::vector<Decl *> Decls; ///< in source order, the stdlib prelude's first
  std::vector<Pragma> Pragmas;
};

//===----------------------------------------------------------------------===//
// The arena
//===----------------------------------------------------------------------===//

/// While a function template's pattern is parsed, its i-th non-type
/// parameter reads as this value plus i, so that deduction can tell which
/// parameter a short vector length (`float<N>`) came from.
constexpr int64_t TemplateValuePlaceholder = 1000000;

/// A parameter of a function template: `typename T` or a non-type `int N`.
struct TemplateParam {
  std::string Name;
  bool IsType = true;
  const Type *ValueType = nullptr; ///< a non-type parameter's (integral or enum) type
};

/// A function template (`template <typename T> T add(T a, T b) {...}`). Sema
/// instantiates it by parsing its text again with T and N bound to the
/// arguments (frontend/SemaTemplate.cpp); the instance is an ordinary function.
struct FunctionTemplate {
  std::string Name;
  std::vector<TemplateParam> Params;
  /// Parsed once with placeholder types for T (StructDecl::IsTemplateParam):
  /// its parameter types drive argument deduction; never checked or lowered.
  FunctionDecl *Pattern = nullptr;
  std::string Text;  ///< the definition, from its specifiers to its closing brace
  SourceLoc TextLoc; ///< where Text starts in the source
  bool DoubleLiterals = false; ///< --double-literals was in force: instances read Text alike
};

/// Owns every node and type of one compilation.
class ASTContext {
public:
  /// Expressions and statements deeper than this are rejected by the parser
  /// (`nesting too deep`) so that no recursive pass can exhaust the stack.
  static constexpr uint32_t MaxNestingDepth = 256;

  TypeContext Types;
  TranslationUnit TU;

  /// The parser's scoped names, kept here so that they persist from the
  /// stdlib prelude into the user's file: type names (typedef, struct, enum),
  /// which the lexer returns as type-name tokens, and integer constants that
  /// may size arrays (nullopt: a variable hides an outer constant).
  struct ParserScope {
    std::unordered_map<std::string, const Type *> TypeNames;
    std::unordered_map<std::string, std::optional<int64_t>> Constants;
  };
  std::vector<ParserScope> ParserScopes;
  /// The `soa<N> S` block structs made so far, one per (S, N).
  std::vector<StructDecl *> SoaStructs;

  /// Function templates by name, in declaration order (see FunctionTemplate).
  std::unordered_map<std::string, std::vector<FunctionTemplate>> FunctionTemplates;

  /// Creates an expression and computes its Depth from its children.
  template <typename T, typename... Args> T *makeExpr(Args &&...A) {
    T *N = new T(std::forward<Args>(A)...);
    Exprs.emplace_back(N);
    N->Depth = computeDepth(N);
    return N;
  }
  template <typename T, typename... Args> T *makeStmt(Args &&...A) {
    T *N = new T(std::forward<Args>(A)...);
    Stmts.emplace_back(N);
    N->Depth = computeDepth(N);
    return N;
  }
  template <typename T, typename... Args> T *makeDecl(Args &&...A) {
    T *N = new T(std::forward<Args>(A)...);
    Decls.emplace_back(N);
    return N;
  }

private:
  static uint32_t computeDepth(const Expr *E);
  static uint32_t computeDepth(const Stmt *S);

  std::vector<std::unique_ptr<Expr>> Exprs;
  std::vector<std::unique_ptr<Stmt>> Stmts;
  std::vector<std::unique_ptr<Decl>> Decls;
};

//===----------------------------------------------------------------------===//
// Children and visitors
//===----------------------------------------------------------------------===//

/// Calls `F(Expr *&)` for each direct sub-expression slot of `E` (non-null
/// only), so a pass can replace a child in place.
void forEachChildExpr(Expr *E, const std::function<void(Expr *&)> &F);
/// The call of a user-defined operator that implements the unary, binary or
/// assignment operator `E`, or null.
CallExpr *operatorCallOf(const Expr *E);
/// Calls `FE(Expr *&)` for each direct sub-expression and `FS(Stmt *&)` for each
/// direct sub-statement of `S` (non-null only), in source order.
void forEachChild(Stmt *S, const std::function<void(Expr *&)> &FE,
                  const std::function<void(Stmt *&)> &FS);

/// CRTP dispatch on the node kind: `visitFoo(Foo *)` for each class in
/// ASTNodes.def; unhandled kinds fall back to visitExpr/visitStmt/visitDecl.
template <typename Derived, typename RetTy = void> class ASTVisitor {
public:
  RetTy visit(Expr *E) {
    switch (E->getKind()) {
#define EXPR(Name)                                                                                 \
  case Expr::Name##Kind:                                                                           \
    return derived().visit##Name(llvm::cast<Name>(E));
#include "frontend/ASTNodes.def"
    }
    return RetTy();
  }
  RetTy visit(Stmt *S) {
    switch (S->getKind()) {
#define STMT(Name)                                                                                 \
  case Stmt::Name##Kind:                                                                           \
    return derived().visit##Name(llvm::cast<Name>(S));
#include "frontend/ASTNodes.def"
    }
    return RetTy();
  }
  RetTy visit(Decl *D) {
    switch (D->getKind()) {
#define DECL(Name)                                                                                 \
  case Decl::Name##Kind:                                                                           \
    return derived().visit##Name(llvm::cast<Name>(D));
#include "frontend/ASTNodes.def"
    }
    return RetTy();
  }

  RetTy visitExpr(Expr *) { return RetTy(); }
  RetTy visitStmt(Stmt *) { return RetTy(); }
  RetTy visitDecl(Decl *) { return RetTy(); }
#define EXPR(Name)                                                                                 \
  RetTy visit##Name(Name *N) { return derived().visitExpr(N); }
#define STMT(Name)                                                                                 \
  RetTy visit##Name(Name *N) { return derived().visitStmt(N); }
#define DECL(Name)                                                                                 \
  RetTy visit##Name(Name *N) { return derived().visitDecl(N); }
#include "frontend/ASTNodes.def"

private:
  Derived &derived() { return *static_cast<Derived *>(this); }
};

} // namespace spmdc
