// Perlin noise benchmark: 8-octave turbulence over an image, scalar C++ against spmdc.
// Pixels are compared with |spmdc - scalar| <= 1e-4 (values lie in [0, 2); FMA contraction in
// the scalar build moves the last bits, and noise is continuous where floor() may flip).
#include "../common/bench.h"
#include "noise_ispc.h"
#include "noise_scalar.h"

#include <vector>

int main(int Argc, char **Argv) {
  bench::Options Opts = bench::parseOptions(Argc, Argv);
  const int Width = Opts.Small ? 128 : 640, Height = Opts.Small ? 96 : 640, Octaves = 8;
  const float X0 = -10.0f, Y0 = -10.0f, X1 = 10.0f, Y1 = 10.0f, Z = 0.6f;
  const size_t N = size_t(Width) * Height;
  std::vector<float> Scalar(N, -1), Spmd(N, -1);
  auto [ScalarMs, SpmdMs] = bench::bestOfInterleaved(
      Opts.Runs, [&] { noise_scalar(X0, Y0, X1, Y1, Z, Width, Height, Octaves, Scalar.data()); },
      [&] { ispc::noise_spmd(X0, Y0, X1, Y1, Z, Width, Height, Octaves, Spmd.data()); });
  if (!bench::checkClose("noise", Scalar.data(), Spmd.data(), N, 0.0, 1e-4))
    return 1;
  std::printf("check: ok\n");
  bench::report("noise", "", ScalarMs, SpmdMs);
  return 0;
}
