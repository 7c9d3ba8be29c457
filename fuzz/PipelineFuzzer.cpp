// libFuzzer entry point: runs the whole compiler on arbitrary bytes, from the
// parser to LLVM code generation for one x86 target and for NVPTX.
//
// The front-end fuzzer (FrontendFuzzer.cpp) stops after sema; most inputs that
// pass sema are where lowering, the divergence transform and the LLVM emitter
// can still crash or emit invalid LLVM IR. Each input that checks cleanly goes
// through the same steps as driver/Pipeline.cpp's runCompiler: lowering, the IR
// verifier, horizontal fusion (`#pragma hfuse`), variability analysis, the divergence transform, LLVM emission,
// LLVM's verifier, the -O2 pipeline and the machine-code emitter (object code
// for avx2-i32x8, PTX for nvptx-sm_80), written to memory. An "internal error"
// diagnostic is a finding like a crash: the fuzzer aborts on it.
//
// The standard library prelude is parsed in front of every input (the programs
// worth lowering call it), expanded once at start-up; that makes an execution
// tens of milliseconds, so this fuzzer runs fewer, deeper executions than the
// front-end one.
#include "backend/CodeGen.h"
#include "backend/LLVMEmitter.h"
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/Preprocessor.h"
#include "frontend/Sema.h"
#include "frontend/SourceManager.h"
#include "ir/DivergenceTransform.h"
#include "ir/HorizontalFusion.h"
#include "ir/IR.h"
#include "ir/Lowering.h"
#include "ir/VariabilityAnalysis.h"
#include "ir/Verifier.h"
#include "stdlib/Stdlib.h"
#include "target/TargetInfo.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace {

const char *const PreludeName = "<stdlib>";
/// The prelude expanded per target (its macros depend on the gang width).
std::map<std::string, std::string> PreludeText;

const char *const FuzzTargets[] = {"avx2-i32x8", "nvptx-sm_80"};

/// Stops the run on a compiler bug, with what it was.
[[noreturn]] void finding(const std::string &What, const std::string &Detail) {
  std::fprintf(stderr, "spmdc-fuzz-pipeline: %s\n%s\n", What.c_str(), Detail.c_str());
  std::abort();
}

/// A diagnostic sink that remembers whether an internal error went through it.
class Sink : public llvm::raw_string_ostream {
public:
  Sink() : llvm::raw_string_ostream(Text) {}
  void checkNoInternalError() {
    flush();
    if (Text.find("internal error") != std::string::npos)
      finding("internal error", Text);
  }

private:
  std::string Text;
};

bool parsePrelude(const spmdc::TargetInfo &Target, spmdc::ASTContext &Ctx,
                  spmdc::DiagnosticEngine &Diags) {
  Diags.getSourceManager().addBuffer(PreludeName, spmdc::StdlibSource);
  if (Ctx.ParserScopes.empty())
    Ctx.ParserScopes.emplace_back();
  Ctx.ParserScopes.front().Constants["programCount"] = Target.GangWidth;
  spmdc::parseSource(PreludeText.at(Target.Name), PreludeName, Ctx, Diags, /*IsStdlib=*/true);
  return !Diags.hasErrors();
}

/// Machine code for the module, into memory (the fuzzer only wants it built).
void emitMachineCode(llvm::Module &M, llvm::TargetMachine &TM, bool IsGPU) {
  llvm::SmallString<0> Buffer;
  llvm::raw_svector_ostream OS(Buffer);
  llvm::legacy::PassManager PM;
  auto Kind = IsGPU ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (TM.addPassesToEmitFile(PM, OS, nullptr, Kind))
    finding("LLVM cannot emit this file type", "");
  PM.run(M);
}

/// One compilation of `Text` for `Target`, all the way to machine code.
void compile(const std::string &Text, const spmdc::TargetInfo &Target) {
  spmdc::SourceManager SM;
  Sink DiagOut;
  spmdc::DiagnosticEngine Diags(SM, DiagOut);
  spmdc::ASTContext Ctx;
  if (!parsePrelude(Target, Ctx, Diags))
    finding("the stdlib prelude does not parse", "");
  const std::string Name = "fuzz.spmd";
  SM.addBuffer(Name, Text);
  spmdc::parseSource(Text, Name, Ctx, Diags);
  if (!Diags.hasErrors())
    spmdc::checkTranslationUnit(Ctx, Diags, Target);
  DiagOut.checkNoInternalError();
  if (Diags.hasErrors())
    return;

  std::unique_ptr<spmdc::ir::Module> IRM = spmdc::ir::lowerToIR(Ctx, Target, Diags);
  DiagOut.checkNoInternalError();
  if (!IRM)
    return;
  auto verify = [&](bool After, const char *Step) {
    for (const std::string &P : spmdc::ir::verifyModule(*IRM, After))
      finding(std::string("invalid SPMD IR after ") + Step, P);
  };
  verify(false, "lowering");
  // Horizontal fusion of the kernels the input names in `#pragma hfuse`.
  bool Fused = spmdc::ir::runHorizontalFusion(*IRM, {}, Target, Diags);
  DiagOut.checkNoInternalError();
  if (!Fused)
    return;
  verify(false, "horizontal fusion");
  spmdc::ir::runVariabilityAnalysis(*IRM);
  verify(false, "the variability analysis");
  spmdc::ir::runDivergenceTransform(*IRM, Target.GangWidth);
  verify(true, "the divergence transform");

  std::unique_ptr<llvm::TargetMachine> TM =
      spmdc::createTargetMachine(Target, /*OptLevel=*/2, Diags, /*ContractFMA=*/false);
  if (!TM)
    finding("no target machine for " + Target.Name, "");
  llvm::LLVMContext LLVMCtx;
  std::unique_ptr<llvm::Module> LM = spmdc::emitLLVM(*IRM, Target, *TM, LLVMCtx, Diags);
  DiagOut.checkNoInternalError();
  if (!LM)
    return; // an unsupported construct, reported as such
  std::string Problems;
  llvm::raw_string_ostream ProblemOS(Problems);
  if (llvm::verifyModule(*LM, &ProblemOS))
    finding("invalid LLVM IR from the emitter", Problems);
  spmdc::optimizeModule(*LM, *TM, 2);
  emitMachineCode(*LM, *TM, Target.isGPU());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  for (const char *Name : FuzzTargets) {
    const spmdc::TargetInfo Target = *spmdc::lookupTarget(Name);
    spmdc::SourceManager SM;
    spmdc::DiagnosticEngine Diags(SM, llvm::errs());
    SM.addBuffer(PreludeName, spmdc::StdlibSource);
    std::optional<std::string> Text =
        spmdc::preprocess(PreludeName, spmdc::StdlibSource, {}, Target, Diags);
    if (!Text)
      finding("the stdlib prelude does not preprocess", Name);
    PreludeText[Target.Name] = std::move(*Text);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string Text(reinterpret_cast<const char *>(Data), Size);
  for (const char *Name : FuzzTargets)
    compile(Text, *spmdc::lookupTarget(Name));
  return 0;
}
