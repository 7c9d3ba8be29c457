// ISPC's multi-target builds: --target=sse4-i32x4,avx2-i32x8 compiles once per target into
// <out>_sse4.o, <out>_avx2.o (symbols suffixed _sse4, _avx2) and writes <out>, whose export
// functions call the best variant for the CPU they run on.
//
// As ISPC: `-o foo.o -h foo.h` also writes foo_sse4.h, foo_avx2.h (the same declarations);
// the dependency file is written once, for foo.o. Unlike ISPC, the global variables are
// defined in the first target's object (ISPC puts them in the dispatching one): every object
// of the build is linked anyway, and their initializers may depend on the target.
#include "driver/MultiTarget.h"

#include "backend/Dispatcher.h"
#include "driver/Options.h"
#include "driver/Pipeline.h"
#include "frontend/Diagnostics.h"
#include "frontend/SourceManager.h"
#include "ir/IR.h"
#include "target/TargetInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <set>

namespace spmdc {

namespace {

/// "dir/foo.o" + "_avx2" -> "dir/foo_avx2.o" (ISPC's names for the per-target files).
std::string withSuffix(const std::string &Path, const std::string &Suffix) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Path.substr(0, Path.size() - Ext.size()) + Suffix + Ext.str();
}

std::string defaultOutput(const CompilerOptions &Opts) {
  std::string Stem = Opts.Input == "-" ? "out" : llvm::sys::path::stem(Opts.Input).str();
  switch (Opts.Emit) {
  case EmitKind::Asm:
    return Stem + ".s";
  case EmitKind::LLVMText:
    return Stem + ".ll";
  case EmitKind::LLVMBitcode:
    return Stem + ".bc";
  default:
    return Stem + ".o";
  }
}

/// The targets of the list, checked: known x86 targets, one per ISA.
std::optional<std::vector<TargetInfo>> parseTargetList(const std::string &List,
                                                       DiagnosticEngine &Diags) {
  std::vector<TargetInfo> Targets;
  llvm::SmallVector<llvm::StringRef, 4> Names;
  llvm::StringRef(List).split(Names, ',');
  for (llvm::StringRef Name : Names) {
    Name = Name.trim();
    std::optional<TargetInfo> T = lookupTarget(Name.str());
    if (!T || Name == "host" || T->isGPU()) {
      Diags.errorNoLoc("'" + Name.str() +
                       "' cannot be part of a --target list (x86 targets only: sse4-i32x4, "
                       "avx2-i32x8, avx2-i32x16, avx512skx-x16)");
      return std::nullopt;
    }
    for (const TargetInfo &Prev : Targets)
      if (Prev.ISA == T->ISA) {
        Diags.errorNoLoc("--target lists " + Prev.Name + " and " + T->Name +
                         ": a dispatching object holds one target per ISA (" + T->ISA + ")");
        return std::nullopt;
      }
    Targets.push_back(*T);
  }
  return Targets;
}

/// Writes the dispatching module next to the first target's: called with that target's
/// module, whose context the dispatch module shares.
bool writeDispatcher(llvm::Module &First, const std::vector<std::string> &Exports,
                     const std::string &FirstSuffix, const std::vector<DispatchVariant> &Variants,
                     OutputKind Kind, const std::string &Path, DiagnosticEngine &Diags) {
  std::vector<llvm::Function *> Entries;
  for (const std::string &Name : Exports)
    if (llvm::Function *F = First.getFunction(Name + FirstSuffix))
      Entries.push_back(F);
  std::unique_ptr<llvm::TargetMachine> TM = createDispatchTargetMachine();
  if (!TM) {
    Diags.errorNoLoc("LLVM has no x86-64 back end for the dispatching object");
    return false;
  }
  std::unique_ptr<llvm::Module> Dispatch =
      buildDispatchModule(First.getContext(), Entries, FirstSuffix, Variants, *TM);
  return writeModule(*Dispatch, *TM, Kind, Path, Diags);
}

} // namespace

bool isTargetList(const std::string &Target) { return Target.find(',') != std::string::npos; }

int compileForTargets(const CompilerOptions &Opts) {
  SourceManager SM;
  DiagnosticEngine Diags(SM, llvm::errs());
  std::optional<std::vector<TargetInfo>> Targets = parseTargetList(Opts.Target, Diags);
  if (!Targets)
    return 1;
  bool WritesCode = Opts.Emit == EmitKind::Object || Opts.Emit == EmitKind::Asm ||
                    Opts.Emit == EmitKind::LLVMText || Opts.Emit == EmitKind::LLVMBitcode;
  if (!WritesCode && !Opts.SyntaxOnly) {
    Diags.errorNoLoc("a --target list writes objects, assembly or LLVM IR, one per target");
    return 1;
  }
  const std::string Output = Opts.Output.empty() ? defaultOutput(Opts) : Opts.Output;
  if (Output == "-") {
    Diags.errorNoLoc("a --target list writes one file per target: -o needs a file name");
    return 1;
  }
  std::vector<DispatchVariant> Variants;
  for (const TargetInfo &T : *Targets)
    Variants.push_back({T.ISA, "_" + T.ISA});

  for (size_t I = 0; I < Targets->size(); ++I) {
    CompilerOptions One = Opts;
    One.Target = (*Targets)[I].Name;
    One.Output = withSuffix(Output, Variants[I].Suffix);
    if (!Opts.HeaderOutput.empty())
      One.HeaderOutput = withSuffix(Opts.HeaderOutput, Variants[I].Suffix);
    TargetVariant Variant;
    Variant.Suffix = Variants[I].Suffix;
    Variant.DefinesGlobals = I == 0;
    if (I == 0) {
      // The first compilation also writes the dispatcher, its header and the dependencies.
      Variant.ExtraHeader = Opts.HeaderOutput;
      if (One.DepsMakeRule && One.DepTarget.empty())
        One.DepTarget = Output;
      Variant.OnModule = [&](llvm::Module &M, const std::vector<std::string> &Exports,
                             OutputKind Kind, DiagnosticEngine &D) {
        return writeDispatcher(M, Exports, Variants[0].Suffix, Variants, Kind, Output, D);
      };
    } else {
      One.DepsMakeRule = false;
      One.DepFile.clear();
      One.DepTarget.clear();
      One.DepList.clear();
    }
    if (int Status = compileForTarget(One, &Variant))
      return Status;
    if (Opts.SyntaxOnly)
      return 0; // one front-end check is enough
  }
  return 0;
}

bool finishTargetVariant(llvm::Module &M, const ir::Module &IRM, const TargetVariant &Variant,
                         OutputKind Kind, DiagnosticEngine &Diags) {
  std::set<std::string> CNames;
  std::vector<std::string> Exports;
  for (const auto &F : IRM.Functions) {
    if (F->flags().ExternC)
      CNames.insert(F->Symbol);
    if (F->flags().Export && F->Body)
      Exports.push_back(F->Symbol);
  }
  for (llvm::Function &F : M)
    if (!F.isDeclaration() && !F.hasLocalLinkage() && !CNames.count(F.getName().str()))
      F.setName(F.getName() + Variant.Suffix);
  if (!Variant.DefinesGlobals)
    for (llvm::GlobalVariable &G : M.globals())
      if (!G.isDeclaration() && G.hasExternalLinkage())
        G.setInitializer(nullptr);
  return !Variant.OnModule || Variant.OnModule(M, Exports, Kind, Diags);
}

} // namespace spmdc
