// The nvcc-built CUDA baselines of the GPU examples: one launcher per kernel
// (one thread per element, `threadsPerBlock` threads per block).
#ifndef SPMDC_EXAMPLES_GPU_KERNELS_CUDA_H
#define SPMDC_EXAMPLES_GPU_KERNELS_CUDA_H

#include <cuda_runtime.h>

void saxpy_cuda(int n, float a, const float *x, float *y, int threadsPerBlock, cudaStream_t s);
void stencil_cuda(int Nx, int Ny, int Nz, const float *coef, const float *vsq, const float *Ain,
                  float *Aout, int threadsPerBlock, cudaStream_t s);
void mandelbrot_cuda(float x0, float y0, float dx, float dy, int width, int height,
                     int maxIterations, int *output, int threadsPerBlock, cudaStream_t s);
// The check reference: mandelbrot without fma contraction (not timed).
void mandelbrot_cuda_unfused(float x0, float y0, float dx, float dy, int width, int height,
                             int maxIterations, int *output, cudaStream_t s);
void black_scholes_cuda(const float *S, const float *X, const float *T, const float *r,
                        const float *v, float *result, int count, int threadsPerBlock,
                        cudaStream_t s);
void binomial_put_cuda(const float *S, const float *X, const float *T, const float *r,
                       const float *v, float *result, int count, int threadsPerBlock,
                       cudaStream_t s);
// Grid-stride sum over x[0..n): partial[b] = the sum read by block b.
void block_sum_cuda(int n, const float *x, float *partial, int blocks, int threadsPerBlock,
                    cudaStream_t s);

#endif
