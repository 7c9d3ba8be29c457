// NVPTX float math: the GPU library's exp/log (CUDA's accuracy class) and the fast forms.
#pragma once

#include "llvm/IR/IRBuilder.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace spmdc {

/// Emits the NVPTX math hook `Name` (a `spmd_nvptx_*` function that
/// ir/NVPTXMath.cpp substituted for a float standard library call) on `Args`.
/// Returns null when `Name` is not such a hook.
llvm::Value *emitNVPTXMathHook(const std::string &Name, const std::vector<llvm::Value *> &Args,
                               llvm::IRBuilder<> &B);

/// --opt=fast-math on NVPTX: every float division becomes `div.approx.f32`
/// and every float square root `sqrt.approx.f32`, as nvcc's -use_fast_math.
void applyNVPTXFastMath(llvm::Module &M);

} // namespace spmdc
