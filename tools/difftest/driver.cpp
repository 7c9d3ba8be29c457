// Host driver of the differential tests (tools/difftest): calls a generated
// program's `difftest` entry point on fixed inputs and prints every output slot
// the program wrote, one `index value` pair per line, values in hex.
//
// The same driver links against spmdc's object and ISPC's, so any line that
// differs between the two runs is a difference between the compilers.
//
// Batches (difftest.py --batch): built with -DDIFFTEST_BATCH='"programs.inc"',
// a file of PROGRAM(seed) lines, it calls each program's entry point
// s<seed>_difftest in turn and prints `seed S` before its slots and `end S`
// after them (flushed, so a crash shows which program it was in).
#include <cinttypes>
#include <cstdint>
#include <cstdio>

#include "inputs.h"

using EntryPoint = void(uint64_t *Out, const int32_t *In, const float *InF, int32_t N);

#ifdef DIFFTEST_BATCH
#define PROGRAM(Seed) extern "C" EntryPoint s##Seed##_difftest;
#include DIFFTEST_BATCH
#undef PROGRAM
#else
extern "C" EntryPoint difftest;
#endif

namespace {
void runProgram(EntryPoint *Entry) {
  static uint64_t Out[Slots];
  int32_t In[InputSize];
  float InF[InputSize];
  fillInputs(In, InF);
  for (uint64_t &O : Out)
    O = Unwritten;
  Entry(Out, In, InF, N);
  for (int I = 0; I < Slots; ++I)
    if (Out[I] != Unwritten)
      std::printf("%d %016" PRIx64 "\n", I, Out[I]);
}
} // namespace

int main() {
#ifdef DIFFTEST_BATCH
#define PROGRAM(Seed)                                                                              \
  std::printf("seed %d\n", Seed);                                                                  \
  std::fflush(stdout);                                                                             \
  runProgram(s##Seed##_difftest);                                                                  \
  std::printf("end %d\n", Seed);                                                                   \
  std::fflush(stdout);
#include DIFFTEST_BATCH
#undef PROGRAM
#else
  runProgram(difftest);
#endif
  return 0;
}
