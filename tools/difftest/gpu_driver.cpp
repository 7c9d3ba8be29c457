// GPU driver of the differential tests (tools/difftest --gpu-prepare): loads a
// module (PTX or cubin) of many generated programs and runs each program's
// entry point s<seed>_difftest as one warp (a gang of 32), on the inputs of
// driver.cpp, printing what driver.cpp prints for a batch (`seed S`, the
// written slots, `end S`).
//
// usage: difftest-gpu MODULE SEED...
#include "spmdc_cuda.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "inputs.h"

#define CHECK(call)                                                                                \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      const char *s_ = "?";                                                                        \
      cuGetErrorString(r_, &s_);                                                                   \
      std::fprintf(stderr, "%s: %s\n", #call, s_);                                                 \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int Argc, char **Argv) {
  if (Argc < 3) {
    std::fprintf(stderr, "usage: %s MODULE SEED...\n", Argv[0]);
    return 2;
  }
  spmdc_cuda_module M;
  if (spmdc_cuda_load_ptx_file(&M, 0, Argv[1]) != 0) {
    std::fprintf(stderr, "%s\n", spmdc_cuda_last_error());
    return 1;
  }
  // Bounded recursion (depth <= 3 per helper) fits easily.
  CHECK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 16 * 1024));
  int32_t In[InputSize];
  float InF[InputSize];
  fillInputs(In, InF);
  std::vector<uint64_t> Out(Slots);
  CUdeviceptr DOut, DIn, DInF;
  CHECK(cuMemAlloc(&DOut, Slots * sizeof(uint64_t)));
  CHECK(cuMemAlloc(&DIn, sizeof In));
  CHECK(cuMemAlloc(&DInF, sizeof InF));
  CHECK(cuMemcpyHtoD(DIn, In, sizeof In));
  CHECK(cuMemcpyHtoD(DInF, InF, sizeof InF));
  for (int A = 2; A < Argc; ++A) {
    int Seed = std::atoi(Argv[A]);
    std::string Name = "s" + std::to_string(Seed) + "_difftest";
    CUfunction K;
    CHECK(cuModuleGetFunction(&K, M.module, Name.c_str()));
    Out.assign(Slots, Unwritten);
    CHECK(cuMemcpyHtoD(DOut, Out.data(), Slots * sizeof(uint64_t)));
    int32_t Count = N;
    void *Args[] = {&DOut, &DIn, &DInF, &Count};
    std::printf("seed %d\n", Seed);
    std::fflush(stdout);
    if (spmdc_cuda_launch_warps(K, 1, 1, nullptr, Args) != 0) {
      std::fprintf(stderr, "%s\n", spmdc_cuda_last_error());
      return 1;
    }
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(Out.data(), DOut, Slots * sizeof(uint64_t)));
    for (int I = 0; I < Slots; ++I)
      if (Out[I] != Unwritten)
        std::printf("%d %016" PRIx64 "\n", I, Out[I]);
    std::printf("end %d\n", Seed);
  }
  spmdc_cuda_unload(&M);
  return 0;
}
