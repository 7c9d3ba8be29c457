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

// One thread per popped vertex: the visit walks the adjacency list alone; a discovered vertex
// is claimed by an atomic swap of its visited flag and appended with a per-thread atomicAdd.
__global__ void dfsStepNaiveKernel(const int *offsets, const int *edges, int vertexCount,
                                   const int *stack, int count, int *visited, float *f, int *next,
                                   int *state) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  int v = stack[i];
  int begin = offsets[v], end = offsets[v + 1];
  f[v] = float(end - begin) / float(vertexCount);
  for (int e = begin; e < end; ++e) {
    int child = edges[e];
    if (!visited[child] && atomicExch(&visited[child], 1) == 0)
      next[atomicAdd(state, 1)] = child;
  }
}

// One thread per frontier vertex relaxing its out-edges alone.
__global__ void bfRoundNaiveKernel(const int *offsets, const int *edges, const int *weights,
                                   int *dist, const int *frontier, int count, int *stamp, int round,
                                   int *next, int *state) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  int u = frontier[i], du = dist[u];
  for (int e = offsets[u]; e < offsets[u + 1]; ++e) {
    int to = edges[e], candidate = du + weights[e];
    if (candidate < dist[to] && candidate < atomicMin(&dist[to], candidate) &&
        atomicExch(&stamp[to], round) != round)
      next[atomicAdd(state, 1)] = to;
  }
}

// One thread per vertex scanning its adjacency list alone.
__global__ void ccSweepNaiveKernel(const int *offsets, const int *edges, int vertexCount,
                                   int *labels, int *changed) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertexCount)
    return;
  int best = labels[v];
  for (int e = offsets[v]; e < offsets[v + 1]; ++e)
    best = min(best, labels[edges[e]]);
  best = min(best, labels[best]);
  if (best < labels[v]) {
    labels[v] = best;
    *changed = 1;
  }
}

__device__ int median3(int a, int b, int c) { return max(min(a, b), min(max(a, b), c)); }

// The CPU example's sequential quicksort (Hoare partition, insertion sort below 16).
__device__ void quicksortThread(int *keys, int lo, int hi) {
  while (hi - lo > 16) {
    int pivot = median3(keys[lo], keys[(lo + hi) / 2], keys[hi - 1]);
    int i = lo, j = hi - 1;
    while (i <= j) {
      while (keys[i] < pivot)
        ++i;
      while (keys[j] > pivot)
        --j;
      if (i <= j) {
        int t = keys[i];
        keys[i++] = keys[j];
        keys[j--] = t;
      }
    }
    quicksortThread(keys, lo, j + 1);
    lo = i;
  }
  for (int i = lo + 1; i < hi; ++i) {
    int key = keys[i], j = i - 1;
    while (j >= lo && keys[j] > key) {
      keys[j + 1] = keys[j];
      --j;
    }
    keys[j + 1] = key;
  }
}

// One thread per array.
__global__ void qsortNaiveKernel(int *keys, const int *offsets, int arrays) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a < arrays)
    quicksortThread(keys, offsets[a], offsets[a + 1]);
}

// One thread per array: the CPU example's sequential bottom-up mergesort (insertion-sorted
// runs of 16, then merges ping-ponging between keys and scratch).
__global__ void msortNaiveKernel(int *keys, int *scratch, const int *offsets, int arrays) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= arrays)
    return;
  int begin = offsets[a], end = offsets[a + 1];
  for (int run = begin; run < end; run += 16) {
    int stop = min(run + 16, end);
    for (int i = run + 1; i < stop; ++i) {
      int key = keys[i], j = i - 1;
      while (j >= run && keys[j] > key) {
        keys[j + 1] = keys[j];
        --j;
      }
      keys[j + 1] = key;
    }
  }
  int *src = keys, *dst = scratch;
  for (int width = 16; width < end - begin; width *= 2) {
    for (int run = begin; run < end; run += 2 * width) {
      int mid = min(run + width, end), stop = min(run + 2 * width, end);
      int i = run, j = mid;
      for (int k = run; k < stop; ++k)
        dst[k] = (j >= stop || (i < mid && src[i] <= src[j])) ? src[i++] : src[j++];
    }
    int *swap = src;
    src = dst;
    dst = swap;
  }
  if (src != keys)
    for (int i = begin; i < end; ++i)
      keys[i] = src[i];
}

int blocksFor(int threads) { return (threads + ThreadsPerBlock - 1) / ThreadsPerBlock; }

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

void dfs_step_naive_cuda(const int *offsets, const int *edges, int vertexCount, const int *stack,
                         int count, int *visited, float *f, int *next, int *state) {
  dfsStepNaiveKernel<<<blocksFor(count), ThreadsPerBlock>>>(offsets, edges, vertexCount, stack,
                                                            count, visited, f, next, state);
}

void bf_round_naive_cuda(const int *offsets, const int *edges, const int *weights, int *dist,
                         const int *frontier, int count, int *stamp, int round, int *next,
                         int *state) {
  bfRoundNaiveKernel<<<blocksFor(count), ThreadsPerBlock>>>(offsets, edges, weights, dist, frontier,
                                                            count, stamp, round, next, state);
}

void cc_sweep_naive_cuda(const int *offsets, const int *edges, int vertexCount, int *labels,
                         int *changed) {
  ccSweepNaiveKernel<<<blocksFor(vertexCount), ThreadsPerBlock>>>(offsets, edges, vertexCount,
                                                                  labels, changed);
}

void qsort_naive_cuda(int *keys, const int *offsets, int arrays) {
  qsortNaiveKernel<<<blocksFor(arrays), ThreadsPerBlock>>>(keys, offsets, arrays);
}

void msort_naive_cuda(int *keys, int *scratch, const int *offsets, int arrays) {
  msortNaiveKernel<<<blocksFor(arrays), ThreadsPerBlock>>>(keys, scratch, offsets, arrays);
}
