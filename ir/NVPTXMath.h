// NVPTX: float exp/log (and with fast math pow/sin/cos/tan) calls -> the GPU's math hooks.
#pragma once

namespace spmdc::ir {

class Module;

/// Replaces calls of the standard library's float `exp` and `log` by the
/// hooks `spmd_nvptx_exp`/`spmd_nvptx_log` (backend/NVPTXMath.cpp: the special
/// function unit, CUDA's expf/logf accuracy). With `Fast` (--math-lib=fast,
/// --opt=fast-math) float `exp log pow sin cos tan` become the approximate
/// hardware forms `spmd_nvptx_fast_*`, as nvcc's -use_fast_math. NVPTX only;
/// before the divergence transform (the hooks take no mask).
void selectNVPTXMath(Module &M, bool Fast);

} // namespace spmdc::ir
