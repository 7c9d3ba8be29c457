// Volume rendering benchmark: ray marching through a density grid of Gaussian blobs, scalar
// C++ against spmdc (one gang, and tasks). Both round every operation alike (no FMA
// contraction) and call the same expf, so pixels are compared with
// |spmdc - scalar| <= 1e-5 + 1e-4 * |scalar|.
#include "../common/bench.h"
#include "volume_ispc.h"
#include "volume_scalar.h"

#include <cmath>
#include <vector>

int main(int Argc, char **Argv) {
  bench::Options Opts = bench::parseOptions(Argc, Argv);
  const int N = Opts.Small ? 32 : 96;
  const int Width = Opts.Small ? 48 : 144, Height = Opts.Small ? 48 : 144;
  const float Step = Opts.Small ? 1.0f / 48 : 1.0f / 128;
  const int LightSteps = Opts.Small ? 4 : 8;

  // Density: a few soft blobs (a cloud-like shape) clipped at zero.
  struct Blob {
    float X, Y, Z, R, Weight;
  };
  const Blob Blobs[] = {{0.5f, 0.5f, 0.5f, 0.25f, 1.0f},
                        {0.3f, 0.6f, 0.4f, 0.15f, 0.8f},
                        {0.7f, 0.35f, 0.6f, 0.18f, 0.9f},
                        {0.55f, 0.75f, 0.7f, 0.12f, 0.7f}};
  std::vector<float> Density(size_t(N) * N * N);
  for (int Z = 0; Z < N; ++Z)
    for (int Y = 0; Y < N; ++Y)
      for (int X = 0; X < N; ++X) {
        float Px = X / float(N - 1), Py = Y / float(N - 1), Pz = Z / float(N - 1);
        float D = 0.0f;
        for (const Blob &B : Blobs) {
          float Dx = Px - B.X, Dy = Py - B.Y, Dz = Pz - B.Z;
          D += B.Weight * std::exp(-(Dx * Dx + Dy * Dy + Dz * Dz) / (B.R * B.R));
        }
        Density[(size_t(Z) * N + Y) * N + X] = D > 0.05f ? D - 0.05f : 0.0f;
      }

  const size_t Pixels = size_t(Width) * Height;
  std::vector<float> Scalar(Pixels, -1), Spmd(Pixels, -1), Tasks(Pixels, -1);
  auto [ScalarMs, SpmdMs, TasksMs] = bench::bestOfInterleaved(
      Opts.Runs,
      [&] { volume_scalar(Density.data(), N, Width, Height, Step, LightSteps, Scalar.data()); },
      [&] { ispc::volume_spmd(Density.data(), N, Width, Height, Step, LightSteps, Spmd.data()); },
      [&] {
        ispc::volume_spmd_tasks(Density.data(), N, Width, Height, Step, LightSteps, Tasks.data());
      });
  if (!bench::checkClose("volume", Scalar.data(), Spmd.data(), Pixels, 1e-4, 1e-5) ||
      !bench::checkClose("volume tasks", Scalar.data(), Tasks.data(), Pixels, 1e-4, 1e-5))
    return 1;
  std::printf("check: ok\n");
  bench::report("volume", "", ScalarMs, SpmdMs);
  bench::report("volume", "+tasks", ScalarMs, TasksMs);
  return 0;
}
