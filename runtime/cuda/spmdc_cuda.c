/* A small CUDA driver-API loader for spmdc's PTX: load, find a kernel, launch. */
#include "spmdc_cuda.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[4096];

const char *spmdc_cuda_last_error(void) { return last_error; }

static int fail(const char *call, CUresult r, const char *extra) {
  const char *name = "?", *text = "?";
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  snprintf(last_error, sizeof last_error, "%s: %s (%s)%s%s", call, text, name,
           extra && *extra ? "\n" : "", extra ? extra : "");
  return (int)r;
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS)                                                                        \
      return fail(#call, r_, NULL);                                                                \
  } while (0)

int spmdc_cuda_load_ptx(spmdc_cuda_module *m, int device, const char *ptx) {
  CUdevice dev;
  memset(m, 0, sizeof *m);
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, device));
  CHECK(cuDevicePrimaryCtxRetain(&m->context, dev));
  CHECK(cuCtxSetCurrent(m->context));
  /* Keep the JIT's error log: it says what is wrong with the PTX. */
  char log[2048] = {0};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {log, (void *)(size_t)sizeof log};
  CUresult r = cuModuleLoadDataEx(&m->module, ptx, 2, opts, vals);
  if (r != CUDA_SUCCESS)
    return fail("cuModuleLoadDataEx", r, log);
  return 0;
}

int spmdc_cuda_load_ptx_file(spmdc_cuda_module *m, int device, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(last_error, sizeof last_error, "fopen: cannot open '%s'", path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = (char *)malloc((size_t)size + 1);
  size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
  fclose(f);
  if (!text || got != (size_t)size) {
    free(text);
    snprintf(last_error, sizeof last_error, "fread: cannot read '%s'", path);
    return -1;
  }
  text[size] = 0;
  int r = spmdc_cuda_load_ptx(m, device, text);
  free(text);
  return r;
}

int spmdc_cuda_get_kernel(spmdc_cuda_module *m, const char *name, CUfunction *kernel) {
  CUresult r = cuModuleGetFunction(kernel, m->module, name);
  if (r != CUDA_SUCCESS) {
    char what[300];
    snprintf(what, sizeof what, "kernel '%s'", name);
    return fail("cuModuleGetFunction", r, what);
  }
  return 0;
}

int spmdc_cuda_launch_blocks(CUfunction kernel, unsigned blocks, unsigned threads_per_block,
                             unsigned shared_bytes, CUstream stream, void **args) {
  if (threads_per_block == 0 || threads_per_block % 32 != 0) {
    snprintf(last_error, sizeof last_error,
             "spmdc_cuda_launch_blocks: %u threads per block is no whole number of warps",
             threads_per_block);
    return -1;
  }
  CHECK(cuLaunchKernel(kernel, blocks, 1, 1, threads_per_block, 1, 1, shared_bytes, stream, args,
                       NULL));
  return 0;
}

int spmdc_cuda_launch_warps(CUfunction kernel, unsigned warps, unsigned warps_per_block,
                            CUstream stream, void **args) {
  if (warps_per_block == 0)
    warps_per_block = 1;
  unsigned blocks = (warps + warps_per_block - 1) / warps_per_block;
  return spmdc_cuda_launch_blocks(kernel, blocks, 32 * warps_per_block, 0, stream, args);
}

void spmdc_cuda_unload(spmdc_cuda_module *m) {
  if (m->module)
    cuModuleUnload(m->module);
  m->module = NULL;
}
