// The naive per-thread CUDA versions of the examples/crev/gpu kernels: one thread per item,
// each thread runs its item's loop alone (the seed's "Parallel" column on the GPU).
#include "kernels_cuda.h"

#include <cuda_runtime.h>

namespace {

constexpr int ThreadsPerBlock = 256;

__global__ void matchNaiveKernel(const int8_t *text, int textLength, const int8_t *pattern, int m,
                                 int8_t *found) {
  int positions = textLength - m + 1;
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= positions)
    return;
  int j = 0;
  while (j < m && text[p + j] == pattern[j])
    ++j;
  found[p] = j == m;
}

__global__ void filterNaiveKernel(const int8_t *text, const int *offsets, int records,
                                  const int8_t *keyword, int m, int8_t *kept) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= records)
    return;
  int last = offsets[r + 1] - m;
  bool found = false;
  for (int p = offsets[r]; p <= last && !found; ++p) {
    int j = 0;
    while (j < m && text[p + j] == keyword[j])
      ++j;
    found = j == m;
  }
  kept[r] = found;
}

} // namespace

void match_naive_cuda(const int8_t *text, int textLength, const int8_t *pattern, int m,
                      int8_t *found) {
  int positions = textLength - m + 1;
  matchNaiveKernel<<<(positions + ThreadsPerBlock - 1) / ThreadsPerBlock, ThreadsPerBlock>>>(
      text, textLength, pattern, m, found);
}

void filter_naive_cuda(const int8_t *text, const int *offsets, int records, const int8_t *keyword,
                       int m, int8_t *kept) {
  filterNaiveKernel<<<(records + ThreadsPerBlock - 1) / ThreadsPerBlock, ThreadsPerBlock>>>(
      text, offsets, records, keyword, m, kept);
}
