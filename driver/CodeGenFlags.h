// ISPC's code-generation flags on spmdc's LLVM module and target machine: --cpu, --pic,
// --mcmodel, --x86-asm-syntax, -ffunction-sections, --no-omit-frame-pointer, --stack-protector.
#pragma once

#include <optional>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace spmdc {

class DiagnosticEngine;
struct CompilerOptions;
struct TargetInfo;

/// --cpu/--device: LLVM's name of the device (empty when none is given), after checking that
/// it runs `Target`'s ISA. With the default target ("host") the device picks the target: the
/// widest x86 one it runs, as ISPC does. Nullopt after an error.
std::optional<std::string> resolveDevice(const CompilerOptions &Opts, TargetInfo &Target,
                                         DiagnosticEngine &Diags);

/// --x86-asm-syntax: must run before the target machine is created.
void selectAsmSyntax(const std::string &Syntax);

/// Sets the target machine's options and each function's attributes from the flags.
/// `TuneCpu` is resolveDevice's result.
void applyCodeGenFlags(llvm::Module &M, llvm::TargetMachine &TM, const CompilerOptions &Opts,
                       const std::string &TuneCpu);

} // namespace spmdc
