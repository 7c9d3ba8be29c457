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

__global__ void mandelbrot_cuda_kernel(float x0, float y0, float dx, float dy, int width, int height,
                                       int maxIterations, int *output) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  if (col >= width || row >= height)
    return;
  float x = x0 + col * dx;
  float y = y0 + row * dy;
  output[row * width + col] = mandel(x, y, maxIterations);
}

void mandelbrot_cuda(float x0, float y0, float dx, float dy, int width, int height, int maxIterations,
                     int *output, int threadsPerBlock, cudaStream_t s) {
  dim3 grid((width + threadsPerBlock - 1) / threadsPerBlock, height);
  mandelbrot_cuda_kernel<<<grid, threadsPerBlock, 0, s>>>(x0, y0, dx, dy, width, height, maxIterations,
                                                          output);
}
