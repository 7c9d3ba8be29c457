// aobench: ambient occlusion of three spheres on a plane, scalar C++ against spmdc (one gang,
// and tasks). Both round every operation alike (no FMA contraction) and use the same per-pixel
// random numbers, so pixels are compared with |spmdc - scalar| <= 1e-5.
#include "../common/bench.h"
#include "aobench_ispc.h"
#include "aobench_scalar.h"

#include <vector>

int main(int Argc, char **Argv) {
  bench::Options Opts = bench::parseOptions(Argc, Argv);
  const int W = Opts.Small ? 48 : 200, H = Opts.Small ? 48 : 200;
  const int NSubsamples = 1;
  const size_t N = size_t(W) * H;
  std::vector<float> Scalar(N, -1), Spmd(N, -1), Tasks(N, -1);
  auto [ScalarMs, SpmdMs, TasksMs] = bench::bestOfInterleaved(
      Opts.Runs, [&] { ao_scalar(W, H, NSubsamples, Scalar.data()); },
      [&] { ispc::ao_spmd(W, H, NSubsamples, Spmd.data()); },
      [&] { ispc::ao_spmd_tasks(W, H, NSubsamples, Tasks.data()); });
  if (!bench::checkClose("aobench", Scalar.data(), Spmd.data(), N, 0.0, 1e-5) ||
      !bench::checkClose("aobench tasks", Scalar.data(), Tasks.data(), N, 0.0, 1e-5))
    return 1;
  std::printf("check: ok\n");
  bench::report("aobench", "", ScalarMs, SpmdMs);
  bench::report("aobench", "+tasks", ScalarMs, TasksMs);
  return 0;
}
