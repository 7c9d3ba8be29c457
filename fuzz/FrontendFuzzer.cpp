// libFuzzer entry point: runs spmdc's lexer, parser and sema on arbitrary bytes.
//
// The input goes in raw, without the C preprocessor: clang's preprocessor is
// fuzzed upstream, and what reaches our parser from it is text like any other.
// Only the stdlib prelude, which uses macros, is expanded by spmdc's real
// preprocessor, once at start-up; each input then parses that expansion.
// Any crash, hang, sanitizer report or assertion is a bug (SPEC section 5);
// diagnostics are the expected outcome for most inputs and are discarded.
//
// Each input gets what a compilation gets: a fresh SourceManager, diagnostic
// engine and ASTContext, then the input as "fuzz.spmd" and, if it parsed
// cleanly, sema for avx2-i32x8. The standard library prelude is left out by
// default: parsing and checking it costs ~40 ms per input against ~0.1 ms for a
// typical input (docs/fuzzing.md); SPMDC_FUZZ_PRELUDE=1 in the environment
// puts it in front of every input, as the driver does.
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/Preprocessor.h"
#include "frontend/Sema.h"
#include "frontend/SourceManager.h"
#include "stdlib/Stdlib.h"
#include "target/TargetInfo.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace {

/// Whether each input is preceded by the prelude (SPMDC_FUZZ_PRELUDE=1 and it
/// checked cleanly at start-up).
bool UsePrelude = false;
/// stdlib/stdlib.spmd after the preprocessor, with line markers for "<stdlib>".
std::string PreludeText;
const char *const PreludeName = "<stdlib>";

const spmdc::TargetInfo &fuzzTarget() {
  static const spmdc::TargetInfo Target = *spmdc::lookupTarget("avx2-i32x8");
  return Target;
}

/// Parses the expanded stdlib prelude into Ctx as the driver does; false on errors.
bool parsePrelude(spmdc::ASTContext &Ctx, spmdc::DiagnosticEngine &Diags) {
  Diags.getSourceManager().addBuffer(PreludeName, spmdc::StdlibSource);
  spmdc::parseSource(PreludeText, PreludeName, Ctx, Diags, /*IsStdlib=*/true);
  return !Diags.hasErrors();
}

/// Expands the prelude's macros and checks that it compiles on its own.
bool preparePrelude() {
  spmdc::SourceManager SM;
  spmdc::DiagnosticEngine Diags(SM, llvm::errs());
  SM.addBuffer(PreludeName, spmdc::StdlibSource);
  std::optional<std::string> Text =
      spmdc::preprocess(PreludeName, spmdc::StdlibSource, {}, fuzzTarget(), Diags);
  if (!Text)
    return false;
  PreludeText = std::move(*Text);
  spmdc::ASTContext Ctx;
  return parsePrelude(Ctx, Diags) && spmdc::checkTranslationUnit(Ctx, Diags, fuzzTarget());
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
    UsePrelude = std::strcmp(Env, "1") == 0;
  if (!UsePrelude)
    return 0;
  // A broken prelude would make every input stop before the user's text: say
  // so once and fuzz without it rather than fuzz nothing.
  if (!preparePrelude()) {
    llvm::errs() << "spmdc-fuzz-frontend: the stdlib prelude does not compile (see above); "
                    "fuzzing without it\n";
    UsePrelude = false;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  compile(std::string(reinterpret_cast<const char *>(Data), Size), llvm::nulls());
  return 0;
}
