// Writes the SPMD IR as text (`spmdc --emit=spmd-ir`), one op per line.
#pragma once

#include "frontend/AST.h"

namespace llvm {
class raw_ostream;
}

namespace spmdc::ir {

class Module;

/// The source spelling of a launch or lane built-in (`taskIndex`, ...).
const char *builtinName(BuiltinVar B);

/// Prints every function with a body (stdlib declarations are left out unless
/// `IncludeStdlib`); values are numbered per function as %0, %1, ...
void printModule(Module &M, llvm::raw_ostream &OS, bool IncludeStdlib = false);

} // namespace spmdc::ir
