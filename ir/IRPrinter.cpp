// Writes the SPMD IR as text (`spmdc --emit=spmd-ir`), one op per line.
#include "ir/IRPrinter.h"

#include "ir/IR.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace spmdc::ir {

const char *builtinName(BuiltinVar B) {
  switch (B) {
  case BuiltinVar::ProgramIndex:
    return "programIndex";
  case BuiltinVar::ProgramCount:
    return "programCount";
  case BuiltinVar::TaskIndex:
    return "taskIndex";
  case BuiltinVar::TaskIndex0:
    return "taskIndex0";
  case BuiltinVar::TaskIndex1:
    return "taskIndex1";
  case BuiltinVar::TaskIndex2:
    return "taskIndex2";
  case BuiltinVar::TaskCount:
    return "taskCount";
  case BuiltinVar::TaskCount0:
    return "taskCount0";
  case BuiltinVar::TaskCount1:
    return "taskCount1";
  case BuiltinVar::TaskCount2:
    return "taskCount2";
  case BuiltinVar::BlockIndex:
    return "blockIndex";
  case BuiltinVar::BlockCount:
    return "blockCount";
  case BuiltinVar::GangIndex:
    return "gangIndex";
  case BuiltinVar::GangCount:
    return "gangCount";
  case BuiltinVar::ThreadIndex:
    return "threadIndex";
  case BuiltinVar::ThreadCount:
    return "threadCount";
  case BuiltinVar::None:
    break;
  }
  return "?";
}

namespace {

class Printer {
public:
  explicit Printer(llvm::raw_ostream &OS) : OS(OS) {}

  void function(Function &F) {
    Next = 0;
    OS << "func @" << F.Symbol << "(";
    for (size_t I = 0; I < F.Params.size(); ++I) {
      Value *P = F.Params[I].get();
      P->Id = Next++;
      OS << (I ? ", " : "") << "%" << P->Id << ": " << P->Ty->toString();
      if (!P->NameHint.empty())
        OS << " " << P->NameHint;
    }
    OS << ") -> " << F.Ty->getReturnType()->toString();
    if (F.flags().Export)
      OS << " export";
    if (F.flags().Task)
      OS << " task";
    if (F.flags().ExternC)
      OS << " extern_c";
    if (F.ThreadsPerBlock)
      OS << " threads_per_block " << F.ThreadsPerBlock;
    if (F.MaxNReg)
      OS << " maxnreg " << F.MaxNReg;
    if (!F.Body) {
      OS << "\n";
      return;
    }
    OS << " {\n";
    region(*F.Body, 1);
    OS << "}\n";
  }

private:
  void indent(unsigned Level) {
    for (unsigned I = 0; I < Level; ++I)
      OS << "  ";
  }

  void region(Region &R, unsigned Level) {
    for (auto &O : R.Ops)
      op(*O, Level);
  }

  void ref(Value *V) { OS << "%" << V->Id; }

  void op(Op &O, unsigned Level) {
    indent(Level);
    if (Value *R = O.result()) {
      R->Id = Next++;
      OS << "%" << R->Id << " = ";
    }
    OS << opName(O.Code);
    switch (O.Code) {
    case OpCode::ConstInt:
      OS << " " << O.Imm;
      break;
    case OpCode::ConstFloat:
      OS << " " << llvm::format("%g", O.FImm);
      break;
    case OpCode::Builtin:
      OS << " " << builtinName(O.BuiltinId);
      break;
    case OpCode::Unary:
      OS << " '" << unaryOpSpelling(O.UnOp) << "'";
      break;
    case OpCode::Binary:
      OS << " '" << binaryOpSpelling(O.BinOp) << "'";
      if (O.NoSignedWrap)
        OS << " nsw";
      break;
    case OpCode::Convert:
      OS << " " << castKindName(O.Cast);
      break;
    case OpCode::Var:
    case OpCode::SizeOf:
      OS << " " << O.VarType->toString();
      break;
    case OpCode::GlobalAddr:
      OS << " @" << O.GlobalRef->Name;
      break;
    case OpCode::FieldAddr:
      OS << " ." << O.FieldIndex;
      break;
    case OpCode::Call:
    case OpCode::Crev:
    case OpCode::Launch:
    case OpCode::FuncAddr:
      if (O.Callee)
        OS << " @" << O.Callee->Symbol;
      break;
    case OpCode::Print:
    case OpCode::Assert:
      OS << " \"" << O.Text << "\"";
      break;
    case OpCode::PartialBarrier:
      OS << " id " << O.Imm << " threads " << O.BarrierThreads;
      break;
    case OpCode::New:
      OS << " align " << O.Imm;
      break;
    case OpCode::Label:
    case OpCode::Goto:
      OS << " L" << O.Imm;
      break;
    default:
      break;
    }
    for (size_t I = 0; I < O.Operands.size(); ++I) {
      OS << (I ? ", " : " ");
      ref(O.Operands[I]);
    }
    if (!O.LaunchCounts.empty()) {
      OS << " [";
      for (size_t I = 0; I < O.LaunchCounts.size(); ++I) {
        OS << (I ? ", " : "");
        ref(O.LaunchCounts[I]);
      }
      OS << "]";
    }
    if (!O.IndexVars.empty()) {
      OS << " ->";
      for (Value *V : O.IndexVars) {
        OS << " ";
        ref(V);
      }
    }
    if (O.Mask) {
      OS << " mask ";
      ref(O.Mask);
    }
    if (O.DoWhile)
      OS << " do_while";
    if (O.Tiled)
      OS << " tiled";
    if (O.Simt)
      OS << " simt";
    if (O.Predicated)
      OS << " predicated";
    if (Value *R = O.result()) {
      OS << " : " << R->Ty->toString();
      if (R->AffineBase) {
        OS << " affine(";
        ref(R->AffineBase);
        OS << " + programIndex * " << R->AffineStride << ")";
      }
      if (!R->NameHint.empty())
        OS << "  ; " << R->NameHint;
    }
    if (O.Regions.empty()) {
      OS << "\n";
      return;
    }
    OS << " {\n";
    for (size_t I = 0; I < O.Regions.size(); ++I) {
      if (I) {
        indent(Level);
        OS << "} {\n";
      }
      region(*O.Regions[I], Level + 1);
    }
    indent(Level);
    OS << "}\n";
  }

  llvm::raw_ostream &OS;
  unsigned Next = 0;
};

} // namespace

void printModule(Module &M, llvm::raw_ostream &OS, bool IncludeStdlib) {
  Printer P(OS);
  for (auto &G : M.Globals)
    OS << "global @" << G->Name << " : " << G->Ty->toString() << (G->IsShared ? " shared" : "")
       << "\n";
  for (auto &F : M.Functions) {
    if (F->IsStdlib && !IncludeStdlib)
      continue;
    if (!F->Body && !IncludeStdlib)
      continue;
    P.function(*F);
  }
}

} // namespace spmdc::ir
