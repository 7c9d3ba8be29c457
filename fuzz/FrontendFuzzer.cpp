// libFuzzer entry point: runs spmdc's lexer, parser and sema on arbitrary bytes.
//
// The input goes in raw, without the C preprocessor: clang's preprocessor is
// fuzzed upstream, and what reaches our parser from it is text like any other.
// Any crash, hang, sanitizer report or assertion is a bug (SPEC section 5);
// diagnostics are the expected outcome for most inputs and are discarded.
//
// Each input gets what a compilation gets: a fresh SourceManager, diagnostic
// engine and ASTContext, the standard library prelude (see docs/decisions.md
// for the measurement behind parsing it on every input), then the input as
// "fuzz.spmd" and, if it parsed cleanly, sema for avx2-i32x8.
// SPMDC_FUZZ_PRELUDE=0 in the environment skips the prelude.
#include "backend/TargetInfo.h"
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "frontend/SourceManager.h"
#include "stdlib/Stdlib.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace {

/// The prelude is parsed per input unless it cannot be parsed raw (it would then
/// need the preprocessor) or the user turned it off.
bool UsePrelude = true;

const spmdc::TargetInfo &fuzzTarget() {
  static const spmdc::TargetInfo Target = *spmdc::lookupTarget("avx2-i32x8");
  return Target;
}

/// Parses the stdlib prelude into Ctx as the driver does; false on errors.
bool parsePrelude(spmdc::ASTContext &Ctx, spmdc::DiagnosticEngine &Diags) {
  const std::string Name = "<stdlib>";
  Diags.getSourceManager().addBuffer(Name, spmdc::StdlibSource);
  spmdc::parseSource(spmdc::StdlibSource, Name, Ctx, Diags, /*IsStdlib=*/true);
  return !Diags.hasErrors();
}

/// One compilation of `Text` up to and including sema.
void compile(const std::string &Text, llvm::raw_ostream &DiagOut) {
  spmdc::SourceManager SM;
  spmdc::DiagnosticEngine Diags(SM, DiagOut);
  spmdc::ASTContext Ctx;
  if (UsePrelude && !parsePrelude(Ctx, Diags))
    return;
  const std::string Name = "fuzz.spmd";
  SM.addBuffer(Name, Text);
  spmdc::parseSource(Text, Name, Ctx, Diags);
  if (!Diags.hasErrors())
    spmdc::checkTranslationUnit(Ctx, Diags, fuzzTarget());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  if (const char *Env = std::getenv("SPMDC_FUZZ_PRELUDE"))
    UsePrelude = std::strcmp(Env, "0") != 0;
  if (!UsePrelude)
    return 0;
  // A prelude that does not parse raw would make every input stop before the
  // user's text: say so once and fuzz without it rather than fuzz nothing.
  spmdc::SourceManager SM;
  spmdc::DiagnosticEngine Diags(SM, llvm::errs());
  spmdc::ASTContext Ctx;
  if (!parsePrelude(Ctx, Diags) ||
      !spmdc::checkTranslationUnit(Ctx, Diags, fuzzTarget())) {
    llvm::errs() << "spmdc-fuzz-frontend: the stdlib prelude does not check cleanly without "
                    "the preprocessor; fuzzing without it\n";
    UsePrelude = false;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  compile(std::string(reinterpret_cast<const char *>(Data), Size), llvm::nulls());
  return 0;
}
