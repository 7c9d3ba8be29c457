// The CUDA twins of the examples/crev/gpu kernels: for each example the naive per-thread loop
// (nvcc, one thread per item, each thread does its item's work alone) and CUDA dynamic
// parallelism (a child kernel of one warp launched by every thread whose item needs the
// gang-wide work, like the seed's "Launch" column). Host-side launchers, all on stream 0.
#pragma once

#include <cstdint>

// One thread per position: found[p] = pattern occurs at p, for p in [0, textLength - m].
void match_naive_cuda(const int8_t *text, int textLength, const int8_t *pattern, int m,
                      int8_t *found);
// A parent grid of `parentThreads` threads strides over the positions; each thread whose
// position passes the first-character test launches a one-warp child that compares the
// pattern there. `failures` (device int) counts child launches that could not be made.
void match_launch_cuda(const int8_t *text, int textLength, const int8_t *pattern, int m,
                       int8_t *found, int parentThreads, int *failures);

// One thread per record: kept[r] = record r (text[offsets[r] .. offsets[r+1])) contains the
// keyword.
void filter_naive_cuda(const int8_t *text, const int *offsets, int records, const int8_t *keyword,
                       int m, int8_t *kept);
// A parent thread per record (striding) launches a one-warp child that searches the record.
void filter_launch_cuda(const int8_t *text, const int *offsets, int records, const int8_t *keyword,
                        int m, int8_t *kept, int parentThreads, int *failures);

// The graph and sorting examples: one call is one step of the host loop of bench.cu (a DFS
// step, a Bellman-Ford round, a components sweep) or one whole batch sort. The naive versions
// take a thread per item; the Launch versions a parent grid of `parentThreads` threads (at most
// one per item) striding over the items, each launching a one-warp child for its item.

// Visits stack[0 .. count): f[v] = degree / vertexCount, unvisited neighbours claimed in
// visited[] and appended to next[] (length in *state).
void dfs_step_naive_cuda(const int *offsets, const int *edges, int vertexCount, const int *stack,
                         int count, int *visited, float *f, int *next, int *state);
void dfs_step_launch_cuda(const int *offsets, const int *edges, int vertexCount, const int *stack,
                          int count, int *visited, float *f, int *next, int *state,
                          int parentThreads, int *failures);
// Relaxes the out-edges of frontier[0 .. count); a vertex whose distance drops is appended to
// next[] once per round (stamp[to] = round).
void bf_round_naive_cuda(const int *offsets, const int *edges, const int *weights, int *dist,
                         const int *frontier, int count, int *stamp, int round, int *next,
                         int *state);
void bf_round_launch_cuda(const int *offsets, const int *edges, const int *weights, int *dist,
                          const int *frontier, int count, int *stamp, int round, int *next,
                          int *state, int parentThreads, int *failures);
// Lowers every label to the smallest around it; sets *changed when one changes.
void cc_sweep_naive_cuda(const int *offsets, const int *edges, int vertexCount, int *labels,
                         int *changed);
void cc_sweep_launch_cuda(const int *offsets, const int *edges, int vertexCount, int *labels,
                          int *changed, int parentThreads, int *failures);
// Sorts every array keys[offsets[a] .. offsets[a + 1]) in place (scratch as large as keys).
void qsort_naive_cuda(int *keys, const int *offsets, int arrays);
void qsort_launch_cuda(int *keys, int *scratch, const int *offsets, int arrays, int parentThreads,
                       int *failures);
void msort_naive_cuda(int *keys, int *scratch, const int *offsets, int arrays);
void msort_launch_cuda(int *keys, int *scratch, const int *offsets, int arrays, int parentThreads,
                       int *failures);

// Prepares the device runtime for the Launch variants: raises the pending launch limit;
// returns the cudaError_t of cudaDeviceSetLimit.
int launch_setup_cuda(int pendingLaunches);
