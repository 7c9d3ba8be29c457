// Runs LLVM's optimization pipeline and writes objects, assembly, bitcode or IR text.
#include "backend/CodeGen.h"

#include "backend/ContiguousMemoryOps.h"
#include "backend/LaneLoadGathers.h"
#include "backend/LaneStoreScatters.h"
#include "backend/MaskedMergeUnfreeze.h"
#include "backend/NVPTXGlobalPointerArgs.h"
#include "backend/NVPTXLoopStrengthReduce.h"
#include "backend/NVPTXNegate16.h"
#include "backend/PrivateMaskedStores.h"
#include "backend/WarpVoteSimplify.h"
#include "backend/WideMasks.h"
#include "backend/X86MovmskVotes.h"
#include "frontend/Diagnostics.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/InferAddressSpaces.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

namespace spmdc {

namespace {
/// One of LLVM's global command-line options, or null where this LLVM has none by that name.
llvm::cl::Option *findLLVMOption(const char *Name) {
  auto &Options = llvm::cl::getRegisteredOptions();
  auto It = Options.find(Name);
  return It == Options.end() ? nullptr : It->second;
}

/// Sets one of LLVM's global boolean options (a `cl::opt<bool>`) for the next pipeline.
void setBoolOption(const char *Name, bool Value) {
  if (llvm::cl::Option *Option = findLLVMOption(Name))
    static_cast<llvm::cl::opt<bool> *>(Option)->setValue(Value);
}

/// Code generation's loop strength reduction (LLVM's `-disable-lsr`, a global
/// option of TargetPassConfig) on or off for the next addPassesToEmitFile.
void setCodeGenLoopStrengthReduction(bool On) { setBoolOption("disable-lsr", !On); }

/// LLVM's `-unroll-max-count`: the most copies partial and runtime unrolling
/// may make of a loop's body (the option counts only where it was given).
void limitRuntimeUnrolling(unsigned MaxCount) {
  llvm::cl::Option *Option = findLLVMOption("unroll-max-count");
  if (Option && Option->getNumOccurrences() == 0)
    Option->addOccurrence(0, "unroll-max-count", std::to_string(MaxCount));
}

/// IndVarSimplify's rewriting of values used after a loop in terms of the loop's exit
/// state (LLVM's `-replexitval`): LLVM's default (cheap) or never.
void setExitValueRewriting(bool On) {
  if (llvm::cl::Option *Option = findLLVMOption("replexitval"))
    static_cast<llvm::cl::opt<llvm::ReplaceExitVal> *>(Option)->setValue(
        On ? llvm::OnlyCheapRepl : llvm::NeverRepl);
}

/// The loop transforms whose default output ptxas turns into slower SASS than nvcc's for
/// the same loops (docs/gpu.md, eleventh session: found by putting nvcc's PTX for the
/// function into spmdc's module, which ran at nvcc's speed, and bisecting the differences).
/// Both are set for every pipeline, so that an x86 module compiled after an NVPTX one gets
/// LLVM's defaults.
/// - Linear function test replacement (`-disable-lftr`): a counted loop keeps its ordered
///   exit `i < hi` instead of `i != hi`; with the equality exit ptxas gave the per-lane
///   insertion sort no reconvergence barrier of its own and the recursive quicksort's warps
///   split further (PAR 0.94x the naive CUDA loop -> 0.99x).
/// - Exit value rewriting (`-replexitval=never`): the book filter's inner match loop's `j`
///   at its exit was rewritten to the loop-invariant keyword length, one more register move
///   and constant load on every text position (PAR 0.95x -> 0.97x).
/// (Non-trivial unswitching, which LLVM leaves off on targets with divergent branches and
/// nvcc does for uniform conditions, took the book filter to 0.99x but Mandelbrot from
/// 1.02x to 1.05x nvcc's time (1.11x without the exit-value change) and the mergesort's
/// CREV 3% slower: not used.)
void setNVPTXLoopTransforms(bool NVPTX) {
  setBoolOption("disable-lftr", NVPTX);
  setExitValueRewriting(!NVPTX);
}

/// Our passes after LLVM's pipeline (-O1 and above).
void addCleanupPasses(llvm::FunctionPassManager &FPM, llvm::TargetMachine &TM) {
  // Our own clean-up once LLVM has exposed the address patterns: contiguous
  // gathers/scatters become vector loads/stores, all-on gathers per-lane loads
  // where the target has no gather instruction, redundant warp votes go
  // (NVPTX), then instcombine folds all-on masks away and simplifycfg the
  // branches on votes that became constants.
  FPM.addPass(ContiguousMemoryOpsPass());
  // x86 without gather instructions: all-on gathers become per-lane loads.
  FPM.addPass(LaneLoadGathersPass());
  FPM.addPass(WarpVoteSimplifyPass());
  FPM.addPass(llvm::InstCombinePass());
  FPM.addPass(llvm::SimplifyCFGPass());
  // On NVPTX a second round: simplifycfg has turned the transform's
  // `if (any(m)) { mask updates }` into selects on the vote, which go now.
  if (TM.getTargetTriple().isNVPTX()) {
    FPM.addPass(WarpVoteSimplifyPass());
    FPM.addPass(llvm::InstCombinePass());
    FPM.addPass(llvm::SimplifyCFGPass());
  }
  // x86 without scatter instructions: a mask test and a scalar address per lane (after
  // instcombine, which would turn the tests of the mask's bits back into extracts).
  FPM.addPass(LaneStoreScattersPass());
  // Last (instcombine would fold it back): on SSE4/AVX2 mask logic runs on
  // lane-wide integers, as ISPC's does; AVX-512 keeps masks in mask registers.
  const llvm::Triple &TT = TM.getTargetTriple();
  // NVPTX: loop strength reduction here, on the loops where it pays, instead of
  // code generation's on every loop (turned off in writeModule).
  if (TT.isNVPTX())
    FPM.addPass(NVPTXLoopStrengthReducePass());
  const bool NoMaskRegisters = TT.isX86() && !TM.getTargetCPU().contains("avx512") &&
                               !TM.getTargetFeatureString().contains("+avx512f");
  FPM.addPass(WideMasksPass(NoMaskRegisters));
  // Also last: AVX2's votes on masks by movmsk and a compare, not vtestps.
  FPM.addPass(X86MovmskVotesPass(NoMaskRegisters && TM.getMCSubtargetInfo()->checkFeatures("+avx2")));
}
} // namespace

void optimizeModule(llvm::Module &M, llvm::TargetMachine &TM, unsigned OptLevel) {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB(&TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  // After every instcombine of the pipeline (so after inlining has exposed the
  // callers' allocas behind pointer parameters): masked stores into private stack
  // memory become blends, which the pipeline's later SROA promotes to registers.
  // NVPTX: guarded lane values that only a select on their own lane test
  // reads lose their freeze, which would block instcombine and simplifycfg.
  const bool NVPTX = TM.getTargetTriple().isNVPTX();
  PB.registerPeepholeEPCallback(
      [NVPTX](llvm::FunctionPassManager &FPM, llvm::OptimizationLevel) {
        FPM.addPass(PrivateMaskedStoresPass());
        if (NVPTX)
          FPM.addPass(MaskedMergeUnfreezePass());
      });
  // NVPTX: at most 4 copies of a loop's body in partial and runtime unrolling,
  // nvcc's choice for the same loops. A warp runs a runtime-unrolled loop until
  // its slowest thread is done with both the unrolled part and the remainder,
  // so where the threads' trip counts differ (a vertex's edges, an array's
  // length per thread) each copy more costs them all; LLVM's NVPTX default made
  // 8 copies of the connected components' edge loop (0.92-0.94x of the naive
  // CUDA loop, 1.00-1.01x with 4: docs/gpu.md).
  if (NVPTX)
    limitRuntimeUnrolling(4);
  // NVPTX: the loops as nvcc shapes them (ordered exits, exit values left alone), where
  // LLVM's defaults give ptxas slower SASS.
  setNVPTXLoopTransforms(NVPTX);
  llvm::OptimizationLevel Level = OptLevel == 0   ? llvm::OptimizationLevel::O0
                                  : OptLevel == 1 ? llvm::OptimizationLevel::O1
                                  : OptLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager MPM = Level == llvm::OptimizationLevel::O0
                                    ? PB.buildO0DefaultPipeline(Level)
                                    : PB.buildPerModuleDefaultPipeline(Level);
  // -O0 too drops what nothing reads: the standard library's constant tables (ldexp's
  // 2^k, stdlib/library.spmd) would otherwise land in every -O0 object.
  if (Level == llvm::OptimizationLevel::O0)
    MPM.addPass(llvm::GlobalDCEPass());
  MPM.run(M, MAM);
  llvm::FunctionPassManager FPM;
  if (Level != llvm::OptimizationLevel::O0)
    addCleanupPasses(FPM, TM);
  // After the last instcombine, at every level (instcombine would fold it
  // back): ptxas's 16-bit negate.
  if (NVPTX)
    FPM.addPass(NVPTXNegate16Pass());
  llvm::ModulePassManager Cleanup;
  Cleanup.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(FPM)));
  // NVPTX: callees that every caller hands global addresses load and store
  // through the global space, as the kernels do (after instcombine, which
  // would fold the casts to the global space and back away).
  if (NVPTX && Level != llvm::OptimizationLevel::O0) {
    Cleanup.addPass(NVPTXGlobalPointerArgsPass());
    Cleanup.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::InferAddressSpacesPass()));
  }
  Cleanup.run(M, MAM);
}

bool writeModule(llvm::Module &M, llvm::TargetMachine &TM, OutputKind Kind, const std::string &Path,
                 DiagnosticEngine &Diags) {
  std::error_code EC;
  bool Binary = Kind == OutputKind::LLVMBitcode || Kind == OutputKind::Object;
  llvm::raw_fd_ostream OS(Path, EC, Binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
  if (EC) {
    Diags.errorNoLoc("cannot write '" + Path + "': " + EC.message());
    return false;
  }
  switch (Kind) {
  case OutputKind::LLVMText:
    M.print(OS, nullptr);
    return true;
  case OutputKind::LLVMBitcode:
    llvm::WriteBitcodeToFile(M, OS);
    return true;
  case OutputKind::Assembly:
  case OutputKind::Object: {
    llvm::legacy::PassManager PM;
    // NVPTX: optimizeModule ran loop strength reduction where it pays; code
    // generation must not run it again on every loop.
    setCodeGenLoopStrengthReduction(!TM.getTargetTriple().isNVPTX());
    auto FileType = Kind == OutputKind::Object ? llvm::CodeGenFileType::ObjectFile
                                               : llvm::CodeGenFileType::AssemblyFile;
    if (TM.addPassesToEmitFile(PM, OS, nullptr, FileType)) {
      Diags.errorNoLoc("LLVM cannot emit this file type for the target");
      return false;
    }
    PM.run(M);
    return true;
  }
  }
  return false;
}

} // namespace spmdc
