// Error handling and device buffers shared by the GPU benchmark hosts
// (examples/gpu, examples/crev/gpu, examples/hfuse): a failing CUDA call ends
// the benchmark with a message naming the call.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

[[noreturn]] inline void fatal(const std::string &What) {
  std::fprintf(stderr, "bench: %s\n", What.c_str());
  std::exit(1);
}

inline void check(cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    fatal(std::string(What) + ": " + cudaGetErrorString(E));
}

inline void check(CUresult R, const char *What) {
  if (R != CUDA_SUCCESS) {
    const char *Text = "?";
    cuGetErrorString(R, &Text);
    fatal(std::string(What) + ": " + Text);
  }
}

// A device buffer of T, freed at scope exit (never a zero-byte allocation).
template <typename T> struct DeviceBuffer {
  T *Ptr = nullptr;
  size_t Count = 0;
  explicit DeviceBuffer(size_t N) : Count(N) {
    check(cudaMalloc(&Ptr, std::max<size_t>(N, 1) * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(Ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  CUdeviceptr dev() const { return reinterpret_cast<CUdeviceptr>(Ptr); }
  size_t bytes() const { return Count * sizeof(T); }
  void upload(const std::vector<T> &H) {
    check(cudaMemcpy(Ptr, H.data(), bytes(), cudaMemcpyHostToDevice), "upload");
  }
  void copyFrom(const DeviceBuffer &O) {
    check(cudaMemcpy(Ptr, O.Ptr, bytes(), cudaMemcpyDeviceToDevice), "copy");
  }
  std::vector<T> download() const {
    std::vector<T> H(Count);
    check(cudaMemcpy(H.data(), Ptr, bytes(), cudaMemcpyDeviceToHost), "download");
    return H;
  }
};
