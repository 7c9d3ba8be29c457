// European option pricing in CUDA C++: Black-Scholes calls and binomial-tree puts,
// one thread per option.
#include "kernels_cuda.h"

#define BINOMIAL_STEPS 64

__device__ static inline float cumulative_normal(float d) {
  const float invSqrt2Pi = 0.39894228040f;
  float x = fabsf(d);
  float k = 1.0f / (1.0f + 0.2316419f * x);
  float poly =
      k * (0.319381530f +
           k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  float tail = invSqrt2Pi * expf(-0.5f * x * x) * poly;
  if (d > 0.0f)
    return 1.0f - tail;
  return tail;
}

__global__ void black_scholes_cuda_kernel(const float *Sa, const float *Xa, const float *Ta,
                                          const float *ra, const float *va, float *result,
                                          int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  float S = Sa[i], X = Xa[i], T = Ta[i], r = ra[i], v = va[i];
  float sqrtT = sqrtf(T);
  float d1 = (logf(S / X) + (r + 0.5f * v * v) * T) / (v * sqrtT);
  float d2 = d1 - v * sqrtT;
  result[i] = S * cumulative_normal(d1) - X * expf(-r * T) * cumulative_normal(d2);
}

__device__ static float binomial_put(float S, float X, float T, float r, float v) {
  float V[BINOMIAL_STEPS];
  float dt = T / BINOMIAL_STEPS;
  float up = expf(v * sqrtf(dt));
  float down = 1.0f / up;
  float growth = expf(r * dt);
  float pUp = (growth - down) / (up - down);
  for (int j = 0; j < BINOMIAL_STEPS; ++j) {
    float price = S * powf(up, (float)(2 * j - BINOMIAL_STEPS));
    V[j] = fmaxf(0.0f, X - price);
  }
  for (int level = BINOMIAL_STEPS - 1; level > 0; --level)
    for (int k = 0; k < level; ++k)
      V[k] = ((1.0f - pUp) * V[k] + pUp * V[k + 1]) / growth;
  return V[0];
}

__global__ void binomial_put_cuda_kernel(const float *Sa, const float *Xa, const float *Ta,
                                         const float *ra, const float *va, float *result,
                                         int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    result[i] = binomial_put(Sa[i], Xa[i], Ta[i], ra[i], va[i]);
}

void black_scholes_cuda(const float *S, const float *X, const float *T, const float *r,
                        const float *v, float *result, int count, int threadsPerBlock,
                        cudaStream_t s) {
  black_scholes_cuda_kernel<<<(count + threadsPerBlock - 1) / threadsPerBlock, threadsPerBlock, 0,
                              s>>>(S, X, T, r, v, result, count);
}

void binomial_put_cuda(const float *S, const float *X, const float *T, const float *r,
                       const float *v, float *result, int count, int threadsPerBlock,
                       cudaStream_t s) {
  binomial_put_cuda_kernel<<<(count + threadsPerBlock - 1) / threadsPerBlock, threadsPerBlock, 0,
                             s>>>(S, X, T, r, v, result, count);
}
