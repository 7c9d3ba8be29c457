// Stencil benchmark: a radius-3 3D wave-equation stencil time-stepped on a cube, scalar C++
// against spmdc (one gang, and tasks). Both buffers are compared with
// |spmdc - scalar| <= 1e-5 + 1e-4 * |scalar| (FMA contraction in the scalar build changes the
// last bits of each step).
#include "../common/bench.h"
#include "stencil_ispc.h"
#include "stencil_scalar.h"

#include <cstdint>
#include <vector>

int main(int Argc, char **Argv) {
  bench::Options Opts = bench::parseOptions(Argc, Argv);
  const int N = Opts.Small ? 32 : 160, Steps = Opts.Small ? 3 : 6;
  const int Halo = 3;
  const size_t Cells = size_t(N) * N * N;
  const float Coef[4] = {-2.0f * 0.5f, 0.5f / 6.0f, -0.05f / 6.0f, 0.005f / 6.0f};
  std::vector<float> Vsq(Cells), Even0(Cells), Odd0(Cells);
  uint32_t Seed = 7;
  for (size_t I = 0; I < Cells; ++I) {
    Seed = Seed * 1664525u + 1013904223u;
    Even0[I] = float(Seed >> 8) / float(1u << 24);
    Odd0[I] = Even0[I];
    Vsq[I] = 0.2f + 0.1f * float(I % 7) / 7.0f;
  }
  std::vector<float> EvenScalar, OddScalar, EvenSpmd, OddSpmd, EvenTasks, OddTasks;
  // Every run starts from the same state, so the result of the last run is the one compared.
  auto Reset = [&](std::vector<float> &E, std::vector<float> &O) {
    E = Even0;
    O = Odd0;
  };
  const int Lo = Halo, Hi = N - Halo;
  double ScalarMs = 1e300, SpmdMs = 1e300, TasksMs = 1e300;
  for (int R = 0; R < Opts.Runs; ++R) {
    Reset(EvenScalar, OddScalar);
    ScalarMs = std::min(ScalarMs, bench::bestOf(1, [&] {
                          stencil_scalar(0, Steps, Lo, Hi, Lo, Hi, Lo, Hi, N, N, N, Coef,
                                         Vsq.data(), EvenScalar.data(), OddScalar.data());
                        }));
    Reset(EvenSpmd, OddSpmd);
    SpmdMs = std::min(SpmdMs, bench::bestOf(1, [&] {
                        ispc::stencil_spmd(0, Steps, Lo, Hi, Lo, Hi, Lo, Hi, N, N, N, Coef,
                                           Vsq.data(), EvenSpmd.data(), OddSpmd.data());
                      }));
    Reset(EvenTasks, OddTasks);
    TasksMs = std::min(TasksMs, bench::bestOf(1, [&] {
                         ispc::stencil_spmd_tasks(0, Steps, Lo, Hi, Lo, Hi, Lo, Hi, N, N, N, Coef,
                                                  Vsq.data(), EvenTasks.data(), OddTasks.data());
                       }));
  }
  if (!bench::checkClose("stencil even", EvenScalar.data(), EvenSpmd.data(), Cells, 1e-4, 1e-5) ||
      !bench::checkClose("stencil odd", OddScalar.data(), OddSpmd.data(), Cells, 1e-4, 1e-5) ||
      !bench::checkClose("stencil tasks even", EvenScalar.data(), EvenTasks.data(), Cells, 1e-4,
                         1e-5) ||
      !bench::checkClose("stencil tasks odd", OddScalar.data(), OddTasks.data(), Cells, 1e-4, 1e-5))
    return 1;
  std::printf("check: ok\n");
  bench::report("stencil", "", ScalarMs, SpmdMs);
  bench::report("stencil", "+tasks", ScalarMs, TasksMs);
  return 0;
}
