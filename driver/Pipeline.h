// The whole compiler in order: read, preprocess, parse, check, (lower, transform, emit).
#pragma once

#include "backend/CodeGen.h"

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace spmdc {

class DiagnosticEngine;
struct CompilerOptions;

/// How one target's compilation of a multi-target build (driver/MultiTarget.cpp) differs from
/// a plain one: its externally visible functions carry a suffix ("_avx2"), and only one
/// target defines the global variables (the others refer to its definitions).
struct TargetVariant {
  std::string Suffix;
  bool DefinesGlobals = true;
  /// A second header to write (the dispatching object's), empty for none.
  std::string ExtraHeader;
  /// Called with the target's finished LLVM module (symbols renamed) and the C names of its
  /// export functions (without the suffix), before the module is written; false (after
  /// reporting to the engine) stops the compilation.
  std::function<bool(llvm::Module &, const std::vector<std::string> &, OutputKind,
                     DiagnosticEngine &)>
      OnModule;
};

/// Runs one compilation; returns the process exit status (0 ok, 1 errors). A --target list
/// builds one object per target plus the dispatching one.
int runCompiler(const CompilerOptions &Opts);

/// Compiles for the single target Opts.Target; `Variant` (may be null) for multi-target builds.
int compileForTarget(const CompilerOptions &Opts, const TargetVariant *Variant);

} // namespace spmdc
