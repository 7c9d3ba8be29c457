// The dispatching module of a multi-target build: one C entry per export function that calls
// the variant for the best ISA this CPU runs, as ISPC's multi-target objects do.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Function;
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace spmdc {

/// One compiled variant: its ISA ("sse4", "avx2", "avx512skx") and the suffix of its symbols.
struct DispatchVariant {
  std::string ISA;
  std::string Suffix;
};

/// Builds the dispatch module in `Ctx` (the context of `Exports`) for `TM`. Each of `Exports`
/// (the first variant's export C entries, named `<name><FirstSuffix>`) gets an entry `<name>`
/// of the same type that, on its
/// first call, picks the widest variant whose ISA this CPU runs (libgcc's __cpu_model, the
/// data of __builtin_cpu_supports), caches it and calls it. The environment variable
/// SPMDC_ISA=sse4|avx2|avx512skx caps the choice (to test or to compare the variants).
std::unique_ptr<llvm::Module> buildDispatchModule(llvm::LLVMContext &Ctx,
                                                  const std::vector<llvm::Function *> &Exports,
                                                  const std::string &FirstSuffix,
                                                  const std::vector<DispatchVariant> &Variants,
                                                  llvm::TargetMachine &TM);

/// A target machine for the dispatch module: plain x86-64, so that it runs on every CPU.
std::unique_ptr<llvm::TargetMachine> createDispatchTargetMachine();

} // namespace spmdc
