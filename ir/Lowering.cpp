// Lowers the checked AST to the SPMD IR, one function per statement and expression kind.
//
// Sema has bound every type and inserted every conversion, so lowering is
// mechanical: lvalues lower to addresses, rvalues to values, locals to `var`
// slots, and short-circuit / conditional operators to `if` ops writing a
// temporary (so their operands run only on the lanes that need them).
#include "ir/Lowering.h"

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "ir/IR.h"
#include "ir/LowerVector.h"
#include "target/TargetInfo.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <limits>
#include <map>

namespace spmdc::ir {

namespace {

using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

/// A floating-point initializer of an integer global, truncated toward zero.
/// Out of range it is undefined in ISPC (and in C); here it saturates and NaN
/// is 0, so that the compiler itself does no undefined conversion.
int64_t truncateToInt64(double V) {
  if (std::isnan(V))
    return 0;
  if (V <= -0x1p63)
    return std::numeric_limits<int64_t>::min();
  if (V >= 0x1p63)
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(V);
}

/// References are pointers in the IR: a reference variable's slot holds the
/// address of what it refers to.
const Type *irType(TypeContext &Types, const Type *T) {
  if (T && T->isReference())
    return Types.getPointer(T->getPointee(), Variability::Uniform);
  return T;
}

/// The size and alignment of `T` as ISPC lays it out for a gang of `W` lanes (its x86
/// layout: a varying scalar, enum or pointer is W values, a uniform one a single value,
/// structs and arrays C's layout of those), which sizeof reports on every target. NVPTX's
/// own layout holds one lane per thread. Nullopt where this has no answer (an empty struct,
/// an unsized array, a type without a fixed size).
std::optional<std::pair<uint64_t, uint64_t>> gangLayout(TypeContext &Types, const Type *T,
                                                        uint64_t W) {
  auto AlignTo = [](uint64_t N, uint64_t A) { return (N + A - 1) / A * A; };
  if (T->isArray()) {
    auto E = gangLayout(Types, T->getElementType(), W);
    if (!E || T->getArraySize() == 0)
      return std::nullopt;
    return std::make_pair(E->first * T->getArraySize(), E->second);
  }
  if (T->isStruct()) {
    StructDecl *S = T->getStructDecl();
    if (!S || S->Fields.empty())
      return std::nullopt;
    uint64_t Size = 0, Align = 1;
    for (const FieldDecl &F : S->Fields) {
      auto M = gangLayout(Types, Types.memberType(F.Ty, T->getVariability()), W);
      if (!M)
        return std::nullopt;
      Size = AlignTo(Size, M->second) + M->first;
      Align = std::max(Align, M->second);
    }
    return std::make_pair(AlignTo(Size, Align), Align);
  }
  uint64_t Bytes = 0;
  if (T->isPointer())
    Bytes = 8;
  else if (T->isEnum())
    Bytes = 4;
  else if (T->isAtomic())
    switch (T->getKind()) {
    case Type::Bool:
    case Type::Int8:
    case Type::UInt8:
      Bytes = 1;
      break;
    case Type::Int16:
    case Type::UInt16:
    case Type::Float16:
      Bytes = 2;
      break;
    case Type::Int64:
    case Type::UInt64:
    case Type::Double:
      Bytes = 8;
      break;
    default:
      Bytes = 4;
    }
  else
    return std::nullopt;
  return std::make_pair(T->isVarying() ? Bytes * W : Bytes, Bytes);
}

/// A unique symbol per overload: export / extern "C" functions keep their name.
std::string mangle(const FunctionDecl &FD) {
  const FunctionFlags &F = FD.flags();
  if (F.Export || F.ExternC || FD.Name == "main")
    return FD.Name;
  // `operator+` and friends: spell the operator's characters as hex digits.
  std::string S;
  for (char C : FD.Name) {
    if (std::isalnum(static_cast<unsigned char>(C)) || C == '_') {
      S += C;
    } else {
      static const char *Hex = "0123456789abcdef";
      S += {'_', Hex[(C >> 4) & 15], Hex[C & 15]};
    }
  }
  S += "___";
  for (const Type *P : FD.Ty->getParamTypes()) {
    std::string T = P->toString();
    for (char C : T)
      S += (std::isalnum(static_cast<unsigned char>(C)) ? C : '_');
    S += "__";
  }
  return S;
}

class ModuleLowering;

class FunctionLowering {
public:
  FunctionLowering(ModuleLowering &ML, Function &F, DiagnosticEngine &Diags);
  void lowerBody(FunctionDecl &FD);

private:
  // Statements.
  void stmt(Stmt *S);
  void declStmt(DeclStmt *S);
  void localVar(VarDecl *V);
  void initialize(Value *Addr, const Type *Ty, Expr *Init);
  void loopStmt(Stmt *Init, Expr *Cond, Expr *Inc, Stmt *Body, bool DoWhile);
  void switchStmt(SwitchStmt *S);
  bool hasEnclosingLoop() const {
    for (Value *Slot : Breakables)
      if (!Slot)
        return true;
    return false;
  }
  void nestedRegion(Op *O, Stmt *Body);

  // Expressions.
  Value *rvalue(Expr *E);
  Value *address(Expr *E);
  Value *convert(Value *V, const Type *To);
  Value *unary(UnaryExpr *E);
  Value *incDec(UnaryExpr *E);
  Value *binary(BinaryExpr *E);
  Value *logical(BinaryExpr *E);
  Value *assign(AssignExpr *E);
  Value *conditional(ConditionalExpr *E);
  Value *call(CallExpr *E);
  Value *newExpr(NewExpr *E);
  // soa<N> data (see frontend/SemaSoa.cpp): `a[i]` into soa blocks is block
  // `i / N`; members and array elements inside it select soa storage down to
  // an atomic member's `uniform T[N]`, whose element `i % N` is the value.
  struct SoaPlace {
    Value *Storage; ///< the soa storage's address (varying for a varying index)
    Value *Lane;    ///< i % N
    const Type *Ty; ///< what the place reads as (sema's type)
  };
  static bool isSoaElement(const Expr *E);
  static bool isInSoa(const Expr *E);
  SoaPlace soaPlace(Expr *E);
  SoaPlace soaField(const SoaPlace &P, int Field, const Type *FieldTy);
  SoaPlace soaIndex(const SoaPlace &P, Value *Index, const Type *EltTy);
  Value *soaLeafAddress(const SoaPlace &P);
  Value *soaLoad(const SoaPlace &P);
  void soaStore(const SoaPlace &P, Value *V);
  Value *decay(Value *ArrayAddr);
  int64_t labelId(const LabelStmt *L) {
    auto [It, IsNew] = LabelIds.emplace(L, 0);
    if (IsNew)
      It->second = F.newLabelId();
    return It->second;
  }
  /// The address passed for a reference parameter: the argument's own, or a temporary's.
  Value *referenceArgument(Expr *Arg, const Type *ParamTy);
  Value *arith(BinaryOp Kind, Value *L, Value *R, const Type *ResultTy);
  Value *unsupported(SourceLoc Loc, const std::string &What);
  /// Reports an unsupported l-value and returns a stand-in address of the
  /// right type, so lowering can go on to find further errors (the module is
  /// discarded after any error).
  Value *unsupportedAddress(Expr *E, const std::string &What);
  Value *decayedBase(Expr *Base);

  const Type *uniformOf(const Type *T) {
    return B.types().withVariability(T, Variability::Uniform);
  }
  const Type *boolType(Variability V) { return B.types().getAtomic(Type::Bool, V); }

  ModuleLowering &ML;
  Function &F;
  DiagnosticEngine &Diags;
  Builder B;
  VectorLowering Vec{B};
  bool ReturnsReference = false; ///< the function returns `T &`
  llvm::DenseMap<VarDecl *, Value *> Locals;
  /// Innermost last: null for a loop, the `continued` flag slot for a switch.
  std::vector<Value *> Breakables;
  /// The `label`/`goto` number of each label of the function.
  std::map<const LabelStmt *, int64_t> LabelIds;
};

class ModuleLowering {
public:
  ModuleLowering(ASTContext &Ctx, const TargetInfo &Target, DiagnosticEngine &Diags)
      : Ctx(Ctx), Target(Target), Diags(Diags), M(std::make_unique<Module>(Ctx.Types)) {}

  std::unique_ptr<Module> run() {
    M->Pragmas = Ctx.TU.Pragmas;
    // Declare every function and global first: bodies may refer to later ones.
    for (Decl *D : Ctx.TU.Decls) {
      if (auto *FD = dyn_cast<FunctionDecl>(D))
        functionFor(FD);
      else if (auto *V = dyn_cast<VarDecl>(D))
        globalFor(V);
    }
    for (Decl *D : Ctx.TU.Decls)
      if (auto *FD = dyn_cast<FunctionDecl>(D); FD && FD->Body) {
        Function *F = functionFor(FD);
        FunctionLowering(*this, *F, Diags).lowerBody(*FD);
      }
    if (Diags.hasErrors())
      return nullptr;
    return std::move(M);
  }

  Function *functionFor(FunctionDecl *FD) {
    std::string Sym = mangle(*FD);
    auto It = FunctionsBySymbol.find(Sym);
    if (It != FunctionsBySymbol.end())
      return It->second;
    auto F = std::make_unique<Function>();
    F->Name = FD->Name;
    F->Loc = FD->Loc;
    F->Symbol = Sym;
    // A reference result travels as a pointer, as reference parameters do.
    F->Ty = FD->Ty->getReturnType()->isReference()
                ? Ctx.Types.getFunction(irType(Ctx.Types, FD->Ty->getReturnType()),
                                        FD->Ty->getParamTypes(), FD->Ty->getFunctionFlags())
                : FD->Ty;
    F->IsStatic = FD->Storage == StorageClass::Static;
    F->IsStdlib = FD->IsStdlib;
    F->IsInline = FD->IsInline;
    F->IsNoInline = FD->IsNoInline;
    for (size_t I = 0; I < FD->Ty->getParamTypes().size(); ++I) {
      F->Params.push_back(
          std::make_unique<Value>(irType(Ctx.Types, FD->Ty->getParamTypes()[I]), nullptr));
      if (I < FD->Params.size())
        F->Params.back()->NameHint = FD->Params[I]->Name;
    }
    Function *Raw = F.get();
    FunctionsBySymbol[Sym] = Raw;
    M->Functions.push_back(std::move(F));
    return Raw;
  }

  Global *globalFor(VarDecl *V) {
    auto It = Globals.find(V);
    if (It != Globals.end())
      return It->second;
    auto G = std::make_unique<Global>();
    G->Name = V->Name;
    G->Ty = V->Ty;
    G->IsShared = V->IsShared;
    G->IsExtern = V->Storage == StorageClass::Extern;
    G->IsStatic = V->Storage == StorageClass::Static || !V->IsGlobal;
    if (!V->IsGlobal) // function-scope static or shared: give it a unique name
      G->Name = V->Name + "." + std::to_string(Globals.size());
    if (V->Init && V->PerLaneInit) {
      for (FoldLane = 0; *FoldLane < Target.GangWidth; ++*FoldLane)
        constantInit(V->Init, *G);
      FoldLane.reset();
      G->PerLaneInit = true;
    } else if (V->Init) {
      constantInit(V->Init, *G);
    }
    Global *Raw = G.get();
    Globals[V] = Raw;
    M->Globals.push_back(std::move(G));
    return Raw;
  }

  ASTContext &Ctx;
  const TargetInfo &Target;
  DiagnosticEngine &Diags;
  std::unique_ptr<Module> M;

private:
  /// The lane whose programIndex a per-lane global initializer is folded for.
  std::optional<unsigned> FoldLane;

  /// The function `E` designates as a constant: `f` or `&f`.
  static FunctionDecl *addressedFunction(Expr *E) {
    if (auto *U = dyn_cast<UnaryExpr>(E); U && U->Op == UnaryOp::AddrOf)
      E = U->Operand;
    auto *DR = dyn_cast<DeclRefExpr>(E);
    return DR ? dyn_cast_or_null<FunctionDecl>(DR->D) : nullptr;
  }

  /// Global initializers must be constants: flatten literals (and init lists).
  void constantInit(Expr *E, Global &G) {
    while (auto *IC = dyn_cast<ImplicitCastExpr>(E))
      E = IC->Operand;
    bool Negate = false;
    if (auto *U = dyn_cast<UnaryExpr>(E); U && U->Op == UnaryOp::Minus) {
      Negate = true;
      E = U->Operand;
      while (auto *IC = dyn_cast<ImplicitCastExpr>(E))
        E = IC->Operand;
    }
    if (auto *L = dyn_cast<InitListExpr>(E)) {
      for (Expr *El : L->Elements)
        constantInit(El, G);
    } else if (FunctionDecl *FD = addressedFunction(E)) {
      G.InitFuncs[G.InitInt.size()] = functionFor(FD);
      G.InitInt.push_back(0);
      G.InitFloat.push_back(0);
    } else if (std::optional<int64_t> Folded =
                   E->Ty && (E->Ty->isInteger() || E->Ty->isBool()) && !isa<IntegerLiteral>(E)
                       ? foldInteger(E)
                       : std::nullopt) {
      G.InitInt.push_back(Negate ? -*Folded : *Folded);
      G.InitFloat.push_back(static_cast<double>(Negate ? -*Folded : *Folded));
    } else if (auto *I = dyn_cast<IntegerLiteral>(E)) {
      int64_t V = static_cast<int64_t>(I->Value);
      G.InitInt.push_back(Negate ? -V : V);
      G.InitFloat.push_back(static_cast<double>(Negate ? -V : V));
    } else if (auto *Fl = dyn_cast<FloatLiteral>(E)) {
      G.InitFloat.push_back(Negate ? -Fl->Value : Fl->Value);
      G.InitInt.push_back(truncateToInt64(Negate ? -Fl->Value : Fl->Value));
    } else if (auto *Bl = dyn_cast<BoolLiteral>(E)) {
      G.InitInt.push_back(Bl->Value);
      G.InitFloat.push_back(Bl->Value);
    } else if (isa<NullLiteral>(E)) { // `int * uniform p = NULL;`
      G.InitInt.push_back(0);
      G.InitFloat.push_back(0);
    } else {
      Diags.error(E->Loc, "global initializer is not a constant the code generator handles yet");
    }
  }

  /// An integer constant expression of a global initializer (`programCount *
  /// 2`, `K + 1` with K a const global), folded with C's wrap-around in the
  /// expression's type; nullopt when it is not one.
  std::optional<int64_t> foldInteger(Expr *E) {
    auto Wrap = [&](int64_t V) -> std::optional<int64_t> {
      if (!E->Ty || !(E->Ty->isInteger() || E->Ty->isEnum() || E->Ty->isBool()))
        return std::nullopt;
      unsigned Bits = E->Ty->isBool() ? 1 : E->Ty->getBitWidth();
      if (Bits >= 64)
        return V;
      uint64_t Mask = (uint64_t(1) << Bits) - 1, U = uint64_t(V) & Mask;
      if (E->Ty->isSignedInteger() && ((U >> (Bits - 1)) & 1))
        U |= ~Mask;
      return static_cast<int64_t>(U);
    };
    if (auto *I = dyn_cast<IntegerLiteral>(E))
      return Wrap(static_cast<int64_t>(I->Value));
    if (auto *Bl = dyn_cast<BoolLiteral>(E))
      return Bl->Value ? 1 : 0;
    if (auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
      std::optional<int64_t> V = foldInteger(IC->Operand);
      return V ? Wrap(*V) : std::nullopt;
    }
    if (auto *C = dyn_cast<CastExpr>(E)) {
      std::optional<int64_t> V = foldInteger(C->Operand);
      return V ? Wrap(*V) : std::nullopt;
    }
    if (auto *DR = dyn_cast<DeclRefExpr>(E)) {
      if (auto *EC = dyn_cast_or_null<EnumConstantDecl>(DR->D))
        return EC->Resolved;
      auto *V = dyn_cast_or_null<VarDecl>(DR->D);
      if (V && V->Builtin == BuiltinVar::ProgramCount)
        return static_cast<int64_t>(Target.GangWidth);
      if (V && V->Builtin == BuiltinVar::ProgramIndex && FoldLane)
        return static_cast<int64_t>(*FoldLane);
      if (V && V->IsGlobal && V->Ty && V->Ty->isConst() && V->Init)
        return foldInteger(V->Init);
      return std::nullopt;
    }
    if (auto *U = dyn_cast<UnaryExpr>(E)) {
      std::optional<int64_t> V = foldInteger(U->Operand);
      if (!V)
        return std::nullopt;
      uint64_t X = static_cast<uint64_t>(*V);
      switch (U->Op) {
      case UnaryOp::Plus:
        return Wrap(*V);
      case UnaryOp::Minus:
        return Wrap(static_cast<int64_t>(0 - X));
      case UnaryOp::BitNot:
        return Wrap(static_cast<int64_t>(~X));
      case UnaryOp::Not:
        return *V == 0 ? 1 : 0;
      default:
        return std::nullopt;
      }
    }
    if (auto *Bin = dyn_cast<BinaryExpr>(E)) {
      std::optional<int64_t> L = foldInteger(Bin->LHS), R = foldInteger(Bin->RHS);
      if (!L || !R)
        return std::nullopt;
      uint64_t A = static_cast<uint64_t>(*L), C = static_cast<uint64_t>(*R);
      bool Unsigned = Bin->LHS->Ty && Bin->LHS->Ty->isUnsignedInteger();
      switch (Bin->Op) {
      case BinaryOp::Add:
        return Wrap(static_cast<int64_t>(A + C));
      case BinaryOp::Sub:
        return Wrap(static_cast<int64_t>(A - C));
      case BinaryOp::Mul:
        return Wrap(static_cast<int64_t>(A * C));
      case BinaryOp::Div:
      case BinaryOp::Rem:
        if (*R == 0 || (*L == INT64_MIN && *R == -1))
          return std::nullopt;
        if (Unsigned)
          return Wrap(static_cast<int64_t>(Bin->Op == BinaryOp::Div ? A / C : A % C));
        return Wrap(Bin->Op == BinaryOp::Div ? *L / *R : *L % *R);
      case BinaryOp::Shl:
        return C < 64 ? Wrap(static_cast<int64_t>(A << C)) : std::nullopt;
      case BinaryOp::Shr:
        if (C >= 64)
          return std::nullopt;
        return Wrap(Unsigned ? static_cast<int64_t>(A >> C) : (*L >> C));
      case BinaryOp::BitAnd:
        return Wrap(static_cast<int64_t>(A & C));
      case BinaryOp::BitOr:
        return Wrap(static_cast<int64_t>(A | C));
      case BinaryOp::BitXor:
        return Wrap(static_cast<int64_t>(A ^ C));
      // Comparisons and logic give a bool (`(17 < 2) || (6 >= 5)`).
      case BinaryOp::LogicalAnd:
        return *L != 0 && *R != 0;
      case BinaryOp::LogicalOr:
        return *L != 0 || *R != 0;
      default:
        if (std::optional<bool> Cmp = compareIntegerConstants(Bin->Op, *L, *R, Unsigned))
          return *Cmp;
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  std::map<std::string, Function *> FunctionsBySymbol;
  std::map<VarDecl *, Global *> Globals;
};

FunctionLowering::FunctionLowering(ModuleLowering &ML, Function &F, DiagnosticEngine &Diags)
    : ML(ML), F(F), Diags(Diags), B(*ML.M) {}

Value *FunctionLowering::unsupported(SourceLoc Loc, const std::string &What) {
  Diags.error(Loc, What + " is not supported by the code generator yet");
  return B.constInt(0, B.types().getAtomic(Type::Int32, Variability::Uniform));
}

Value *FunctionLowering::unsupportedAddress(Expr *E, const std::string &What) {
  Diags.error(E->Loc, What + " is not supported by the code generator yet");
  const Type *T = E->Ty ? E->Ty : B.types().getAtomic(Type::Int32, Variability::Uniform);
  return B.create(OpCode::ConstNull, B.types().getPointer(T, Variability::Uniform))->result();
}

/// The pointer a subscript indexes: arrays (which sema leaves as l-values) decay
/// to a pointer to their first element.
Value *FunctionLowering::decayedBase(Expr *Base) {
  if (!Base->Ty || !Base->Ty->isArray())
    return rvalue(Base);
  // The element type comes from the address: sema types `a[i]` of a uniform
  // array `a` with a varying `i` as varying, but the data stays uniform.
  Value *A = address(Base);
  const Type *Elt = A->Ty->getPointee()->getElementType();
  Op *O = B.create(OpCode::Convert, B.types().getPointer(Elt, A->Ty->getVariability()), {A});
  O->Cast = CastKind::ArrayToPointer;
  return O->result();
}

void FunctionLowering::lowerBody(FunctionDecl &FD) {
  F.Body = std::make_unique<Region>();
  ReturnsReference = FD.Ty->getReturnType()->isReference();
  B.setInsertRegion(F.Body.get());
  B.setLoc(FD.Loc);
  // Parameters are mutable locals: copy each into its own slot.
  for (size_t I = 0; I < FD.Params.size() && I < F.Params.size(); ++I) {
    VarDecl *P = FD.Params[I];
    Value *Slot = B.var(irType(B.types(), P->Ty), P->Name);
    B.store(Slot, F.Params[I].get());
    Locals[P] = Slot;
  }
  stmt(FD.Body);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void FunctionLowering::nestedRegion(Op *O, Stmt *Body) {
  Region *Saved = B.insertRegion();
  B.setInsertRegion(B.addRegion(O));
  if (Body)
    stmt(Body);
  B.setInsertRegion(Saved);
}

void FunctionLowering::stmt(Stmt *S) {
  if (Diags.shouldStop())
    return;
  B.setLoc(S->Loc);
  switch (S->getKind()) {
  case Stmt::CompoundStmtKind:
    for (Stmt *C : cast<CompoundStmt>(S)->Body)
      stmt(C);
    return;
  case Stmt::DeclStmtKind:
    declStmt(cast<DeclStmt>(S));
    return;
  case Stmt::ExprStmtKind:
    rvalue(cast<ExprStmt>(S)->E);
    return;
  case Stmt::EmptyStmtKind:
    return;
  case Stmt::IfStmtKind: {
    auto *I = cast<IfStmt>(S);
    Value *C = rvalue(I->Cond);
    Op *O = B.create(OpCode::If, nullptr, {C});
    O->Coherent = I->Coherent;
    nestedRegion(O, I->Then);
    nestedRegion(O, I->Else);
    return;
  }
  case Stmt::WhileStmtKind: {
    auto *W = cast<WhileStmt>(S);
    loopStmt(nullptr, W->Cond, nullptr, W->Body, false);
    return;
  }
  case Stmt::DoStmtKind: {
    auto *D = cast<DoStmt>(S);
    loopStmt(nullptr, D->Cond, nullptr, D->Body, true);
    return;
  }
  case Stmt::ForStmtKind: {
    auto *Fo = cast<ForStmt>(S);
    loopStmt(Fo->Init, Fo->Cond, Fo->Inc, Fo->Body, false);
    return;
  }
  case Stmt::BreakStmtKind:
    B.create(OpCode::Break, nullptr);
    return;
  case Stmt::ContinueStmtKind:
    // Inside a switch (lowered as a one-trip loop), `continue` belongs to the
    // enclosing loop: remember it, leave the switch, continue after it.
    if (!Breakables.empty() && Breakables.back()) {
      B.store(Breakables.back(),
              convert(B.constBool(true), loadedType(B.types(), Breakables.back()->Ty)));
      B.create(OpCode::Break, nullptr);
      return;
    }
    B.create(OpCode::Continue, nullptr);
    return;
  case Stmt::ReturnStmtKind: {
    auto *R = cast<ReturnStmt>(S);
    std::vector<Value *> Ops;
    if (R->Value && ReturnsReference)
      Ops.push_back(convert(address(R->Value), F.Ty->getReturnType()));
    else if (R->Value && !R->Value->Ty->isVoid())
      Ops.push_back(convert(rvalue(R->Value), F.Ty->getReturnType()));
    else if (R->Value)
      rvalue(R->Value);
    B.create(OpCode::Return, nullptr, Ops);
    return;
  }
  case Stmt::ForeachStmtKind: {
    auto *Fe = cast<ForeachStmt>(S);
    std::vector<Value *> Bounds;
    for (ForeachDim &D : Fe->Dims) {
      Bounds.push_back(convert(rvalue(D.Begin), uniformOf(D.Var->Ty)));
      Bounds.push_back(convert(rvalue(D.End), uniformOf(D.Var->Ty)));
    }
    std::vector<Value *> Slots;
    for (ForeachDim &D : Fe->Dims) {
      Slots.push_back(B.var(D.Var->Ty, D.Var->Name));
      Locals[D.Var] = Slots.back();
    }
    B.setLoc(S->Loc); // the loop's, not its last bound's
    Op *O = B.create(OpCode::Foreach, nullptr, Bounds);
    O->Tiled = Fe->Tiled;
    O->IndexVars = Slots;
    Breakables.push_back(nullptr);
    nestedRegion(O, Fe->Body);
    Breakables.pop_back();
    return;
  }
  case Stmt::ForeachActiveStmtKind: {
    auto *Fa = cast<ForeachActiveStmt>(S);
    Value *Slot = B.var(Fa->Index->Ty, Fa->Index->Name);
    Locals[Fa->Index] = Slot;
    Op *O = B.create(OpCode::ForeachActive, nullptr);
    O->IndexVars.push_back(Slot);
    Breakables.push_back(nullptr);
    nestedRegion(O, Fa->Body);
    Breakables.pop_back();
    return;
  }
  case Stmt::ForeachUniqueStmtKind: {
    auto *Fu = cast<ForeachUniqueStmt>(S);
    Value *Seq = rvalue(Fu->Seq);
    Value *Slot = B.var(Fu->Var->Ty, Fu->Var->Name);
    Locals[Fu->Var] = Slot;
    Op *O = B.create(OpCode::ForeachUnique, nullptr, {Seq});
    O->IndexVars.push_back(Slot);
    Breakables.push_back(nullptr);
    nestedRegion(O, Fu->Body);
    Breakables.pop_back();
    return;
  }
  case Stmt::EverywhereStmtKind:
    nestedRegion(B.create(OpCode::Everywhere, nullptr), cast<EverywhereStmt>(S)->Body);
    return;
  case Stmt::UnmaskedStmtKind:
    nestedRegion(B.create(OpCode::Unmasked, nullptr), cast<UnmaskedStmt>(S)->Body);
    return;
  case Stmt::SyncStmtKind:
    B.create(OpCode::Sync, nullptr);
    return;
  case Stmt::AssertStmtKind: {
    auto *A = cast<AssertStmt>(S);
    Op *O = B.create(OpCode::Assert, nullptr, {rvalue(A->Cond)});
    O->Text = A->Text;
    return;
  }
  case Stmt::PrintStmtKind: {
    auto *P = cast<PrintStmt>(S);
    std::vector<Value *> Args;
    for (Expr *A : P->Args)
      Args.push_back(rvalue(A));
    Op *O = B.create(OpCode::Print, nullptr, Args);
    O->Text = P->Format;
    return;
  }
  case Stmt::SwitchStmtKind:
    switchStmt(cast<SwitchStmt>(S));
    return;
  case Stmt::CaseStmtKind:
  case Stmt::DefaultStmtKind:
    unsupported(S->Loc, "a 'case' label nested inside another statement of its switch");
    return;
  case Stmt::DeleteStmtKind:
    B.create(OpCode::Delete, nullptr, {rvalue(cast<DeleteStmt>(S)->Pointer)});
    return;
  case Stmt::LabelStmtKind: {
    auto *L = cast<LabelStmt>(S);
    B.create(OpCode::Label, nullptr)->Imm = labelId(L);
    if (L->Sub)
      stmt(L->Sub);
    return;
  }
  case Stmt::GotoStmtKind:
    B.create(OpCode::Goto, nullptr)->Imm = labelId(cast<GotoStmt>(S)->Target);
    return;
  }
}

void FunctionLowering::loopStmt(Stmt *Init, Expr *Cond, Expr *Inc, Stmt *Body, bool DoWhile) {
  if (Init)
    stmt(Init);
  Breakables.push_back(nullptr);
  Op *O = B.create(OpCode::Loop, nullptr);
  O->DoWhile = DoWhile;
  Region *Saved = B.insertRegion();
  B.setInsertRegion(B.addRegion(O));
  Value *C = Cond ? rvalue(Cond) : B.constBool(true);
  B.create(OpCode::Yield, nullptr, {C});
  B.setInsertRegion(Saved);
  nestedRegion(O, Body);
  Saved = B.insertRegion();
  B.setInsertRegion(B.addRegion(O));
  if (Inc)
    rvalue(Inc);
  B.setInsertRegion(Saved);
  Breakables.pop_back();
}

/// `switch` as a loop that runs once (so `break` leaves it): each label adds
/// the lanes it matches to `matched`, and each statement runs under `matched`,
/// which gives C's fall-through; `default` matches what no case does.
void FunctionLowering::switchStmt(SwitchStmt *S) {
  Value *V = rvalue(S->Cond);
  const Type *BoolTy = boolType(V->Ty->getVariability());
  Value *Matched = B.var(BoolTy, "__switch_matched");
  B.store(Matched, convert(B.constBool(false), BoolTy));
  Value *Continued = B.var(BoolTy, "__switch_continued");
  B.store(Continued, convert(B.constBool(false), BoolTy));

  std::vector<Stmt *> Items;
  if (auto *C = dyn_cast<CompoundStmt>(S->Body))
    Items = C->Body;
  else
    Items.push_back(S->Body);
  // All case values, for default's "no case matched".
  std::vector<int64_t> CaseValues;
  for (Stmt *I : Items)
    for (Stmt *L = I; L;) {
      if (auto *C = dyn_cast<CaseStmt>(L)) {
        CaseValues.push_back(C->Resolved);
        L = C->Sub;
      } else if (auto *D = dyn_cast<DefaultStmt>(L)) {
        L = D->Sub;
      } else {
        L = nullptr;
      }
    }

  Op *Loop = B.create(OpCode::Loop, nullptr);
  Region *Saved = B.insertRegion();
  B.setInsertRegion(B.addRegion(Loop));
  B.create(OpCode::Yield, nullptr, {B.constBool(true)});
  B.setInsertRegion(B.addRegion(Loop));
  Breakables.push_back(Continued);
  const Type *CaseTy = B.types().withVariability(V->Ty, Variability::Uniform);
  auto Equals = [&](int64_t C) { return arith(BinaryOp::EQ, V, B.constInt(C, CaseTy), BoolTy); };
  for (Stmt *I : Items) {
    Stmt *L = I;
    while (true) {
      if (auto *C = dyn_cast<CaseStmt>(L)) {
        B.setLoc(C->Loc);
        B.store(Matched, arith(BinaryOp::BitOr, B.load(Matched), Equals(C->Resolved), BoolTy));
        L = C->Sub;
      } else if (auto *D = dyn_cast<DefaultStmt>(L)) {
        B.setLoc(D->Loc);
        Value *None = convert(B.constBool(true), BoolTy);
        for (int64_t CV : CaseValues) {
          Op *N = B.create(OpCode::Unary, BoolTy, {Equals(CV)});
          N->UnOp = UnaryOp::Not;
          None = arith(BinaryOp::BitAnd, None, N->result(), BoolTy);
        }
        B.store(Matched, arith(BinaryOp::BitOr, B.load(Matched), None, BoolTy));
        L = D->Sub;
      } else {
        break;
      }
    }
    if (!L)
      continue;
    Op *If = B.create(OpCode::If, nullptr, {B.load(Matched)});
    nestedRegion(If, L);
    B.addRegion(If);
  }
  B.create(OpCode::Break, nullptr);
  Breakables.pop_back();
  B.setInsertRegion(B.addRegion(Loop));
  B.setInsertRegion(Saved);
  // A `continue` inside the switch continues the enclosing loop now.
  if (hasEnclosingLoop()) {
    Op *If = B.create(OpCode::If, nullptr, {B.load(Continued)});
    Region *Outer = B.insertRegion();
    B.setInsertRegion(B.addRegion(If));
    B.create(OpCode::Continue, nullptr);
    B.setInsertRegion(Outer);
    B.addRegion(If);
  }
}

void FunctionLowering::declStmt(DeclStmt *S) {
  for (Decl *D : S->Decls)
    if (auto *V = dyn_cast<VarDecl>(D))
      localVar(V);
}

void FunctionLowering::localVar(VarDecl *V) {
  if (V->Storage == StorageClass::Static || V->IsShared) {
    Global *G = ML.globalFor(V);
    Op *O = B.create(OpCode::GlobalAddr, B.types().getPointer(V->Ty, Variability::Uniform));
    O->GlobalRef = G;
    Locals[V] = O->result();
    return;
  }
  if (V->Ty->isReference()) {
    // `T &r = x;` binds once: the slot keeps x's address.
    Value *Slot = B.var(irType(B.types(), V->Ty), V->Name);
    Locals[V] = Slot;
    if (V->Init)
      B.store(Slot, convert(address(V->Init), irType(B.types(), V->Ty)));
    return;
  }
  Value *Slot = B.var(V->Ty, V->Name);
  Locals[V] = Slot;
  if (V->Init)
    initialize(Slot, V->Ty, V->Init);
}

void FunctionLowering::initialize(Value *Addr, const Type *Ty, Expr *Init) {
  auto *L = dyn_cast<InitListExpr>(Init);
  if (!L) {
    // Through a varying address (a varying `new`) each lane stores its own value.
    B.store(Addr, convert(rvalue(Init), loadedType(B.types(), Addr->Ty)));
    return;
  }
  // A scalar written `{ value }` (sema checked it has one element).
  if (!Ty->isArray() && !Ty->isStruct() && L->Elements.size() == 1)
    return initialize(Addr, Ty, L->Elements[0]);
  const Type *I64 = B.types().getAtomic(Type::Int64, Variability::Uniform);
  Variability AddrVar = Addr->Ty->getVariability();
  for (size_t I = 0; I < L->Elements.size(); ++I) {
    if (Ty->isArray()) {
      const Type *Elt = Ty->getElementType();
      Op *Decay = B.create(OpCode::Convert, B.types().getPointer(Elt, AddrVar), {Addr});
      Decay->Cast = CastKind::ArrayToPointer;
      Value *First = Decay->result();
      Value *EltAddr =
          B.create(OpCode::ElementAddr, First->Ty, {First, B.constInt(I, I64)})->result();
      initialize(EltAddr, Elt, L->Elements[I]);
      // Elements of a short vector past the list are zero (ISPC, C).
      if (Ty->isShortVector() && I + 1 == L->Elements.size())
        for (uint64_t Rest = I + 1; Rest < Ty->getArraySize(); ++Rest)
          B.store(Vec.elementAddr(Addr, Rest),
                  convert(B.constInt(0, B.types().getAtomic(Type::Int32, Variability::Uniform)), Elt));
    } else if (Ty->isStruct() && I < Ty->getStructDecl()->Fields.size()) {
      const Type *FieldTy =
          B.types().memberType(Ty->getStructDecl()->Fields[I].Ty, Ty->getVariability());
      Op *FA = B.create(OpCode::FieldAddr, B.types().getPointer(FieldTy, AddrVar), {Addr});
      FA->FieldIndex = static_cast<int>(I);
      initialize(FA->result(), FieldTy, L->Elements[I]);
    } else {
      unsupported(L->Loc, "this initializer list");
      return;
    }
  }
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Value *FunctionLowering::convert(Value *V, const Type *To) {
  const Type *From = V->Ty;
  if (From == To || To->isVoid())
    return V;
  // Same type up to constness: no code.
  if (B.types().withConst(From, false) == B.types().withConst(To, false))
    return V;
  // First change the element type (in the source's variability), then broadcast.
  if (From->isUniform() && To->isVarying()) {
    Value *U = convert(V, uniformOf(To));
    return B.create(OpCode::Broadcast, To, {U})->result();
  }
  // To a short vector: a scalar goes to every element; a vector converts
  // element by element.
  if (To->isShortVector())
    return Vec.elementwise(To, {V}, [&](llvm::ArrayRef<Value *> Elts, const Type *EltTy) {
      return convert(Elts[0], EltTy);
    });
  CastKind CK;
  if (To->isBool())
    CK = CastKind::ToBool;
  else if (From->isBool())
    CK = To->isFloatingPoint() ? CastKind::BoolToFloating : CastKind::BoolToIntegral;
  else if ((From->isInteger() || From->isEnum()) && (To->isInteger() || To->isEnum()))
    CK = CastKind::IntegralCast;
  else if ((From->isInteger() || From->isEnum()) && To->isFloatingPoint())
    CK = CastKind::IntegralToFloating;
  else if (From->isFloatingPoint() && (To->isInteger() || To->isEnum()))
    CK = CastKind::FloatingToIntegral;
  else if (From->isFloatingPoint() && To->isFloatingPoint())
    CK = CastKind::FloatingCast;
  else if (From->isPointer() && To->isPointer())
    CK = CastKind::PointerCast;
  else if (From->isPointer() && To->isInteger())
    CK = CastKind::PointerToIntegral;
  else if (From->isInteger() && To->isPointer())
    CK = CastKind::IntegralToPointer;
  else
    CK = CastKind::NoOp;
  Op *O = B.create(OpCode::Convert, To, {V});
  O->Cast = CK;
  return O->result();
}

Value *FunctionLowering::address(Expr *E) {
  B.setLoc(E->Loc);
  // A short vector that is a value (a call's result, `a + b`, `v.zyx`) is
  // put in a slot so that its elements can be addressed.
  auto *M = dyn_cast<MemberExpr>(E);
  if (E->Ty && E->Ty->isShortVector() && !E->IsLValue &&
      (M ? M->Swizzle.size() > 1 : !isa<IndexExpr>(E)))
    return Vec.spill(rvalue(E));
  // A user-defined operator returning `S &` (operator=, operator+=...).
  if (CallExpr *OC = operatorCallOf(E); OC && OC->IsLValue)
    return call(OC);
  switch (E->getKind()) {
  case Expr::DeclRefExprKind: {
    auto *DR = cast<DeclRefExpr>(E);
    auto *V = dyn_cast_or_null<VarDecl>(DR->D);
    if (!V)
      return unsupportedAddress(E, "taking the address of '" + DR->Name + "'");
    if (auto It = Locals.find(V); It != Locals.end())
      return V->Ty->isReference() ? B.load(It->second) : It->second;
    if (V->IsGlobal) {
      Op *O = B.create(OpCode::GlobalAddr, B.types().getPointer(V->Ty, Variability::Uniform));
      O->GlobalRef = ML.globalFor(V);
      return O->result();
    }
    return unsupportedAddress(E, "the variable '" + DR->Name + "' here");
  }
  case Expr::UnaryExprKind: {
    auto *U = cast<UnaryExpr>(E);
    if (U->Op == UnaryOp::Deref)
      return rvalue(U->Operand);
    break;
  }
  case Expr::IndexExprKind: {
    auto *I = cast<IndexExpr>(E);
    if (isInSoa(I))
      return E->Ty->isAtomic() || E->Ty->isEnum()
                 ? soaLeafAddress(soaPlace(I))
                 : unsupportedAddress(E, "the address of a struct or array inside soa data");
    Value *Base = decayedBase(I->Base);
    Value *Index = rvalue(I->Index);
    B.setLoc(E->Loc); // the element's ops are the subscript's, not its index's
    if (!Base->Ty->isPointer())
      return unsupportedAddress(E, "this subscript");
    // A varying index gives one address per lane; into varying data each
    // lane's address names the whole varying element, and loads and stores
    // through it touch that lane's own part (ISPC's varying pointer to
    // varying data).
    bool Varying = Base->Ty->isVarying() || Index->Ty->isVarying();
    const Type *PtrTy = B.types().getPointer(Base->Ty->getPointee(),
                                             Varying ? Variability::Varying : Variability::Uniform);
    return B.create(OpCode::ElementAddr, PtrTy, {Base, Index})->result();
  }
  case Expr::MemberExprKind: {
    auto *M = cast<MemberExpr>(E);
    if (isInSoa(M))
      return E->Ty->isAtomic() || E->Ty->isEnum()
                 ? soaLeafAddress(soaPlace(M))
                 : unsupportedAddress(E, "the address of a struct or array inside soa data");
    if (M->Swizzle.size() == 1)
      return Vec.elementAddr(M->IsArrow ? rvalue(M->Base) : address(M->Base), M->Swizzle[0]);
    Value *Base = M->IsArrow ? rvalue(M->Base) : address(M->Base);
    if (!Base->Ty->isPointer() || !Base->Ty->getPointee()->isStruct() || M->FieldIndex < 0)
      return unsupportedAddress(E, "this member access");
    const Type *StructTy = Base->Ty->getPointee();
    const Type *FieldTy = B.types().memberType(StructTy->getStructDecl()->Fields[M->FieldIndex].Ty,
                                               StructTy->getVariability());
    Op *O = B.create(OpCode::FieldAddr, B.types().getPointer(FieldTy, Base->Ty->getVariability()),
                     {Base});
    O->FieldIndex = M->FieldIndex;
    return O->result();
  }
  case Expr::ImplicitCastExprKind: {
    auto *IC = cast<ImplicitCastExpr>(E);
    if (IC->CK == CastKind::NoOp)
      return address(IC->Operand);
    if (IC->CK == CastKind::MaterializeTemporary)
      return Vec.spill(rvalue(IC->Operand));
    break;
  }
  case Expr::CallExprKind:
    // `T &f(...)` returns the address of the object it refers to.
    if (E->IsLValue)
      return call(cast<CallExpr>(E));
    break;
  default:
    break;
  }
  return unsupportedAddress(E, "this kind of l-value");
}

Value *FunctionLowering::rvalue(Expr *E) {
  B.setLoc(E->Loc);
  switch (E->getKind()) {
  case Expr::IntegerLiteralKind:
    return B.constInt(static_cast<int64_t>(cast<IntegerLiteral>(E)->Value), E->Ty);
  case Expr::FloatLiteralKind: {
    Op *O = B.create(OpCode::ConstFloat, E->Ty);
    O->FImm = cast<FloatLiteral>(E)->Value;
    return O->result();
  }
  case Expr::BoolLiteralKind:
    return B.constInt(cast<BoolLiteral>(E)->Value, E->Ty);
  case Expr::NullLiteralKind:
    return B.create(OpCode::ConstNull, E->Ty)->result();
  case Expr::DeclRefExprKind: {
    auto *DR = cast<DeclRefExpr>(E);
    if (auto *EC = dyn_cast_or_null<EnumConstantDecl>(DR->D))
      return B.constInt(EC->Resolved, E->Ty);
    if (auto *FD = dyn_cast_or_null<FunctionDecl>(DR->D)) {
      Op *O = B.create(OpCode::FuncAddr, E->Ty);
      O->Callee = ML.functionFor(FD);
      return O->result();
    }
    if (auto *V = dyn_cast_or_null<VarDecl>(DR->D); V && V->Builtin != BuiltinVar::None) {
      Op *O = B.create(OpCode::Builtin, E->Ty);
      O->BuiltinId = V->Builtin;
      return O->result();
    }
    // An lvalue read without an LValueToRValue cast (sema leaves some).
    return B.load(address(E));
  }
  case Expr::ImplicitCastExprKind: {
    auto *IC = cast<ImplicitCastExpr>(E);
    if (IC->CK == CastKind::LValueToRValue) {
      if (isInSoa(IC->Operand))
        return convert(soaLoad(soaPlace(IC->Operand)), E->Ty);
      if (auto *DR = dyn_cast<DeclRefExpr>(IC->Operand))
        if (auto *V = dyn_cast_or_null<VarDecl>(DR->D); V && V->Builtin != BuiltinVar::None)
          return convert(rvalue(DR), E->Ty);
      return convert(B.load(address(IC->Operand)), E->Ty);
    }
    if (IC->CK == CastKind::ArrayToPointer) {
      Value *A = address(IC->Operand);
      Op *O = B.create(OpCode::Convert, E->Ty, {A});
      O->Cast = CastKind::ArrayToPointer;
      return O->result();
    }
    return convert(rvalue(IC->Operand), E->Ty);
  }
  case Expr::CastExprKind:
    return convert(rvalue(cast<CastExpr>(E)->Operand), E->Ty);
  case Expr::UnaryExprKind:
    return unary(cast<UnaryExpr>(E));
  case Expr::BinaryExprKind:
    return binary(cast<BinaryExpr>(E));
  case Expr::AssignExprKind:
    return assign(cast<AssignExpr>(E));
  case Expr::ConditionalExprKind:
    return conditional(cast<ConditionalExpr>(E));
  case Expr::CallExprKind:
    // A call of a function returning a reference is an lvalue: read it.
    return E->IsLValue ? B.load(call(cast<CallExpr>(E))) : call(cast<CallExpr>(E));
  case Expr::MemberExprKind:
    if (auto *M = cast<MemberExpr>(E); M->Swizzle.size() > 1)
      return Vec.shuffle(M->IsArrow ? rvalue(M->Base) : address(M->Base), M->Swizzle, E->Ty);
    return B.load(address(E));
  case Expr::IndexExprKind:
    return B.load(address(E));
  case Expr::SizeofExprKind: {
    auto *S = cast<SizeofExpr>(E);
    Op *O = B.create(OpCode::SizeOf, E->Ty);
    O->VarType = S->OfType ? S->OfType : S->OfExpr->Ty;
    // sizeof(varying T) is the whole gang's size on every target (ISPC), also
    // on NVPTX, where a thread's varying value holds only its own lane: a scalar,
    // enum or pointer is scaled by the gang; a struct or array reports ISPC's
    // layout (varying members scaled, uniform members once).
    const Type *VT = O->VarType;
    if (ML.Target.isGPU() && VT->isVarying()) {
      if (!VT->isStruct() && !VT->isArray())
        return arith(BinaryOp::Mul, O->result(), B.constInt(ML.Target.GangWidth, E->Ty), E->Ty);
      if (auto L = gangLayout(B.types(), VT, ML.Target.GangWidth))
        return B.constInt(static_cast<int64_t>(L->first), E->Ty);
    }
    return O->result();
  }
  case Expr::NewExprKind:
    return newExpr(cast<NewExpr>(E));
  case Expr::StringLiteralKind:
  case Expr::InitListExprKind:
    break;
  }
  return unsupported(E->Loc, "this expression");
}

/// `new`: the byte count (element size times the count, per lane when the
/// count is varying), the allocation, then the initializer stored through
/// the new pointer. x86 aligns to the gang's vector width as ISPC does (4 bytes
/// per lane); the GPU's device malloc gives 16 bytes.
Value *FunctionLowering::newExpr(NewExpr *E) {
  const Type *I64 = B.types().getAtomic(Type::Int64, Variability::Uniform);
  Op *Size = B.create(OpCode::SizeOf, I64);
  Size->VarType = E->AllocType;
  Value *Bytes = Size->result();
  if (E->Count) {
    Value *N = rvalue(E->Count);
    Bytes = arith(BinaryOp::Mul, N, Bytes, N->Ty);
  }
  Op *O = B.create(OpCode::New, E->Ty, {Bytes});
  O->Imm = ML.Target.isGPU() ? 16 : 4 * int64_t(ML.Target.GangWidth);
  if (E->Init)
    initialize(O->result(), E->AllocType, E->Init);
  return O->result();
}

Value *FunctionLowering::arith(BinaryOp Kind, Value *L, Value *R, const Type *ResultTy) {
  if (ResultTy->isShortVector())
    return Vec.elementwise(ResultTy, {L, R}, [&](llvm::ArrayRef<Value *> Elts, const Type *EltTy) {
      return arith(Kind, Elts[0], Elts[1], EltTy);
    });
  // Pointer arithmetic: p + i, i + p, p - i.
  if (L->Ty->isPointer() && !R->Ty->isPointer() &&
      (Kind == BinaryOp::Add || Kind == BinaryOp::Sub)) {
    if (Kind == BinaryOp::Sub) {
      auto *N = B.create(OpCode::Unary, R->Ty, {R});
      N->UnOp = UnaryOp::Minus;
      R = N->result();
    }
    return B.create(OpCode::ElementAddr, ResultTy, {L, R})->result();
  }
  if (R->Ty->isPointer() && !L->Ty->isPointer() && Kind == BinaryOp::Add)
    return B.create(OpCode::ElementAddr, ResultTy, {R, L})->result();
  if (L->Ty->isPointer() && R->Ty->isPointer() && Kind == BinaryOp::Sub) {
    // p - q: the byte distance over the element size, as C's ptrdiff_t (int64).
    bool Varying = L->Ty->isVarying() || R->Ty->isVarying();
    const Type *I64 =
        B.types().getAtomic(Type::Int64, Varying ? Variability::Varying : Variability::Uniform);
    Value *Bytes = arith(BinaryOp::Sub, convert(L, I64), convert(R, I64), I64);
    Op *Size = B.create(OpCode::SizeOf, B.types().getAtomic(Type::Int64, Variability::Uniform));
    Size->VarType = L->Ty->getPointee();
    Value *Diff = arith(BinaryOp::Div, Bytes, Size->result(), I64);
    return convert(Diff, ResultTy);
  }
  // A shift count keeps its own (promoted) type in C: the IR's operands share one.
  if (Kind == BinaryOp::Shl || Kind == BinaryOp::Shr)
    R = convert(R, B.types().withVariability(L->Ty, R->Ty->getVariability()));
  // Both sides have the operator's type after sema, but make variability agree.
  bool Varying = L->Ty->isVarying() || R->Ty->isVarying();
  if (Varying) {
    if (L->Ty->isUniform())
      L = convert(L, B.types().withVariability(L->Ty, Variability::Varying));
    if (R->Ty->isUniform())
      R = convert(R, B.types().withVariability(R->Ty, Variability::Varying));
  }
  Op *O = B.create(OpCode::Binary, ResultTy, {L, R});
  O->BinOp = Kind;
  return O->result();
}

Value *FunctionLowering::unary(UnaryExpr *E) {
  if (E->OperatorCall) // a user-defined operator on a struct
    return call(E->OperatorCall);
  switch (E->Op) {
  case UnaryOp::PreInc:
  case UnaryOp::PreDec:
  case UnaryOp::PostInc:
  case UnaryOp::PostDec:
    return incDec(E);
  case UnaryOp::Plus:
    return convert(rvalue(E->Operand), E->Ty);
  case UnaryOp::AddrOf:
    // `&f` of a function is the function pointer itself, as a plain `f` is.
    if (E->Operand->Ty && E->Operand->Ty->isFunction()) {
      if (auto *DR = dyn_cast<DeclRefExpr>(E->Operand))
        if (auto *FD = dyn_cast_or_null<FunctionDecl>(DR->D)) {
          Op *O = B.create(OpCode::FuncAddr, E->Ty);
          O->Callee = ML.functionFor(FD);
          return O->result();
        }
    }
    return convert(address(E->Operand), E->Ty);
  case UnaryOp::Deref:
    return B.load(rvalue(E->Operand));
  case UnaryOp::Minus:
  case UnaryOp::Not:
  case UnaryOp::BitNot: {
    Value *V = convert(rvalue(E->Operand), E->Ty);
    auto Apply = [&](Value *X, const Type *Ty) {
      Op *O = B.create(OpCode::Unary, Ty, {X});
      O->UnOp = E->Op;
      return O->result();
    };
    if (E->Ty->isShortVector())
      return Vec.elementwise(E->Ty, {V}, [&](llvm::ArrayRef<Value *> Elts, const Type *EltTy) {
        return Apply(Elts[0], EltTy);
      });
    return Apply(V, E->Ty);
  }
  }
  return unsupported(E->Loc, "this operator");
}

Value *FunctionLowering::incDec(UnaryExpr *E) {
  Value *Addr = address(E->Operand);
  Value *Old = B.load(Addr);
  bool Inc = E->Op == UnaryOp::PreInc || E->Op == UnaryOp::PostInc;
  Value *New;
  if (Old->Ty->isPointer()) {
    Value *Step = B.constInt(Inc ? 1 : -1, B.types().getAtomic(Type::Int64, Variability::Uniform));
    New = arith(BinaryOp::Add, Old, Step, Old->Ty);
  } else {
    // A short vector steps each element by one.
    const Type *Scalar = Old->Ty->isShortVector() ? Old->Ty->getElementType() : Old->Ty;
    Value *One;
    if (Scalar->isFloatingPoint()) {
      Op *C = B.create(OpCode::ConstFloat, uniformOf(Scalar));
      C->FImm = 1.0;
      One = C->result();
    } else {
      One = B.constInt(1, uniformOf(Scalar));
    }
    New = arith(Inc ? BinaryOp::Add : BinaryOp::Sub, Old, One, Old->Ty);
  }
  B.store(Addr, New);
  bool Post = E->Op == UnaryOp::PostInc || E->Op == UnaryOp::PostDec;
  return Post ? Old : New;
}

Value *FunctionLowering::binary(BinaryExpr *E) {
  if (E->OperatorCall) // a user-defined operator on a struct
    return call(E->OperatorCall);
  if (E->Op == BinaryOp::LogicalAnd || E->Op == BinaryOp::LogicalOr)
    return logical(E);
  if (E->Op == BinaryOp::Comma) {
    rvalue(E->LHS);
    return rvalue(E->RHS);
  }
  Value *L = rvalue(E->LHS);
  Value *R = rvalue(E->RHS);
  return arith(E->Op, L, R, E->Ty);
}

Value *FunctionLowering::logical(BinaryExpr *E) {
  if (E->Ty->isShortVector()) {
    // Element-wise on bool vectors, both sides evaluated (as in ISPC).
    BinaryOp Bitwise = E->Op == BinaryOp::LogicalAnd ? BinaryOp::BitAnd : BinaryOp::BitOr;
    return arith(Bitwise, rvalue(E->LHS), rvalue(E->RHS), E->Ty);
  }
  // a && b: b runs only on the lanes where a holds (it may guard a load).
  Value *Tmp = B.var(E->Ty);
  Value *L = convert(rvalue(E->LHS), E->Ty);
  B.store(Tmp, L);
  Value *Cond = L;
  if (E->Op == BinaryOp::LogicalOr) {
    Op *N = B.create(OpCode::Unary, L->Ty, {L});
    N->UnOp = UnaryOp::Not;
    Cond = N->result();
  }
  Op *If = B.create(OpCode::If, nullptr, {Cond});
  If->FromExpression = true;
  Region *Saved = B.insertRegion();
  B.setInsertRegion(B.addRegion(If));
  B.store(Tmp, convert(rvalue(E->RHS), E->Ty));
  B.setInsertRegion(Saved);
  B.addRegion(If);
  return B.load(Tmp);
}

Value *FunctionLowering::conditional(ConditionalExpr *E) {
  if (E->Cond->Ty->isShortVector()) {
    // Element-wise select: both sides are computed (ISPC does the same).
    Value *C = rvalue(E->Cond), *T = rvalue(E->Then), *F = rvalue(E->Else);
    return Vec.elementwise(E->Ty, {C, T, F}, [&](llvm::ArrayRef<Value *> Elts, const Type *EltTy) {
      return B.create(OpCode::Select, EltTy, {Elts[0], convert(Elts[1], EltTy), convert(Elts[2], EltTy)})
          ->result();
    });
  }
  Value *C = rvalue(E->Cond);
  if (E->Ty->isVoid()) {
    Op *If = B.create(OpCode::If, nullptr, {C});
    Region *Saved = B.insertRegion();
    B.setInsertRegion(B.addRegion(If));
    rvalue(E->Then);
    B.setInsertRegion(B.addRegion(If));
    rvalue(E->Else);
    B.setInsertRegion(Saved);
    return nullptr;
  }
  Value *Tmp = B.var(E->Ty);
  Op *If = B.create(OpCode::If, nullptr, {C});
  If->FromExpression = true;
  Region *Saved = B.insertRegion();
  B.setInsertRegion(B.addRegion(If));
  B.store(Tmp, convert(rvalue(E->Then), E->Ty));
  B.setInsertRegion(B.addRegion(If));
  B.store(Tmp, convert(rvalue(E->Else), E->Ty));
  B.setInsertRegion(Saved);
  return B.load(Tmp);
}

Value *FunctionLowering::assign(AssignExpr *E) {
  if (E->OperatorCall) // a user-defined operator= / operator+= ...
    return call(E->OperatorCall);
  if (isInSoa(E->LHS) && E->LHS->Ty->isStruct()) {
    Value *R = convert(rvalue(E->RHS), B.types().withConst(E->LHS->Ty, false));
    soaStore(soaPlace(E->LHS), R);
    return R;
  }
  Value *Addr = address(E->LHS);
  const Type *LTy = loadedType(B.types(), Addr->Ty);
  Value *R = rvalue(E->RHS);
  Value *New;
  if (E->Op) {
    Value *Old = B.load(Addr);
    // Compute in the right-hand side's type (sema converted it to the
    // operation type), then store in the left-hand side's.
    const Type *OpTy = Old->Ty->isPointer() ? Old->Ty : R->Ty;
    if (Old->Ty->isVarying() && OpTy->isUniform())
      OpTy = B.types().withVariability(OpTy, Variability::Varying);
    New = convert(arith(*E->Op, convert(Old, Old->Ty->isPointer() ? Old->Ty : OpTy), R, OpTy), LTy);
  } else {
    New = convert(R, LTy);
  }
  B.store(Addr, New);
  return New;
}

bool FunctionLowering::isSoaElement(const Expr *E) {
  auto *I = dyn_cast<IndexExpr>(E);
  if (!I || !I->Base->Ty)
    return false;
  const Type *B = I->Base->Ty;
  const Type *Elt = B->isArray() ? B->getElementType() : B->isPointer() ? B->getPointee() : nullptr;
  return Elt && Elt->isStruct() && Elt->getStructDecl()->SoaOf;
}

bool FunctionLowering::isInSoa(const Expr *E) {
  if (isSoaElement(E))
    return true;
  if (auto *M = dyn_cast<MemberExpr>(E))
    return !M->IsArrow && isInSoa(M->Base);
  if (auto *I = dyn_cast<IndexExpr>(E))
    return I->Base->Ty && I->Base->Ty->isArray() && isInSoa(I->Base);
  return false;
}

Value *FunctionLowering::decay(Value *ArrayAddr) {
  const Type *Arr = ArrayAddr->Ty->getPointee();
  Op *O = B.create(OpCode::Convert,
                   B.types().getPointer(Arr->getElementType(), ArrayAddr->Ty->getVariability()),
                   {ArrayAddr});
  O->Cast = CastKind::ArrayToPointer;
  return O->result();
}

FunctionLowering::SoaPlace FunctionLowering::soaPlace(Expr *E) {
  if (auto *M = dyn_cast<MemberExpr>(E))
    return soaField(soaPlace(M->Base), M->FieldIndex, E->Ty);
  auto *I = cast<IndexExpr>(E);
  if (!isSoaElement(I)) {
    SoaPlace Array = soaPlace(I->Base);
    return soaIndex(Array, rvalue(I->Index), E->Ty);
  }
  Value *Base = decayedBase(I->Base);
  Value *Index = rvalue(I->Index);
  const Type *BlockTy = Base->Ty->getPointee();
  Value *Width = B.constInt(BlockTy->getStructDecl()->SoaWidth, uniformOf(Index->Ty));
  Value *BlockIndex = arith(BinaryOp::Div, Index, Width, Index->Ty);
  Value *Lane = arith(BinaryOp::Rem, Index, Width, Index->Ty);
  bool Varying = Base->Ty->isVarying() || Index->Ty->isVarying();
  const Type *PtrTy =
      B.types().getPointer(BlockTy, Varying ? Variability::Varying : Variability::Uniform);
  return {B.create(OpCode::ElementAddr, PtrTy, {Base, BlockIndex})->result(), Lane, E->Ty};
}

/// A member of a soa struct: its storage is the block's field.
FunctionLowering::SoaPlace FunctionLowering::soaField(const SoaPlace &P, int Field,
                                                      const Type *FieldTy) {
  const Type *Block = P.Storage->Ty->getPointee();
  const Type *Storage = Block->getStructDecl()->Fields[Field].Ty;
  Op *FA = B.create(OpCode::FieldAddr,
                    B.types().getPointer(Storage, P.Storage->Ty->getVariability()), {P.Storage});
  FA->FieldIndex = Field;
  return {FA->result(), P.Lane, FieldTy};
}

/// An element of an array inside soa data: the array of soa storages, indexed.
FunctionLowering::SoaPlace FunctionLowering::soaIndex(const SoaPlace &P, Value *Index,
                                                      const Type *EltTy) {
  Value *First = decay(P.Storage);
  bool Varying = First->Ty->isVarying() || Index->Ty->isVarying();
  const Type *PtrTy = B.types().getPointer(First->Ty->getPointee(),
                                           Varying ? Variability::Varying : Variability::Uniform);
  return {B.create(OpCode::ElementAddr, PtrTy, {First, Index})->result(), P.Lane, EltTy};
}

/// An atomic value's address: lane `i % N` of its `uniform T[N]`.
Value *FunctionLowering::soaLeafAddress(const SoaPlace &P) {
  Value *First = decay(P.Storage);
  return B.create(OpCode::ElementAddr, First->Ty, {First, P.Lane})->result();
}

/// Reads a place whole: atomic values directly, structs and arrays member by
/// member into a temporary.
Value *FunctionLowering::soaLoad(const SoaPlace &P) {
  const Type *T = B.types().withConst(P.Ty, false);
  if (!T->isStruct() && !T->isArray())
    return convert(B.load(soaLeafAddress(P)), T);
  Value *Tmp = B.var(T);
  size_t Count = T->isArray() ? T->getArraySize() : T->getStructDecl()->Fields.size();
  for (size_t K = 0; K < Count; ++K) {
    SoaPlace Sub;
    Value *Dst;
    if (T->isArray()) {
      Value *Idx = B.constInt(static_cast<int64_t>(K), B.types().getAtomic(Type::Int64, Variability::Uniform));
      Sub = soaIndex(P, Idx, T->getElementType());
      Value *First = decay(Tmp);
      Dst = B.create(OpCode::ElementAddr, First->Ty, {First, Idx})->result();
    } else {
      const Type *FieldTy =
          B.types().memberType(T->getStructDecl()->Fields[K].Ty, T->getVariability());
      Sub = soaField(P, static_cast<int>(K), FieldTy);
      Op *FA = B.create(OpCode::FieldAddr, B.types().getPointer(FieldTy, Variability::Uniform), {Tmp});
      FA->FieldIndex = static_cast<int>(K);
      Dst = FA->result();
    }
    B.store(Dst, convert(soaLoad(Sub), loadedType(B.types(), Dst->Ty)));
  }
  return B.load(Tmp);
}

/// Writes a place whole from `V`: the inverse of soaLoad.
void FunctionLowering::soaStore(const SoaPlace &P, Value *V) {
  const Type *T = V->Ty;
  if (!T->isStruct() && !T->isArray()) {
    Value *Dst = soaLeafAddress(P);
    B.store(Dst, convert(V, loadedType(B.types(), Dst->Ty)));
    return;
  }
  Value *Tmp = B.var(T);
  B.store(Tmp, V);
  size_t Count = T->isArray() ? T->getArraySize() : T->getStructDecl()->Fields.size();
  for (size_t K = 0; K < Count; ++K) {
    if (T->isArray()) {
      Value *Idx = B.constInt(static_cast<int64_t>(K), B.types().getAtomic(Type::Int64, Variability::Uniform));
      Value *First = decay(Tmp);
      Value *Src = B.create(OpCode::ElementAddr, First->Ty, {First, Idx})->result();
      soaStore(soaIndex(P, Idx, T->getElementType()), B.load(Src));
    } else {
      const Type *FieldTy =
          B.types().memberType(T->getStructDecl()->Fields[K].Ty, T->getVariability());
      Op *FA = B.create(OpCode::FieldAddr, B.types().getPointer(FieldTy, Variability::Uniform), {Tmp});
      FA->FieldIndex = static_cast<int>(K);
      soaStore(soaField(P, static_cast<int>(K), FieldTy), B.load(FA->result()));
    }
  }
}

Value *FunctionLowering::referenceArgument(Expr *Arg, const Type *ParamTy) {
  const Type *PtrTy = irType(B.types(), ParamTy);
  if (Arg->IsLValue)
    return convert(address(Arg), PtrTy);
  // A temporary bound to a reference (ISPC allows it): spill it to a slot.
  const Type *Target = B.types().withConst(ParamTy->getPointee(), false);
  Value *Slot = B.var(Target, "ref.tmp");
  B.store(Slot, convert(rvalue(Arg), Target));
  return convert(Slot, PtrTy);
}

Value *FunctionLowering::call(CallExpr *E) {
  std::vector<Value *> Args;
  FunctionDecl *FD = E->ResolvedCallee;
  if (!FD)
    if (auto *DR = dyn_cast<DeclRefExpr>(E->Callee))
      FD = dyn_cast_or_null<FunctionDecl>(DR->D);
  const Type *FnTy = FD ? FD->Ty : nullptr;
  if (!FD) {
    Value *Ptr = rvalue(E->Callee);
    if (E->Kind != CallKind::Plain || !Ptr->Ty->isPointer())
      return unsupported(E->Loc, "this call");
    FnTy = Ptr->Ty->getPointee();
    Args.push_back(Ptr);
  }
  const auto &Params = FnTy->getParamTypes();
  std::vector<Expr *> ArgExprs = E->Args;
  // Arguments left out take the parameter's default.
  if (FD)
    for (size_t I = ArgExprs.size(); I < FD->Params.size() && FD->Params[I]->Init; ++I)
      ArgExprs.push_back(FD->Params[I]->Init);
  for (size_t I = 0; I < ArgExprs.size(); ++I) {
    if (I < Params.size() && Params[I]->isReference()) {
      Args.push_back(referenceArgument(ArgExprs[I], Params[I]));
      continue;
    }
    Value *A = rvalue(ArgExprs[I]);
    // crev passes each lane's value to a uniform parameter: keep it varying
    // here; the divergence transform extracts the lanes.
    if (I < Params.size() && !(E->Kind == CallKind::Crev && A->Ty->isVarying()))
      A = convert(A, Params[I]);
    Args.push_back(A);
  }
  std::vector<Value *> Counts;
  for (Expr *N : E->LaunchCounts)
    Counts.push_back(convert(rvalue(N), B.types().getAtomic(Type::Int32, Variability::Uniform)));
  OpCode Code = E->Kind == CallKind::Crev     ? OpCode::Crev
                : E->Kind == CallKind::Launch ? OpCode::Launch
                                              : OpCode::Call;
  const Type *ResultTy = E->IsLValue                   ? irType(B.types(), FnTy->getReturnType())
                         : E->Ty && !E->Ty->isVoid() ? E->Ty
                                                     : nullptr;
  Op *O = B.create(Code, ResultTy, Args);
  if (FD)
    O->Callee = ML.functionFor(FD);
  O->LaunchCounts = std::move(Counts);
  return O->result();
}

} // namespace

std::unique_ptr<Module> lowerToIR(ASTContext &Ctx, const TargetInfo &Target,
                                  DiagnosticEngine &Diags) {
  return ModuleLowering(Ctx, Target, Diags).run();
}

} // namespace spmdc::ir
