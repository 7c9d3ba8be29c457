/* Calls every runtime-API helper of host-header-kernels.spmd's header, in C or C++. */
#include <cuda_runtime_api.h>
#include "kernels_host.h"
#ifdef __cplusplus
using namespace spmd;
#endif

int use_helpers(const char *ptx) {
  cudaLibrary_t lib;
  cudaKernel_t k;
  spmd_no_params_params none;
  spmd_hfuse_ka_kb_params fused = {0, 1, 0, 2, 0.5, 3, 4};
  return spmd_rt_load(&lib, ptx) || spmd_rt_get_no_params(lib, &k) ||
         spmd_rt_launch_no_params(k, 1, 1, 0, &none) || spmd_rt_get_hfuse_ka_kb(lib, &k) ||
         spmd_rt_launch_hfuse_ka_kb(k, 0, &fused);
}
