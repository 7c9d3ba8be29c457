// Writes the files a compilation read, as ISPC does: -M (a make rule, to -MF or stdout) and
// -MMM (a plain list).
#pragma once

#include <string>
#include <vector>

namespace spmdc {

class DiagnosticEngine;
struct CompilerOptions;

/// Writes what -M/-MF/-MT and -MMM ask for. `MainFile` is the input as named on the command
/// line, `Included` every file it #included, `Object` the object file (the rule's default
/// target). Does nothing when neither -M nor -MMM is given. False after an error.
bool writeDependencies(const CompilerOptions &Opts, const std::string &MainFile,
                       std::vector<std::string> Included, const std::string &Object,
                       DiagnosticEngine &Diags);

} // namespace spmdc
