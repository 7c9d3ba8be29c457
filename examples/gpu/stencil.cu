// One time step of the 3-D wave equation with a 7-point Laplacian in CUDA C++:
// the straightforward kernel, one thread per interior grid point.
#include "kernels_cuda.h"

__global__ void stencil_cuda_kernel(int Nx, int Ny, int Nz, const float *coef, const float *vsq,
                                    const float *Ain, float *Aout) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int z = blockIdx.z + 1;
  if (x >= Nx - 1 || y >= Ny - 1 || z >= Nz - 1)
    return;
  int Nxy = Nx * Ny;
  int c = z * Nxy + y * Nx + x;
  float center = Ain[c];
  float neighbours =
      Ain[c - 1] + Ain[c + 1] + Ain[c - Nx] + Ain[c + Nx] + Ain[c - Nxy] + Ain[c + Nxy];
  float laplacian = coef[0] * center + coef[1] * neighbours;
  Aout[c] = 2.0f * center - Aout[c] + vsq[c] * laplacian;
}

void stencil_cuda(int Nx, int Ny, int Nz, const float *coef, const float *vsq, const float *Ain,
                  float *Aout, int threadsPerBlock, cudaStream_t s) {
  // Blocks of 32 x (threadsPerBlock/32) threads over the interior (x, y); one z-plane per grid
  // layer.
  dim3 block(32, threadsPerBlock / 32);
  dim3 grid((Nx - 2 + 31) / 32, (Ny - 2 + block.y - 1) / block.y, Nz - 2);
  stencil_cuda_kernel<<<grid, block, 0, s>>>(Nx, Ny, Nz, coef, vsq, Ain, Aout);
}
