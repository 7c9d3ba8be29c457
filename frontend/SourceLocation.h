// Source positions as the user sees them: file, line and column after line markers.
#pragma once

#include <cstdint>
#include <string>

namespace spmdc {

/// A position in an original source file. `File` points at a string interned by
/// the SourceManager, so locations are cheap to copy and compare.
struct SourceLoc {
  const std::string *File = nullptr;
  uint32_t Line = 0; ///< 1-based; 0 means "no location".
  uint32_t Col = 0;  ///< 1-based byte column.

  bool isValid() const { return File && Line; }
};

} // namespace spmdc
