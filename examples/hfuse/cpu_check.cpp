// Checks the HFuse example kernels on the CPU against scalar C++ (reference.h):
// each kernel apart, built for x86 as a task (cpu_tasks.spmd) and launched as
// 1, 3, 7 and 64 tasks; and, when built with -DHFUSE_FUSED, every fused pair's
// export hfuse_A_B (kernels.spmd compiled with --hfuse=A,B), which runs
// blocks_A tasks of A and blocks_B tasks of B in one launch, for several
// (blocks_A, blocks_B). Outputs are poisoned before each run. Prints one line
// per check and `cpu check: N passed, M failed`; exit status 1 on a failure.
#include "cpu_tasks.h"
#ifdef HFUSE_FUSED
#include "fused.h"
#endif
#include "reference.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int Passed = 0, Failed = 0;

void verdict(const std::string &What, bool Ok, const std::string &Detail) {
  std::printf("%-60s %s  %s\n", What.c_str(), Ok ? "ok" : "FAIL", Detail.c_str());
  (Ok ? Passed : Failed) += 1;
}

std::vector<float> randomFloats(size_t N, float Lo, float Hi, uint64_t Seed) {
  std::vector<float> V(N);
  uint64_t S = Seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    V[I] = Lo + (Hi - Lo) * static_cast<float>(S >> 40) / static_cast<float>(1ull << 24);
  }
  return V;
}

std::vector<uint32_t> randomWords(size_t N, uint64_t Seed) {
  std::vector<uint32_t> V(N);
  uint64_t S = Seed * 0x9E3779B97F4A7C15ull + 7;
  for (size_t I = 0; I < N; ++I) {
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    V[I] = static_cast<uint32_t>(S >> 32);
  }
  return V;
}

// Bit-for-bit equality of two arrays; the detail names the first difference.
template <typename T>
void checkExact(const std::string &What, const std::vector<T> &Want, const std::vector<T> &Got) {
  size_t Bad = 0, First = 0;
  for (size_t I = 0; I < Want.size(); ++I)
    if (std::memcmp(&Want[I], &Got[I], sizeof(T)) != 0 && Bad++ == 0)
      First = I;
  verdict(What, Bad == 0,
          Bad ? std::to_string(Bad) + " of " + std::to_string(Want.size()) + " differ, first at " +
                    std::to_string(First)
              : std::to_string(Want.size()) + " values exact");
}

// |got - want| <= Tol * max(1, |want|) against a double reference.
void checkClose(const std::string &What, const std::vector<double> &Want,
                const std::vector<float> &Got, double Tol) {
  size_t Bad = 0;
  double Worst = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    double Err = std::fabs((double)Got[I] - Want[I]) / std::max(1.0, std::fabs(Want[I]));
    Worst = std::max(Worst, std::isnan(Err) ? INFINITY : Err);
    Bad += !(Err <= Tol);
  }
  char Detail[96];
  std::snprintf(Detail, sizeof Detail, "%zu values, max rel err %.2g (tol %.0e)", Want.size(),
                Worst, Tol);
  verdict(What, Bad == 0, Detail);
}

const float Poison = std::nanf("");
const uint32_t PoisonWord = 0xdeadbeefu;

// One problem per kernel: inputs, the reference output, an output buffer that
// reset() poisons, and check() that compares it with the reference.
struct Batchnorm {
  int N = 3, C = 13, HW = 1037;
  std::vector<float> In = randomFloats((size_t)N * C * HW, -1, 2, 11), Mean, Var;
  std::vector<double> WantMean, WantVar;
  Batchnorm() { ref::batchnormStats(N, C, HW, In.data(), WantMean, WantVar); }
  void reset() { Mean.assign(C, Poison), Var.assign(C, Poison); }
  void check(const std::string &What) {
    // Float sums in a task-count-dependent order against a double reference.
    checkClose(What + " mean", WantMean, Mean, 1e-5);
    checkClose(What + " var", WantVar, Var, 1e-5);
  }
};
#define BATCHNORM_ARGS(P) P.N, P.C, P.HW, P.In.data(), P.Mean.data(), P.Var.data()

struct Histogram {
  int N = 50021, Bins = 100;
  float Lo = -1.0f, Hi = 1.0f;
  std::vector<float> In = randomFloats(N, -1.2f, 1.2f, 12);
  std::vector<int32_t> Want = std::vector<int32_t>(Bins, 0), Hist;
  Histogram() {
    In[5] = Hi; // the upper edge counts in the last bin
    In[6] = Lo;
    ref::histogram1d(N, In.data(), Bins, Lo, Hi, Want.data());
  }
  void reset() { Hist.assign(Bins, 0); } // the kernel adds to it
  void check(const std::string &What) { checkExact(What, Want, Hist); }
};
#define HISTOGRAM_ARGS(P) P.N, P.In.data(), P.Bins, P.Lo, P.Hi, P.Hist.data()

struct Maxpool {
  int Planes = 5, H = 37, W = 41;
  int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
  std::vector<float> In = randomFloats((size_t)Planes * H * W, -5, 5, 13), Want, Out;
  Maxpool() : Want((size_t)Planes * OH * OW) {
    ref::maxpool2d(Planes, H, W, In.data(), Want.data());
  }
  void reset() { Out.assign(Want.size(), Poison); }
  void check(const std::string &What) { checkExact(What, Want, Out); }
};
#define MAXPOOL_ARGS(P) P.Planes, P.H, P.W, P.In.data(), P.Out.data()

struct Upsample {
  int Planes = 4, H = 23, W = 29;
  std::vector<float> In = randomFloats((size_t)Planes * H * W, -1, 1, 14), Want, Out;
  Upsample() : Want((size_t)Planes * 4 * H * W) {
    ref::upsampleBilinear2x(Planes, H, W, In.data(), Want.data());
  }
  void reset() { Out.assign(Want.size(), Poison); }
  void check(const std::string &What) { checkExact(What, Want, Out); }
};
#define UPSAMPLE_ARGS(P) P.Planes, P.H, P.W, P.In.data(), P.Out.data()

struct Im2col {
  int Channels = 3, H = 19, W = 27;
  std::vector<float> In = randomFloats((size_t)Channels * H * W, -1, 1, 15), Want, Cols;
  Im2col() : Want((size_t)Channels * 9 * H * W) {
    ref::im2col3x3(Channels, H, W, In.data(), Want.data());
  }
  void reset() { Cols.assign(Want.size(), Poison); }
  void check(const std::string &What) { checkExact(What, Want, Cols); }
};
#define IM2COL_ARGS(P) P.Channels, P.H, P.W, P.In.data(), P.Cols.data()

struct Memhash {
  int Items = 4099, Rows = 1 << 12, Rounds = 64;
  uint32_t Seed = 0x1234567u;
  std::vector<uint32_t> Table = randomWords((size_t)Rows * 4, 16), Want, Out;
  Memhash() : Want(Items) { ref::memhash(Items, Seed, Rows, Table.data(), Rounds, Want.data()); }
  void reset() { Out.assign(Items, PoisonWord); }
  void check(const std::string &What) { checkExact(What, Want, Out); }
};
#define MEMHASH_ARGS(P) P.Items, P.Seed, P.Rows, P.Table.data(), P.Rounds, P.Out.data()

struct Computehash {
  int Items = 3001, Rounds = 48;
  uint32_t Key = 0xabcdef01u;
  std::vector<uint32_t> Want, Out;
  Computehash() : Want(Items) { ref::computehash(Items, Key, Rounds, Want.data()); }
  void reset() { Out.assign(Items, PoisonWord); }
  void check(const std::string &What) { checkExact(What, Want, Out); }
};
#define COMPUTEHASH_ARGS(P) P.Items, P.Key, P.Rounds, P.Out.data()

const int TaskCounts[] = {1, 3, 7, 64};

// Each kernel apart, as 1..64 tasks.
#define CHECK_APART(Problem, Kernel, ARGS)                                                         \
  for (int Tasks : TaskCounts) {                                                                   \
    Problem.reset();                                                                               \
    ispc::Kernel##_tasks(Tasks, ARGS(Problem));                                                    \
    Problem.check(std::string(#Kernel) + " apart, " + std::to_string(Tasks) + " tasks");           \
  }

#ifdef HFUSE_FUSED
// (blocks_A, blocks_B) for the fused launches: equal, either side larger, one block.
const int FusedBlocks[][2] = {{1, 1}, {3, 7}, {16, 2}, {64, 64}};

#define CHECK_FUSED(PA, KA, ARGSA, PB, KB, ARGSB)                                                  \
  for (auto &Blocks : FusedBlocks) {                                                               \
    PA.reset();                                                                                    \
    PB.reset();                                                                                    \
    ispc::hfuse_##KA##_##KB(ARGSA(PA), ARGSB(PB), Blocks[0], Blocks[1]);                           \
    std::string Label = "hfuse_" #KA "_" #KB " (" + std::to_string(Blocks[0]) + "," +              \
                        std::to_string(Blocks[1]) + " blocks): ";                                  \
    PA.check(Label + #KA);                                                                         \
    PB.check(Label + #KB);                                                                         \
  }
#endif

} // namespace

int main() {
  Batchnorm BN;
  Histogram Hist;
  Maxpool Pool;
  Upsample Up;
  Im2col Col;
  Memhash Mem;
  Computehash Comp;
  CHECK_APART(BN, batchnorm_stats, BATCHNORM_ARGS)
  CHECK_APART(Hist, histogram1d, HISTOGRAM_ARGS)
  CHECK_APART(Pool, maxpool2d, MAXPOOL_ARGS)
  CHECK_APART(Up, upsample_bilinear2x, UPSAMPLE_ARGS)
  CHECK_APART(Col, im2col3x3, IM2COL_ARGS)
  CHECK_APART(Mem, memhash, MEMHASH_ARGS)
  CHECK_APART(Comp, computehash, COMPUTEHASH_ARGS)
#ifdef HFUSE_FUSED
  // The pairs of docs/hfuse-examples.md (the --hfuse flags in scripts/hfuse-bench.sh).
  CHECK_FUSED(BN, batchnorm_stats, BATCHNORM_ARGS, Up, upsample_bilinear2x, UPSAMPLE_ARGS)
  CHECK_FUSED(BN, batchnorm_stats, BATCHNORM_ARGS, Hist, histogram1d, HISTOGRAM_ARGS)
  CHECK_FUSED(Hist, histogram1d, HISTOGRAM_ARGS, Col, im2col3x3, IM2COL_ARGS)
  CHECK_FUSED(Hist, histogram1d, HISTOGRAM_ARGS, Pool, maxpool2d, MAXPOOL_ARGS)
  CHECK_FUSED(Pool, maxpool2d, MAXPOOL_ARGS, Up, upsample_bilinear2x, UPSAMPLE_ARGS)
  CHECK_FUSED(Mem, memhash, MEMHASH_ARGS, Comp, computehash, COMPUTEHASH_ARGS)
#endif
  std::printf("cpu check: %d passed, %d failed\n", Passed, Failed);
  return Failed ? 1 : 0;
}
