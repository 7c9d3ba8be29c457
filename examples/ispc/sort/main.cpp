// Radix sort benchmark: 32-bit keys sorted by scalar C++ and by spmdc (one gang, and tasks);
// the sorted arrays must be identical, and sorted.
#include "../common/bench.h"
#include "sort_ispc.h"
#include "sort_scalar.h"

#include <algorithm>
#include <vector>

int main(int Argc, char **Argv) {
  bench::Options Opts = bench::parseOptions(Argc, Argv);
  const int N = Opts.Small ? 10007 : 3000000;
  const int Tasks = 32;
  std::vector<uint32_t> Input(N);
  uint32_t State = 2463534242u;
  for (int I = 0; I < N; ++I) {
    State ^= State << 13;
    State ^= State >> 17;
    State ^= State << 5;
    Input[I] = State;
  }
  std::vector<uint32_t> Scalar(N), Spmd(N), TasksOut(N), Tmp(N);
  std::vector<int32_t> Scratch(ispc::sort_scratch_size(Tasks));

  // Each run sorts a fresh copy of the input; only the sort is timed.
  double ScalarMs = 1e300, SpmdMs = 1e300, TasksMs = 1e300;
  for (int R = 0; R < Opts.Runs; ++R) {
    Scalar = Input;
    ScalarMs =
        std::min(ScalarMs, bench::bestOf(1, [&] { sort_scalar(Scalar.data(), Tmp.data(), N); }));
    Spmd = Input;
    SpmdMs = std::min(SpmdMs, bench::bestOf(1, [&] {
                        ispc::sort_spmd(Spmd.data(), Tmp.data(), N, Scratch.data());
                      }));
    TasksOut = Input;
    TasksMs =
        std::min(TasksMs, bench::bestOf(1, [&] {
                   ispc::sort_spmd_tasks(TasksOut.data(), Tmp.data(), N, Tasks, Scratch.data());
                 }));
  }
  if (!std::is_sorted(Scalar.begin(), Scalar.end())) {
    std::printf("check: the scalar sort is not sorted\n");
    return 1;
  }
  if (!bench::checkExact("sort", Scalar.data(), Spmd.data(), N) ||
      !bench::checkExact("sort tasks", Scalar.data(), TasksOut.data(), N))
    return 1;
  std::printf("check: ok\n");
  bench::report("sort", "", ScalarMs, SpmdMs);
  bench::report("sort", "+tasks", ScalarMs, TasksMs);
  return 0;
}
