// Reports errors, warnings and notes as `file:line:col: kind: message` with a caret line.
#include "frontend/Diagnostics.h"

#include "frontend/SourceManager.h"

#include "llvm/Support/raw_ostream.h"

namespace spmdc {

static const char *kindName(DiagKind K) {
  switch (K) {
  case DiagKind::Error:
    return "error";
  case DiagKind::Warning:
    return "warning";
  case DiagKind::Note:
    return "note";
  }
  return "error";
}

void DiagnosticEngine::emit(DiagKind Kind, SourceLoc Loc, const std::string &Message) {
  if (Loc.isValid())
    OS << *Loc.File << ':' << Loc.Line << ':' << Loc.Col << ": ";
  OS << kindName(Kind) << ": " << Message << '\n';
  if (!Loc.isValid())
    return;
  auto Line = SM.getLine(*Loc.File, Loc.Line);
  if (!Line)
    return;
  // Control bytes would garble the terminal; tabs are kept so the caret lines up.
  std::string Shown, Caret;
  for (char C : *Line) {
    unsigned char U = static_cast<unsigned char>(C);
    Shown += (U < 0x20 && C != '\t') || U == 0x7f ? ' ' : C;
  }
  for (uint32_t I = 1; I < Loc.Col && I <= Line->size(); ++I)
    Caret += (*Line)[I - 1] == '\t' ? '\t' : ' ';
  OS << Shown << '\n' << Caret << "^\n";
}

void DiagnosticEngine::error(SourceLoc Loc, const std::string &Message) {
  if (Stopped)
    return;
  ++Errors;
  emit(DiagKind::Error, Loc, Message);
  if (ErrorLimit && Errors >= ErrorLimit) {
    Stopped = true;
    OS << "fatal error: too many errors emitted, stopping now\n";
  }
}

void DiagnosticEngine::warning(SourceLoc Loc, const std::string &Message, WarningGroup Group) {
  if (Stopped || !WarningsOn || !isGroupEnabled(Group))
    return;
  if (WarningsAsErrors) // --werror: the same text, counted as an error
    return error(Loc, Message);
  emit(DiagKind::Warning, Loc, Message);
}

void DiagnosticEngine::note(SourceLoc Loc, const std::string &Message) {
  if (Stopped)
    return;
  emit(DiagKind::Note, Loc, Message);
}

void DiagnosticEngine::errorNoLoc(const std::string &Message) {
  ++Errors;
  OS << "spmdc: error: " << Message << '\n';
}

void DiagnosticEngine::setGroupEnabled(WarningGroup G, bool On) {
  if (G == WarningGroup::Perf)
    PerfWarningsOn = On;
}

bool DiagnosticEngine::isGroupEnabled(WarningGroup G) const {
  return G == WarningGroup::Perf ? PerfWarningsOn : true;
}

} // namespace spmdc
