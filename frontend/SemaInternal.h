// Private interface shared by the Sema*.cpp files: the checker's state and helpers.
#pragma once

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/LanguageOptions.h"
#include "target/TargetInfo.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace spmdc {

/// Where a conversion happens; used to word diagnostics.
struct ConvContext {
  enum Kind { Assign, Init, Arg, Return, Operand, Condition, Other };
  ConvContext(Kind K, std::string Name = "", unsigned ArgIndex = 0)
      : K(K), Name(std::move(Name)), ArgIndex(ArgIndex) {}
  Kind K;
  std::string Name; ///< variable (Init) or callee (Arg) or function (Return)
  unsigned ArgIndex;
  std::string describe() const;
};

class Sema {
public:
  Sema(ASTContext &Ctx, DiagnosticEngine &Diags, const TargetInfo &Target,
       const LanguageOptions &Lang);
  bool run();

  //===--- Sema.cpp: declarations, scopes ---------------------------------===//
  void declareBuiltins();
  void declareFunction(FunctionDecl *F);
  void checkTopLevel(Decl *D);
  void checkLocalDecl(Decl *D);
  void checkVarDecl(VarDecl *V);
  void checkFunctionBody(FunctionDecl *F);
  void checkStructDecl(StructDecl *S);
  void checkEnumDecl(EnumDecl *E);
  void checkTypedefDecl(TypedefDecl *T);
  /// Reports a type that cannot be an object's type (void, incomplete struct,
  /// array of unknown size, non-positive size); `What` names the object.
  bool checkObjectType(const Type *T, SourceLoc Loc, const std::string &What, bool AllowUnsized);
  void checkInitializer(VarDecl *V);
  /// `T a[][2][]`: the array type with its unsized dimensions taken from the
  /// brace initializer `Init` (SemaUnsizedArray.cpp); `T` unchanged when
  /// there is nothing to size (later checks report a missing size), null
  /// after reporting inconsistent list lengths.
  const Type *sizeUnsizedArray(const Type *T, Expr *Init);
  void checkInitializerValue(VarDecl *V);
  /// Whether a checked initializer can be computed at compile time.
  bool isConstantInitializer(const Expr *E);
  /// A global object whose address is known at link time: `g`, `g.f`, `g[2]`.
  bool isGlobalObject(const Expr *E);
  bool checkInitList(InitListExpr *L, const Type *T, const std::string &VarName);

  struct Scope {
    std::unordered_map<std::string, Decl *> Names;
    std::unordered_map<std::string, Decl *> Tags; ///< struct and enum names
  };
  void pushScope() { Scopes.emplace_back(); }
  void popScope() { Scopes.pop_back(); }
  /// Adds a name to the innermost scope; reports a redefinition (with a note at
  /// the previous declaration) and returns false when the name is taken there.
  bool declareName(Decl *D);
  void declareTag(Decl *D);
  Decl *lookup(const std::string &Name) const;
  /// The complete definition of a struct, looking past forward declarations.
  StructDecl *completeStruct(StructDecl *S) const;
  std::vector<FunctionDecl *> *overloadSet(const std::string &Name);

  //===--- SemaType.cpp: types, conversions, constants --------------------===//
  const Type *bindDeclType(const Type *T, Variability Default);
  const Type *uniformOf(const Type *T) { return Types.withVariability(T, Variability::Uniform); }
  const Type *varyingOf(const Type *T) { return Types.withVariability(T, Variability::Varying); }
  const Type *unqualified(const Type *T) { return Types.withConst(T, false); }
  bool sameType(const Type *A, const Type *B) { return unqualified(A) == unqualified(B); }
  const Type *int32Ty(Variability V) { return Types.getAtomic(Type::Int32, V); }
  const Type *boolTy(Variability V) { return Types.getAtomic(Type::Bool, V); }
  static Variability combine(Variability A, Variability B) {
    return A == Variability::Varying || B == Variability::Varying ? Variability::Varying
                                                                  : Variability::Uniform;
  }
  /// The kind an integer promotes to (bool, int8/16, enums -> int32).
  static Type::Kind promotedKind(const Type *T);
  /// C's usual arithmetic conversions on two arithmetic kinds.
  static Type::Kind commonArithKind(const Type *A, const Type *B);
  std::string typeName(const Type *T) const { return T ? T->toString() : "<error>"; }
  std::string quoted(const Type *T) const { return "'" + typeName(T) + "'"; }
  std::string functionSignature(const FunctionDecl *F) const;
  /// Size in bytes, or nullopt for types without one (void, incomplete).
  std::optional<uint64_t> sizeOf(const Type *T) const;
  std::optional<uint64_t> alignOf(const Type *T) const;
  /// The cast kind that changes `From`'s representation into `To`'s (same
  /// variability), or nullopt when no implicit conversion exists.
  std::optional<CastKind> kindConversion(const Type *From, const Type *To, bool IsNull,
                                         bool Explicit);
  static bool isNullPointerConstant(const Expr *E);

  /// Integer constant folding over literals, enumerators, const variables with
  /// constant initializers, programCount, unary/binary/?: operators, casts and
  /// sizeof. Works on checked expressions; nullopt when not a constant.
  std::optional<int64_t> evalIntConst(const Expr *E);

  //===--- SemaExpr.cpp: expressions --------------------------------------===//
  /// Checks `E` in place; sets Ty (null on error) and IsLValue. Returns false on error.
  bool checkExpr(Expr *E);
  bool checkExprSlot(Expr *&E) { return E && checkExpr(E); }
  /// Turns a checked expression into a value: arrays decay, objects are loaded,
  /// functions become pointers. Returns false when `E` has no type.
  bool toRValue(Expr *&E);
  /// Checks and converts to an rvalue in one step.
  bool checkRValue(Expr *&E) { return E && checkExpr(E) && toRValue(E); }
  /// Converts the rvalue `E` to `To`, inserting casts; reports and returns false
  /// when impossible. `AllowVaryingToUniform` is for crev arguments only.
  bool convert(Expr *&E, const Type *To, const ConvContext &Where);
  Expr *wrap(Expr *E, CastKind CK, const Type *To);
  /// Converts an rvalue condition to bool of its own variability.
  bool convertCondition(Expr *&E, const char *What);
  /// Integer promotion of an rvalue (bool/int8/int16/enum -> int32).
  void promote(Expr *&E);
  /// Broadcasts a uniform rvalue to varying when `V` is varying.
  void matchVariability(Expr *&E, Variability V);

  bool checkDeclRef(DeclRefExpr *E);
  bool checkUnary(UnaryExpr *E);
  bool checkBinary(BinaryExpr *E);
  bool checkAssign(AssignExpr *E);
  bool checkConditional(ConditionalExpr *E);
  bool checkIndex(IndexExpr *E);
  bool checkMember(MemberExpr *E);
  bool checkCast(CastExpr *E);
  bool checkSizeof(SizeofExpr *E);
  /// The type of `L op R` for arithmetic/pointer operands (both rvalues,
  /// converted in place); null after reporting an error.
  const Type *checkArithmetic(BinaryOp Op, Expr *&L, Expr *&R, SourceLoc Loc);
  void invalidOperands(BinaryOp Op, const Expr *L, const Expr *R, SourceLoc Loc);
  /// Checks that `E` (checked) designates a modifiable object; `What` is
  /// "assign to" / "increment" / "decrement". Applies variability rule 2.
  bool checkModifiable(Expr *E, const char *What);

  /// Storage information about a checked lvalue: the declared type of the
  /// object (before gathers made it varying) and whether its address differs
  /// per lane (a gather/scatter location).
  struct LValueInfo {
    const Type *Storage = nullptr;
    bool VaryingAddress = false;
  };
  LValueInfo lvalueInfo(const Expr *E);
  /// The variable an lvalue designates directly (through `.`, and array
  /// indexing of array variables, not through pointers), or null.
  VarDecl *rootVariable(const Expr *E);

  //===--- SemaVector.cpp: short vectors (`float<3>`) ----------------------===//
  /// The cast kind from `From` to the short vector `To` (same variability):
  /// VectorSplat for a scalar, VectorConvert/NoOp for a vector of the same
  /// length; nullopt otherwise (a vector never converts to a scalar).
  std::optional<CastKind> vectorKindConversion(const Type *From, const Type *To, bool Explicit);
  /// The short vector an element-wise operation on `L` and `R` (one of them a
  /// short vector) is computed in, at variability `V`; null when none.
  const Type *vectorOperationType(const Type *L, const Type *R, Variability V);
  const Type *checkVectorArithmetic(BinaryOp Op, Expr *&L, Expr *&R, SourceLoc Loc);
  bool checkVectorUnary(UnaryExpr *E);
  /// `a && b`, `a || b` with a short-vector operand (both checked rvalues).
  bool checkVectorLogical(BinaryExpr *E);
  bool checkVectorCompoundAssign(AssignExpr *E);
  bool checkSwizzle(MemberExpr *E);
  /// `c ? a : b` with a short-vector condition: the element-wise select's type.
  const Type *checkVectorCondition(ConditionalExpr *E);

  //===--- SemaOperator.cpp: user-defined operators on structs -------------===//
  /// `E` (an operator with the checked, not yet loaded `Operands`) as a call
  /// of `operator<Spelling>`: nullopt when no function of that name exists
  /// (or, with OnlyIfViable, none takes these operands): the built-in
  /// operator applies; otherwise whether the call checked, with the call in
  /// `OperatorCall` and E's type set.
  std::optional<bool> checkOverloadedOperator(Expr *E, const std::string &Spelling,
                                              std::vector<Expr *> Operands,
                                              CallExpr *&OperatorCall, bool OnlyIfViable = false);

  //===--- SemaTemplate.cpp: function templates ----------------------------===//
  /// A call of a function template: binds its template arguments (explicit,
  /// then deduced from the checked arguments), instantiates it unless a
  /// specialization or an earlier instance exists, and renames the callee to
  /// the instance. True when the call is not a template call.
  bool resolveTemplateCallee(CallExpr *E);
  /// Deduces the parameters of `T` found in the pattern type `Pattern` of a
  /// function parameter from its argument's type `Arg` into `Bound` (the
  /// first NumExplicit are given); false on a conflict.
  bool deduceTemplateArgs(const Type *Pattern, const Type *Arg, const FunctionTemplate &T,
                          size_t NumExplicit, std::vector<std::optional<TemplateArg>> &Bound);
  /// `template <> int goo<int>(...)`: renames F to the instance it replaces.
  void nameSpecialization(FunctionDecl *F);
  static std::string templateInstanceName(const std::string &Name,
                                          const std::vector<TemplateArg> &Args);
  unsigned TemplateInstances = 0;
  static constexpr unsigned MaxTemplateInstances = 1000;

  //===--- SemaCall.cpp: calls ----------------------------------------------===//
  bool checkCall(CallExpr *E);
  bool checkCallArgs(CallExpr *E, const Type *FnTy, const std::string &Name,
                     const std::vector<VarDecl *> *Params);
  FunctionDecl *resolveOverload(CallExpr *E, const std::string &Name,
                                std::vector<FunctionDecl *> &Candidates);
  /// ISPC's cost of passing `Arg` to a parameter of type `ParamTy` in a call
  /// with `NumArgs` arguments, or nullopt when it cannot be passed.
  std::optional<uint64_t> argumentCost(Expr *Arg, const Type *ParamTy, bool Crev, size_t NumArgs);
  /// `From` (an rvalue type) converts implicitly to `To`.
  bool implicitlyConvertible(const Type *From, const Type *To, bool IsNull);

  //===--- SemaStmt.cpp: statements and control-flow rules ----------------===//
  void checkReferenceReturn(Expr *Value, const Type *Ret, const std::string &Name);
  void checkStmt(Stmt *S);
  void checkStmtSlot(Stmt *S) {
    if (S)
      checkStmt(S);
  }
  void checkCompound(CompoundStmt *S, bool NewScope);
  void checkIf(IfStmt *S);
  void checkWhile(WhileStmt *S);
  void checkDo(DoStmt *S);
  void checkConditionLoop(Expr *&Cond, Stmt *Body, const char *What);
  void checkFor(ForStmt *S);
  void checkSwitch(SwitchStmt *S);
  void checkCase(CaseStmt *S);
  void checkDefault(DefaultStmt *S);
  void checkBreakContinue(Stmt *S, bool IsBreak);
  void checkReturn(ReturnStmt *S);
  void checkForeach(ForeachStmt *S);
  void checkForeachActive(ForeachActiveStmt *S);
  void checkForeachUnique(ForeachUniqueStmt *S);
  void checkPrint(PrintStmt *S);

  //===--- SemaNew.cpp: new and delete ------------------------------------===//
  bool checkNew(NewExpr *E);
  void checkDelete(DeleteStmt *S);

  //===--- SemaSoa.cpp: soa<N> structs -------------------------------------===//
  /// The `soa<N>` block struct `T` is, or null.
  static StructDecl *soaBlock(const Type *T) {
    return T && T->isStruct() && T->getStructDecl()->SoaOf ? T->getStructDecl() : nullptr;
  }
  /// `a[i]` where `a` is an array of / pointer to soa<N> blocks: element i of
  /// the soa data (not an object with an address of its own).
  static bool isSoaElement(const Expr *E);
  /// A soa element or a member or array element inside one (`a[i].y[2]`).
  static bool isInSoa(const Expr *E);
  /// The type of element access `a[i]` into soa blocks: the original struct,
  /// varying when the index or the pointer is.
  const Type *soaElementType(const Type *Block, bool Varying);
  /// Does `T` hold soa data (through pointers and arrays)? Such types stay
  /// out of export signatures, as in ISPC.
  static bool containsSoa(const Type *T);
  /// Reports a use of a pointer to soa blocks that spmdc does not lower yet
  /// (dereference, `->`, arithmetic); `What` names it.
  void soaPointerUnsupported(const Type *Ptr, SourceLoc Loc, const char *What);

  //===--- SemaGoto.cpp: labels and goto ----------------------------------===//
  void checkLabel(LabelStmt *S);
  void checkGoto(GotoStmt *S);
  /// After a body is checked: binds each goto to its label and checks that
  /// the jump neither enters nor leaves a construct that owns a mask.
  void resolveGotos(CompoundStmt *Body);
  /// The current function's labels by name.
  std::unordered_map<std::string, LabelStmt *> Labels;
  /// Gotos already reported as under varying control flow.
  std::unordered_set<const GotoStmt *> RejectedGotos;

  //===--- control-flow state ---------------------------------------------===//
  /// A region of the function in which the execution mask differs from the
  /// one at the region's start (Varying, Partial), or where all lanes are on
  /// again (AllOn: everywhere/unmasked) or lanes run one at a time (Serial:
  /// foreach_active/foreach_unique).
  struct Region {
    enum Kind { Varying, Partial, AllOn, Serial } K;
    uint64_t StartSeq;
    /// Varying/Serial: ids of break/continue/return targets that lanes left
    /// for from inside; Partial: its own target (the mask stays partial until
    /// that construct ends).
    std::vector<unsigned> Exits;
  };
  /// A loop, switch or foreach that break/continue can target.
  struct ExitTarget {
    enum Kind { Loop, Switch, Foreach } K;
    unsigned Id;
    unsigned EverywhereDepth;
    uint64_t BodyStartSeq;
    const char *Name; ///< "foreach", "foreach_active", "foreach_unique" for Foreach
  };
  struct SwitchInfo {
    const Type *CondTy = nullptr;
    std::unordered_map<int64_t, CaseStmt *> Values;
    DefaultStmt *Default = nullptr;
  };
  static constexpr unsigned FunctionTargetId = 0;

  void pushRegion(Region::Kind K) { Regions.push_back({K, ++Seq, {}}); }
  /// Removes the regions above `Size` and returns the targets lanes left for.
  std::vector<unsigned> takeRegionsAbove(size_t Size);
  /// After a construct: the mask stays partial up to each target still open.
  void pushPartials(const std::vector<unsigned> &Exits, unsigned EndingTarget);
  void endRegionsAt(size_t Size, unsigned EndingTarget) {
    pushPartials(takeRegionsAbove(Size), EndingTarget);
  }
  /// The innermost region that narrows the mask, stopping at an all-on
  /// region (and a serial one unless `SerialNarrows`); null if none.
  Region *innermostNarrowing(bool SerialNarrows);
  bool underVaryingControl(bool SerialNarrows) { return innermostNarrowing(SerialNarrows); }
  /// Records that lanes leave for `TargetId` from here (break/continue/return).
  void noteExit(unsigned TargetId, uint64_t TargetBodyStart);
  void declareVarSeq(VarDecl *V) { DeclSeq[V] = ++Seq; }

  ASTContext &Ctx;
  TypeContext &Types;
  DiagnosticEngine &Diags;
  const TargetInfo &Target;
  const LanguageOptions &Lang;

  std::vector<Scope> Scopes;
  std::unordered_map<std::string, std::vector<FunctionDecl *>> Functions;
  std::unordered_map<std::string, StructDecl *> StructDefs;
  std::unordered_set<const VarDecl *> ForeachVars;
  std::unordered_set<const Decl *> Checked;

  FunctionDecl *CurFunction = nullptr;
  std::vector<Region> Regions;
  std::vector<ExitTarget> Targets;
  std::vector<SwitchInfo *> Switches;
  unsigned EverywhereDepth = 0;
  unsigned NextTargetId = 1;
  uint64_t Seq = 0;
  std::unordered_map<const VarDecl *, uint64_t> DeclSeq;
  /// Diagnostics about a function's declaration found in the first pass; they
  /// are emitted when the second pass reaches the function, in source order.
  struct PendingDiag {
    bool IsNote;
    SourceLoc Loc;
    std::string Message;
  };
  std::unordered_map<const FunctionDecl *, std::vector<PendingDiag>> PendingDiags;
  /// Values of integer constants (`const uniform int N = 4;`), folded once at
  /// their declaration.
  std::unordered_map<const VarDecl *, int64_t> ConstValues;
  /// Globals whose initializer is a compile-time constant.
  std::unordered_set<const VarDecl *> ConstantInitVars;
};

} // namespace spmdc
