// The CUDA dynamic-parallelism versions of the examples/crev/gpu kernels (the seed's "Launch"
// column): every parent thread whose item needs the gang-wide work launches a child kernel of
// one warp (32 threads) that does it, as `crev` runs the function with the whole gang. Built
// with -rdc=true and linked with -lcudadevrt; CUDA 12+ dynamic parallelism (CDP2): no
// device-side synchronization, the parent grid completes only after its children.
#include "kernels_cuda.h"

#include <cuda_runtime.h>

namespace {

constexpr int ThreadsPerBlock = 256;
constexpr unsigned FullWarp = 0xffffffffu;
// A launch that finds the pending-launch buffer full is retried after a pause (the children
// already queued drain it); after this many tries it counts as a failure.
constexpr int LaunchAttempts = 1 << 16;

// The child of match: the warp compares the pattern with the text at `offset`, 32 characters
// per step, and leaves at the first step with a difference (str_compare of the .spmd file).
__global__ void matchCompareChild(const int8_t *text, const int8_t *pattern, int m, int offset,
                                  int8_t *found) {
  int lane = threadIdx.x;
  for (int base = 0; base < m; base += 32) {
    int k = base + lane;
    bool differs = k < m && pattern[k] != text[offset + k];
    if (__any_sync(FullWarp, differs)) {
      if (lane == 0)
        found[offset] = 0;
      return;
    }
  }
  if (lane == 0)
    found[offset] = 1;
}

// The child of filter: the warp searches record r, lane k trying positions begin + k,
// begin + k + 32, ..., and stops at the first block of positions with a match (contains()).
__global__ void filterContainsChild(const int8_t *text, int begin, int end, const int8_t *keyword,
                                    int m, int8_t *kept, int r) {
  int lane = threadIdx.x;
  int last = end - m;
  int8_t first = keyword[0];
  for (int base = begin; base <= last; base += 32) {
    int p = base + lane;
    bool found = false;
    if (p <= last && text[p] == first) {
      int j = 1;
      while (j < m && text[p + j] == keyword[j])
        ++j;
      found = j == m;
    }
    if (__any_sync(FullWarp, found)) {
      if (lane == 0)
        kept[r] = 1;
      return;
    }
  }
  if (lane == 0)
    kept[r] = 0;
}

// Launches `Child<<<1, 32>>>(args...)` into the fire-and-forget stream (children independent
// of each other, so they may run concurrently), retrying while the pending-launch buffer is
// full; counts a launch that never succeeds in *failures.
template <typename... Params, typename... Args>
__device__ void launchWarp(void (*child)(Params...), int *failures, Args... args) {
  for (int attempt = 0; attempt < LaunchAttempts; ++attempt) {
    child<<<1, 32, 0, cudaStreamFireAndForget>>>(args...);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
      return;
    if (e != cudaErrorLaunchPendingCountExceeded)
      break;
    __nanosleep(2000);
  }
  atomicAdd(failures, 1);
}

__global__ void matchLaunchKernel(const int8_t *text, int textLength, const int8_t *pattern, int m,
                                  int8_t *found, int *failures) {
  int positions = textLength - m + 1;
  int8_t first = pattern[0];
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < positions; p += gridDim.x * blockDim.x) {
    if (text[p] == first)
      launchWarp(matchCompareChild, failures, text, pattern, m, p, found);
    else
      found[p] = 0;
  }
}

__global__ void filterLaunchKernel(const int8_t *text, const int *offsets, int records,
                                   const int8_t *keyword, int m, int8_t *kept, int *failures) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < records; r += gridDim.x * blockDim.x)
    launchWarp(filterContainsChild, failures, text, offsets[r], offsets[r + 1], keyword, m, kept,
               r);
}

int blocksFor(int threads) { return (threads + ThreadsPerBlock - 1) / ThreadsPerBlock; }

} // namespace

int launch_setup_cuda(int pendingLaunches) {
  return int(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, size_t(pendingLaunches)));
}

void match_launch_cuda(const int8_t *text, int textLength, const int8_t *pattern, int m,
                       int8_t *found, int parentThreads, int *failures) {
  matchLaunchKernel<<<blocksFor(parentThreads), ThreadsPerBlock>>>(text, textLength, pattern, m,
                                                                   found, failures);
}

void filter_launch_cuda(const int8_t *text, const int *offsets, int records, const int8_t *keyword,
                        int m, int8_t *kept, int parentThreads, int *failures) {
  filterLaunchKernel<<<blocksFor(parentThreads), ThreadsPerBlock>>>(text, offsets, records, keyword,
                                                                    m, kept, failures);
}
