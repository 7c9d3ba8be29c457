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

// Prepares the device runtime for the Launch variants: raises the pending launch limit;
// returns the cudaError_t of cudaDeviceSetLimit.
int launch_setup_cuda(int pendingLaunches);
