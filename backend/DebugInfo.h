// Debug information for -g: where each instruction came from in the user's source.
#pragma once

#include "frontend/SourceLocation.h"

#include "llvm/IR/DIBuilder.h"

#include <map>
#include <string>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace spmdc {

/// What -g and --dwarf-version ask for.
struct DebugInfoOptions {
  bool Enabled = false;
  unsigned DwarfVersion = 4;
};

namespace emitter {

/// Line tables (clang's -gline-tables-only): a compile unit, a subprogram for
/// each user function, a location for each instruction. No variables or types:
/// enough for a debugger's breakpoints and backtraces and for `perf annotate`.
/// On NVPTX only `.loc` directives (nvcc's -lineinfo), which ptxas accepts
/// without -g and which profilers map back to the source.
class DebugInfoEmitter {
public:
  DebugInfoEmitter(llvm::Module &M, const DebugInfoOptions &Opts, bool GPU,
                   const std::string &MainFile);

  /// Gives `F` a subprogram at `Loc` (the declaration) named `Name`.
  llvm::DISubprogram *describeFunction(llvm::Function &F, const std::string &Name, SourceLoc Loc);
  /// The location of `Loc` inside `SP`; SP's own line where `Loc` is unknown.
  llvm::DILocation *location(llvm::DISubprogram *SP, SourceLoc Loc);
  /// Resolves the metadata; call once after the last function.
  void finalize() { DIB.finalize(); }

private:
  llvm::DIFile *file(const std::string &Path);

  llvm::DIBuilder DIB;
  llvm::DICompileUnit *CU;
  std::map<std::string, llvm::DIFile *> Files;
};

} // namespace emitter
} // namespace spmdc
