// Requests of the fusion and coarsening passes: reading `#pragma NAME(...)`.
#include "ir/PassRequests.h"

#include "frontend/SourceManager.h"

#include <cctype>

namespace spmdc::ir {

uint32_t pragmaTextColumn(const Pragma &P, DiagnosticEngine &Diags) {
  // The preprocessor reprints pragmas, so find the text in the user's line.
  if (P.Loc.isValid())
    if (auto Line = Diags.getSourceManager().getLine(*P.Loc.File, P.Loc.Line)) {
      size_t At = Line->find(P.Text, P.Loc.Col ? P.Loc.Col - 1 : 0);
      if (At != std::string_view::npos)
        return static_cast<uint32_t>(At + 1);
    }
  return 0;
}

bool isPragmaNamed(const Pragma &P, llvm::StringRef Name) {
  llvm::StringRef T(P.Text);
  return T.consume_front(Name) &&
         (T.empty() || T.front() == '(' || std::isspace(static_cast<unsigned char>(T.front())));
}

} // namespace spmdc::ir
