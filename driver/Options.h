// The spmdc command line, shaped like ISPC's: parsed into CompilerOptions.
#pragma once

#include "frontend/Preprocessor.h"
#include "frontend/LanguageOptions.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace spmdc {

/// What the compiler writes. Preprocessed (-E) stops after the preprocessor,
/// Ast and None after the front end.
enum class EmitKind {
  None,
  Preprocessed,
  Ast,
  SpmdIR,       ///< the SPMD IR as lowered, before the divergence transform
  SpmdIRMasked, ///< the SPMD IR after the divergence transform
  LLVMText,
  LLVMBitcode,
  Asm,
  Object,
  PTX
};

struct CompilerOptions {
  std::string Input;        ///< source file, "-" for standard input
  std::string Output;       ///< -o; empty: stdout for text outputs, "<input>.o" for objects
  std::string HeaderOutput; ///< -h
  /// --target: one name, or ISPC's comma-separated list (one object per target plus a
  /// dispatching one, driver/MultiTarget.cpp).
  std::string Target = "host";
  unsigned OptLevel = 2;
  bool DebugInfo = false;     ///< -g: line tables (backend/DebugInfo.h)
  unsigned DwarfVersion = 4; ///< --dwarf-version
  bool DisableFMA =
      false; ///< --opt=disable-fma: no a*b+c contraction on NVPTX (x86 never contracts)
  bool SyntaxOnly = false;
  /// --math-lib: ISPC's default, fast (here the default's kernels), accurate (spmdc's:
  /// the float kernels below 1 ulp), system (libm per lane; x86 only); svml is refused
  /// at parsing (no SVML library is linked).
  std::string MathLib = "default";
  bool NoPreprocessor = false; ///< --nocpp: the source goes to the lexer as it is (ISPC's flag)
  bool EmitKindGiven = false;
  EmitKind Emit = EmitKind::Object;
  bool DumpStdlib = false; ///< --emit=ast also dumps the prelude
  bool Warnings = true;
  bool PerfWarnings = true;
  bool WarningsAsErrors = false; ///< --werror

  // ISPC's code-generation options (docs/cli.md says which change the code and how).
  bool PIC = false;         ///< --pic/--PIC (objects are always position independent)
  std::string Cpu;          ///< --cpu/--device, ISPC's spelling; tunes for that CPU
  std::vector<std::string> OptFlags; ///< --opt= values other than disable-fma, in order
  unsigned Addressing = 32; ///< --addressing=32|64 (ISPC's default is 32)
  std::string AsmSyntax;    ///< --x86-asm-syntax=intel|att ("" is att)
  std::string CodeModel;    ///< --mcmodel=small|large ("" is small)
  bool FunctionSections = false;   ///< -ffunction-sections
  bool NoOmitFramePointer = false; ///< --no-omit-frame-pointer
  std::string StackProtector;      ///< --stack-protector[=on|strong|all|none]
  bool NoPragmaOnce = false;       ///< --no-pragma-once: the header uses #ifndef guards

  // Dependency output, as ISPC writes it (driver/DependencyFile.cpp).
  bool DepsMakeRule = false; ///< -M: a make rule (to -MF's file, else standard output)
  std::string DepFile;       ///< -MF
  std::string DepTarget;     ///< -MT (default: the object file)
  std::string DepList;       ///< -MMM <file>: every file read, one per line
  /// --no-variability-analysis skips ir/VariabilityAnalysis.cpp (to compare).
  bool VariabilityAnalysis = true;
  /// --no-simt-branches skips ir/SimtBranches.cpp on NVPTX (to compare).
  bool SimtBranches = true;
  unsigned ErrorLimit = 20;
  PreprocessorOptions PP;
  LanguageOptions Lang; ///< --double-literals, --warn-uniform-store-under-varying
  /// --hfuse values in command-line order (syntax checked while parsing).
  std::vector<std::string> HFuse;
  std::string HFuseConfig; ///< --hfuse-config
  /// --vfuse values in command-line order (syntax checked while parsing).
  std::vector<std::string> VFuse;
  bool VFuseReport = false; ///< --vfuse-report
  /// --coarsen values in command-line order (syntax checked while parsing).
  std::vector<std::string> Coarsen;

  bool ShowHelp = false;
  bool ShowVersion = false;
  bool PrintHostTargets = false; ///< list the x86 targets this CPU runs, one per line
  bool PrintTargets = false;     ///< --support-matrix: every target spmdc builds for
};

/// Parses argv. Errors name the offending argument in one line.
llvm::Expected<CompilerOptions> parseCommandLine(int Argc, const char *const *Argv);

void printHelp(llvm::raw_ostream &OS);
void printVersion(llvm::raw_ostream &OS);

} // namespace spmdc
