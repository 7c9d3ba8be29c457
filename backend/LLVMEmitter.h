// SPMD IR (after the divergence transform) -> LLVM IR for one target.
#pragma once

#include "backend/DebugInfo.h"

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace spmdc {
class DiagnosticEngine;
struct TargetInfo;
namespace ir {
class Module;
}

/// Creates the LLVM target machine of an x86 or NVPTX target (null with an
/// error reported if LLVM lacks it). `ContractFMA`: NVPTX fuses a*b+c into
/// fma (x86 never does, whatever it says).
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetInfo &Target,
                                                         unsigned OptLevel, DiagnosticEngine &Diags,
                                                         bool ContractFMA = true);

/// Emits the module as LLVM IR. Varying values are vectors of the gang width,
/// masks `<W x i1>`; each function takes its mask first; an `export` function
/// `f` becomes an internal masked `f___masked` plus a C-ABI `f` that calls it
/// with all lanes on. Unsupported constructs are reported; the result is then null.
/// With `Debug.Enabled`, line tables for `MainFile`'s functions (backend/DebugInfo.h).
std::unique_ptr<llvm::Module> emitLLVM(ir::Module &M, const TargetInfo &Target,
                                       llvm::TargetMachine &TM, llvm::LLVMContext &Ctx,
                                       DiagnosticEngine &Diags, const DebugInfoOptions &Debug = {},
                                       const std::string &MainFile = "");

} // namespace spmdc
