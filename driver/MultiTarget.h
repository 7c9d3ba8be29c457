// ISPC's multi-target builds: --target=sse4-i32x4,avx2-i32x8 compiles once per target into
// <out>_sse4.o, <out>_avx2.o (symbols suffixed _sse4, _avx2) and writes <out>, whose export
// functions call the best variant for the CPU they run on.
#pragma once

#include "backend/CodeGen.h"

#include <string>

namespace llvm {
class Module;
}

namespace spmdc {

class DiagnosticEngine;
struct CompilerOptions;
struct TargetVariant;
namespace ir {
class Module;
}

/// True if --target names more than one target.
bool isTargetList(const std::string &Target);

/// The whole multi-target build; returns the exit status.
int compileForTargets(const CompilerOptions &Opts);

/// One target's part, after its module is optimized: adds the suffix to every function the
/// module defines for other objects to call (not extern "C" ones), turns the global variable
/// definitions of all but one target into references, and runs the variant's OnModule.
bool finishTargetVariant(llvm::Module &M, const ir::Module &IRM, const TargetVariant &Variant,
                         OutputKind Kind, DiagnosticEngine &Diags);

} // namespace spmdc
