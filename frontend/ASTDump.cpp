// PLACEHOLDER until the real dumper lands (helper: parser).
#include "frontend/ASTDump.h"
namespace spmdc {
void dumpAST(const TranslationUnit &, llvm::raw_ostream &, bool) {}
}
