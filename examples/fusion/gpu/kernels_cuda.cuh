// The vertical-fusion examples fused by hand in CUDA (the baselines of
// scripts/fusion-bench.sh): what a CUDA programmer writes for each chain as one
// kernel, computing the same formulas as examples/fusion/*.spmd.
#pragma once

#include <cstdint>

__global__ void cuda_map_chain(const float *__restrict__ x, float *__restrict__ y, float a, float b,
                               int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float t1 = a * v + b;
    float t3 = sqrtf(t1 * t1 + 1.0f);
    y[i] = 0.5f * (t3 - v) + 1.0f;
  }
}

__device__ inline float cuda_keep_uniform(uint32_t i, uint32_t seed) {
  uint32_t k = i * 0x9E3779B1u ^ seed;
  k ^= k >> 16;
  k *= 0x85EBCA6Bu;
  k ^= k >> 13;
  k *= 0xC2B2AE35u;
  k ^= k >> 16;
  return (float)(k >> 8) * (1.0f / 16777216.0f);
}

__global__ void cuda_bias_gelu_dropout(const float *__restrict__ x, const float *__restrict__ bias,
                                       float *__restrict__ y, int cols, int n, uint32_t seed,
                                       float p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] + bias[i % cols];
    float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    float g = 0.5f * v * (2.0f - 2.0f / (expf(2.0f * u) + 1.0f));
    y[i] = cuda_keep_uniform((uint32_t)i, seed) < p ? 0.0f : g * (1.0f / (1.0f - p));
  }
}

__device__ inline float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One warp per row (rows of up to a few thousand floats): the usual hand-written form.
__global__ void cuda_softmax(const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  int warps = (gridDim.x * blockDim.x) >> 5;
  for (int r = warp; r < rows; r += warps) {
    const float *row = x + (size_t)r * cols;
    float m = -3.0e38f;
    for (int c = lane; c < cols; c += 32)
      m = fmaxf(m, row[c]);
    m = warp_max(m);
    float s = 0;
    for (int c = lane; c < cols; c += 32)
      s += expf(row[c] - m);
    float inv = 1.0f / warp_sum(s);
    for (int c = lane; c < cols; c += 32)
      y[(size_t)r * cols + c] = expf(row[c] - m) * inv;
  }
}

__global__ void cuda_layernorm(const float *__restrict__ x, const float *__restrict__ gamma,
                               const float *__restrict__ beta, float *__restrict__ y, int rows,
                               int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  int warps = (gridDim.x * blockDim.x) >> 5;
  for (int r = warp; r < rows; r += warps) {
    const float *row = x + (size_t)r * cols;
    float t = 0;
    for (int c = lane; c < cols; c += 32)
      t += row[c];
    float mean = warp_sum(t) / cols;
    float q = 0;
    for (int c = lane; c < cols; c += 32) {
      float d = row[c] - mean;
      q += d * d;
    }
    float inv = 1.0f / sqrtf(warp_sum(q) / cols + 1e-5f);
    for (int c = lane; c < cols; c += 32)
      y[(size_t)r * cols + c] = (row[c] - mean) * inv * gamma[c] + beta[c];
  }
}

__global__ void cuda_row_normalize(const float *__restrict__ x, float *__restrict__ y, int rows,
                                   int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  int warps = (gridDim.x * blockDim.x) >> 5;
  for (int r = warp; r < rows; r += warps) {
    const float *row = x + (size_t)r * cols;
    float t = 0;
    for (int c = lane; c < cols; c += 32)
      t += row[c];
    float inv = 1.0f / warp_sum(t);
    for (int c = lane; c < cols; c += 32)
      y[(size_t)r * cols + c] = row[c] * inv;
  }
}

// The two-stage stencil with block composition: the block loads x with a halo of 2 into
// shared memory, computes the blurred values with a halo of 1, then the differences.
constexpr int StencilBlock = 256;
__global__ void cuda_stencil2(const float *__restrict__ x, float *__restrict__ y, int n) {
  __shared__ float xs[StencilBlock + 4], bs[StencilBlock + 2];
  int base = blockIdx.x * StencilBlock;
  for (int k = threadIdx.x; k < StencilBlock + 4; k += blockDim.x) {
    int g = min(max(base + k - 2, 0), n - 1);
    xs[k] = x[g];
  }
  __syncthreads();
  for (int k = threadIdx.x; k < StencilBlock + 2; k += blockDim.x) {
    int g = base + k - 1;
    if (g >= 0 && g < n) {
      float c = xs[k + 1];
      float l = g > 0 ? xs[k] : c, r = g < n - 1 ? xs[k + 2] : c;
      bs[k] = 0.25f * l + 0.5f * c + 0.25f * r;
    }
  }
  __syncthreads();
  int i = base + threadIdx.x;
  if (i < n) {
    int k = threadIdx.x + 1;
    float c = bs[k];
    float l = i > 0 ? bs[k - 1] : c, r = i < n - 1 ? bs[k + 1] : c;
    y[i] = r - l;
  }
}

__global__ void cuda_copy(const float4 *__restrict__ x, float4 *__restrict__ y, size_t n4) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < n4; i += stride)
    y[i] = x[i];
}
