// The Mandelbrot set in CUDA C++: one thread per pixel.
#include "kernels_cuda.h"

__device__ static inline int mandel(float c_re, float c_im, int maxIterations) {
  float z_re = c_re, z_im = c_im;
  int i;
  for (i = 0; i < maxIterations; ++i) {
    if (z_re * z_re + z_im * z_im > 4.0f)
      break;
    float next_re = z_re * z_re - z_im * z_im;
    float next_im = 2.0f * z_re * z_im;
    z_re = c_re + next_re;
    z_im = c_im + next_im;
  }
  return i;
}

__global__ void mandelbrot_cuda_kernel(float x0, float y0, float dx, float dy, int width,
                                       int height, int maxIterations, int *output) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  if (col >= width || row >= height)
    return;
  float x = x0 + col * dx;
  float y = y0 + row * dy;
  output[row * width + col] = mandel(x, y, maxIterations);
}

// The same computation with every multiply and add rounded separately
// (__fmul_rn/__fadd_rn are never contracted into fma), which is what spmdc's
// PTX does: the benchmark checks spmdc against this one pixel for pixel, since
// one fma changes the orbit of points near the set's boundary.
__device__ static inline int mandel_unfused(float c_re, float c_im, int maxIterations) {
  float z_re = c_re, z_im = c_im;
  int i;
  for (i = 0; i < maxIterations; ++i) {
    if (__fadd_rn(__fmul_rn(z_re, z_re), __fmul_rn(z_im, z_im)) > 4.0f)
      break;
    float next_re = __fadd_rn(__fmul_rn(z_re, z_re), -__fmul_rn(z_im, z_im));
    float next_im = __fmul_rn(__fmul_rn(2.0f, z_re), z_im);
    z_re = __fadd_rn(c_re, next_re);
    z_im = __fadd_rn(c_im, next_im);
  }
  return i;
}

__global__ void mandelbrot_unfused_kernel(float x0, float y0, float dx, float dy, int width,
                                          int height, int maxIterations, int *output) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  if (col >= width || row >= height)
    return;
  float x = __fadd_rn(x0, __fmul_rn((float)col, dx));
  float y = __fadd_rn(y0, __fmul_rn((float)row, dy));
  output[row * width + col] = mandel_unfused(x, y, maxIterations);
}

void mandelbrot_cuda_unfused(float x0, float y0, float dx, float dy, int width, int height,
                             int maxIterations, int *output, cudaStream_t s) {
  dim3 grid((width + 255) / 256, height);
  mandelbrot_unfused_kernel<<<grid, 256, 0, s>>>(x0, y0, dx, dy, width, height, maxIterations,
                                                 output);
}

void mandelbrot_cuda(float x0, float y0, float dx, float dy, int width, int height,
                     int maxIterations, int *output, int threadsPerBlock, cudaStream_t s) {
  dim3 grid((width + threadsPerBlock - 1) / threadsPerBlock, height);
  mandelbrot_cuda_kernel<<<grid, threadsPerBlock, 0, s>>>(x0, y0, dx, dy, width, height,
                                                          maxIterations, output);
}
