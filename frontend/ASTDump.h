// A readable, indented dump of the checked AST (`spmdc --emit=ast`).
#pragma once

namespace llvm {
class raw_ostream;
}

namespace spmdc {

class TranslationUnit;

/// Writes one line per node, children indented by two spaces, with each
/// expression's type after sema. Declarations of the stdlib prelude are left
/// out unless `IncludeStdlib`.
void dumpAST(const TranslationUnit &TU, llvm::raw_ostream &OS, bool IncludeStdlib = false);

} // namespace spmdc
