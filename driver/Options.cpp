// The spmdc command line, shaped like ISPC's: parsed into CompilerOptions.
#include "driver/Options.h"

#include "driver/IspcFlags.h"
#include "ir/Coarsening.h"
#include "ir/HorizontalFusion.h"
#include "ir/VerticalFusion.h"
#include "target/TargetInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

namespace spmdc {

static llvm::Error fail(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

static std::optional<EmitKind> parseEmit(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<EmitKind>>(Name)
      .Case("pp", EmitKind::Preprocessed)
      .Case("ast", EmitKind::Ast)
      .Case("spmd-ir", EmitKind::SpmdIR)
      .Case("spmd-ir-masked", EmitKind::SpmdIRMasked)
      .Case("llvm", EmitKind::LLVMText)
      .Case("bc", EmitKind::LLVMBitcode)
      .Case("asm", EmitKind::Asm)
      .Case("obj", EmitKind::Object)
      .Case("ptx", EmitKind::PTX)
      .Default(std::nullopt);
}

llvm::Expected<CompilerOptions> parseCommandLine(int Argc, const char *const *Argv) {
  CompilerOptions O;
  bool SawInput = false;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A(Argv[I]);
    // Options that take a value either glued (-DX, --target=x) or as the next word.
    auto Value = [&](llvm::StringRef Flag, std::string &Out) -> llvm::Expected<bool> {
      if (A == Flag) {
        if (I + 1 >= Argc)
          return fail("option '" + Flag + "' needs a value" +
                      (Flag == "-h" ? " (the header file to write; --help prints the help)" : ""));
        Out = Argv[++I];
        return true;
      }
      llvm::StringRef Rest = A;
      if (Rest.consume_front(Flag)) {
        if (Flag.starts_with("--")) {
          if (!Rest.consume_front("="))
            return false;
        }
        if (Rest.empty())
          return fail("option '" + Flag + "' needs a value");
        Out = Rest.str();
        return true;
      }
      return false;
    };
    std::string V;
    auto Try = [&](llvm::StringRef Flag) -> llvm::Expected<bool> { return Value(Flag, V); };

#define TRY_VALUE(FLAG, ACTION)                                                                    \
  {                                                                                                \
    auto R = Try(FLAG);                                                                            \
    if (!R)                                                                                        \
      return R.takeError();                                                                        \
    if (*R) {                                                                                      \
      ACTION;                                                                                      \
      continue;                                                                                    \
    }                                                                                              \
  }

    if (A == "--help" || A == "-help") {
      O.ShowHelp = true;
      continue;
    }
    if (A == "--version" || A == "-v") {
      O.ShowVersion = true;
      continue;
    }
    if (A == "--print-host-targets") {
      O.PrintHostTargets = true;
      continue;
    }
    if (A == "--nocpp") {
      O.NoPreprocessor = true;
      continue;
    }
    if (A == "--syntax-only" || A == "-fsyntax-only") {
      O.SyntaxOnly = true;
      continue;
    }
    if (A == "--emit-llvm") {
      O.Emit = EmitKind::LLVMBitcode;
      O.EmitKindGiven = true;
      continue;
    }
    if (A == "--emit-llvm-text") {
      O.Emit = EmitKind::LLVMText;
      O.EmitKindGiven = true;
      continue;
    }
    if (A == "--emit-asm") {
      O.Emit = EmitKind::Asm;
      O.EmitKindGiven = true;
      continue;
    }
    if (A == "--emit-obj") {
      O.Emit = EmitKind::Object;
      O.EmitKindGiven = true;
      continue;
    }
    if (A == "-E") {
      O.Emit = EmitKind::Preprocessed;
      O.EmitKindGiven = true;
      continue;
    }
    if (A == "--dump-stdlib") {
      O.DumpStdlib = true;
      continue;
    }
    if (A == "--opt=disable-fma") {
      O.DisableFMA = true;
      continue;
    }
    if (A == "--werror") {
      O.WarningsAsErrors = true;
      continue;
    }
    if (A == "--quiet") { // ISPC: no warnings (errors still show: a failed build must say why)
      O.Warnings = false;
      continue;
    }
    if (A == "--pic" || A == "--PIC") {
      O.PIC = true;
      continue;
    }
    if (A == "-M") {
      O.DepsMakeRule = true;
      continue;
    }
    if (A == "-ffunction-sections" || A == "-fno-function-sections") {
      O.FunctionSections = A == "-ffunction-sections";
      continue;
    }
    if (A == "--no-omit-frame-pointer") {
      O.NoOmitFramePointer = true;
      continue;
    }
    if (A == "--no-pragma-once") {
      O.NoPragmaOnce = true;
      continue;
    }
    if (A == "--stack-protector") {
      O.StackProtector = "on";
      continue;
    }
    // ISPC options with no effect on spmdc's output (docs/cli.md says why).
    if (A == "--colored-output" || A == "--wrap-signed-int" || A == "--no-wrap-signed-int" ||
        A == "--internal-export-functions" || A == "--no-internal-export-functions" ||
        A == "--include-float16-conversions" || A == "--no-vectorcall")
      continue;
    if (A == "--help-dev") {
      O.ShowHelp = true;
      continue;
    }
    if (A == "--support-matrix") {
      O.PrintTargets = true;
      continue;
    }
    {
      llvm::StringRef Flag = A.split('=').first;
      if (std::optional<std::string> Why = unsupportedIspcOption(Flag))
        return fail("ISPC option '" + Flag + "' is not supported: " + *Why);
    }
    if (A == "--no-variability-analysis") {
      O.VariabilityAnalysis = false;
      continue;
    }
    if (A == "--no-simt-branches") {
      O.SimtBranches = false;
      continue;
    }
    if (A == "-g") {
      O.DebugInfo = true;
      continue;
    }
    if (A == "-w" || A == "--woff") {
      O.Warnings = false;
      continue;
    }
    if (A == "--double-literals") {
      O.Lang.DoubleLiterals = true;
      continue;
    }
    if (A == "--warn-uniform-store-under-varying") {
      O.Lang.WarnUniformStoreUnderVarying = true;
      continue;
    }
    if (A == "-Wno-perf" || A == "--wno-perf") {
      O.PerfWarnings = false;
      continue;
    }
    if (A.size() == 3 && A.starts_with("-O") && A[2] >= '0' && A[2] <= '3') {
      O.OptLevel = A[2] - '0';
      continue;
    }
    if (A == "-O") {
      O.OptLevel = 2;
      continue;
    }
    TRY_VALUE("--target", O.Target = V)
    TRY_VALUE("--arch", {
      if (V != "x86-64" && V != "x86_64")
        return fail("--arch=" + V + " is not supported: spmdc builds x86-64 objects (and NVPTX "
                                    "with --target=nvptx)");
    })
    TRY_VALUE("--target-os", {
      if (V != "linux")
        return fail("--target-os=" + V + " is not supported: spmdc builds for linux");
    })
    TRY_VALUE("--cpu", O.Cpu = V)
    TRY_VALUE("--device", O.Cpu = V)
    TRY_VALUE("--opt", {
      if (!isIspcOptFlag(V))
        return fail("unknown --opt value '" + V + "' (see --help)");
      if (V == "disable-fma")
        O.DisableFMA = true;
      else
        O.OptFlags.push_back(V);
    })
    TRY_VALUE("--addressing", {
      if (V != "32" && V != "64")
        return fail("--addressing=" + V + ": only 32 and 64 are allowed");
      O.Addressing = V == "32" ? 32 : 64;
    })
    TRY_VALUE("--x86-asm-syntax", {
      if (V != "intel" && V != "att")
        return fail("unknown --x86-asm-syntax value '" + V + "' (expected intel or att)");
      O.AsmSyntax = V;
    })
    TRY_VALUE("--mcmodel", {
      if (V != "small" && V != "large")
        return fail("unknown --mcmodel value '" + V + "' (expected small or large)");
      O.CodeModel = V;
    })
    TRY_VALUE("--stack-protector", {
      if (V != "on" && V != "strong" && V != "all" && V != "none")
        return fail("unknown --stack-protector value '" + V +
                    "' (expected on, strong, all or none)");
      O.StackProtector = V;
    })
    TRY_VALUE("--dwarf-version", {
      if (V != "2" && V != "3" && V != "4" && V != "5")
        return fail("--dwarf-version=" + V + ": expected 2, 3, 4 or 5");
      O.DebugInfo = true;
      O.DwarfVersion = static_cast<unsigned>(std::stoul(V));
    })
    TRY_VALUE("--force-alignment", {
      unsigned N;
      if (llvm::StringRef(V).getAsInteger(10, N) || N == 0 || (N & (N - 1)))
        return fail("--force-alignment needs a power of two, not '" + V + "'");
    })
    TRY_VALUE("--outfile", O.Output = V)
    TRY_VALUE("-MF", O.DepFile = V)
    TRY_VALUE("-MT", O.DepTarget = V)
    TRY_VALUE("-MMM", O.DepList = V)
    TRY_VALUE("--emit", {
      auto K = parseEmit(V);
      if (!K)
        return fail("unknown --emit kind '" + V +
                    "' (expected pp, ast, spmd-ir, spmd-ir-masked, llvm, bc, asm, obj or ptx)");
      O.Emit = *K;
      O.EmitKindGiven = true;
    })
    TRY_VALUE("--error-limit", {
      unsigned N;
      if (llvm::StringRef(V).getAsInteger(10, N))
        return fail("--error-limit needs a number, not '" + V + "'");
      O.ErrorLimit = N;
    })
    TRY_VALUE("--math-lib", {
      if (V == "svml")
        return fail("--math-lib=svml needs Intel's Short Vector Math Library, which spmdc does "
                    "not link; use default, fast, accurate or system");
      if (V != "default" && V != "fast" && V != "accurate" && V != "system")
        return fail("unknown --math-lib value '" + V +
                    "' (expected default, fast, accurate, svml or system)");
      O.MathLib = V;
    })
    TRY_VALUE("--hfuse-config", O.HFuseConfig = V)
    TRY_VALUE("--hfuse", {
      std::string Problem;
      if (!ir::parseFusionSpec(V, Problem))
        return fail("--hfuse=" + V + ": " + Problem);
      O.HFuse.push_back(V);
    })
    TRY_VALUE("--vfuse", {
      std::string Problem;
      size_t At = 0;
      if (!ir::parseVerticalFusionSpec(V, Problem, At))
        return fail("--vfuse=" + V + ": " + Problem);
      O.VFuse.push_back(V);
    })
    if (A == "--vfuse-report") {
      O.VFuseReport = true;
      continue;
    }
    TRY_VALUE("--coarsen", {
      std::string Problem;
      size_t At = 0;
      if (!ir::parseCoarsenSpec(V, Problem, At))
        return fail("--coarsen=" + V + ": " + Problem);
      O.Coarsen.push_back(V);
    })
    TRY_VALUE("-o", O.Output = V)
    // Only "-h <file>": a glued "-hxyz" is far more likely a mistyped -help.
    if (A == "-h")
      TRY_VALUE("-h", O.HeaderOutput = V)
    TRY_VALUE("--header-outfile", O.HeaderOutput = V)
    TRY_VALUE("-D", O.PP.Macros.push_back({V, /*Undefine=*/false}))
    TRY_VALUE("-U", O.PP.Macros.push_back({V, /*Undefine=*/true}))
    TRY_VALUE("-I", O.PP.IncludeDirs.push_back(V))
#undef TRY_VALUE

    if (A.starts_with("-") && A != "-")
      return fail("unknown option '" + A + "' (see --help)");
    if (SawInput)
      return fail("more than one input file ('" + O.Input + "' and '" + A + "')");
    O.Input = A.str();
    SawInput = true;
  }
  if (!SawInput && !O.ShowHelp && !O.ShowVersion && !O.PrintHostTargets && !O.PrintTargets)
    return fail("no input file (see --help)");
  return O;
}

void printVersion(llvm::raw_ostream &OS) {
  OS << "spmdc version 0.1.0 (LLVM " << LLVM_VERSION_STRING << ")\n";
  // CMake's ISPC language reads the version from this spelling (CMakeDetermineCompilerId).
  OS << "A drop-in for Intel(r) Implicit SPMD Program Compiler (Intel(r) ISPC), 1.32.0: its "
        "command line, header and task ABI\n";
}

void printHelp(llvm::raw_ostream &OS) {
  OS << "usage: spmdc [options] <file.spmd | ->\n\n"
        "Compiles an SPMD program (ISPC-style, with everywhere/crev) for x86 SIMD or NVPTX.\n"
        "'-' reads the program from standard input.\n\n"
        "target and output:\n"
        "  --target=<t>, --target <t>\n"
        "                      compilation target (default host, the widest x86 target this\n"
        "                      CPU runs; nvptx means nvptx-sm_90):\n"
        "                     ";
  for (const std::string &T : targetNames())
    OS << ' ' << T;
  OS << "\n"
        "                      a comma-separated list (--target=sse4-i32x4,avx2-i32x8) builds\n"
        "                      one object per target (<out>_sse4.o ...) and <out> itself,\n"
        "                      which calls the best one this CPU runs (docs/ecosystem.md)\n"
        "  --arch=x86-64       the only x86 architecture (ISPC's --arch)\n"
        "  --target-os=linux   the only operating system\n"
        "  --cpu=<device>, --device=<device>\n"
        "                      tune for ISPC's device <device> (skx, haswell, znver4, ...); it\n"
        "                      must run the target's ISA; alone, it picks the widest target\n"
        "  -o <file>, --outfile=<file>\n"
        "                      output file ('-' or none: standard output for text)\n"
        "  -h <file>, --header-outfile=<file>\n"
        "                      write a C/C++ header for the exported functions\n"
        "  -E                  preprocess only: write the preprocessed text and stop\n"
        "  --nocpp             do not run the C preprocessor (the lexer sees the file as is)\n"
        "  --syntax-only, -fsyntax-only\n"
        "                      check the program and stop\n"
        "  --emit=<kind>       pp | ast | spmd-ir | spmd-ir-masked | llvm | bc | asm | obj | ptx\n"
        "                      (pp is -E; spmd-ir is before the divergence transform,\n"
        "                      spmd-ir-masked after it; llvm is LLVM IR text, bc bitcode)\n"
        "  --emit-llvm         LLVM bitcode (same as --emit=bc)\n"
        "  --emit-llvm-text    LLVM IR text (same as --emit=llvm)\n"
        "  --emit-asm          assembly (same as --emit=asm)\n"
        "  --emit-obj          object file (same as --emit=obj, the default)\n"
        "  --dump-stdlib       with --emit=ast, also dump the standard library prelude\n"
        "  --no-pragma-once    the header uses an #ifndef guard instead of #pragma once\n"
        "  -M                  write a make rule of the files read (to -MF, else stdout)\n"
        "  -MF <file>          with -M: the dependency file\n"
        "  -MT <target>        with -M: the rule's target (default: the object file)\n"
        "  -MMM <file>         write every file read, one per line\n"
        "  @<file>             read more arguments from <file>\n"
        "\n"
        "code generation:\n"
        "  -O0 .. -O3, -O      optimization level (default -O2; -O is -O2)\n"
        "  -g, --dwarf-version=<n>\n"
        "                      line tables (DWARF <n>, default 4): source lines for\n"
        "                      debuggers and perf; NVPTX: .loc lines, as nvcc -lineinfo\n"
        "  --opt=disable-fma   NVPTX: do not contract a*b+c into fma (the default there, as\n"
        "                      nvcc); x86 targets never contract, so all agree bit for bit\n"
        "  --opt=fast-math[:legacy|balanced|aggressive]\n"
        "                      x86: ISPC's non-IEEE freedoms as LLVM fast-math flags\n"
        "  --opt=disable-assertions\n"
        "                      x86: remove the assert checks\n"
        "  --opt=disable-loop-unroll\n"
        "                      x86: loops are not unrolled\n"
        "  --opt=disable-zmm   avx512skx-x16: ymm registers only\n"
        "  --opt=<o>           ISPC's other --opt values (disable-gathers, disable-scatters,\n"
        "                      force-aligned-memory, ...): accepted without effect yet\n"
        "  --math-lib=<lib>    transcendental functions: default (spmdc's vector kernels),\n"
        "                      fast (the same kernels), accurate (float kernels below 1 ulp,\n"
        "                      slower), system (the C library's, called once per active\n"
        "                      lane; x86 only), svml (refused: not linked)\n"
        "  --pic, --PIC        position-independent code (spmdc's objects always are)\n"
        "  --addressing=32|64  ISPC's index width for address arithmetic (spmdc uses 64)\n"
        "  --x86-asm-syntax=intel|att\n"
        "                      the syntax of --emit-asm (default att)\n"
        "  --mcmodel=small|large\n"
        "                      the code model (default small)\n"
        "  -ffunction-sections, -fno-function-sections\n"
        "                      each function in its own section (default off)\n"
        "  --no-omit-frame-pointer\n"
        "                      keep the frame pointer in every function\n"
        "  --stack-protector[=on|strong|all|none]\n"
        "                      stack protectors, as ISPC and gcc\n"
        "  --no-variability-analysis\n"
        "                      keep declared variability (no uniform/affine rewrite)\n"
        "  --no-simt-branches  NVPTX: turn every varying branch into masks (no\n"
        "                      per-thread branches; to compare)\n"
        "\n"
        "preprocessor:\n"
        "  -D<name>[=<value>], -D <name>[=<value>]\n"
        "                      define a macro (value 1 when none is given)\n"
        "  -U<name>, -U <name> undefine a macro; -D and -U apply in command-line order\n"
        "  -I<dir>, -I <dir>   add a directory to the #include search path; \"...\" includes\n"
        "                      search the including file's directory first\n"
        "\n"
        "horizontal fusion (docs/hfuse.md):\n"
        "  --hfuse=A,B[,C...][:gA,gB...][:maxnreg=R]\n"
        "                      also build kernel hfuse_A_B from kernels A and B: gX gangs\n"
        "                      (GPU warps) per block run X (default 4 each); repeatable\n"
        "  --hfuse-config=<file>\n"
        "                      fusions one per line in the --hfuse syntax ('#' comments)\n"
        "\n"
        "vertical fusion (docs/fusion.md):\n"
        "  --vfuse=A,B[,C...][:temp=y[,t...]][:compose=block|warp]\n"
        "                      also build kernel vfuse_A_B, which does A then B per element:\n"
        "                      what A writes and B reads stays in registers (or, read at\n"
        "                      neighbouring indices, in a tile with a recomputed halo, or\n"
        "                      in a window of registers read by lane shuffles); the\n"
        "                      temporaries are not parameters and never stored; compose\n"
        "                      overrides the cost model's composition; repeatable\n"
        "  --vfuse-report       print each vertical fusion's merged loops, intermediates\n"
        "                      kept in registers or tiles and the cost model's estimate\n"
        "  --coarsen=K:F, --coarsen=K:block=F\n"
        "                      thread coarsening (each program instance does F items per\n"
        "                      step of K's foreach loops) or block coarsening (each block\n"
        "                      does the work of F blocks); repeatable\n"
        "\n"
        "diagnostics:\n"
        "  -w, --woff, --quiet no warnings\n"
        "  --werror            warnings are errors\n"
        "  -Wno-perf, --wno-perf\n"
        "                      no performance warnings (also #pragma ignore warning(perf))\n"
        "  --error-limit=<n>   stop after n errors (default 20, 0: no limit)\n"
        "  --warn-uniform-store-under-varying\n"
        "                      warn where a uniform variable is assigned under varying\n"
        "                      control flow (stored when any lane is active, as ISPC)\n"
        "\n"
        "language:\n"
        "  --double-literals   unsuffixed floating literals are double (C), not float (ISPC)\n"
        "\n"
        "  --print-host-targets\n"
        "                      list the x86 targets this CPU can run and exit\n"
        "  --support-matrix    list every target spmdc builds for and exit\n"
        "  --colored-output, --[no-]wrap-signed-int, --[no-]internal-export-functions,\n"
        "  --include-float16-conversions, --force-alignment=<n>\n"
        "                      ISPC options accepted without effect (docs/cli.md)\n"
        "  --version, -v       print the version and exit\n"
        "  --help, -help       print this help and exit\n";
}

} // namespace spmdc
