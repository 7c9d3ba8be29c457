// Scalar C++ references of the vertical-fusion examples (examples/fusion/*.spmd),
// written from the definitions, not from the kernels: the CPU check and the GPU
// benchmark compare both spmdc's kernels (apart and fused) and the CUDA twins to them.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace ref {

/// Deterministic inputs in [Lo, Hi) (an LCG), the same on every machine.
inline std::vector<float> randomFloats(size_t N, float Lo, float Hi, uint64_t Seed) {
  std::vector<float> V(N);
  uint64_t S = Seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    V[I] = Lo + (Hi - Lo) * static_cast<float>(S >> 40) / static_cast<float>(1ull << 24);
  }
  return V;
}

inline void mapChain(const std::vector<float> &x, float a, float b, std::vector<float> &y) {
  for (size_t i = 0; i < x.size(); ++i) {
    float t1 = a * x[i] + b;
    float t2 = t1 * t1;
    float t3 = std::sqrt(t2 + 1.0f);
    float t4 = t3 - x[i];
    y[i] = 0.5f * t4 + 1.0f;
  }
}

inline float gelu(float v) {
  return 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
}

/// The dropout decision of element i: a murmur3-style finalizer of (i * golden ^ seed).
inline float keepUniform(uint32_t i, uint32_t seed) {
  uint32_t k = i * 0x9E3779B1u ^ seed;
  k ^= k >> 16;
  k *= 0x85EBCA6Bu;
  k ^= k >> 13;
  k *= 0xC2B2AE35u;
  k ^= k >> 16;
  return static_cast<float>(k >> 8) * (1.0f / 16777216.0f);
}

inline void biasGeluDropout(const std::vector<float> &x, const std::vector<float> &bias, int cols,
                            uint32_t seed, float p, std::vector<float> &y) {
  for (size_t i = 0; i < x.size(); ++i) {
    float g = gelu(x[i] + bias[i % cols]);
    y[i] = keepUniform(static_cast<uint32_t>(i), seed) < p ? 0.0f : g / (1.0f - p);
  }
}

inline void softmax(const std::vector<float> &x, int rows, int cols, std::vector<float> &y) {
  for (int r = 0; r < rows; ++r) {
    const float *row = &x[size_t(r) * cols];
    float m = -3.0e38f;
    for (int c = 0; c < cols; ++c)
      m = std::max(m, row[c]);
    double s = 0;
    for (int c = 0; c < cols; ++c)
      s += std::exp(double(row[c]) - m);
    for (int c = 0; c < cols; ++c)
      y[size_t(r) * cols + c] = float(std::exp(double(row[c]) - m) / s);
  }
}

inline void layerNorm(const std::vector<float> &x, const std::vector<float> &gamma,
                      const std::vector<float> &beta, int rows, int cols, std::vector<float> &y) {
  for (int r = 0; r < rows; ++r) {
    const float *row = &x[size_t(r) * cols];
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mean += row[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c)
      var += (row[c] - mean) * (row[c] - mean);
    var /= cols;
    double inv = 1.0 / std::sqrt(var + 1e-5);
    for (int c = 0; c < cols; ++c)
      y[size_t(r) * cols + c] = float((row[c] - mean) * inv * gamma[c] + beta[c]);
  }
}

inline void rowNormalize(const std::vector<float> &x, int rows, int cols, std::vector<float> &y) {
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c)
      s += x[size_t(r) * cols + c];
    for (int c = 0; c < cols; ++c)
      y[size_t(r) * cols + c] = float(x[size_t(r) * cols + c] / s);
  }
}

inline void stencil2(const std::vector<float> &x, std::vector<float> &y) {
  size_t n = x.size();
  std::vector<float> b(n);
  for (size_t i = 0; i < n; ++i) {
    float l = i > 0 ? x[i - 1] : x[i], r = i + 1 < n ? x[i + 1] : x[i];
    b[i] = 0.25f * l + 0.5f * x[i] + 0.25f * r;
  }
  for (size_t i = 0; i < n; ++i) {
    float l = i > 0 ? b[i - 1] : b[i], r = i + 1 < n ? b[i + 1] : b[i];
    y[i] = r - l;
  }
}

} // namespace ref
