// A complete CUDA host program for spmdc's PTX: loads saxpy.ptx with the driver
// API through runtime/cuda/spmdc_cuda.h, launches the kernel with the launch
// helper of the generated header saxpy_host.h, checks y = a*x + y, prints it.
//
//   spmdc --target=nvptx-sm_90 saxpy.spmd -o saxpy.ptx -h saxpy_host.h
//   g++ -O2 -I. -I/usr/local/cuda/include main.cpp spmdc_cuda.c -L/usr/local/cuda/lib64 -lcuda -o
//   saxpy
//   ./saxpy saxpy.ptx
#include "saxpy_host.h"
#include "spmdc_cuda.h"

#include <cmath>
#include <cstdio>
#include <vector>

// Prints the failing call and its CUDA message; true on success.
static bool ok(CUresult R, const char *What) {
  if (R == CUDA_SUCCESS)
    return true;
  const char *Text = "?";
  cuGetErrorString(R, &Text);
  std::fprintf(stderr, "%s: %s\n", What, Text);
  return false;
}

int main(int Argc, char **Argv) {
  const char *PtxPath = Argc > 1 ? Argv[1] : "saxpy.ptx";
  const int N = 1000003; // not a multiple of 32: the last warp runs partly masked
  const float A = 2.5f;

  spmdc_cuda_module Module;
  if (spmdc_cuda_load_ptx_file(&Module, 0, PtxPath) != 0) {
    std::fprintf(stderr, "%s\n", spmdc_cuda_last_error());
    return 1;
  }
  CUfunction Kernel;
  if (spmdc_cuda_get_kernel(&Module, spmd::spmd_saxpy_name, &Kernel) != 0) {
    std::fprintf(stderr, "%s\n", spmdc_cuda_last_error());
    return 1;
  }

  std::vector<float> X(N), Y(N), Result(N);
  for (int I = 0; I < N; ++I) {
    X[I] = static_cast<float>(I % 1000) * 0.001f;
    Y[I] = static_cast<float>(I % 7) - 3.0f;
  }
  CUdeviceptr DX, DY;
  if (!ok(cuMemAlloc(&DX, N * sizeof(float)), "cuMemAlloc") ||
      !ok(cuMemAlloc(&DY, N * sizeof(float)), "cuMemAlloc") ||
      !ok(cuMemcpyHtoD(DX, X.data(), N * sizeof(float)), "cuMemcpyHtoD") ||
      !ok(cuMemcpyHtoD(DY, Y.data(), N * sizeof(float)), "cuMemcpyHtoD"))
    return 1;

  // One gang (warp) per 32 elements, 8 warps (256 threads) per block.
  const unsigned Warps = (N + 31) / 32, WarpsPerBlock = 8;
  spmd::spmd_saxpy_params Params = {N, A, DX, DY};
  if (!ok(spmd::spmd_launch_saxpy(Kernel, (Warps + WarpsPerBlock - 1) / WarpsPerBlock,
                                  WarpsPerBlock, nullptr, &Params),
          "launch saxpy") ||
      !ok(cuCtxSynchronize(), "saxpy kernel") ||
      !ok(cuMemcpyDtoH(Result.data(), DY, N * sizeof(float)), "cuMemcpyDtoH"))
    return 1;

  // The GPU may or may not fuse a*x + y into one fma: allow one rounding.
  int Wrong = 0;
  for (int I = 0; I < N; ++I) {
    float Expected = A * X[I] + Y[I];
    if (std::fabs(Result[I] - Expected) >
        1e-6f * (std::fabs(A * X[I]) + std::fabs(Y[I])) + 1e-30f) {
      if (Wrong++ < 5)
        std::fprintf(stderr, "y[%d] = %g, expected %g\n", I, Result[I], Expected);
    }
  }
  std::printf("saxpy on the GPU: n = %d, a = %g: y[0] = %g, y[1] = %g, y[%d] = %g; %s\n", N, A,
              Result[0], Result[1], N - 1, Result[N - 1], Wrong ? "WRONG" : "all elements correct");
  cuMemFree(DX);
  cuMemFree(DY);
  spmdc_cuda_unload(&Module);
  return Wrong ? 1 : 0;
}
