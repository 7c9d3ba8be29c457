// The C preprocessor, from clang's Lex library: source text -> text with line markers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spmdc {

class DiagnosticEngine;
struct TargetInfo;

struct PreprocessorOptions {
  std::vector<std::string> Defines;   ///< "-D" values: "NAME" or "NAME=VALUE"
  std::vector<std::string> Undefines; ///< "-U" values
  std::vector<std::string> IncludeDirs; ///< "-I" directories, searched in order
};

/// Preprocesses `Text`, whose name (for __FILE__, diagnostics and the search of
/// `#include "..."`) is `FileName`. Predefines the target macros of
/// docs/language.md (SPMDC, ISPC, TARGET_WIDTH, PI, ...). Returns the expanded
/// text with GNU line markers, or nullopt after reporting errors to `Diags`.
std::optional<std::string> preprocess(const std::string &FileName, std::string_view Text,
                                      const PreprocessorOptions &Opts, const TargetInfo &Target,
                                      DiagnosticEngine &Diags);

} // namespace spmdc
