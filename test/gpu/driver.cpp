// The GPU twin of test/runtime/Inputs/driver.cpp: loads a runtime test's PTX,
// runs its entry points as one warp (one gang) and prints the same lines.
// Horizontal-fusion tests: side_X apart in blocks_X blocks of 4 warps, then
// the fused kernel with grid max(blocks_X) and its `.maxntid` threads per block.
#include "spmdc_cuda.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
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

/// The blocks each side of a fused test runs in (as the x86 driver's).
static const int32_t SideBlocks[3] = {3, 5, 2};

static void print(const char *Name, const std::vector<int32_t> &Ret) {
  std::printf("%s:", Name);
  for (int32_t V : Ret)
    std::printf(" %" PRId32, V);
  std::printf("\n");
}

/// side_a, side_b, side_c apart, then hfuse_side_a_side_b[_side_c].
static bool runFusionSides(spmdc_cuda_module &M) {
  static const char *const Sides[3] = {"side_a", "side_b", "side_c"};
  std::vector<int32_t> In(N);
  for (int I = 0; I < N; ++I)
    In[I] = I + 1;
  CUdeviceptr DIn, DRet[3];
  CHECK(cuMemAlloc(&DIn, N * sizeof(int32_t)));
  CHECK(cuMemcpyHtoD(DIn, In.data(), N * sizeof(int32_t)));
  for (CUdeviceptr &D : DRet)
    CHECK(cuMemAlloc(&D, N * sizeof(int32_t)));
  std::vector<int32_t> Init(N, -1), Ret(N);
  int32_t Count = N;
  for (int S = 0; S < 3; ++S) {
    CUfunction K;
    if (cuModuleGetFunction(&K, M.module, Sides[S]) != CUDA_SUCCESS)
      continue;
    CHECK(cuMemcpyHtoD(DRet[S], Init.data(), N * sizeof(int32_t)));
    void *Args[] = {&DRet[S], &DIn, &Count};
    CHECK(cuLaunchKernel(K, SideBlocks[S], 1, 1, 128, 1, 1, 0, nullptr, Args, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(Ret.data(), DRet[S], N * sizeof(int32_t)));
    print(Sides[S], Ret);
  }
  CUfunction K;
  int NSides = 3;
  if (cuModuleGetFunction(&K, M.module, "hfuse_side_a_side_b_side_c") != CUDA_SUCCESS) {
    NSides = 2;
    if (cuModuleGetFunction(&K, M.module, "hfuse_side_a_side_b") != CUDA_SUCCESS)
      return true;
  }
  int Threads = 0; // the partition's block size, from the kernel's .maxntid
  CHECK(cuFuncGetAttribute(&Threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, K));
  std::vector<void *> Args;
  int32_t Grid = 0;
  for (int S = 0; S < NSides; ++S) {
    CHECK(cuMemcpyHtoD(DRet[S], Init.data(), N * sizeof(int32_t)));
    Args.insert(Args.end(), {&DRet[S], &DIn, &Count});
    Grid = std::max(Grid, SideBlocks[S]);
  }
  int32_t Blocks[3] = {SideBlocks[0], SideBlocks[1], SideBlocks[2]};
  for (int S = 0; S < NSides; ++S)
    Args.push_back(&Blocks[S]);
  CHECK(cuLaunchKernel(K, Grid, 1, 1, Threads, 1, 1, 0, nullptr, Args.data(), nullptr));
  CHECK(cuCtxSynchronize());
  for (int S = 0; S < NSides; ++S) {
    CHECK(cuMemcpyDtoH(Ret.data(), DRet[S], N * sizeof(int32_t)));
    print((std::string("hfuse ") + Sides[S]).c_str(), Ret);
  }
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
            run<int64_t>(M, "run_i64", "%" PRId64) && run<double>(M, "run_f64", "%.17g") &&
            runFusionSides(M);
  spmdc_cuda_unload(&M);
  return Ok ? 0 : 1;
}
