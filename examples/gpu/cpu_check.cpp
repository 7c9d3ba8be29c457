// Checks the examples/gpu kernels on the CPU before they go to a GPU: each
// .spmd kernel built for x86 as a task (cpu_tasks.spmd) and launched as 1, 3, 7
// and 64 tasks, a task standing for a warp, against scalar C++ of the same
// algorithm: the kernels' arithmetic and how they split the work by
// taskIndex/taskCount. Run by `scripts/gpu-bench.sh prepare`.
#include "cpu_tasks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

std::vector<float> randomFloats(size_t N, float Lo, float Hi, uint64_t Seed) {
  std::vector<float> V(N);
  uint64_t S = Seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    V[I] = Lo + (Hi - Lo) * static_cast<float>(S >> 40) / static_cast<float>(1ull << 24);
  }
  return V;
}

int Failures = 0;
const int TaskCounts[] = {1, 3, 7, 64};

// |got - want| <= Tol * max(1, |want|) everywhere; prints the verdict.
void compare(const char *Name, int Tasks, const std::vector<float> &Want,
             const std::vector<float> &Got, double Tol) {
  size_t Bad = 0;
  double Worst = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    double Err = std::fabs((double)Got[I] - Want[I]) / std::max(1.0, std::fabs((double)Want[I]));
    Worst = std::max(Worst, std::isnan(Err) ? INFINITY : Err);
    Bad += !(Err <= Tol);
  }
  std::printf("%-14s %2d tasks %s: %zu values, max rel err %.2g (tol %.0e)\n", Name, Tasks,
              Bad ? "FAIL" : "ok", Want.size(), Worst, Tol);
  Failures += Bad != 0;
}

void checkSaxpy() {
  const int N = 1000003;
  std::vector<float> X = randomFloats(N, -1, 1, 1), Y = randomFloats(N, -1, 1, 2), Want = Y;
  for (int I = 0; I < N; ++I)
    Want[I] = 1.5f * X[I] + Y[I];
  for (int Tasks : TaskCounts) {
    std::vector<float> Got = Y;
    ispc::saxpy_tasks(Tasks, N, 1.5f, X.data(), Got.data());
    compare("saxpy", Tasks, Want, Got, 1e-6);
  }
}

void checkStencil() {
  const int Nx = 37, Ny = 21, Nz = 13, Nxy = Nx * Ny;
  const float Coef[2] = {-0.6f, 0.1f};
  std::vector<float> Vsq = randomFloats(Nxy * Nz, 0, 0.5f, 3),
                     Ain = randomFloats(Nxy * Nz, -1, 1, 4), Out = randomFloats(Nxy * Nz, -1, 1, 5),
                     Want = Out;
  for (int Z = 1; Z < Nz - 1; ++Z)
    for (int Y = 1; Y < Ny - 1; ++Y)
      for (int X = 1; X < Nx - 1; ++X) {
        int C = Z * Nxy + Y * Nx + X;
        float Nb =
            Ain[C - 1] + Ain[C + 1] + Ain[C - Nx] + Ain[C + Nx] + Ain[C - Nxy] + Ain[C + Nxy];
        Want[C] = 2.0f * Ain[C] - Want[C] + Vsq[C] * (Coef[0] * Ain[C] + Coef[1] * Nb);
      }
  for (int Tasks : TaskCounts) {
    std::vector<float> Got = Out;
    ispc::stencil_tasks(Tasks, Nx, Ny, Nz, Coef, Vsq.data(), Ain.data(), Got.data());
    compare("stencil", Tasks, Want, Got, 1e-5);
  }
}

void checkMandelbrot() {
  const int W = 256, H = 192, MaxIt = 256, Chunk = 64;
  const float X0 = -2, Y0 = -1.5f, Dx = 3.0f / W, Dy = 3.0f / H;
  std::vector<int32_t> Want(W * H);
  for (int R = 0; R < H; ++R)
    for (int C = 0; C < W; ++C) {
      float CRe = X0 + C * Dx, CIm = Y0 + R * Dy, ZRe = CRe, ZIm = CIm;
      int I;
      for (I = 0; I < MaxIt; ++I) {
        if (ZRe * ZRe + ZIm * ZIm > 4.0f)
          break;
        float NRe = ZRe * ZRe - ZIm * ZIm, NIm = 2.0f * ZRe * ZIm;
        ZRe = CRe + NRe;
        ZIm = CIm + NIm;
      }
      Want[R * W + C] = I;
    }
  for (int Tasks : TaskCounts) {
    std::vector<int32_t> Got(W * H, -1);
    ispc::mandelbrot_tasks(Tasks, X0, Y0, Dx, Dy, W, H, MaxIt, Chunk, Got.data());
    size_t Differ = 0;
    for (int I = 0; I < W * H; ++I)
      Differ += Got[I] != Want[I];
    // Both round every operation separately (no fma): the counts must match.
    std::printf("%-14s %2d tasks %s: %zu of %d pixels differ (tol 0)\n", "mandelbrot", Tasks,
                Differ ? "FAIL" : "ok", Differ, W * H);
    Failures += Differ != 0;
  }
}

float cumulativeNormal(float D) {
  float X = std::fabs(D), K = 1.0f / (1.0f + 0.2316419f * X);
  float Poly =
      K * (0.319381530f +
           K * (-0.356563782f + K * (1.781477937f + K * (-1.821255978f + K * 1.330274429f))));
  float Tail = 0.39894228040f * std::exp(-0.5f * X * X) * Poly;
  return D > 0 ? 1.0f - Tail : Tail;
}

void checkOptions() {
  const int N = 10007, Steps = 64;
  std::vector<float> S = randomFloats(N, 50, 150, 6), X = randomFloats(N, 50, 150, 7),
                     T = randomFloats(N, 0.1f, 2, 8), R = randomFloats(N, 0.01f, 0.06f, 9),
                     V = randomFloats(N, 0.1f, 0.5f, 10);
  std::vector<float> Want(N), Got(N, -1);
  for (int I = 0; I < N; ++I) {
    float SqrtT = std::sqrt(T[I]);
    float D1 = (std::log(S[I] / X[I]) + (R[I] + 0.5f * V[I] * V[I]) * T[I]) / (V[I] * SqrtT),
          D2 = D1 - V[I] * SqrtT;
    Want[I] = S[I] * cumulativeNormal(D1) - X[I] * std::exp(-R[I] * T[I]) * cumulativeNormal(D2);
  }
  for (int Tasks : TaskCounts) {
    std::fill(Got.begin(), Got.end(), -1.0f);
    ispc::black_scholes_tasks(Tasks, S.data(), X.data(), T.data(), R.data(), V.data(), Got.data(),
                              N);
    compare("black_scholes", Tasks, Want, Got, 1e-4);
  }
  for (int I = 0; I < N; ++I) {
    float Tree[Steps], Dt = T[I] / Steps, Up = std::exp(V[I] * std::sqrt(Dt)), Down = 1.0f / Up,
                       Growth = std::exp(R[I] * Dt), PUp = (Growth - Down) / (Up - Down);
    for (int J = 0; J < Steps; ++J)
      Tree[J] = std::max(0.0f, X[I] - S[I] * std::pow(Up, (float)(2 * J - Steps)));
    for (int L = Steps - 1; L > 0; --L)
      for (int K = 0; K < L; ++K)
        Tree[K] = ((1.0f - PUp) * Tree[K] + PUp * Tree[K + 1]) / Growth;
    Want[I] = Tree[0];
  }
  for (int Tasks : TaskCounts) {
    std::fill(Got.begin(), Got.end(), -1.0f);
    ispc::binomial_put_tasks(Tasks, S.data(), X.data(), T.data(), R.data(), V.data(), Got.data(),
                             N);
    compare("binomial_put", Tasks, Want, Got, 1e-4);
  }
}

// On the CPU a block is one gang: partial[task] is that task's sum.
void checkBlockSum() {
  const int N = 1000003;
  std::vector<float> X = randomFloats(N, 0, 1, 11);
  double Want = 0;
  for (float V : X)
    Want += V;
  for (int Tasks : TaskCounts) {
    std::vector<float> Partial(Tasks, -1.0f);
    ispc::block_sum_tasks(Tasks, N, X.data(), Partial.data());
    double Got = 0;
    for (float P : Partial)
      Got += P;
    // Float partial sums of ~1e6 values in [0, 1): relative error well below 1e-4.
    compare("block_sum", Tasks, {static_cast<float>(Want / N)}, {static_cast<float>(Got / N)},
            1e-4);
  }
}

} // namespace

int main() {
  checkSaxpy();
  checkStencil();
  checkMandelbrot();
  checkOptions();
  checkBlockSum();
  std::printf(Failures ? "cpu check: %d checks FAIL\n"
                       : "cpu check: all kernels agree with scalar C++\n",
              Failures);
  return Failures ? 1 : 0;
}
