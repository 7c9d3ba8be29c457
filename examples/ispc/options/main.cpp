// Options benchmark: Black-Scholes and binomial pricing, scalar C++ against spmdc (one gang,
// and tasks). Prices are compared with |spmdc - scalar| <= 1e-4 + 1e-4 * |scalar| (Black-Scholes)
// and 1e-3 + 1e-3 * |scalar| (binomial: 2080 dependent steps, FMA contraction in the scalar
// build changes the last bits).
#include "../common/bench.h"
#include "options_ispc.h"
#include "options_scalar.h"

#include <cstdint>
#include <vector>

// A fixed linear congruential generator: the same inputs on every run and machine.
static float uniformIn(uint32_t &State, float Lo, float Hi) {
  State = State * 1664525u + 1013904223u;
  return Lo + (Hi - Lo) * float(State >> 8) / float(1u << 24);
}

int main(int Argc, char **Argv) {
  bench::Options Opts = bench::parseOptions(Argc, Argv);
  const int CountBS = Opts.Small ? 10000 : 1000000;
  const int CountBin = Opts.Small ? 1000 : 20000;
  const int N = std::max(CountBS, CountBin);
  std::vector<float> S(N), X(N), T(N), R(N), V(N);
  uint32_t Seed = 12345;
  for (int I = 0; I < N; ++I) {
    S[I] = uniformIn(Seed, 50.0f, 150.0f);
    X[I] = uniformIn(Seed, 50.0f, 150.0f);
    T[I] = uniformIn(Seed, 0.25f, 2.0f);
    R[I] = uniformIn(Seed, 0.01f, 0.05f);
    V[I] = uniformIn(Seed, 0.1f, 0.5f);
  }
  std::vector<float> BsScalar(N, -1), BsSpmd(N, -1), BsTasks(N, -1);
  std::vector<float> BinScalar(N, -1), BinSpmd(N, -1), BinTasks(N, -1);
  const float *Sp = S.data(), *Xp = X.data(), *Tp = T.data(), *Rp = R.data(), *Vp = V.data();

  auto [BsScalarMs, BsSpmdMs, BsTasksMs] = bench::bestOfInterleaved(
      Opts.Runs, [&] { black_scholes_scalar(Sp, Xp, Tp, Rp, Vp, BsScalar.data(), CountBS); },
      [&] { ispc::black_scholes_spmd(Sp, Xp, Tp, Rp, Vp, BsSpmd.data(), CountBS); },
      [&] { ispc::black_scholes_spmd_tasks(Sp, Xp, Tp, Rp, Vp, BsTasks.data(), CountBS); });
  auto [BinScalarMs, BinSpmdMs, BinTasksMs] = bench::bestOfInterleaved(
      Opts.Runs, [&] { binomial_scalar(Sp, Xp, Tp, Rp, Vp, BinScalar.data(), CountBin); },
      [&] { ispc::binomial_spmd(Sp, Xp, Tp, Rp, Vp, BinSpmd.data(), CountBin); },
      [&] { ispc::binomial_spmd_tasks(Sp, Xp, Tp, Rp, Vp, BinTasks.data(), CountBin); });

  if (!bench::checkClose("black-scholes", BsScalar.data(), BsSpmd.data(), CountBS, 1e-4, 1e-4) ||
      !bench::checkClose("black-scholes tasks", BsScalar.data(), BsTasks.data(), CountBS, 1e-4,
                         1e-4) ||
      !bench::checkClose("binomial", BinScalar.data(), BinSpmd.data(), CountBin, 1e-3, 1e-3) ||
      !bench::checkClose("binomial tasks", BinScalar.data(), BinTasks.data(), CountBin, 1e-3, 1e-3))
    return 1;
  std::printf("check: ok\n");
  bench::report("options/black-scholes", "", BsScalarMs, BsSpmdMs);
  bench::report("options/black-scholes", "+tasks", BsScalarMs, BsTasksMs);
  bench::report("options/binomial", "", BinScalarMs, BinSpmdMs);
  bench::report("options/binomial", "+tasks", BinScalarMs, BinTasksMs);
  return 0;
}
