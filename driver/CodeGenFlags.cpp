// ISPC's code-generation flags on spmdc's LLVM module and target machine: --cpu, --pic,
// --mcmodel, --x86-asm-syntax, -ffunction-sections, --no-omit-frame-pointer, --stack-protector,
// --opt=fast-math, --opt=disable-assertions, --opt=disable-loop-unroll, --opt=disable-zmm.
#include "driver/CodeGenFlags.h"

#include "driver/IspcFlags.h"
#include "driver/Options.h"
#include "frontend/Diagnostics.h"
#include "target/TargetInfo.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace spmdc {

namespace {

/// The features a CPU needs to run each x86 ISA (what ISPC's target names promise).
const char *requiredFeatures(const std::string &ISA) {
  if (ISA == "sse4")
    return "+sse4.2";
  if (ISA == "avx2")
    return "+avx2,+fma";
  return "+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx512cd";
}

/// True if LLVM's CPU `Cpu` has every feature of the ISA.
bool cpuRuns(const std::string &Cpu, const std::string &ISA) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargetMCs();
  llvm::Triple TT("x86_64-unknown-linux-gnu");
  std::string Error;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(TT, Error);
  if (!T)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> STI(T->createMCSubtargetInfo(TT, Cpu, ""));
  return STI && STI->checkFeatures(requiredFeatures(ISA));
}

} // namespace

std::optional<std::string> resolveDevice(const CompilerOptions &Opts, TargetInfo &Target,
                                         DiagnosticEngine &Diags) {
  if (Opts.Cpu.empty())
    return std::string();
  std::optional<std::string> Cpu = llvmCpuForIspcDevice(Opts.Cpu);
  if (!Cpu) {
    Diags.errorNoLoc("unknown device '" + Opts.Cpu + "' for --cpu/--device (known: " +
                     ispcDeviceNames() + ")");
    return std::nullopt;
  }
  if (Target.isGPU()) {
    Diags.errorNoLoc("--cpu=" + Opts.Cpu + " names an x86 device; the target is " + Target.Name);
    return std::nullopt;
  }
  if (Opts.Target == "host") {
    for (const char *Name : {"avx512skx-x16", "avx2-i32x8", "sse4-i32x4"}) {
      std::optional<TargetInfo> Candidate = lookupTarget(Name);
      if (Candidate && cpuRuns(*Cpu, Candidate->ISA)) {
        Target = *Candidate;
        return Cpu;
      }
    }
  }
  if (!cpuRuns(*Cpu, Target.ISA)) {
    Diags.errorNoLoc("device '" + Opts.Cpu + "' cannot run target " + Target.Name + " (it lacks " +
                     requiredFeatures(Target.ISA) + ")");
    return std::nullopt;
  }
  return Cpu;
}

void selectAsmSyntax(const std::string &Syntax) {
  if (Syntax.empty())
    return;
  // X86's MCAsmInfo takes its dialect (and with it the .intel_syntax directive that lets an
  // assembler read the file) from this option when the target machine is created.
  auto &Registered = llvm::cl::getRegisteredOptions();
  auto It = Registered.find("x86-asm-syntax");
  if (It != Registered.end())
    It->second->addOccurrence(0, "x86-asm-syntax", Syntax);
}

namespace {

/// --opt=fast-math[:mode]: the freedoms ISPC's modes give, as LLVM fast-math flags on every
/// floating-point operation. legacy (the mode of a bare fast-math): division by a constant
/// may become a multiplication by its reciprocal (arcp); balanced adds algebraic
/// rewriting, contraction to fma and ignoring the sign of zero; aggressive also assumes no
/// NaN or infinity and allows approximate functions. Empty: no fast-math option given.
std::optional<llvm::FastMathFlags> fastMathFlags(const std::vector<std::string> &OptFlags) {
  std::optional<llvm::FastMathFlags> Flags;
  for (const std::string &O : OptFlags) {
    if (O != "fast-math" && O.rfind("fast-math:", 0) != 0)
      continue;
    llvm::FastMathFlags F;
    F.setAllowReciprocal();
    if (O == "fast-math:balanced" || O == "fast-math:aggressive") {
      F.setAllowReassoc();
      F.setAllowContract();
      F.setNoSignedZeros();
    }
    if (O == "fast-math:aggressive")
      F.setFast();
    Flags = F; // the last one wins, as with ISPC's options
  }
  return Flags;
}

/// --opt=disable-assertions: every branch into an assertion's failure block (the block that
/// calls spmdc_assert_fail, backend/PrintLowering.cpp) is made to skip it; LLVM's pipeline then
/// removes the check and the block.
void disableAssertions(llvm::Module &M) {
  llvm::Function *Fail = M.getFunction("spmdc_assert_fail");
  if (!Fail)
    return;
  for (llvm::User *U : Fail->users()) {
    auto *Call = llvm::dyn_cast<llvm::CallInst>(U);
    if (!Call)
      continue;
    llvm::BasicBlock *FailBlock = Call->getParent();
    for (llvm::BasicBlock *Pred : llvm::predecessors(FailBlock)) {
      auto *Br = llvm::dyn_cast<llvm::BranchInst>(Pred->getTerminator());
      if (!Br || !Br->isConditional())
        continue;
      bool FailOnTrue = Br->getSuccessor(0) == FailBlock;
      Br->setCondition(llvm::ConstantInt::getBool(M.getContext(), !FailOnTrue));
    }
  }
}

/// --opt=disable-loop-unroll: marks every loop of `F` as not to be unrolled (LLVM's
/// llvm.loop.unroll.disable), which the unroll passes of the pipeline respect.
void disableLoopUnrolling(llvm::Function &F) {
  llvm::DominatorTree Dominators(F);
  llvm::LoopInfo Loops(Dominators);
  for (llvm::Loop *L : Loops.getLoopsInPreorder())
    L->setLoopAlreadyUnrolled();
}

bool hasOptFlag(const CompilerOptions &Opts, const char *Flag) {
  return std::find(Opts.OptFlags.begin(), Opts.OptFlags.end(), Flag) != Opts.OptFlags.end();
}

} // namespace

void applyCodeGenFlags(llvm::Module &M, llvm::TargetMachine &TM, const CompilerOptions &Opts,
                       const std::string &TuneCpu) {
  // The objects are always position independent (the target machine uses Reloc::PIC_), so
  // --pic needs nothing here.
  if (Opts.CodeModel == "large")
    TM.setCodeModel(llvm::CodeModel::Large);
  TM.Options.FunctionSections = Opts.FunctionSections;
  if (hasOptFlag(Opts, "disable-assertions"))
    disableAssertions(M);
  bool NoUnrolling = hasOptFlag(Opts, "disable-loop-unroll");
  bool NoZmm = hasOptFlag(Opts, "disable-zmm");
  std::optional<llvm::FastMathFlags> FastMath = fastMathFlags(Opts.OptFlags);
  for (llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (NoUnrolling)
      disableLoopUnrolling(F);
    // --opt=disable-zmm: AVX-512 instructions on ymm registers only; X86 splits the 16-wide
    // vectors in two when no function needs wider ones.
    if (NoZmm) {
      F.addFnAttr("prefer-vector-width", "256");
      F.addFnAttr("min-legal-vector-width", "256");
    }
    if (FastMath)
      for (llvm::Instruction &I : llvm::instructions(F))
        if (llvm::isa<llvm::FPMathOperator>(I))
          I.setFastMathFlags(*FastMath);
    // The target's ISA decides the instructions; the device only the scheduling.
    if (!TuneCpu.empty())
      F.addFnAttr("tune-cpu", TuneCpu);
    if (Opts.NoOmitFramePointer)
      F.addFnAttr("frame-pointer", "all");
    if (Opts.StackProtector == "on")
      F.addFnAttr(llvm::Attribute::StackProtect);
    else if (Opts.StackProtector == "strong")
      F.addFnAttr(llvm::Attribute::StackProtectStrong);
    else if (Opts.StackProtector == "all")
      F.addFnAttr(llvm::Attribute::StackProtectReq);
  }
}

} // namespace spmdc
