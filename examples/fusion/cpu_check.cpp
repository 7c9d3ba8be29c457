// The vertical-fusion examples on the CPU: every chain run apart (one export per
// kernel, intermediates in memory) and fused (vfuse_..., built by the examples'
// `#pragma vfuse`), both compared with the scalar references of reference.h, and
// the fused outputs with the apart ones bit for bit (x86 never contracts a*b+c, so
// the same operations give the same bits). With --bench, times both on large
// inputs and prints the CPU table of docs/fusion.md instead.
//
//   cpu_check [--bench]      (built by scripts/fusion-bench.sh cpu or test/fusion)
#include "kernels.h"
#include "reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace ispc;

namespace {

int Passed = 0, Failed = 0;

using ref::randomFloats;

/// Largest |got - want| / (|want| + Floor) over the elements.
double worstError(const std::vector<float> &Got, const std::vector<float> &Want, double Floor) {
  double W = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    double E = std::fabs(double(Got[I]) - Want[I]) / (std::fabs(double(Want[I])) + Floor);
    if (!(E <= W))
      W = std::isnan(E) ? INFINITY : E;
  }
  return W;
}

/// One example: its two ways of running, its reference, and the tolerance.
struct Example {
  std::string Name;
  std::function<void(std::vector<float> &)> Apart, Fused, Reference;
  double Tolerance, Floor;
  size_t OutputSize;
  double Bytes; ///< global bytes the fused form must move (inputs + outputs)
};

std::vector<Example> examples(int Rows, int Cols) {
  const size_t N = size_t(Rows) * Cols;
  std::vector<Example> E;
  auto X = std::make_shared<std::vector<float>>(randomFloats(N, -2.0f, 2.0f, 1));
  auto Pos = std::make_shared<std::vector<float>>(randomFloats(N, 0.1f, 2.0f, 2));
  auto Bias = std::make_shared<std::vector<float>>(randomFloats(Cols, -0.5f, 0.5f, 3));
  auto Gamma = std::make_shared<std::vector<float>>(randomFloats(Cols, 0.5f, 1.5f, 4));
  auto Beta = std::make_shared<std::vector<float>>(randomFloats(Cols, -0.5f, 0.5f, 5));
  auto T = std::make_shared<std::vector<std::vector<float>>>(4, std::vector<float>(N));
  auto R = std::make_shared<std::vector<std::vector<float>>>(2, std::vector<float>(Rows));
  const int n = int(N);
  const float a = 1.5f, b = -0.25f, p = 0.1f;
  const uint32_t seed = 12345;

  E.push_back({"map chain (5 maps)",
               [=](std::vector<float> &Y) {
                 auto &t = *T;
                 map1(X->data(), t[0].data(), a, b, n);
                 map2(t[0].data(), t[1].data(), n);
                 map3(t[1].data(), t[2].data(), n);
                 map4(X->data(), t[2].data(), t[3].data(), n);
                 map5(t[3].data(), Y.data(), n);
               },
               [=](std::vector<float> &Y) { vfuse_map1_map2_map3_map4_map5(X->data(), a, b, n, Y.data()); },
               [=](std::vector<float> &Y) { ref::mapChain(*X, a, b, Y); }, 1e-5, 1e-3, N, 8.0 * N});
  E.push_back({"bias + GELU + dropout",
               [=](std::vector<float> &Y) {
                 auto &t = *T;
                 bias_add(X->data(), Bias->data(), t[0].data(), Cols, n);
                 gelu(t[0].data(), t[1].data(), n);
                 dropout(t[1].data(), Y.data(), seed, p, n);
               },
               [=](std::vector<float> &Y) {
                 vfuse_bias_add_gelu_dropout(X->data(), Bias->data(), Cols, n, Y.data(), seed, p);
               },
               [=](std::vector<float> &Y) { ref::biasGeluDropout(*X, *Bias, Cols, seed, p, Y); },
               // The kernels' tanh is 1 - 2/(exp(2u) + 1) with the stdlib's exp.
               5e-5, 1e-3, N, 8.0 * N});
  E.push_back({"softmax (max, exp-sum, divide)",
               [=](std::vector<float> &Y) {
                 auto &r = *R;
                 row_max(X->data(), r[0].data(), Rows, Cols);
                 row_expsum(X->data(), r[0].data(), r[1].data(), Rows, Cols);
                 row_divide(X->data(), r[0].data(), r[1].data(), Y.data(), Rows, Cols);
               },
               [=](std::vector<float> &Y) { vfuse_row_max_row_expsum_row_divide(X->data(), Rows, Cols, Y.data()); },
               [=](std::vector<float> &Y) { ref::softmax(*X, Rows, Cols, Y); }, 1e-5, 1e-6, N, 8.0 * N});
  E.push_back({"layer normalization",
               [=](std::vector<float> &Y) {
                 auto &r = *R;
                 ln_mean(X->data(), r[0].data(), Rows, Cols);
                 ln_var(X->data(), r[0].data(), r[1].data(), Rows, Cols);
                 ln_normalize(X->data(), r[0].data(), r[1].data(), Gamma->data(), Beta->data(), Y.data(), Rows, Cols);
               },
               [=](std::vector<float> &Y) {
                 vfuse_ln_mean_ln_var_ln_normalize(X->data(), Rows, Cols, Gamma->data(), Beta->data(), Y.data());
               },
               [=](std::vector<float> &Y) { ref::layerNorm(*X, *Gamma, *Beta, Rows, Cols, Y); }, 1e-4, 1e-2, N, 8.0 * N});
  E.push_back({"row sum + broadcast divide",
               [=](std::vector<float> &Y) {
                 row_sum(Pos->data(), (*R)[0].data(), Rows, Cols);
                 row_scale(Pos->data(), (*R)[0].data(), Y.data(), Rows, Cols);
               },
               [=](std::vector<float> &Y) { vfuse_row_sum_row_scale(Pos->data(), Rows, Cols, Y.data()); },
               [=](std::vector<float> &Y) { ref::rowNormalize(*Pos, Rows, Cols, Y); }, 1e-5, 1e-6, N, 8.0 * N});
  E.push_back({"two-stage stencil (warp composition)",
               [=](std::vector<float> &Y) {
                 blur3(X->data(), (*T)[0].data(), n);
                 diff3((*T)[0].data(), Y.data(), n);
               },
               [=](std::vector<float> &Y) { vfuse_blur3_diff3(X->data(), n, Y.data()); },
               [=](std::vector<float> &Y) { ref::stencil2(*X, Y); }, 1e-5, 1e-2, N, 8.0 * N});
  E.push_back({"two-stage stencil (block composition)",
               [=](std::vector<float> &Y) {
                 blur3(X->data(), (*T)[0].data(), n);
                 diff3((*T)[0].data(), Y.data(), n);
               },
               [=](std::vector<float> &Y) { vfuse_blur3_b_diff3_b(X->data(), n, Y.data()); },
               [=](std::vector<float> &Y) { ref::stencil2(*X, Y); }, 1e-5, 1e-2, N, 8.0 * N});
  // The same stencil as 8 tasks (the launch's thread pool; each task a chunk).
  E.push_back({"two-stage stencil, 8 tasks (warp composition)",
               [=](std::vector<float> &Y) { stencil2_tasks_apart(X->data(), (*T)[0].data(), Y.data(), n, 8); },
               [=](std::vector<float> &Y) { stencil2_tasks_fused(X->data(), Y.data(), n, 8); },
               [=](std::vector<float> &Y) { ref::stencil2(*X, Y); }, 1e-5, 1e-2, N, 8.0 * N});
  return E;
}

void verdict(const std::string &What, bool Ok, const std::string &Detail) {
  std::printf("%-58s %s  %s\n", What.c_str(), Ok ? "ok" : "FAIL", Detail.c_str());
  (Ok ? Passed : Failed) += 1;
}

void check(int Rows, int Cols) {
  for (Example &E : examples(Rows, Cols)) {
    std::string Shape = " [" + std::to_string(Rows) + "x" + std::to_string(Cols) + "]";
    std::vector<float> Want(E.OutputSize), Apart(E.OutputSize, NAN), Fused(E.OutputSize, NAN);
    E.Reference(Want);
    E.Apart(Apart);
    char Detail[64];
    double Err = worstError(Apart, Want, E.Floor);
    std::snprintf(Detail, sizeof Detail, "worst error %.2g", Err);
    verdict(E.Name + Shape + " apart vs reference", Err <= E.Tolerance, Detail);
    if (!E.Fused)
      continue;
    E.Fused(Fused);
    Err = worstError(Fused, Want, E.Floor);
    std::snprintf(Detail, sizeof Detail, "worst error %.2g", Err);
    verdict(E.Name + Shape + " fused vs reference", Err <= E.Tolerance, Detail);
    bool Same = std::memcmp(Fused.data(), Apart.data(), Fused.size() * sizeof(float)) == 0;
    verdict(E.Name + Shape + " fused == apart (bits)", Same, "");
  }
}

double seconds(const std::function<void(std::vector<float> &)> &F, std::vector<float> &Y) {
  auto T0 = std::chrono::steady_clock::now();
  F(Y);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
}

void bench() {
  const int Rows = 4096, Cols = 1024;
  std::printf("| example | apart (ms) | fused (ms) | speedup | fused GB/s |\n| --- | --- | --- | --- | --- |\n");
  for (Example &E : examples(Rows, Cols)) {
    std::vector<float> Y(E.OutputSize);
    // The best of 15 runs each, apart and fused alternating, so that a busy
    // machine slows both alike.
    double A = 1e30, F = 1e30;
    for (int Rep = 0; Rep < 15; ++Rep) {
      A = std::min(A, seconds(E.Apart, Y));
      if (E.Fused)
        F = std::min(F, seconds(E.Fused, Y));
    }
    if (!E.Fused) {
      std::printf("| %s | %.2f | - | - | - |\n", E.Name.c_str(), A * 1e3);
      continue;
    }
    std::printf("| %s | %.2f | %.2f | %.2fx | %.1f |\n", E.Name.c_str(), A * 1e3, F * 1e3, A / F,
                E.Bytes / F / 1e9);
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--bench") == 0) {
    bench();
    return 0;
  }
  // Odd shapes: partial gangs at every row's end and a chain length that is no
  // multiple of any gang width.
  check(1, 1);
  check(3, 37);
  check(17, 200);
  check(64, 1024);
  std::printf("cpu check: %d passed, %d failed\n", Passed, Failed);
  return Failed ? 1 : 0;
}
