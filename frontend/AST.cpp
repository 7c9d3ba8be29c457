// The abstract syntax tree: operator spellings, child enumeration and depth.
#include "frontend/AST.h"

#include <algorithm>

namespace spmdc {

const char *unaryOpSpelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::PreInc:
  case UnaryOp::PostInc:
    return "++";
  case UnaryOp::PreDec:
  case UnaryOp::PostDec:
    return "--";
  case UnaryOp::Plus:
    return "+";
  case UnaryOp::Minus:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  case UnaryOp::Deref:
    return "*";
  case UnaryOp::AddrOf:
    return "&";
  }
  return "?";
}

std::optional<bool> compareIntegerConstants(BinaryOp Op, int64_t L, int64_t R, bool Unsigned) {
  uint64_t UL = static_cast<uint64_t>(L), UR = static_cast<uint64_t>(R);
  switch (Op) {
  case BinaryOp::LT:
    return Unsigned ? UL < UR : L < R;
  case BinaryOp::GT:
    return Unsigned ? UL > UR : L > R;
  case BinaryOp::LE:
    return Unsigned ? UL <= UR : L <= R;
  case BinaryOp::GE:
    return Unsigned ? UL >= UR : L >= R;
  case BinaryOp::EQ:
    return L == R;
  case BinaryOp::NE:
    return L != R;
  default:
    return std::nullopt;
  }
}

const char *binaryOpSpelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::LT:
    return "<";
  case BinaryOp::GT:
    return ">";
  case BinaryOp::LE:
    return "<=";
  case BinaryOp::GE:
    return ">=";
  case BinaryOp::EQ:
    return "==";
  case BinaryOp::NE:
    return "!=";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::LogicalAnd:
    return "&&";
  case BinaryOp::LogicalOr:
    return "||";
  case BinaryOp::Comma:
    return ",";
  }
  return "?";
}

const char *castKindName(CastKind K) {
  switch (K) {
  case CastKind::NoOp:
    return "NoOp";
  case CastKind::LValueToRValue:
    return "LValueToRValue";
  case CastKind::UniformToVarying:
    return "UniformToVarying";
  case CastKind::IntegralCast:
    return "IntegralCast";
  case CastKind::IntegralToFloating:
    return "IntegralToFloating";
  case CastKind::FloatingToIntegral:
    return "FloatingToIntegral";
  case CastKind::FloatingCast:
    return "FloatingCast";
  case CastKind::ToBool:
    return "ToBool";
  case CastKind::BoolToIntegral:
    return "BoolToIntegral";
  case CastKind::BoolToFloating:
    return "BoolToFloating";
  case CastKind::ArrayToPointer:
    return "ArrayToPointer";
  case CastKind::NullToPointer:
    return "NullToPointer";
  case CastKind::PointerCast:
    return "PointerCast";
  case CastKind::PointerToIntegral:
    return "PointerToIntegral";
  case CastKind::IntegralToPointer:
    return "IntegralToPointer";
  case CastKind::VectorSplat:
    return "VectorSplat";
  case CastKind::VectorConvert:
    return "VectorConvert";
  case CastKind::MaterializeTemporary:
    return "MaterializeTemporary";
  }
  return "?";
}

CallExpr *operatorCallOf(const Expr *E) {
  if (auto *U = llvm::dyn_cast<UnaryExpr>(E))
    return U->OperatorCall;
  if (auto *B = llvm::dyn_cast<BinaryExpr>(E))
    return B->OperatorCall;
  if (auto *A = llvm::dyn_cast<AssignExpr>(E))
    return A->OperatorCall;
  return nullptr;
}

void forEachChildExpr(Expr *E, const std::function<void(Expr *&)> &F) {
  auto Visit = [&](Expr *&C) {
    if (C)
      F(C);
  };
  // An overloaded operator's call holds the operands as its arguments.
  auto *U = llvm::dyn_cast<UnaryExpr>(E);
  auto *B = llvm::dyn_cast<BinaryExpr>(E);
  auto *A = llvm::dyn_cast<AssignExpr>(E);
  if (CallExpr *OperatorCall = operatorCallOf(E)) {
    Expr *Call = OperatorCall;
    Visit(Call);
  } else if (U) {
    Visit(U->Operand);
  } else if (B) {
    Visit(B->LHS);
    Visit(B->RHS);
  } else if (A) {
    Visit(A->LHS);
    Visit(A->RHS);
  } else if (auto *C = llvm::dyn_cast<ConditionalExpr>(E)) {
    Visit(C->Cond);
    Visit(C->Then);
    Visit(C->Else);
  } else if (auto *Call = llvm::dyn_cast<CallExpr>(E)) {
    for (Expr *&N : Call->LaunchCounts)
      Visit(N);
    Visit(Call->Callee);
    for (Expr *&Arg : Call->Args)
      Visit(Arg);
  } else if (auto *I = llvm::dyn_cast<IndexExpr>(E)) {
    Visit(I->Base);
    Visit(I->Index);
  } else if (auto *M = llvm::dyn_cast<MemberExpr>(E)) {
    Visit(M->Base);
  } else if (auto *Cast = llvm::dyn_cast<CastExpr>(E)) {
    Visit(Cast->Operand);
  } else if (auto *IC = llvm::dyn_cast<ImplicitCastExpr>(E)) {
    Visit(IC->Operand);
  } else if (auto *S = llvm::dyn_cast<SizeofExpr>(E)) {
    Visit(S->OfExpr);
  } else if (auto *L = llvm::dyn_cast<InitListExpr>(E)) {
    for (Expr *&El : L->Elements)
      Visit(El);
  } else if (auto *N = llvm::dyn_cast<NewExpr>(E)) {
    Visit(N->Count);
    Visit(N->Init);
  }
}

void forEachChild(Stmt *S, const std::function<void(Expr *&)> &FE,
                  const std::function<void(Stmt *&)> &FS) {
  auto E = [&](Expr *&C) {
    if (C)
      FE(C);
  };
  auto St = [&](Stmt *&C) {
    if (C)
      FS(C);
  };
  switch (S->getKind()) {
  case Stmt::CompoundStmtKind:
    for (Stmt *&C : llvm::cast<CompoundStmt>(S)->Body)
      St(C);
    break;
  case Stmt::DeclStmtKind:
    for (Decl *D : llvm::cast<DeclStmt>(S)->Decls)
      if (auto *V = llvm::dyn_cast<VarDecl>(D))
        E(V->Init);
    break;
  case Stmt::ExprStmtKind:
    E(llvm::cast<ExprStmt>(S)->E);
    break;
  case Stmt::IfStmtKind: {
    auto *I = llvm::cast<IfStmt>(S);
    E(I->Cond);
    St(I->Then);
    St(I->Else);
    break;
  }
  case Stmt::WhileStmtKind: {
    auto *W = llvm::cast<WhileStmt>(S);
    E(W->Cond);
    St(W->Body);
    break;
  }
  case Stmt::DoStmtKind: {
    auto *D = llvm::cast<DoStmt>(S);
    St(D->Body);
    E(D->Cond);
    break;
  }
  case Stmt::ForStmtKind: {
    auto *F = llvm::cast<ForStmt>(S);
    St(F->Init);
    E(F->Cond);
    E(F->Inc);
    St(F->Body);
    break;
  }
  case Stmt::ReturnStmtKind:
    E(llvm::cast<ReturnStmt>(S)->Value);
    break;
  case Stmt::SwitchStmtKind: {
    auto *Sw = llvm::cast<SwitchStmt>(S);
    E(Sw->Cond);
    St(Sw->Body);
    break;
  }
  case Stmt::CaseStmtKind: {
    auto *C = llvm::cast<CaseStmt>(S);
    E(C->Value);
    St(C->Sub);
    break;
  }
  case Stmt::DefaultStmtKind:
    St(llvm::cast<DefaultStmt>(S)->Sub);
    break;
  case Stmt::ForeachStmtKind: {
    auto *F = llvm::cast<ForeachStmt>(S);
    for (ForeachDim &D : F->Dims) {
      E(D.Begin);
      E(D.End);
    }
    St(F->Body);
    break;
  }
  case Stmt::ForeachActiveStmtKind:
    St(llvm::cast<ForeachActiveStmt>(S)->Body);
    break;
  case Stmt::ForeachUniqueStmtKind: {
    auto *F = llvm::cast<ForeachUniqueStmt>(S);
    E(F->Seq);
    St(F->Body);
    break;
  }
  case Stmt::UnmaskedStmtKind:
    St(llvm::cast<UnmaskedStmt>(S)->Body);
    break;
  case Stmt::EverywhereStmtKind:
    St(llvm::cast<EverywhereStmt>(S)->Body);
    break;
  case Stmt::AssertStmtKind:
    E(llvm::cast<AssertStmt>(S)->Cond);
    break;
  case Stmt::PrintStmtKind:
    for (Expr *&A : llvm::cast<PrintStmt>(S)->Args)
      E(A);
    break;
  case Stmt::DeleteStmtKind:
    E(llvm::cast<DeleteStmt>(S)->Pointer);
    break;
  case Stmt::LabelStmtKind:
    St(llvm::cast<LabelStmt>(S)->Sub);
    break;
  case Stmt::EmptyStmtKind:
  case Stmt::BreakStmtKind:
  case Stmt::ContinueStmtKind:
  case Stmt::SyncStmtKind:
  case Stmt::GotoStmtKind:
    break;
  }
}

uint32_t ASTContext::computeDepth(const Expr *E) {
  uint32_t Max = 0;
  forEachChildExpr(const_cast<Expr *>(E), [&](Expr *&C) { Max = std::max(Max, C->Depth); });
  return Max + 1;
}

uint32_t ASTContext::computeDepth(const Stmt *S) {
  uint32_t Max = 0;
  forEachChild(
      const_cast<Stmt *>(S), [&](Expr *&C) { Max = std::max(Max, C->Depth); },
      [&](Stmt *&C) { Max = std::max(Max, C->Depth); });
  return Max + 1;
}

} // namespace spmdc
