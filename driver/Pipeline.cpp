// The whole compiler in order: read, preprocess, parse, check, lower, transform, emit.
//
// Each step is a named call into its own file; this function is the one place
// that shows the compiler's story end to end.
#include "driver/Pipeline.h"

#include "backend/CodeGen.h"
#include "backend/EmbeddedPrintRuntime.h"
#include "backend/HeaderWriter.h"
#include "backend/LLVMEmitter.h"
#include "backend/NVPTXMath.h"
#include "backend/NVPTXSimt.h"
#include "driver/CodeGenFlags.h"
#include "driver/DependencyFile.h"
#include "driver/MultiTarget.h"
#include "driver/Options.h"
#include "frontend/AST.h"
#include "frontend/ASTDump.h"
#include "frontend/Diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/Preprocessor.h"
#include "frontend/Sema.h"
#include "frontend/SourceManager.h"
#include "ir/AllOnSpecialization.h"
#include "ir/Coarsening.h"
#include "ir/DivergenceTransform.h"
#include "ir/IfPredication.h"
#include "ir/IndexNoWrap.h"
#include "ir/SinCosPairing.h"
#include "ir/HorizontalFusion.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/Lowering.h"
#include "ir/NVPTXMath.h"
#include "ir/SimtBranches.h"
#include "ir/VariabilityAnalysis.h"
#include "ir/VerticalFusion.h"
#include "ir/Verifier.h"
#include "stdlib/Stdlib.h"
#include "target/TargetInfo.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <optional>

namespace spmdc {

namespace {

/// Reads the input file (or stdin for "-"); reports a one-line error if it cannot.
std::optional<std::string> readInput(const std::string &Path, DiagnosticEngine &Diags) {
  // Checked first: reading a directory fails with a less helpful message.
  if (Path != "-" && llvm::sys::fs::is_directory(Path)) {
    Diags.errorNoLoc("cannot compile '" + Path + "': it is a directory");
    return std::nullopt;
  }
  auto Buf = Path == "-" ? llvm::MemoryBuffer::getSTDIN() : llvm::MemoryBuffer::getFile(Path);
  if (!Buf) {
    Diags.errorNoLoc("cannot open '" + Path + "': " + Buf.getError().message());
    return std::nullopt;
  }
  return (*Buf)->getBuffer().str();
}

/// The stdlib prelude goes through the same preprocessor and parser as user code.
/// --math-lib=system defines SPMDC_MATH_LIB_SYSTEM for it (stdlib/math.spmd then calls the
/// C library's functions), --math-lib=accurate SPMDC_MATH_LIB_ACCURATE (the float kernels
/// below 1 ulp instead of the default ones), --math-lib=fast SPMDC_MATH_LIB_FAST (cheaper,
/// less accurate float kernels for some functions, as ISPC's fast library).
bool parseStdlibPrelude(ASTContext &Ctx, const TargetInfo &Target, DiagnosticEngine &Diags,
                        const std::string &MathLib) {
  const std::string Name = "<stdlib>";
  Diags.getSourceManager().addBuffer(Name, StdlibSource);
  PreprocessorOptions PP;
  if (MathLib == "system")
    PP.Macros.push_back({"SPMDC_MATH_LIB_SYSTEM"});
  if (MathLib == "accurate")
    PP.Macros.push_back({"SPMDC_MATH_LIB_ACCURATE"});
  if (MathLib == "fast")
    PP.Macros.push_back({"SPMDC_MATH_LIB_FAST"});
  std::optional<std::string> Text = preprocess(Name, StdlibSource, PP, Target, Diags);
  if (!Text)
    return false;
  // `programCount` is the gang width, known now: it may size arrays
  // (`uniform float t[programCount]`) like any integer constant.
  if (Ctx.ParserScopes.empty())
    Ctx.ParserScopes.emplace_back();
  Ctx.ParserScopes.front().Constants["programCount"] = Target.GangWidth;
  parseSource(*Text, Name, Ctx, Diags, /*IsStdlib=*/true);
  return !Diags.hasErrors();
}

/// Checks before any work that an output path can be created, so that a typo in
/// -o is reported at once and in one line, not after a long compilation.
bool checkOutputPath(const std::string &Path, DiagnosticEngine &Diags) {
  if (Path.empty() || Path == "-")
    return true;
  if (llvm::sys::fs::is_directory(Path)) {
    Diags.errorNoLoc("cannot write '" + Path + "': it is a directory");
    return false;
  }
  llvm::StringRef Dir = llvm::sys::path::parent_path(Path);
  if (Dir.empty())
    Dir = ".";
  if (!llvm::sys::fs::is_directory(Dir)) {
    Diags.errorNoLoc("cannot write '" + Path + "': directory '" + Dir.str() + "' does not exist");
    return false;
  }
  if (llvm::sys::fs::access(Dir, llvm::sys::fs::AccessMode::Write)) {
    Diags.errorNoLoc("cannot write '" + Path + "': directory '" + Dir.str() + "' is not writable");
    return false;
  }
  return true;
}

/// Opens an output for writing, reporting unwritable paths in one line.
std::unique_ptr<llvm::raw_fd_ostream> openOutput(const std::string &Path, DiagnosticEngine &Diags) {
  std::error_code EC;
  auto OS = std::make_unique<llvm::raw_fd_ostream>(Path.empty() ? "-" : Path, EC,
                                                   llvm::sys::fs::OF_TextWithCRLF);
  if (EC) {
    Diags.errorNoLoc("cannot write '" + Path + "': " + EC.message());
    return nullptr;
  }
  return OS;
}

/// An ill-formed module is a compiler bug: say so and stop.
bool verifyIR(ir::Module &M, bool AfterTransform, DiagnosticEngine &Diags) {
  std::vector<std::string> Problems = ir::verifyModule(M, AfterTransform);
  for (const std::string &P : Problems)
    Diags.errorNoLoc("internal error: invalid SPMD IR " +
                     std::string(AfterTransform ? "after" : "before") +
                     " the divergence transform: " + P);
  return Problems.empty();
}

/// The fusions asked for outside the source: --hfuse-config's, then --hfuse's
/// (a later one for the same kernels wins, so the command line beats the file).
std::optional<std::vector<ir::FusionRequest>> fusionRequests(const CompilerOptions &Opts,
                                                             DiagnosticEngine &Diags) {
  std::vector<ir::FusionRequest> Requests;
  if (!Opts.HFuseConfig.empty() && !ir::readFusionConfig(Opts.HFuseConfig, Requests, Diags))
    return std::nullopt;
  for (const std::string &Spec : Opts.HFuse) {
    std::string Problem;
    std::optional<ir::FusionRequest> R = ir::parseFusionSpec(Spec, Problem);
    if (!R) { // checked by the option parser already
      Diags.errorNoLoc("--hfuse=" + Spec + ": " + Problem);
      return std::nullopt;
    }
    Requests.push_back(std::move(*R));
  }
  return Requests;
}

/// The requests of a repeatable option (--vfuse, --coarsen), in command-line
/// order; their syntax was checked by the option parser.
template <typename Request, typename Parse>
std::vector<Request> optionRequests(const std::vector<std::string> &Specs, Parse ParseSpec) {
  std::vector<Request> Requests;
  for (const std::string &Spec : Specs) {
    std::string Problem;
    size_t At = 0;
    if (std::optional<Request> R = ParseSpec(Spec, Problem, At))
      Requests.push_back(std::move(*R));
  }
  return Requests;
}

/// Prints the SPMD IR to -o or stdout.
int printIR(ir::Module &M, const CompilerOptions &Opts, DiagnosticEngine &Diags) {
  auto OS = openOutput(Opts.Output, Diags);
  if (!OS)
    return 1;
  ir::printModule(M, *OS);
  return 0;
}

/// What the back end writes; on NVPTX an object is PTX text (what a CUDA host
/// program loads with cuModuleLoadData).
OutputKind outputKind(EmitKind K, const TargetInfo &Target) {
  switch (K) {
  case EmitKind::LLVMText:
    return OutputKind::LLVMText;
  case EmitKind::LLVMBitcode:
    return OutputKind::LLVMBitcode;
  case EmitKind::Asm:
  case EmitKind::PTX:
    return OutputKind::Assembly;
  default:
    return Target.isGPU() ? OutputKind::Assembly : OutputKind::Object;
  }
}

/// -o, or: text to stdout, an object (or PTX) next to the input as `<stem>.o`
/// (`<stem>.ptx`).
std::string outputPath(const CompilerOptions &Opts, const TargetInfo &Target) {
  if (!Opts.Output.empty())
    return Opts.Output;
  std::string Stem = Opts.Input == "-" ? "out" : llvm::sys::path::stem(Opts.Input).str();
  if (Opts.Emit == EmitKind::Object || Opts.Emit == EmitKind::PTX)
    return Stem + (Target.isGPU() ? ".ptx" : ".o");
  if (Opts.Emit == EmitKind::LLVMBitcode)
    return Stem + ".bc";
  return "-";
}

/// --opt=fast-math in any of its modes.
bool hasFastMath(const CompilerOptions &Opts) {
  for (const std::string &O : Opts.OptFlags)
    if (O == "fast-math" || O.rfind("fast-math:", 0) == 0)
      return true;
  return false;
}

} // namespace

int runCompiler(const CompilerOptions &Opts) {
  if (isTargetList(Opts.Target))
    return compileForTargets(Opts);
  return compileForTarget(Opts, nullptr);
}

int compileForTarget(const CompilerOptions &Opts, const TargetVariant *Variant) {
  SourceManager SM;
  DiagnosticEngine Diags(SM, llvm::errs());
  Diags.setErrorLimit(Opts.ErrorLimit);
  Diags.setWarningsEnabled(Opts.Warnings);
  Diags.setWarningsAsErrors(Opts.WarningsAsErrors);
  Diags.setGroupEnabled(WarningGroup::Perf, Opts.PerfWarnings);

  std::optional<TargetInfo> Target = lookupTarget(Opts.Target);
  if (!Target) {
    std::string Known;
    for (const std::string &T : targetNames())
      Known += (Known.empty() ? "" : ", ") + T;
    Diags.errorNoLoc("unknown target '" + Opts.Target + "' (known: " + Known + ")");
    return 1;
  }
  // --cpu: the device to tune for; it may choose the target.
  std::optional<std::string> TuneCpu = resolveDevice(Opts, *Target, Diags);
  if (!TuneCpu)
    return 1;

  if (!checkOutputPath(Opts.Output, Diags) || !checkOutputPath(Opts.HeaderOutput, Diags) ||
      !checkOutputPath(Opts.DepFile, Diags) || !checkOutputPath(Opts.DepList, Diags))
    return 1;

  // 1. Read the source.
  std::optional<std::string> Source = readInput(Opts.Input, Diags);
  if (!Source)
    return 1;
  const std::string Name = Opts.Input == "-" ? "<stdin>" : Opts.Input;
  SM.addBuffer(Name, *Source);

  // 2. The user's file through the C preprocessor (-E stops here), then the
  // standard library prelude.
  std::vector<std::string> FilesIncluded;
  std::optional<std::string> Expanded =
      Opts.NoPreprocessor ? Source
                          : preprocess(Name, *Source, Opts.PP, *Target, Diags, &FilesIncluded);
  if (!Expanded)
    return 1;
  if (Opts.Emit == EmitKind::Preprocessed) {
    auto OS = openOutput(Opts.Output, Diags);
    if (!OS)
      return 1;
    *OS << *Expanded;
    // A full disk shows only now; left unchecked, LLVM would abort on it.
    OS->close();
    if (OS->has_error()) {
      Diags.errorNoLoc("cannot write '" + (Opts.Output.empty() ? "-" : Opts.Output) +
                       "': " + OS->error().message());
      OS->clear_error();
      return 1;
    }
    return 0;
  }
  ASTContext Ctx;
  if (Opts.MathLib == "system" && Target->isGPU()) {
    Diags.errorNoLoc("--math-lib=system is not available for NVPTX targets (no C math "
                     "library on the GPU); use default, fast or accurate");
    return 1;
  }
  if (!parseStdlibPrelude(Ctx, *Target, Diags, Opts.MathLib))
    return 1;

  // 3. Parse (Flex + Bison) into the AST.
  parseSource(*Expanded, Name, Ctx, Diags, /*IsStdlib=*/false, Opts.Lang.DoubleLiterals);

  // 4. Semantic analysis: names, types, conversions, variability rules.
  if (!Diags.hasErrors())
    checkTranslationUnit(Ctx, Diags, *Target, Opts.Lang);
  if (Diags.hasErrors())
    return 1;

  if (Opts.SyntaxOnly)
    return 0;
  if (Opts.Emit == EmitKind::Ast) {
    auto OS = openOutput(Opts.Output, Diags);
    if (!OS)
      return 1;
    dumpAST(Ctx.TU, *OS, Opts.DumpStdlib);
    return 0;
  }

  // 5. Lower the checked AST to the SPMD IR.
  std::unique_ptr<ir::Module> IRM = ir::lowerToIR(Ctx, *Target, Diags);
  if (!IRM)
    return 1;
  if (!verifyIR(*IRM, false, Diags))
    return 1;

  // 6. Vertical fusion (#pragma vfuse, --vfuse): kernels run one after another
  // become one whose intermediates stay in registers (docs/fusion.md).
  auto VFusions =
      optionRequests<ir::VerticalFusionRequest>(Opts.VFuse, ir::parseVerticalFusionSpec);
  if (!ir::runVerticalFusion(*IRM, VFusions, *Target, Diags, Opts.VFuseReport))
    return 1;
  if (!verifyIR(*IRM, false, Diags))
    return 1;

  // 6b. Horizontal fusion (#pragma hfuse, --hfuse, --hfuse-config): builds the
  // fused kernels from unmasked IR, so the divergence transform treats their
  // clones like any other function.
  std::optional<std::vector<ir::FusionRequest>> Fusions = fusionRequests(Opts, Diags);
  if (!Fusions || !ir::runHorizontalFusion(*IRM, *Fusions, *Target, Diags))
    return 1;
  if (!IRM->FusedKernels.empty() && !verifyIR(*IRM, false, Diags))
    return 1;

  // 6c. Thread and block coarsening (#pragma coarsen, --coarsen), of any
  // kernel, fused ones included (docs/fusion.md).
  auto Coarsenings = optionRequests<ir::CoarsenRequest>(Opts.Coarsen, ir::parseCoarsenSpec);
  if (!ir::runCoarsening(*IRM, Coarsenings, *Target, Diags))
    return 1;
  if (!verifyIR(*IRM, false, Diags))
    return 1;

  // 7. Variability analysis: varying values that are provably uniform become
  // uniform; values affine in programIndex are marked for contiguous memory ops.
  if (Opts.VariabilityAnalysis) {
    ir::runVariabilityAnalysis(*IRM);
    if (!verifyIR(*IRM, false, Diags))
      return 1;
  }
  if (Opts.Emit == EmitKind::SpmdIR)
    return printIR(*IRM, Opts, Diags);

  // 8. x86: sin(x) and cos(x) of one x become one sincos(x); varying index
  // arithmetic is marked nsw (ISPC's 32-bit addressing);
  // cheap varying ifs are marked to run as blends, without a branch,
  // and large functions to get a copy for an all-on entry mask. NVPTX: float
  // exp/log (all of exp log pow sin cos tan with fast math) through the GPU's
  // special function unit; varying branches that need no mask stay per-thread
  // branches (SIMT). Then the context-stack divergence transform: the others -> masks.
  if (!Target->isGPU() && Opts.OptLevel > 0) {
    ir::runSinCosPairing(*IRM);
    ir::runIndexNoWrap(*IRM);
    ir::runIfPredication(*IRM);
    ir::runAllOnSpecialization(*IRM);
  }
  const bool GPUFastMath = Target->isGPU() && hasFastMath(Opts);
  if (Target->isGPU())
    ir::selectNVPTXMath(*IRM, Opts.MathLib == "fast" || GPUFastMath);
  if (Target->isGPU() && Opts.SimtBranches)
    ir::selectSimtBranches(*IRM);
  ir::runDivergenceTransform(*IRM, Target->GangWidth);
  if (!verifyIR(*IRM, true, Diags))
    return 1;
  if (Opts.Emit == EmitKind::SpmdIRMasked)
    return printIR(*IRM, Opts, Diags);

  // 9. Back end: LLVM IR for the target, LLVM's pipeline, then the files.
  selectAsmSyntax(Opts.AsmSyntax);
  std::unique_ptr<llvm::TargetMachine> TM =
      createTargetMachine(*Target, Opts.OptLevel, Diags, !Opts.DisableFMA);
  if (!TM)
    return 1;
  llvm::LLVMContext LLVMCtx;
  std::unique_ptr<llvm::Module> LM =
      emitLLVM(*IRM, *Target, *TM, LLVMCtx, Diags, {Opts.DebugInfo, Opts.DwarfVersion}, Opts.Input);
  if (!LM)
    return 1;
  if (!Target->isGPU()) {
    applyCodeGenFlags(*LM, *TM, Opts, *TuneCpu);
    // The object carries the print/assert runtime it calls, as ISPC's objects do.
    if (!linkEmbeddedPrintRuntime(*LM, Diags))
      return 1;
  } else if (GPUFastMath) {
    applyNVPTXFastMath(*LM); // div.approx, sqrt.approx
  }
  optimizeModule(*LM, *TM, Opts.OptLevel);
  if (Target->isGPU())
    foldConstantSimtConditions(*LM);
  // 10. A multi-target build's per-target symbols and dispatching object (driver/MultiTarget.cpp).
  const OutputKind Kind = outputKind(Opts.Emit, *Target);
  if (Variant && !finishTargetVariant(*LM, *IRM, *Variant, Kind, Diags))
    return 1;
  HeaderOptions Header;
  Header.PragmaOnce = !Opts.NoPragmaOnce;
  for (const std::string &Path : {Opts.HeaderOutput, Variant ? Variant->ExtraHeader : ""})
    if (!Path.empty() && !(Target->isGPU() ? writeHostHeader(*IRM, Path, Diags)
                                           : writeHeader(*IRM, Path, Header, Diags)))
      return 1;
  const std::string Output = outputPath(Opts, *Target);
  if (!writeModule(*LM, *TM, Kind, Output, Diags))
    return 1;
  // 11. -M/-MF/-MT/-MMM: the files this compilation read.
  return writeDependencies(Opts, Name, FilesIncluded, Output, Diags) ? 0 : 1;
}

} // namespace spmdc
