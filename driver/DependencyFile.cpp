// Writes the files a compilation read, as ISPC does: -M (a make rule, to -MF or stdout) and
// -MMM (a plain list).
//
// ISPC's rule is `target: main \` then one ` included \` line per included file, sorted, the
// last without the backslash. Spaces in names are escaped with a backslash (ISPC leaves them
// bare, which make and Ninja would split).
#include "driver/DependencyFile.h"

#include "driver/Options.h"
#include "frontend/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <memory>

namespace spmdc {

namespace {

std::string escapeForMake(const std::string &Name) {
  std::string Out;
  for (char C : Name) {
    if (C == ' ' || C == '#')
      Out += '\\';
    if (C == '$')
      Out += '$';
    Out += C;
  }
  return Out;
}

bool writeText(const std::string &Path, const std::string &Text, DiagnosticEngine &Diags) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path.empty() ? "-" : Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    Diags.errorNoLoc("cannot write '" + Path + "': " + EC.message());
    return false;
  }
  OS << Text;
  OS.close();
  if (OS.has_error()) {
    Diags.errorNoLoc("cannot write '" + Path + "': " + OS.error().message());
    OS.clear_error();
    return false;
  }
  return true;
}

} // namespace

bool writeDependencies(const CompilerOptions &Opts, const std::string &MainFile,
                       std::vector<std::string> Included, const std::string &Object,
                       DiagnosticEngine &Diags) {
  std::sort(Included.begin(), Included.end());
  if (!Opts.DepsMakeRule && (!Opts.DepFile.empty() || !Opts.DepTarget.empty()))
    Diags.warning(SourceLoc(), "-MF and -MT need -M: no dependency file written");
  if (Opts.DepsMakeRule) {
    std::string Rule =
        escapeForMake(Opts.DepTarget.empty() ? Object : Opts.DepTarget) + ": " +
        escapeForMake(MainFile);
    for (const std::string &File : Included)
      Rule += " \\\n " + escapeForMake(File);
    if (!writeText(Opts.DepFile, Rule + "\n", Diags))
      return false;
  }
  if (!Opts.DepList.empty()) {
    std::vector<std::string> All = Included;
    All.push_back(MainFile);
    std::sort(All.begin(), All.end());
    std::string List;
    for (const std::string &File : All)
      List += File + "\n";
    if (!writeText(Opts.DepList, List, Diags))
      return false;
  }
  return true;
}

} // namespace spmdc
