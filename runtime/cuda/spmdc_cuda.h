/* A small CUDA driver-API loader for spmdc's PTX: load, find a kernel, launch.
 * Every failure returns an error and leaves a message naming the CUDA call. */
#ifndef SPMDC_CUDA_H
#define SPMDC_CUDA_H

#include <cuda.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmdc_cuda_module {
  CUcontext context;
  CUmodule module;
} spmdc_cuda_module;

/* The last error of this thread, e.g. "cuModuleLoadData: a PTX JIT compilation
 * failed (CUDA_ERROR_INVALID_PTX)" plus the JIT log when there is one. */
const char *spmdc_cuda_last_error(void);

/* Initializes the driver, makes (or reuses) the primary context of `device` and
 * loads the NUL-terminated PTX text. Returns 0 on success. */
int spmdc_cuda_load_ptx(spmdc_cuda_module *m, int device, const char *ptx);
/* Reads a .ptx file and loads it as above. */
int spmdc_cuda_load_ptx_file(spmdc_cuda_module *m, int device, const char *path);
/* Finds a kernel by its name in the module (the export/task function's name). */
int spmdc_cuda_get_kernel(spmdc_cuda_module *m, const char *name, CUfunction *kernel);

/* Launches with the grid given in warps: `warps` gangs in blocks of
 * `warps_per_block` warps (the last block may be partly idle only if the
 * kernel checks taskIndex against its own count). */
int spmdc_cuda_launch_warps(CUfunction kernel, unsigned warps, unsigned warps_per_block,
                            CUstream stream, void **args);
/* Launches `blocks` blocks of `threads_per_block` threads (a multiple of 32). */
int spmdc_cuda_launch_blocks(CUfunction kernel, unsigned blocks, unsigned threads_per_block,
                             unsigned shared_bytes, CUstream stream, void **args);

void spmdc_cuda_unload(spmdc_cuda_module *m);

#ifdef __cplusplus
}
#endif

#endif
