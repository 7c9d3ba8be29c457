// Mandelbrot benchmark: scalar C++ against spmdc (one gang, and tasks), outputs compared exactly.
#include "../common/bench.h"
#include "mandelbrot_ispc.h"
#include "mandelbrot_scalar.h"

#include <vector>

int main(int Argc, char **Argv) {
  bench::Options Opts = bench::parseOptions(Argc, Argv);
  const int Width = Opts.Small ? 160 : 768, Height = Opts.Small ? 120 : 512;
  const int MaxIterations = Opts.Small ? 64 : 256;
  const float X0 = -2.0f, X1 = 1.0f, Y0 = -1.0f, Y1 = 1.0f;
  const size_t N = size_t(Width) * Height;
  std::vector<int> Scalar(N, -1), Spmd(N, -1), Tasks(N, -1);

  auto [ScalarMs, SpmdMs, TasksMs] = bench::bestOfInterleaved(
      Opts.Runs,
      [&] { mandelbrot_scalar(X0, Y0, X1, Y1, Width, Height, MaxIterations, Scalar.data()); },
      [&] { ispc::mandelbrot_spmd(X0, Y0, X1, Y1, Width, Height, MaxIterations, Spmd.data()); },
      [&] {
        ispc::mandelbrot_spmd_tasks(X0, Y0, X1, Y1, Width, Height, MaxIterations, Tasks.data());
      });

  // Iteration counts are integers computed with the same float operations: exact.
  if (!bench::checkExact("mandelbrot", Scalar.data(), Spmd.data(), N) ||
      !bench::checkExact("mandelbrot tasks", Scalar.data(), Tasks.data(), N))
    return 1;
  std::printf("check: ok\n");
  bench::report("mandelbrot", "", ScalarMs, SpmdMs);
  bench::report("mandelbrot", "+tasks", ScalarMs, TasksMs);
  return 0;
}
