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

// Appends `value` of every thread that calls it to list[] (length in *count): one atomicAdd
// per group of converged threads, then each thread writes at its rank (append_active of the
// .spmd files).
__device__ void appendConverged(int *list, int *count, int value) {
  unsigned active = __activemask();
  int lane = threadIdx.x & 31, leader = __ffs(active) - 1, at = 0;
  if (lane == leader)
    at = atomicAdd(count, __popc(active));
  at = __shfl_sync(active, at, leader);
  list[at + __popc(active & ((1u << lane) - 1))] = value;
}

// The child of a DFS step: the warp visits v, 32 edges per step (dfs_visit).
__global__ void dfsVisitChild(const int *offsets, const int *edges, int vertexCount, int v,
                              int *visited, float *f, int *next, int *state) {
  int begin = offsets[v], end = offsets[v + 1];
  if (threadIdx.x == 0)
    f[v] = float(end - begin) / float(vertexCount);
  for (int e = begin + int(threadIdx.x); e < end; e += 32) {
    int child = edges[e];
    if (!visited[child] && atomicExch(&visited[child], 1) == 0)
      appendConverged(next, state, child);
  }
}

// The child of a Bellman-Ford round: the warp relaxes u's out-edges (bf_relax).
__global__ void bfRelaxChild(const int *offsets, const int *edges, const int *weights, int u,
                             int *dist, int *stamp, int round, int *next, int *state) {
  int du = dist[u];
  for (int e = offsets[u] + int(threadIdx.x); e < offsets[u + 1]; e += 32) {
    int to = edges[e], candidate = du + weights[e];
    if (candidate < dist[to] && candidate < atomicMin(&dist[to], candidate) &&
        atomicExch(&stamp[to], round) != round)
      appendConverged(next, state, to);
  }
}

// The child of a components sweep: the warp takes the smallest label around v
// (cc_smallest_label) and lowers v's label.
__global__ void ccSmallestChild(const int *offsets, const int *edges, int v, int *labels,
                                int *changed) {
  int best = labels[v];
  for (int e = offsets[v] + int(threadIdx.x); e < offsets[v + 1]; e += 32)
    best = min(best, labels[edges[e]]);
  best = __reduce_min_sync(FullWarp, best);
  if (threadIdx.x == 0) {
    best = min(best, labels[best]);
    if (best < labels[v]) {
      labels[v] = best;
      *changed = 1;
    }
  }
}

// Sorts the 32 values of x across the warp (ascending by lane) with the bitonic network.
__device__ int bitonicSortWarp(int x) {
  int lane = threadIdx.x & 31;
  for (int k = 2; k <= 32; k *= 2)
    for (int j = k / 2; j > 0; j /= 2) {
      int other = __shfl_xor_sync(FullWarp, x, j);
      bool ascending = (lane & k) == 0, lower = (lane & j) == 0;
      x = lower == ascending ? min(x, other) : max(x, other);
    }
  return x;
}

__device__ int median3(int a, int b, int c) { return max(min(a, b), min(max(a, b), c)); }

// Appends the keys of keys[lo, hi) for which `take` holds to scratch[cursor ...], in order,
// 32 at a time by ballot; returns the new cursor.
template <typename Take>
__device__ int packWarp(const int *keys, int *scratch, int lo, int hi, int cursor, Take take) {
  int lane = threadIdx.x & 31;
  for (int base = lo; base < hi; base += 32) {
    int i = base + lane;
    int key = i < hi ? keys[i] : 0;
    bool taken = i < hi && take(key);
    unsigned bits = __ballot_sync(FullWarp, taken);
    if (taken)
      scratch[cursor + __popc(bits & ((1u << lane) - 1))] = key;
    cursor += __popc(bits);
  }
  return cursor;
}

// The warp quicksort of the child (qs_warp): three-way partition through scratch, recursion on
// the smaller part, a bitonic sort of the last 32 keys or fewer.
__device__ void quicksortWarp(int *keys, int *scratch, int lo, int hi) {
  int lane = threadIdx.x & 31;
  while (hi - lo > 32) {
    int pivot = median3(keys[lo], keys[(lo + hi) / 2], keys[hi - 1]);
    int lessEnd = packWarp(keys, scratch, lo, hi, lo, [=](int k) { return k < pivot; });
    int greaterBegin = packWarp(keys, scratch, lo, hi, lessEnd, [=](int k) { return k == pivot; });
    packWarp(keys, scratch, lo, hi, greaterBegin, [=](int k) { return k > pivot; });
    __syncwarp();
    for (int i = lo + lane; i < hi; i += 32)
      keys[i] = scratch[i];
    __syncwarp();
    if (lessEnd - lo < hi - greaterBegin) {
      quicksortWarp(keys, scratch, lo, lessEnd);
      lo = greaterBegin;
    } else {
      quicksortWarp(keys, scratch, greaterBegin, hi);
      hi = lessEnd;
    }
  }
  int x = lo + lane < hi ? keys[lo + lane] : 0x7fffffff;
  x = bitonicSortWarp(x);
  if (lo + lane < hi)
    keys[lo + lane] = x;
  __syncwarp();
}

__global__ void quicksortChild(int *keys, int *scratch, int lo, int hi) {
  quicksortWarp(keys, scratch, lo, hi);
}

// Merges src[run, mid) and src[mid, stop) into dst[run, stop) by merge path, lane k producing
// the k-th slice of the output (ms_merge_warp).
__device__ void mergeWarp(const int *src, int *dst, int run, int mid, int stop) {
  int lane = threadIdx.x & 31;
  int leftLength = mid - run, total = stop - run, slice = (total + 31) / 32;
  int first = min(lane * slice, total), last = min(first + slice, total);
  int low = max(0, first - (stop - mid)), high = min(first, leftLength);
  while (low < high) {
    int split = (low + high) / 2;
    if (src[run + split] <= src[mid + first - split - 1])
      low = split + 1;
    else
      high = split;
  }
  int i = run + low, j = mid + first - low;
  for (int k = run + first; k < run + last; ++k)
    dst[k] = (j >= stop || (i < mid && src[i] <= src[j])) ? src[i++] : src[j++];
}

// The child of the mergesort: bitonic-sorted blocks of 32, then merge-path merges (ms_warp).
__global__ void mergesortChild(int *keys, int *scratch, int begin, int end) {
  int lane = threadIdx.x;
  for (int run = begin; run < end; run += 32) {
    int x = run + lane < end ? keys[run + lane] : 0x7fffffff;
    x = bitonicSortWarp(x);
    if (run + lane < end)
      keys[run + lane] = x;
  }
  __syncwarp();
  int *src = keys, *dst = scratch;
  for (int width = 32; width < end - begin; width *= 2) {
    for (int run = begin; run < end; run += 2 * width)
      mergeWarp(src, dst, run, min(run + width, end), min(run + 2 * width, end));
    __syncwarp();
    int *swap = src;
    src = dst;
    dst = swap;
  }
  if (src != keys)
    for (int i = begin + lane; i < end; i += 32)
      keys[i] = src[i];
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

__global__ void dfsLaunchKernel(const int *offsets, const int *edges, int vertexCount,
                                const int *stack, int count, int *visited, float *f, int *next,
                                int *state, int *failures) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    launchWarp(dfsVisitChild, failures, offsets, edges, vertexCount, stack[i], visited, f, next,
               state);
}

__global__ void bfLaunchKernel(const int *offsets, const int *edges, const int *weights, int *dist,
                               const int *frontier, int count, int *stamp, int round, int *next,
                               int *state, int *failures) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    launchWarp(bfRelaxChild, failures, offsets, edges, weights, frontier[i], dist, stamp, round,
               next, state);
}

__global__ void ccLaunchKernel(const int *offsets, const int *edges, int vertexCount, int *labels,
                               int *changed, int *failures) {
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < vertexCount; v += gridDim.x * blockDim.x)
    launchWarp(ccSmallestChild, failures, offsets, edges, v, labels, changed);
}

__global__ void qsortLaunchKernel(int *keys, int *scratch, const int *offsets, int arrays,
                                  int *failures) {
  for (int a = blockIdx.x * blockDim.x + threadIdx.x; a < arrays; a += gridDim.x * blockDim.x)
    launchWarp(quicksortChild, failures, keys, scratch, offsets[a], offsets[a + 1]);
}

__global__ void msortLaunchKernel(int *keys, int *scratch, const int *offsets, int arrays,
                                  int *failures) {
  for (int a = blockIdx.x * blockDim.x + threadIdx.x; a < arrays; a += gridDim.x * blockDim.x)
    launchWarp(mergesortChild, failures, keys, scratch, offsets[a], offsets[a + 1]);
}

int blocksFor(int threads) { return (threads + ThreadsPerBlock - 1) / ThreadsPerBlock; }

// The parent grid for `items` items: parentThreads threads, or fewer when there are fewer items.
int parentBlocks(int items, int parentThreads) {
  return blocksFor(items < parentThreads ? (items > 0 ? items : 1) : parentThreads);
}

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

void dfs_step_launch_cuda(const int *offsets, const int *edges, int vertexCount, const int *stack,
                          int count, int *visited, float *f, int *next, int *state,
                          int parentThreads, int *failures) {
  dfsLaunchKernel<<<parentBlocks(count, parentThreads), ThreadsPerBlock>>>(
      offsets, edges, vertexCount, stack, count, visited, f, next, state, failures);
}

void bf_round_launch_cuda(const int *offsets, const int *edges, const int *weights, int *dist,
                          const int *frontier, int count, int *stamp, int round, int *next,
                          int *state, int parentThreads, int *failures) {
  bfLaunchKernel<<<parentBlocks(count, parentThreads), ThreadsPerBlock>>>(
      offsets, edges, weights, dist, frontier, count, stamp, round, next, state, failures);
}

void cc_sweep_launch_cuda(const int *offsets, const int *edges, int vertexCount, int *labels,
                          int *changed, int parentThreads, int *failures) {
  ccLaunchKernel<<<parentBlocks(vertexCount, parentThreads), ThreadsPerBlock>>>(
      offsets, edges, vertexCount, labels, changed, failures);
}

void qsort_launch_cuda(int *keys, int *scratch, const int *offsets, int arrays, int parentThreads,
                       int *failures) {
  qsortLaunchKernel<<<parentBlocks(arrays, parentThreads), ThreadsPerBlock>>>(
      keys, scratch, offsets, arrays, failures);
}

void msort_launch_cuda(int *keys, int *scratch, const int *offsets, int arrays, int parentThreads,
                       int *failures) {
  msortLaunchKernel<<<parentBlocks(arrays, parentThreads), ThreadsPerBlock>>>(
      keys, scratch, offsets, arrays, failures);
}
