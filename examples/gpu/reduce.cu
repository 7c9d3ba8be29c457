// Sum of an array in CUDA C++: the usual grid-stride loop, warp shuffles, and
// shared memory across the warps of a block; one partial sum per block.
#include "kernels_cuda.h"

__global__ void block_sum_cuda_kernel(int n, const float *x, float *partial) {
  __shared__ float warpSums[32];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    sum += x[i];
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0)
    warpSums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    float v = lane < blockDim.x / 32 ? warpSums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
      v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0)
      partial[blockIdx.x] = v;
  }
}

void block_sum_cuda(int n, const float *x, float *partial, int blocks, int threadsPerBlock,
                    cudaStream_t s) {
  block_sum_cuda_kernel<<<blocks, threadsPerBlock, 0, s>>>(n, x, partial);
}
