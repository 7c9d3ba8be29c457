// A readable, indented dump of the AST (`spmdc --emit=ast`): one node per line.
//
// The format is what the lit tests check, so it is kept stable: a node's
// class name, its details (operator, name, value), then ` '<type>'` and
// ` lvalue` for checked expressions; children are indented two more spaces,
// in source order, and absent optional children are simply not printed.
#include "frontend/ASTDump.h"

#include "frontend/AST.h"

#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <string>

namespace spmdc {

namespace {

/// Quotes a string the way C would write it, so the dump stays one line.
std::string escaped(const std::string &S) {
  static const char Hex[] = "0123456789abcdef";
  std::string Out;
  for (unsigned char C : S) {
    switch (C) {
    case '\n':
      Out += "\\n";
      break;
    case '\t':
      Out += "\\t";
      break;
    case '\r':
      Out += "\\r";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '"':
      Out += "\\\"";
      break;
    default:
      if (C < 0x20 || C >= 0x7f) {
        Out += "\\x";
        Out += Hex[C >> 4];
        Out += Hex[C & 15];
      } else {
        Out += static_cast<char>(C);
      }
    }
  }
  return Out;
}

/// The shortest text that reads back as the same value: `0.1`, `1.5`, `1e+10`.
std::string floatText(double V, bool IsFloat) {
  char Buf[64];
  auto R = IsFloat ? std::to_chars(Buf, Buf + sizeof(Buf), static_cast<float>(V))
                   : std::to_chars(Buf, Buf + sizeof(Buf), V);
  return std::string(Buf, R.ptr);
}

bool isFromStdlib(SourceLoc Loc) { return Loc.File && *Loc.File == "<stdlib>"; }

class Dumper {
public:
  Dumper(llvm::raw_ostream &OS, bool IncludeStdlib) : OS(OS), IncludeStdlib(IncludeStdlib) {}

  void dumpTU(const TranslationUnit &TU) {
    for (const Pragma &P : TU.Pragmas)
      if (IncludeStdlib || !isFromStdlib(P.Loc))
        OS << "Pragma \"" << escaped(P.Text) << "\"\n";
    for (Decl *D : TU.Decls) {
      if (!IncludeStdlib && isFromStdlib(D->Loc))
        continue;
      if (auto *F = llvm::dyn_cast<FunctionDecl>(D); F && F->IsStdlib && !IncludeStdlib)
        continue;
      dump(D);
    }
  }

private:
  llvm::raw_ostream &OS;
  bool IncludeStdlib;
  unsigned Indent = 0;

  llvm::raw_ostream &line() { return OS.indent(Indent); }

  /// Prints the children of the current line one level deeper.
  template <typename Fn> void nested(Fn F) {
    Indent += 2;
    F();
    Indent -= 2;
  }

  static std::string typeText(const Type *T) { return T ? "'" + T->toString() + "'" : "''"; }

  void dump(Decl *D) {
    switch (D->getKind()) {
    case Decl::FunctionDeclKind: {
      auto *F = llvm::cast<FunctionDecl>(D);
      line() << "FunctionDecl " << F->Name << ' ' << typeText(F->Ty);
      if (F->Ty && F->Ty->isFunction()) {
        if (F->flags().Export)
          OS << " export";
        if (F->flags().Task)
          OS << " task";
      }
      if (F->Storage == StorageClass::Static)
        OS << " static";
      if (F->IsInline)
        OS << " inline";
      if (F->IsNoInline)
        OS << " noinline";
      if (F->IsStdlib)
        OS << " stdlib";
      if (!F->Body)
        OS << " prototype";
      OS << '\n';
      nested([&] {
        for (VarDecl *P : F->Params) {
          line() << "ParamDecl " << (P->Name.empty() ? "" : P->Name + " ") << typeText(P->Ty)
                 << '\n';
          if (P->Init)
            nested([&] { dump(P->Init); });
        }
        if (F->Body)
          dump(F->Body);
      });
      return;
    }
    case Decl::VarDeclKind: {
      auto *V = llvm::cast<VarDecl>(D);
      line() << "VarDecl " << V->Name << ' ' << typeText(V->Ty);
      if (V->IsGlobal)
        OS << " global";
      if (V->Storage == StorageClass::Static)
        OS << " static";
      if (V->Storage == StorageClass::Extern)
        OS << " extern";
      if (V->IsShared)
        OS << " shared";
      OS << '\n';
      if (V->Init)
        nested([&] { dump(V->Init); });
      return;
    }
    case Decl::StructDeclKind: {
      auto *S = llvm::cast<StructDecl>(D);
      line() << "StructDecl" << (S->Name.empty() ? "" : " " + S->Name) << '\n';
      nested([&] {
        for (const FieldDecl &F : S->Fields)
          line() << "Field " << F.Name << ' ' << typeText(F.Ty) << '\n';
      });
      return;
    }
    case Decl::EnumDeclKind: {
      auto *E = llvm::cast<EnumDecl>(D);
      line() << "EnumDecl" << (E->Name.empty() ? "" : " " + E->Name) << '\n';
      nested([&] {
        for (EnumConstantDecl *C : E->Constants)
          dump(C);
      });
      return;
    }
    case Decl::EnumConstantDeclKind: {
      auto *C = llvm::cast<EnumConstantDecl>(D);
      line() << "EnumConstantDecl " << C->Name << " = " << C->Resolved << '\n';
      if (C->Value)
        nested([&] { dump(C->Value); });
      return;
    }
    case Decl::TypedefDeclKind: {
      auto *T = llvm::cast<TypedefDecl>(D);
      line() << "TypedefDecl " << T->Name << ' ' << typeText(T->Ty) << '\n';
      return;
    }
    }
  }

  void dump(Stmt *S) {
    switch (S->getKind()) {
#define STMT(Name)                                                                                 \
  case Stmt::Name##Kind:                                                                           \
    line() << #Name;                                                                               \
    break;
#include "frontend/ASTNodes.def"
    }
    // Details on the same line.
    switch (S->getKind()) {
    case Stmt::IfStmtKind:
      if (llvm::cast<IfStmt>(S)->Coherent)
        OS << " coherent";
      break;
    case Stmt::WhileStmtKind:
      if (llvm::cast<WhileStmt>(S)->Coherent)
        OS << " coherent";
      break;
    case Stmt::DoStmtKind:
      if (llvm::cast<DoStmt>(S)->Coherent)
        OS << " coherent";
      break;
    case Stmt::ForStmtKind:
      if (llvm::cast<ForStmt>(S)->Coherent)
        OS << " coherent";
      break;
    case Stmt::ForeachStmtKind:
      if (llvm::cast<ForeachStmt>(S)->Tiled)
        OS << " tiled";
      break;
    case Stmt::ForeachActiveStmtKind:
      OS << ' ' << llvm::cast<ForeachActiveStmt>(S)->Index->Name;
      break;
    case Stmt::ForeachUniqueStmtKind:
      OS << ' ' << llvm::cast<ForeachUniqueStmt>(S)->Var->Name;
      break;
    case Stmt::PrintStmtKind:
      OS << " \"" << escaped(llvm::cast<PrintStmt>(S)->Format) << '"';
      break;
    case Stmt::AssertStmtKind:
      OS << " \"" << escaped(llvm::cast<AssertStmt>(S)->Text) << '"';
      break;
    case Stmt::DeleteStmtKind:
      if (llvm::cast<DeleteStmt>(S)->IsArray)
        OS << " []";
      break;
    case Stmt::LabelStmtKind:
      OS << ' ' << llvm::cast<LabelStmt>(S)->Name;
      break;
    case Stmt::GotoStmtKind:
      OS << ' ' << llvm::cast<GotoStmt>(S)->Label;
      break;
    default:
      break;
    }
    OS << '\n';
    nested([&] {
      if (auto *DS = llvm::dyn_cast<DeclStmt>(S)) {
        for (Decl *D : DS->Decls)
          dump(D);
      } else if (auto *F = llvm::dyn_cast<ForeachStmt>(S)) {
        for (ForeachDim &Dim : F->Dims) {
          line() << "ForeachDim " << Dim.Var->Name << '\n';
          nested([&] {
            dump(Dim.Begin);
            dump(Dim.End);
          });
        }
        dump(F->Body);
      } else {
        forEachChild(
            S, [&](Expr *&E) { dump(E); }, [&](Stmt *&C) { dump(C); });
      }
    });
  }

  void dump(Expr *E) {
    switch (E->getKind()) {
#define EXPR(Name)                                                                                 \
  case Expr::Name##Kind:                                                                           \
    line() << #Name;                                                                               \
    break;
#include "frontend/ASTNodes.def"
    }
    switch (E->getKind()) {
    case Expr::IntegerLiteralKind: {
      auto *I = llvm::cast<IntegerLiteral>(E);
      const Type *T = I->Ty ? I->Ty : I->LiteralType;
      if (T && T->isSignedInteger())
        OS << ' ' << static_cast<int64_t>(I->Value);
      else
        OS << ' ' << I->Value;
      break;
    }
    case Expr::FloatLiteralKind: {
      auto *F = llvm::cast<FloatLiteral>(E);
      const Type *T = F->LiteralType ? F->LiteralType : F->Ty;
      OS << ' ' << floatText(F->Value, T && T->getKind() != Type::Double);
      break;
    }
    case Expr::BoolLiteralKind:
      OS << (llvm::cast<BoolLiteral>(E)->Value ? " true" : " false");
      break;
    case Expr::StringLiteralKind:
      OS << " \"" << escaped(llvm::cast<StringLiteral>(E)->Value) << '"';
      break;
    case Expr::DeclRefExprKind:
      OS << ' ' << llvm::cast<DeclRefExpr>(E)->Name;
      break;
    case Expr::UnaryExprKind: {
      auto *U = llvm::cast<UnaryExpr>(E);
      OS << " '" << unaryOpSpelling(U->Op) << "'";
      if (U->Op == UnaryOp::PostInc || U->Op == UnaryOp::PostDec)
        OS << " postfix";
      break;
    }
    case Expr::BinaryExprKind:
      OS << " '" << binaryOpSpelling(llvm::cast<BinaryExpr>(E)->Op) << "'";
      break;
    case Expr::AssignExprKind: {
      auto *A = llvm::cast<AssignExpr>(E);
      OS << " '" << (A->Op ? binaryOpSpelling(*A->Op) : "") << "='";
      break;
    }
    case Expr::CallExprKind: {
      auto *C = llvm::cast<CallExpr>(E);
      if (C->Kind == CallKind::Crev)
        OS << " crev";
      else if (C->Kind == CallKind::Launch)
        OS << " launch";
      break;
    }
    case Expr::MemberExprKind: {
      auto *M = llvm::cast<MemberExpr>(E);
      OS << ' ' << (M->IsArrow ? "->" : ".") << M->Member;
      break;
    }
    case Expr::CastExprKind:
      OS << ' ' << typeText(llvm::cast<CastExpr>(E)->Target);
      break;
    case Expr::ImplicitCastExprKind:
      OS << ' ' << castKindName(llvm::cast<ImplicitCastExpr>(E)->CK);
      break;
    case Expr::SizeofExprKind:
      // `sizeof(type)` shows the type on its line and has no child.
      if (const Type *Of = llvm::cast<SizeofExpr>(E)->OfType)
        OS << ' ' << typeText(Of);
      break;
    case Expr::NewExprKind: {
      auto *N = llvm::cast<NewExpr>(E);
      if (N->NewVar != Variability::Unbound)
        OS << ' ' << variabilityName(N->NewVar);
      OS << ' ' << typeText(N->AllocType) << (N->Count ? "[]" : "");
      break;
    }
    default:
      break;
    }
    if (E->Ty)
      OS << " '" << E->Ty->toString() << "'";
    if (E->IsLValue)
      OS << " lvalue";
    OS << '\n';
    nested([&] { forEachChildExpr(E, [&](Expr *&C) { dump(C); }); });
  }
};

} // namespace

void dumpAST(const TranslationUnit &TU, llvm::raw_ostream &OS, bool IncludeStdlib) {
  Dumper(OS, IncludeStdlib).dumpTU(TU);
}

} // namespace spmdc
