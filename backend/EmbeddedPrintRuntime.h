// Links the print/assert runtime (runtime/Print.cpp, as bitcode) into x86 modules that use it.
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace spmdc {

class DiagnosticEngine;

/// If `M` calls spmdc_print or spmdc_assert_fail, adds their definitions (and only what
/// they need) with linkonce_odr linkage and hidden visibility: the object then carries its
/// own copy, as ISPC's objects carry theirs, and a host program links it without spmdc's
/// runtime library; copies in several objects, or the library's own, merge at link time.
/// False (with an error) only if the embedded bitcode cannot be read or linked.
bool linkEmbeddedPrintRuntime(llvm::Module &M, DiagnosticEngine &Diags);

} // namespace spmdc
