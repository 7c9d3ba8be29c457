// y = a*x + y in CUDA C++: the kernel a CUDA programmer writes, one thread per element.
#include "kernels_cuda.h"

__global__ void saxpy_cuda_kernel(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

void saxpy_cuda(int n, float a, const float *x, float *y, int threadsPerBlock, cudaStream_t s) {
  saxpy_cuda_kernel<<<(n + threadsPerBlock - 1) / threadsPerBlock, threadsPerBlock, 0, s>>>(n, a, x,
                                                                                            y);
}
