// The vertical-fusion benchmark and tuner on the GPU (scripts/fusion-bench.sh): for each
// example of examples/fusion, times spmdc's kernels apart (one launch per kernel,
// intermediates in global memory); spmdc's fused kernel (vfuse_..., from the examples'
// #pragma vfuse) as spmdc builds it by default, launched as its launch model says (the
// header's spmd_<kernel>_launch_coarsening: k times fewer gangs than the kernels apart);
// every tuning candidate: the fused kernel thread-coarsened by c = 1, 2, 4 in the compiler
// and launched with k = 1, 2, 4, ..., 128 times fewer gangs; and the same chain fused by
// hand in CUDA (kernels_cuda.cuh). It prints each against the device's copy bandwidth,
// the model's choice against the fastest candidate measured ("tuned"), and every
// candidate's time. Every output is first checked against the scalar C++ reference
// (../reference.h): `gpu check: N passed, M failed`.
//
//   bench DIR   (DIR/kernels.ptx: spmdc --target=nvptx-sm_90 -O3 kernels.spmd -h kernels_host.h;
//                DIR/kernels-c<c>.ptx: the same with --coarsen=vfuse_...:c for each fused kernel,
//                the stencil by block composition; DIR/kernels-warp.ptx: the stencil by warp
//                composition, which has no `foreach` to coarsen)
#include "cuda_bench.h"
#include "kernels_host.h"
#include "kernels_cuda.cuh"
#include "reference.h"
#include "spmdc_cuda.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int WarmUps = 3, TimedRuns = 21;
int Passed = 0, Failed = 0;

void checkLoader(int Rc, const std::string &What) {
  if (Rc != 0)
    fatal(What + ": " + spmdc_cuda_last_error());
}

using ref::randomFloats;

struct Timer {
  cudaEvent_t Start, Stop;
  Timer() {
    check(cudaEventCreate(&Start), "event");
    check(cudaEventCreate(&Stop), "event");
  }
  /// Median milliseconds of `Body` (warm-up runs first).
  double median(const std::function<void()> &Body) {
    for (int I = 0; I < WarmUps; ++I)
      Body();
    std::vector<float> Ms;
    for (int I = 0; I < TimedRuns; ++I) {
      check(cudaEventRecord(Start), "record");
      Body();
      check(cudaEventRecord(Stop), "record");
      check(cudaEventSynchronize(Stop), "synchronize");
      float T;
      check(cudaEventElapsedTime(&T, Start, Stop), "elapsed");
      Ms.push_back(T);
    }
    std::sort(Ms.begin(), Ms.end());
    return Ms[Ms.size() / 2];
  }
};

struct Module {
  spmdc_cuda_module M{};
  std::map<std::string, CUfunction> K;
  CUfunction get(const std::string &Name) {
    auto It = K.find(Name);
    if (It != K.end())
      return It->second;
    CUfunction F;
    checkLoader(spmdc_cuda_get_kernel(&M, Name.c_str(), &F), "kernel " + Name);
    return K[Name] = F;
  }
};

/// Launches spmdc kernel `Name` as `Warps` gangs, 8 warps per block.
template <typename... A> void launchSpmd(Module &Mod, const char *Name, unsigned Warps, A... Args) {
  void *Ptrs[] = {&Args...};
  checkLoader(spmdc_cuda_launch_warps(Mod.get(Name), Warps, 8, nullptr, Ptrs), Name);
}

unsigned blocksFor(size_t Threads) { return unsigned((Threads + 255) / 256); }

void verdict(const std::string &What, const std::vector<float> &Got, const std::vector<float> &Want,
             double Tolerance, double Floor) {
  double W = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    double E = std::fabs(double(Got[I]) - Want[I]) / (std::fabs(double(Want[I])) + Floor);
    if (!(E <= W))
      W = std::isnan(E) ? INFINITY : E;
  }
  bool Ok = W <= Tolerance;
  std::printf("%-56s %s  worst error %.2g\n", What.c_str(), Ok ? "ok" : "FAIL", W);
  (Ok ? Passed : Failed) += 1;
}

/// A fused run: thread coarsening c in the compiler, k chunks or rows per gang; for a
/// stencil, the composition of its neighbour reads ("block": a tile in shared memory,
/// "warp": lane shuffles; empty where the kernel has no neighbour reads).
struct Variant {
  std::string Name;
  unsigned C, K;
  std::function<void()> Run;
  std::string Composition;
};

/// The cost model's choice for a fused kernel, from the host header spmdc writes
/// (-h kernels_host.h): the launch coarsening k and the thread coarsening c it applied.
#define MODEL(K) spmd::spmd_##K##_launch_coarsening, spmd::spmd_##K##_thread_coarsening

/// One example: its runs (name -> launch), the reference, the bytes a fused kernel must move.
struct Example {
  std::string Name;
  std::function<void()> Apart;
  std::string Kernel;         ///< the fused kernel
  std::vector<Variant> Fused; ///< the model's choice, then every candidate
  std::function<void()> Cuda;
  DeviceBuffer<float> *Out;
  std::vector<float> Want;
  double Tolerance, Floor, Bytes;
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    fatal("usage: bench DIR");
  std::string Dir = argv[1];
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // every finished line survives a failure later
  Module Mod;
  checkLoader(spmdc_cuda_load_ptx_file(&Mod.M, 0, (Dir + "/kernels.ptx").c_str()), "load kernels.ptx");
  cudaDeviceProp Prop;
  check(cudaGetDeviceProperties(&Prop, 0), "properties");
  std::printf("device: %s, %d SMs\n", Prop.name, Prop.multiProcessorCount);

  const int Rows = 65536, Cols = 1024, N = Rows * Cols;
  const float a = 1.5f, b = -0.25f, p = 0.1f;
  const uint32_t seed = 12345;
  std::vector<float> hX = randomFloats(N, -2.0f, 2.0f, 1), hPos = randomFloats(N, 0.1f, 2.0f, 2),
                     hBias = randomFloats(Cols, -0.5f, 0.5f, 3), hGamma = randomFloats(Cols, 0.5f, 1.5f, 4),
                     hBeta = randomFloats(Cols, -0.5f, 0.5f, 5);
  DeviceBuffer<float> X(N), Pos(N), Bias(Cols), Gamma(Cols), Beta(Cols), Y(N), T1(N), T2(N), T3(N),
      T4(N), R1(Rows), R2(Rows);
  X.upload(hX), Pos.upload(hPos), Bias.upload(hBias), Gamma.upload(hGamma), Beta.upload(hBeta);
  float *x = X.Ptr, *pos = Pos.Ptr, *bias = Bias.Ptr, *gamma = Gamma.Ptr, *beta = Beta.Ptr, *y = Y.Ptr,
        *t1 = T1.Ptr, *t2 = T2.Ptr, *t3 = T3.Ptr, *t4 = T4.Ptr, *r1 = R1.Ptr, *r2 = R2.Ptr;
  int n = N, rows = Rows, cols = Cols;
  const unsigned ElemWarps = unsigned((N + 31) / 32);
  // The tuning candidates: the fused kernels thread-coarsened by c in the compiler
  // (kernels-c<c>.ptx, --coarsen=vfuse_...:c), each launched with k times fewer gangs
  // than work items / 32 (rows: than rows). "model" is kernels.ptx as spmdc builds it
  // by default (the cost model's thread coarsening applied) launched with the model's
  // k from the generated header (spmd_<kernel>_launch_coarsening).
  const unsigned Cs[] = {1, 2, 4}, Ks[] = {1, 2, 4, 8, 16, 32, 64, 128};
  std::map<unsigned, Module> ByC;
  for (unsigned C : Cs) {
    std::string File = Dir + "/kernels-c" + std::to_string(C) + ".ptx";
    checkLoader(spmdc_cuda_load_ptx_file(&ByC[C].M, 0, File.c_str()), "load " + File);
  }
  Module &Coarse = ByC[4];
  Module Warp;
  checkLoader(spmdc_cuda_load_ptx_file(&Warp.M, 0, (Dir + "/kernels-warp.ptx").c_str()), "load kernels-warp.ptx");
  Timer Clock;
  // The device's copy bandwidth: read N floats, write N floats.
  double CopyMs = Clock.median([&] {
    cuda_copy<<<Prop.multiProcessorCount * 8, 256>>>(reinterpret_cast<const float4 *>(x),
                                                      reinterpret_cast<float4 *>(y), size_t(N) / 4);
  });
  double CopyGBs = 2.0 * N * 4 / (CopyMs * 1e6);
  std::printf("copy: %.3f ms for %d MiB each way, %.0f GB/s\n", CopyMs, N * 4 >> 20, CopyGBs);

  std::vector<Example> E;
  // The model's run first, then every (c, k) candidate.
  // A stencil's candidates also differ in composition: the c modules compose its
  // neighbour reads by blocks, kernels-warp.ptx by lane shuffles (c = 1 only).
  auto variants = [&](unsigned ModelK, unsigned ModelC, std::function<void(Module &, unsigned)> Fused,
                      const std::string &ModelComposition = "") {
    std::vector<Variant> V;
    std::string Prefix = ModelComposition.empty() ? "" : ModelComposition + " ";
    V.push_back({"model " + Prefix + "c=" + std::to_string(ModelC) + " k=" + std::to_string(ModelK), ModelC,
                 ModelK, [=, &Mod] { Fused(Mod, ModelK); }, ModelComposition});
    std::string Block = ModelComposition.empty() ? "" : "block";
    for (unsigned C : Cs)
      for (unsigned K : Ks) {
        Module *Mo = &ByC[C];
        V.push_back({(Block.empty() ? "" : "block ") + std::string("c=") + std::to_string(C) + " k=" +
                         std::to_string(K),
                     C, K, [=] { Fused(*Mo, K); }, Block});
      }
    if (!ModelComposition.empty())
      for (unsigned K : Ks)
        V.push_back({"warp c=1 k=" + std::to_string(K), 1, K, [=, &Warp] { Fused(Warp, K); }, "warp"});
    return V;
  };
  {
    Example Ex{"map chain (5 maps)"};
    Ex.Apart = [&] {
      launchSpmd(Mod, "map1", ElemWarps, x, t1, a, b, n);
      launchSpmd(Mod, "map2", ElemWarps, t1, t2, n);
      launchSpmd(Mod, "map3", ElemWarps, t2, t3, n);
      launchSpmd(Mod, "map4", ElemWarps, x, t3, t4, n);
      launchSpmd(Mod, "map5", ElemWarps, t4, y, n);
    };
    Ex.Kernel = "vfuse_map1_map2_map3_map4_map5";
    Ex.Fused = variants(MODEL(vfuse_map1_map2_map3_map4_map5), [&](Module &Mo, unsigned K) {
      launchSpmd(Mo, "vfuse_map1_map2_map3_map4_map5", (ElemWarps + K - 1) / K, x, a, b, n, y);
    });
    Ex.Cuda = [&] { cuda_map_chain<<<blocksFor(N), 256>>>(x, y, a, b, n); };
    Ex.Want.resize(N);
    ref::mapChain(hX, a, b, Ex.Want);
    Ex.Tolerance = 1e-5, Ex.Floor = 1e-3, Ex.Bytes = 8.0 * N;
    E.push_back(std::move(Ex));
  }
  {
    Example Ex{"bias + GELU + dropout"};
    Ex.Apart = [&] {
      launchSpmd(Mod, "bias_add", ElemWarps, x, bias, t1, cols, n);
      launchSpmd(Mod, "gelu", ElemWarps, t1, t2, n);
      launchSpmd(Mod, "dropout", ElemWarps, t2, y, seed, p, n);
    };
    Ex.Kernel = "vfuse_bias_add_gelu_dropout";
    Ex.Fused = variants(MODEL(vfuse_bias_add_gelu_dropout), [&](Module &Mo, unsigned K) {
      launchSpmd(Mo, "vfuse_bias_add_gelu_dropout", (ElemWarps + K - 1) / K, x, bias, cols, n, y, seed, p);
    });
    Ex.Cuda = [&] { cuda_bias_gelu_dropout<<<blocksFor(N), 256>>>(x, bias, y, cols, n, seed, p); };
    Ex.Want.resize(N);
    ref::biasGeluDropout(hX, hBias, Cols, seed, p, Ex.Want);
    Ex.Tolerance = 5e-5, Ex.Floor = 1e-3, Ex.Bytes = 8.0 * N;
    E.push_back(std::move(Ex));
  }
  {
    Example Ex{"softmax (max, exp-sum, divide)"};
    Ex.Apart = [&] {
      launchSpmd(Mod, "row_max", Rows, x, r1, rows, cols);
      launchSpmd(Mod, "row_expsum", Rows, x, r1, r2, rows, cols);
      launchSpmd(Mod, "row_divide", Rows, x, r1, r2, y, rows, cols);
    };
    Ex.Kernel = "vfuse_row_max_row_expsum_row_divide";
    Ex.Fused = variants(MODEL(vfuse_row_max_row_expsum_row_divide), [&](Module &Mo, unsigned K) {
      launchSpmd(Mo, "vfuse_row_max_row_expsum_row_divide", Rows / K, x, rows, cols, y);
    });
    Ex.Cuda = [&] { cuda_softmax<<<Rows / 8, 256>>>(x, y, rows, cols); };
    Ex.Want.resize(N);
    ref::softmax(hX, Rows, Cols, Ex.Want);
    Ex.Tolerance = 1e-4, Ex.Floor = 1e-6, Ex.Bytes = 8.0 * N;
    E.push_back(std::move(Ex));
  }
  {
    Example Ex{"layer normalization"};
    Ex.Apart = [&] {
      launchSpmd(Mod, "ln_mean", Rows, x, r1, rows, cols);
      launchSpmd(Mod, "ln_var", Rows, x, r1, r2, rows, cols);
      launchSpmd(Mod, "ln_normalize", Rows, x, r1, r2, gamma, beta, y, rows, cols);
    };
    Ex.Kernel = "vfuse_ln_mean_ln_var_ln_normalize";
    Ex.Fused = variants(MODEL(vfuse_ln_mean_ln_var_ln_normalize), [&](Module &Mo, unsigned K) {
      launchSpmd(Mo, "vfuse_ln_mean_ln_var_ln_normalize", Rows / K, x, rows, cols, gamma, beta, y);
    });
    Ex.Cuda = [&] { cuda_layernorm<<<Rows / 8, 256>>>(x, gamma, beta, y, rows, cols); };
    Ex.Want.resize(N);
    ref::layerNorm(hX, hGamma, hBeta, Rows, Cols, Ex.Want);
    Ex.Tolerance = 1e-4, Ex.Floor = 1e-2, Ex.Bytes = 8.0 * N;
    E.push_back(std::move(Ex));
  }
  {
    Example Ex{"row sum + broadcast divide"};
    Ex.Apart = [&] {
      launchSpmd(Mod, "row_sum", Rows, pos, r1, rows, cols);
      launchSpmd(Mod, "row_scale", Rows, pos, r1, y, rows, cols);
    };
    Ex.Kernel = "vfuse_row_sum_row_scale";
    Ex.Fused = variants(MODEL(vfuse_row_sum_row_scale), [&](Module &Mo, unsigned K) { launchSpmd(Mo, "vfuse_row_sum_row_scale", Rows / K, pos, rows, cols, y); });
    Ex.Cuda = [&] { cuda_row_normalize<<<Rows / 8, 256>>>(pos, y, rows, cols); };
    Ex.Want.resize(N);
    ref::rowNormalize(hPos, Rows, Cols, Ex.Want);
    Ex.Tolerance = 1e-5, Ex.Floor = 1e-6, Ex.Bytes = 8.0 * N;
    E.push_back(std::move(Ex));
  }
  {
    Example Ex{"two-stage stencil"};
    Ex.Apart = [&] {
      launchSpmd(Mod, "blur3", ElemWarps, x, t1, n);
      launchSpmd(Mod, "diff3", ElemWarps, t1, y, n);
    };
    // Block composition (each warp's chunk in tiles of 128 in shared memory, halo recomputed)
    // or warp composition (a window of three vectors in registers, lane shuffles).
    Ex.Kernel = "vfuse_blur3_diff3";
    Ex.Fused = variants(
        MODEL(vfuse_blur3_diff3),
        [&](Module &Mo, unsigned K) { launchSpmd(Mo, "vfuse_blur3_diff3", (ElemWarps + K - 1) / K, x, n, y); },
        spmd::spmd_vfuse_blur3_diff3_warp_composition ? "warp" : "block");
    Ex.Cuda = [&] { cuda_stencil2<<<(N + StencilBlock - 1) / StencilBlock, StencilBlock>>>(x, y, n); };
    Ex.Want.resize(N);
    ref::stencil2(hX, Ex.Want);
    Ex.Tolerance = 1e-5, Ex.Floor = 1e-2, Ex.Bytes = 8.0 * N;
    E.push_back(std::move(Ex));
  }

  // Correctness first: every way of running each example against the reference.
  auto checkRun = [&](Example &Ex, const std::string &Way, const std::function<void()> &Run) {
    check(cudaMemset(y, 0xff, size_t(N) * 4), "poison");
    Run();
    check(cudaDeviceSynchronize(), ("run " + Ex.Name + " " + Way).c_str());
    verdict(Ex.Name + ": " + Way, Y.download(), Ex.Want, Ex.Tolerance, Ex.Floor);
  };
  // Block coarsening on the GPU: the map chain's kernels apart, block-coarsened by 4 in the
  // coarsen(4) module, launched with 4 times fewer blocks, do what the plain launch does.
  auto ApartBlocks4 = [&] {
    unsigned W = (ElemWarps + 3) / 4;
    launchSpmd(Coarse, "map1", W, x, t1, a, b, n);
    launchSpmd(Coarse, "map2", W, t1, t2, n);
    launchSpmd(Coarse, "map3", W, t2, t3, n);
    launchSpmd(Coarse, "map4", W, x, t3, t4, n);
    launchSpmd(Coarse, "map5", W, t4, y, n);
  };
  checkRun(E[0], "spmdc apart, blocks coarsened by 4", ApartBlocks4);
  for (Example &Ex : E) {
    checkRun(Ex, "spmdc apart", Ex.Apart);
    for (Variant &V : Ex.Fused)
      checkRun(Ex, "spmdc fused " + V.Name, V.Run);
    checkRun(Ex, "CUDA fused by hand", Ex.Cuda);
  }
  std::printf("gpu check: %d passed, %d failed\n\n", Passed, Failed);

  // Timing: two rounds (the second in reverse order), each run's time the better of
  // its two medians; "tuned" is the fastest candidate, "model" the default build
  // launched as the header says.
  std::vector<double> ApartMs(E.size()), CudaMs(E.size());
  std::vector<std::vector<double>> FusedMs(E.size());
  for (int Round = 0; Round < 2; ++Round)
    for (size_t Step = 0; Step < E.size(); ++Step) {
      size_t I = Round ? E.size() - 1 - Step : Step;
      Example &Ex = E[I];
      auto keep = [&](double &Slot, double T) { Slot = Round ? std::min(Slot, T) : T; };
      keep(ApartMs[I], Clock.median(Ex.Apart));
      keep(CudaMs[I], Clock.median(Ex.Cuda));
      FusedMs[I].resize(Ex.Fused.size());
      for (size_t V = 0; V < Ex.Fused.size(); ++V) {
        size_t J = Round ? Ex.Fused.size() - 1 - V : V;
        keep(FusedMs[I][J], Clock.median(Ex.Fused[J].Run));
      }
    }
  auto pct = [&](const Example &Ex, double Ms) { return 100.0 * Ex.Bytes / (Ms * 1e6) / CopyGBs; };
  std::printf("| example | apart (ms) | fused c=1 k=1 (ms) | model's choice | model (ms) | tuned | tuned (ms) "
              "| model/tuned | CUDA by hand (ms) | apart/model | apart/tuned | model/CUDA | tuned/CUDA "
              "| model %% of copy BW | tuned %% of copy BW | CUDA %% of copy BW |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (size_t I = 0; I < E.size(); ++I) {
    Example &Ex = E[I];
    const std::vector<double> &F = FusedMs[I];
    // Candidates start at index 1 (index 0 is the model's own run).
    size_t Best = std::min_element(F.begin() + 1, F.end()) - F.begin(), Plain = 1;
    double Model = F[0];
    std::printf("| %s | %.3f | %.3f | %s%sc=%u k=%u | %.3f | %s | %.3f | %.2fx | %.3f | %.2fx | %.2fx | %.2fx | %.2fx "
                "| %.0f%% | %.0f%% | %.0f%% |\n",
                Ex.Name.c_str(), ApartMs[I], F[Plain], Ex.Fused[0].Composition.c_str(),
                Ex.Fused[0].Composition.empty() ? "" : " ", Ex.Fused[0].C, Ex.Fused[0].K, Model,
                Ex.Fused[Best].Name.c_str(), F[Best], Model / F[Best], CudaMs[I], ApartMs[I] / Model,
                ApartMs[I] / F[Best], Model / CudaMs[I], F[Best] / CudaMs[I], pct(Ex, Model), pct(Ex, F[Best]),
                pct(Ex, CudaMs[I]));
  }
  // Every candidate: rows c, columns k, each as time/tuned.
  std::printf("\nEvery candidate (ms; * the fastest, m the model's choice):\n");
  for (size_t I = 0; I < E.size(); ++I) {
    Example &Ex = E[I];
    const std::vector<double> &F = FusedMs[I];
    size_t Best = std::min_element(F.begin() + 1, F.end()) - F.begin();
    std::printf("\n| %s |", Ex.Name.c_str());
    for (unsigned K : Ks)
      std::printf(" k=%u |", K);
    std::printf("\n| --- |");
    for (size_t K = 0; K < std::size(Ks); ++K)
      std::printf(" --- |");
    std::printf("\n");
    for (size_t V = 1; V < Ex.Fused.size(); ++V) {
      const Variant &Va = Ex.Fused[V];
      if (Va.K == Ks[0])
        std::printf("| %s%sc=%u |", Va.Composition.c_str(), Va.Composition.empty() ? "" : " ", Va.C);
      bool IsModel = Va.C == Ex.Fused[0].C && Va.K == Ex.Fused[0].K && Va.Composition == Ex.Fused[0].Composition;
      std::printf(" %.3f%s%s |", F[V], V == Best ? " *" : "", IsModel ? " m" : "");
      if (Va.K == Ks[std::size(Ks) - 1])
        std::printf("\n");
    }
  }
  // The tuned choice as spmdc flags and the launch (what a tuned build uses instead of the
  // model's), and the model's choice against it.
  std::printf("\n");
  for (size_t I = 0; I < E.size(); ++I) {
    const std::vector<double> &F = FusedMs[I];
    size_t Best = std::min_element(F.begin() + 1, F.end()) - F.begin();
    const Variant &T = E[I].Fused[Best], &M = E[I].Fused[0];
    std::printf("tuned: %s%s--coarsen=%s:%u, launch k=%u (%.3f ms); model: %s%sc=%u k=%u (%.3f ms, %+.0f%%)\n",
                T.Composition.empty() ? "" : "compose=", T.Composition.empty() ? "" : (T.Composition + ", ").c_str(),
                E[I].Kernel.c_str(), T.C, T.K, F[Best], M.Composition.c_str(), M.Composition.empty() ? "" : " ",
                M.C, M.K, F[0], 100.0 * (F[0] / F[Best] - 1));
  }
  std::printf("\nmap chain apart, each kernel block-coarsened by 4 (4x fewer blocks): %.3f ms\n",
              Clock.median(ApartBlocks4));
  for (auto &[C, Mo] : ByC)
    spmdc_cuda_unload(&Mo.M);
  spmdc_cuda_unload(&Warp.M);
  spmdc_cuda_unload(&Mod.M);
  return Failed ? 1 : 0;
}
