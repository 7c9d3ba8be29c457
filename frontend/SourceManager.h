// Owns source text and file names, and answers "what does line N of file F say".
#pragma once

#include "frontend/SourceLocation.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace spmdc {

class SourceManager {
public:
  /// Returns a stable pointer for a file name; equal names give equal pointers.
  const std::string *internFileName(std::string_view Name);

  /// Registers text for a name that is not (or not only) a file on disk, e.g.
  /// "<stdin>" or a fuzzer input. Later lookups of that name use this text.
  void addBuffer(std::string_view Name, std::string Text);

  /// The text of line `Line` (1-based) of `File`, without its newline; nullopt
  /// when the file cannot be read or has fewer lines.
  std::optional<std::string_view> getLine(const std::string &File, uint32_t Line);

private:
  /// Files larger than this are not read for caret lines.
  static constexpr uintmax_t MaxFileBytes = 256u << 20;

  struct FileText {
    std::string Text;
    std::vector<size_t> LineStarts; // computed on first use
  };
  FileText *lookup(const std::string &File);

  std::set<std::string, std::less<>> Names;
  std::map<std::string, std::unique_ptr<FileText>, std::less<>> Files;
};

} // namespace spmdc
