// Writes the C/C++ header (`-h`) declaring a module's export functions.
#pragma once

#include <string>

namespace spmdc {

class DiagnosticEngine;
namespace ir {
class Module;
}

/// Declares every export function with C types (namespace `spmd` in C++, plain
/// C otherwise), and the structs they use. False (with an error) if the file
/// cannot be written or a parameter type has no C equivalent.
bool writeHeader(ir::Module &M, const std::string &Path, DiagnosticEngine &Diags);

/// For NVPTX: the host header of the module's kernels (export and task
/// functions returning void). Per kernel: its name in the module, its
/// parameter struct in order (device pointers as CUdeviceptr), and a launch
/// helper taking the grid in blocks of whole warps.
bool writeHostHeader(ir::Module &M, const std::string &Path, DiagnosticEngine &Diags);

} // namespace spmdc
