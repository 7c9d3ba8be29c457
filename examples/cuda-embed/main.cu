// A CUDA runtime-API program that ships spmdc's PTX inside its binary: kernels_ptx.h (the PTX
// as a string, from spmdc_add_ptx) and kernels_host.h (parameter structs and launch helpers)
// are all it uses of spmdc; no file is read at run time. It loads the PTX with
// cudaLibraryLoadData (CUDA 12+), runs three kernels and checks every result against a scalar
// C++ reference; the exit status is 0 only if all agree.
#include "kernels_host.h"
#include "kernels_ptx.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

// Prints the failing call and the runtime's message; true on success.
static bool ok(cudaError_t Err, const char *What) {
  if (Err == cudaSuccess)
    return true;
  std::fprintf(stderr, "%s: %s\n", What, cudaGetErrorString(Err));
  return false;
}

// A device copy of Host, as the CUdeviceptr the parameter structs hold.
template <typename T> static bool upload(const std::vector<T> &Host, T **Device, CUdeviceptr *P) {
  if (!ok(cudaMalloc(reinterpret_cast<void **>(Device), Host.size() * sizeof(T)), "cudaMalloc") ||
      !ok(cudaMemcpy(*Device, Host.data(), Host.size() * sizeof(T), cudaMemcpyHostToDevice),
          "cudaMemcpy to the device"))
    return false;
  *P = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(*Device));
  return true;
}

template <typename T> static bool download(std::vector<T> &Host, const T *Device) {
  return ok(cudaMemcpy(Host.data(), Device, Host.size() * sizeof(T), cudaMemcpyDeviceToHost),
            "cudaMemcpy to the host");
}

// The launch's result, then the kernel's (it runs asynchronously): true if both succeeded.
static bool ran(cudaError_t Launch, const char *Kernel) {
  return ok(Launch, "cudaLaunchKernel") && ok(cudaDeviceSynchronize(), Kernel);
}

static unsigned blocksFor(unsigned Warps, unsigned WarpsPerBlock) {
  return (Warps + WarpsPerBlock - 1) / WarpsPerBlock;
}

// Device copies of the inputs X and Y (one element per lane) into the params' x and y.
template <typename Params>
static bool uploadXY(const std::vector<float> &X, const std::vector<float> &Y, float **DX,
                     float **DY, Params &P) {
  return upload(X, DX, &P.x) && upload(Y, DY, &P.y);
}

// Scalar references.
static int collatzSteps(unsigned V, int Limit) {
  int S = 0;
  while (V != 1) {
    if (S == Limit)
      return -1;
    V = (V & 1) == 0 ? V / 2 : 3 * V + 1;
    ++S;
  }
  return S;
}

static float piecewise(float V) {
  if (V < 0)
    return -(V * V);
  if (V <= 4)
    return std::sqrt(V);
  return V / 2;
}

int main() {
  int Devices = 0;
  if (!ok(cudaGetDeviceCount(&Devices), "cudaGetDeviceCount"))
    return 2;
  cudaLibrary_t Library;
  cudaKernel_t Saxpy, Collatz, Piecewise;
  if (!ok(spmd::spmd_rt_load(&Library, kernels_ptx), "cudaLibraryLoadData") ||
      !ok(spmd::spmd_rt_get_saxpy(Library, &Saxpy), "cudaLibraryGetKernel saxpy") ||
      !ok(spmd::spmd_rt_get_collatz_steps(Library, &Collatz), "cudaLibraryGetKernel collatz") ||
      !ok(spmd::spmd_rt_get_piecewise(Library, &Piecewise), "cudaLibraryGetKernel piecewise"))
    return 1;
  const unsigned WarpsPerBlock = 8;
  int Wrong = 0;

  // saxpy over n = 1000003 (not a multiple of 32: the last warp runs partly masked).
  {
    const int N = 1000003;
    const float A = 2.5f;
    std::vector<float> X(N), Y(N), Result(N);
    for (int I = 0; I < N; ++I) {
      X[I] = static_cast<float>(I % 1000) * 0.001f;
      Y[I] = static_cast<float>(I % 7) - 3.0f;
    }
    float *DX, *DY;
    spmd::spmd_saxpy_params P = {N, A, 0, 0};
    if (!uploadXY(X, Y, &DX, &DY, P) ||
        !ran(spmd::spmd_rt_launch_saxpy(Saxpy, blocksFor((N + 31) / 32, WarpsPerBlock),
                                        WarpsPerBlock, 0, &P),
             "saxpy") ||
        !download(Result, DY))
      return 1;
    // The GPU fuses a*x + y into one fma (one rounding), the reference rounds twice.
    int Bad = 0;
    for (int I = 0; I < N; ++I) {
      float Expected = A * X[I] + Y[I];
      if (std::fabs(Result[I] - Expected) > 1e-6f * (std::fabs(A * X[I]) + std::fabs(Y[I])) &&
          Bad++ < 5)
        std::fprintf(stderr, "saxpy: y[%d] = %.9g, expected %.9g\n", I, Result[I], Expected);
    }
    std::printf("saxpy: n = %d, %d wrong\n", N, Bad);
    Wrong += Bad;
    cudaFree(DX);
    cudaFree(DY);
  }

  // Collatz steps of 1 .. 200000 (and 0, which never reaches 1), 37 warps looping over it.
  {
    const int N = 200001, Limit = 400;
    std::vector<unsigned> Start(N);
    std::vector<int> Steps(N, 12345);
    for (int I = 0; I < N; ++I)
      Start[I] = static_cast<unsigned>(I);
    unsigned *DStart;
    int *DSteps;
    spmd::spmd_collatz_steps_params P = {N, Limit, 0, 0};
    if (!upload(Start, &DStart, &P.start) || !upload(Steps, &DSteps, &P.steps) ||
        !ran(spmd::spmd_rt_launch_collatz_steps(Collatz, 37, 1, 0, &P), "collatz_steps") ||
        !download(Steps, DSteps))
      return 1;
    int Bad = 0, Longest = 0;
    for (int I = 0; I < N; ++I) {
      int Expected = collatzSteps(Start[I], Limit);
      if (Steps[I] != Expected && Bad++ < 5)
        std::fprintf(stderr, "collatz_steps(%u) = %d, expected %d\n", Start[I], Steps[I],
                     Expected);
      if (Expected > Steps[Longest])
        Longest = I;
    }
    std::printf("collatz_steps: n = %d, %d wrong (longest: %d steps from %d; 0: %d)\n", N, Bad,
                Steps[Longest], Longest, Steps[0]);
    Wrong += Bad;
    cudaFree(DStart);
    cudaFree(DSteps);
  }

  // The piecewise function over [-8, 8), exactly.
  {
    const int N = 65536 + 17;
    std::vector<float> X(N), Y(N);
    for (int I = 0; I < N; ++I)
      X[I] = -8.0f + 16.0f * static_cast<float>(I) / N;
    float *DX, *DY;
    spmd::spmd_piecewise_params P = {N, 0, 0};
    if (!uploadXY(X, Y, &DX, &DY, P) ||
        !ran(spmd::spmd_rt_launch_piecewise(Piecewise, blocksFor((N + 31) / 32, WarpsPerBlock),
                                            WarpsPerBlock, 0, &P),
             "piecewise") ||
        !download(Y, DY))
      return 1;
    int Bad = 0;
    for (int I = 0; I < N; ++I) {
      float Expected = piecewise(X[I]);
      if (Y[I] != Expected && Bad++ < 5)
        std::fprintf(stderr, "piecewise(%.9g) = %.9g, expected %.9g\n", X[I], Y[I], Expected);
    }
    std::printf("piecewise: n = %d, %d wrong\n", N, Bad);
    Wrong += Bad;
    cudaFree(DX);
    cudaFree(DY);
  }

  cudaLibraryUnload(Library);
  std::printf("%s\n", Wrong ? "MISMATCH" : "all results correct");
  return Wrong ? 1 : 0;
}
