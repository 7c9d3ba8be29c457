// The C preprocessor, from clang's Lex library: source text -> text with line markers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spmdc {

class DiagnosticEngine;
struct TargetInfo;

/// One -D or -U option. They are kept in one list because their order matters:
/// `-DX -UX` leaves X undefined, `-UX -DX` defines it.
struct MacroOption {
  std::string Text;      ///< -D: "NAME", "NAME=VALUE" or "NAME(ARGS)=BODY"; -U: "NAME"
  bool Undefine = false; ///< true for -U
};

struct PreprocessorOptions {
  std::vector<MacroOption> Macros;      ///< -D and -U values in command-line order
  std::vector<std::string> IncludeDirs; ///< "-I" directories, searched in order
};

/// Preprocesses `Text`, whose name (for __FILE__, diagnostics and the search of
/// `#include "..."`) is `FileName`. Predefines the target macros of
/// docs/language.md (SPMDC, ISPC, TARGET_WIDTH, PI, ...). Returns the expanded
/// text with GNU line markers, or nullopt after reporting errors to `Diags`.
/// `FilesIncluded`, if given, receives the name of every file #included (as the search found
/// it, e.g. "./inc.isph"), once each, for the dependency file (-M).
std::optional<std::string> preprocess(const std::string &FileName, std::string_view Text,
                                      const PreprocessorOptions &Opts, const TargetInfo &Target,
                                      DiagnosticEngine &Diags,
                                      std::vector<std::string> *FilesIncluded = nullptr);

} // namespace spmdc
