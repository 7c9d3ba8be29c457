// Reports errors, warnings and notes as `file:line:col: kind: message` with a caret line.
#pragma once

#include "frontend/SourceLocation.h"

#include <string>

namespace llvm {
class raw_ostream;
}

namespace spmdc {

class SourceManager;

enum class DiagKind { Error, Warning, Note };

/// Warning groups a user can silence (`-Wno-perf`, `#pragma ignore warning(perf)`).
enum class WarningGroup { General, Perf };

class DiagnosticEngine {
public:
  DiagnosticEngine(SourceManager &SM, llvm::raw_ostream &OS) : SM(SM), OS(OS) {}

  void error(SourceLoc Loc, const std::string &Message);
  void warning(SourceLoc Loc, const std::string &Message,
               WarningGroup Group = WarningGroup::General);
  void note(SourceLoc Loc, const std::string &Message);
  /// A problem with no source position (missing input, bad flag): one line.
  void errorNoLoc(const std::string &Message);

  unsigned errorCount() const { return Errors; }
  bool hasErrors() const { return Errors != 0; }
  /// True once the error limit is reached; callers stop producing more work.
  bool shouldStop() const { return Stopped; }

  void setErrorLimit(unsigned Limit) { ErrorLimit = Limit; }
  void setWarningsEnabled(bool On) { WarningsOn = On; }
  bool areWarningsEnabled() const { return WarningsOn; }
  void setWarningsAsErrors(bool On) { WarningsAsErrors = On; }
  void setGroupEnabled(WarningGroup G, bool On);
  bool isGroupEnabled(WarningGroup G) const;

  SourceManager &getSourceManager() { return SM; }

private:
  void emit(DiagKind Kind, SourceLoc Loc, const std::string &Message);

  SourceManager &SM;
  llvm::raw_ostream &OS;
  unsigned Errors = 0;
  unsigned ErrorLimit = 20;
  bool Stopped = false;
  bool WarningsOn = true;
  bool PerfWarningsOn = true;
  bool WarningsAsErrors = false;
};

} // namespace spmdc
