// The GPU twin of test/runtime/Inputs/driver.cpp: loads a runtime test's PTX,
// runs its entry points as one warp (one gang) and prints the same lines.
#include "spmdc_cuda.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <vector>

static const int N = 37;

#define CHECK(call)                                                                                \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      const char *s_ = "?";                                                                        \
      cuGetErrorString(r_, &s_);                                                                   \
      std::fprintf(stderr, "%s: %s\n", #call, s_);                                                 \
      return false;                                                                                \
    }                                                                                              \
  } while (0)

template <typename T> static bool run(spmdc_cuda_module &M, const char *Name, const char *Fmt) {
  CUfunction K;
  if (cuModuleGetFunction(&K, M.module, Name) != CUDA_SUCCESS)
    return true; // the test does not export this entry point
  std::vector<T> In(N), Ret(N, static_cast<T>(-1));
  for (int I = 0; I < N; ++I)
    In[I] = static_cast<T>(I + 1);
  CUdeviceptr DIn, DRet;
  CHECK(cuMemAlloc(&DIn, N * sizeof(T)));
  CHECK(cuMemAlloc(&DRet, N * sizeof(T)));
  CHECK(cuMemcpyHtoD(DIn, In.data(), N * sizeof(T)));
  CHECK(cuMemcpyHtoD(DRet, Ret.data(), N * sizeof(T)));
  int32_t Count = N;
  void *Args[] = {&DRet, &DIn, &Count};
  if (spmdc_cuda_launch_warps(K, 1, 1, nullptr, Args) != 0) {
    std::fprintf(stderr, "%s\n", spmdc_cuda_last_error());
    return false;
  }
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(Ret.data(), DRet, N * sizeof(T)));
  cuMemFree(DIn);
  cuMemFree(DRet);
  std::printf("%s:", Name);
  for (int I = 0; I < N; ++I) {
    std::printf(" ");
    std::printf(Fmt, Ret[I]);
  }
  std::printf("\n");
  return true;
}

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: %s test.ptx\n", Argv[0]);
    return 2;
  }
  spmdc_cuda_module M;
  if (spmdc_cuda_load_ptx_file(&M, 0, Argv[1]) != 0) {
    std::fprintf(stderr, "%s\n", spmdc_cuda_last_error());
    return 1;
  }
  // The recursion tests go deeper than the default 1 KiB per-thread stack.
  if (cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 64 * 1024) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuCtxSetLimit(CU_LIMIT_STACK_SIZE) failed\n");
    return 1;
  }
  bool Ok = run<float>(M, "run", "%g") && run<int32_t>(M, "run_i32", "%" PRId32) &&
            run<int64_t>(M, "run_i64", "%" PRId64) && run<double>(M, "run_f64", "%.17g");
  spmdc_cuda_unload(&M);
  return Ok ? 0 : 1;
}
