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
#include <thread>
#include <unistd.h>
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

namespace {
enum class Ending { Done, Fault, Hang };

// Waits for the launched program, at most TimeoutSeconds.
Ending waitForProgram(double TimeoutSeconds) {
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(TimeoutSeconds);
  for (;;) {
    CUresult R = cuStreamQuery(nullptr);
    if (R == CUDA_SUCCESS)
      return Ending::Done;
    if (R != CUDA_ERROR_NOT_READY) {
      const char *S = "?";
      cuGetErrorString(R, &S);
      std::fprintf(stderr, "the program failed: %s\n", S);
      return Ending::Fault;
    }
    if (std::chrono::steady_clock::now() > Deadline)
      return Ending::Hang;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}
} // namespace

int main(int Argc, char **Argv) {
  double TimeoutSeconds = 10;
  int First = 1;
  if (Argc > 2 && std::string(Argv[1]) == "--timeout") {
    TimeoutSeconds = std::atof(Argv[2]);
    First = 3;
  }
  if (Argc < First + 2) {
    std::fprintf(stderr, "usage: %s [--timeout SECONDS] MODULE SEED...\n", Argv[0]);
    return 2;
  }
  spmdc_cuda_module M;
  if (spmdc_cuda_load_ptx_file(&M, 0, Argv[First]) != 0) {
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
  for (int A = First + 1; A < Argc; ++A) {
    int Seed = std::atoi(Argv[A]);
    // First, so that whatever fails from here on is attributed to this program.
    std::printf("seed %d\n", Seed);
    std::fflush(stdout);
    std::string Name = "s" + std::to_string(Seed) + "_difftest";
    CUfunction K;
    CHECK(cuModuleGetFunction(&K, M.module, Name.c_str()));
    Out.assign(Slots, Unwritten);
    CHECK(cuMemcpyHtoD(DOut, Out.data(), Slots * sizeof(uint64_t)));
    int32_t Count = N;
    void *Args[] = {&DOut, &DIn, &DInF, &Count};
    if (spmdc_cuda_launch_warps(K, 1, 1, nullptr, Args) != 0) {
      std::fprintf(stderr, "%s\n", spmdc_cuda_last_error());
      return 1;
    }
    Ending E = waitForProgram(TimeoutSeconds);
    if (E != Ending::Done) {
      // A fault leaves the context unusable too: both end this process.
      std::printf("%s %d\n", E == Ending::Hang ? "hang" : "fault", Seed);
      std::fflush(stdout);
      _exit(3); // without cleanup: the context goes with the process
    }
    CHECK(cuMemcpyDtoH(Out.data(), DOut, Slots * sizeof(uint64_t)));
    for (int I = 0; I < Slots; ++I)
      if (Out[I] != Unwritten)
        std::printf("%d %016" PRIx64 "\n", I, Out[I]);
    std::printf("end %d\n", Seed);
    std::fflush(stdout);
  }
  spmdc_cuda_unload(&M);
  return 0;
}
