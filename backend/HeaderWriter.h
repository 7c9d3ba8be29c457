// Writes the C/C++ header (`-h`) declaring a module's export functions.
#pragma once

#include <string>

namespace spmdc {

class DiagnosticEngine;
namespace ir {
class Module;
}

struct HeaderOptions {
  bool PragmaOnce = true; ///< false: an #ifndef guard (ISPC's --no-pragma-once)
};

/// Declares every export function with C types, and the enums and structs they use, as
/// ISPC's -h does: the same layout, guards and spellings, `namespace ispc` in C++, plain C
/// otherwise. False (with an error) if the file cannot be written or a parameter type has no
/// C equivalent.
bool writeHeader(ir::Module &M, const std::string &Path, const HeaderOptions &Options,
                 DiagnosticEngine &Diags);

/// For NVPTX: the host header of the module's kernels (export and task
/// functions returning void). Per kernel: its name in the module, its
/// parameter struct in order (device pointers as CUdeviceptr), and a launch
/// helper taking the grid in blocks of whole warps.
bool writeHostHeader(ir::Module &M, const std::string &Path, DiagnosticEngine &Diags);

} // namespace spmdc
