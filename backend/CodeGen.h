// Runs LLVM's optimization pipeline and writes objects, assembly, bitcode or IR text.
#pragma once

#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace spmdc {

class DiagnosticEngine;

/// The new-pass-manager pipeline for -O0..-O3 (default<O0> ... default<O3>).
void optimizeModule(llvm::Module &M, llvm::TargetMachine &TM, unsigned OptLevel);

enum class OutputKind { LLVMText, LLVMBitcode, Assembly, Object };

/// Writes `M` to `Path` ("-" for stdout); reports unwritable paths. False on error.
bool writeModule(llvm::Module &M, llvm::TargetMachine &TM, OutputKind Kind, const std::string &Path,
                 DiagnosticEngine &Diags);

} // namespace spmdc
