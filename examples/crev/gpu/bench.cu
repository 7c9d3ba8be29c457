// The GPU part of the CREV benchmark: per example, spmdc's `crev` kernel (PTX for
// nvptx-sm_90, loaded through runtime/cuda/spmdc_cuda.h) against CUDA dynamic parallelism (a
// one-warp child kernel launched per thread, the seed's "Launch") and against the naive
// per-thread loop in CUDA C++ (the seed's "Parallel"), plus spmdc's PAR kernel. Every version
// is checked against the scalar reference of inputs.h before it is timed.
//
//   bench PTX_DIR [--quick] [--alphabet N] [--records N] [--examples a,b]
//
// PTX_DIR holds the .ptx of every example (string_match, book_filter, dfs, bellman_ford,
// connected_components, quicksort_bitonic, mergesort_bitonic). Prints one line per
// measurement and, last, a Markdown table: a row per input (per pattern length for string
// matching) and the sum over the pattern lengths. Exits 1 when any version disagrees with the
// reference. The graph examples run a host loop (a launch per DFS step, Bellman-Ford round or
// components sweep, the next step's size read back in between); a run of any version is the
// whole loop, including the reset of its state from device copies of the initial state.
#include "cuda_bench.h"
#include "inputs.h"
#include "kernels_cuda.h"
#include "spmdc_cuda.h"

#include "bellman_ford_host.h"
#include "book_filter_host.h"
#include "connected_components_host.h"
#include "dfs_host.h"
#include "mergesort_bitonic_host.h"
#include "quicksort_bitonic_host.h"
#include "string_match_host.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace crevgpu;

namespace {

// Timing protocol of the fast versions: warm-up launches, then the median of timed launches.
constexpr int WarmUps = 2;
constexpr int TimedRuns = 11;
// The Launch versions can take seconds per run (a device launch per item). They are first
// run on a probe of ProbeItems items; when the whole input would take more than
// LaunchFullLimitMs at that rate, they are measured on a prefix of the input, of at most
// LaunchMaxItems items (so that the child launches stay under the pending-launch limit: a run
// of 5.9M string positions, 1.5M launches, did not finish within 90 s on an H200) and at most
// about LaunchPrefixMs, and the full time is extrapolated linearly ("~" in the table; a lower
// bound, since the launch rate only drops once the pending launches pile up). After the checked
// run (timed too), more timed runs only while this version has used less than LaunchBudgetMs
// on this input.
constexpr size_t ProbeItems = 32768;
constexpr size_t LaunchMaxItems = size_t(1) << 17;
constexpr double LaunchFullLimitMs = 3000;
constexpr double LaunchPrefixMs = 800;
constexpr double LaunchBudgetMs = 1500;
constexpr int LaunchMaxRuns = 5;
// Pending device launches the device runtime may buffer (cudaLimitDevRuntimePendingLaunchCount).
constexpr int PendingLaunches = 1 << 18;
// Per-thread stack for the recursive quicksorts (spmdc PAR and CREV, naive CUDA, the Launch
// child): a frame is under 100 bytes, the recursion depth a few dozen.
constexpr size_t ThreadStackBytes = 8192;
constexpr int8_t Poison = 7;

// Milliseconds of one launch sequence (`Launch` enqueues on stream 0), by CUDA events.
float eventMs(const std::function<void()> &Launch) {
  cudaEvent_t Start, Stop;
  check(cudaEventCreate(&Start), "cudaEventCreate");
  check(cudaEventCreate(&Stop), "cudaEventCreate");
  check(cudaEventRecord(Start, 0), "cudaEventRecord");
  Launch();
  check(cudaGetLastError(), "launch");
  check(cudaEventRecord(Stop, 0), "cudaEventRecord");
  check(cudaEventSynchronize(Stop), "run");
  float Ms = 0;
  check(cudaEventElapsedTime(&Ms, Start, Stop), "cudaEventElapsedTime");
  cudaEventDestroy(Start);
  cudaEventDestroy(Stop);
  return Ms;
}

float median(std::vector<float> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

// Median of TimedRuns launches after WarmUps.
float timeFast(const std::function<void()> &Launch) {
  for (int I = 0; I < WarmUps; ++I)
    Launch();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<float> Ms;
  for (int I = 0; I < TimedRuns; ++I)
    Ms.push_back(eventMs(Launch));
  return median(Ms);
}

// One way to launch a version (for the spmdc kernels: one launch shape).
struct Variant {
  std::string Shape;
  std::function<void()> Launch;
};

// One version of an example on the current input: its launch variants (the fastest counts).
struct Version {
  std::string Name;
  std::vector<Variant> Variants;
};

// Runs Version once on a poisoned output and compares the whole output with Want; returns
// the number of differing entries and reports them.
size_t checkOutput(const std::string &What, const Version &V, const Variant &Var,
                   DeviceBuffer<int8_t> &Out, const std::vector<int8_t> &Want, size_t Count,
                   float *FirstMs) {
  check(cudaMemset(Out.Ptr, Poison, Out.Count), "poison");
  *FirstMs = eventMs(Var.Launch);
  check(cudaDeviceSynchronize(), V.Name.c_str());
  std::vector<int8_t> Got = Out.download();
  size_t Bad = 0, First = Count;
  for (size_t I = 0; I < Count; ++I)
    if (Got[I] != Want[I]) {
      if (!Bad)
        First = I;
      ++Bad;
    }
  if (Bad)
    std::printf("  %s %s %s: MISMATCH in %zu of %zu entries (first at %zu: got %d, want %d)\n",
                What.c_str(), V.Name.c_str(), Var.Shape.c_str(), Bad, Count, First, Got[First],
                Want[First]);
  return Bad;
}

// A measured input: the times of naive CUDA, Launch, spmdc PAR and spmdc CREV (ms).
struct Result {
  std::string Example, Input;
  float Naive = 0, Launch = 0, Par = 0, Crev = 0;
  double LaunchMeasured = 1; // the fraction of the input the Launch time was measured on
  bool Ok = true;
};

// Checks every variant of every version against Want, then times them (a version's time is
// its fastest variant's).
Result measure(const std::string &Example, const std::string &Input, std::vector<Version> &Versions,
               DeviceBuffer<int8_t> &Out, const std::vector<int8_t> &Want, size_t Count) {
  Result R{Example, Input};
  std::vector<std::vector<float>> FirstMs;
  for (Version &V : Versions) {
    FirstMs.emplace_back();
    for (Variant &Var : V.Variants) {
      FirstMs.back().push_back(0);
      size_t Bad =
          checkOutput(Example + " " + Input, V, Var, Out, Want, Count, &FirstMs.back().back());
      R.Ok = R.Ok && Bad == 0;
    }
  }
  std::vector<float> Times;
  for (size_t I = 0; I < Versions.size(); ++I) {
    const Version &V = Versions[I];
    float Best = 0;
    for (size_t J = 0; J < V.Variants.size(); ++J) {
      float Ms = timeFast(V.Variants[J].Launch);
      std::printf("  %-13s %-22s %-13s %-30s %10.4f ms\n", Example.c_str(), Input.c_str(),
                  V.Name.c_str(), V.Variants[J].Shape.c_str(), Ms);
      std::fflush(stdout);
      Best = J == 0 ? Ms : std::min(Best, Ms);
    }
    Times.push_back(Best);
  }
  R.Naive = Times[0];
  R.Par = Times[1];
  R.Crev = Times[2];
  return R;
}

// The Launch (dynamic parallelism) version: `Run(items)` launches it on the first `items`
// items. The first run on each number of items is checked against Want; timed as described at
// LaunchFullLimitMs.
void measureLaunch(Result &R, const std::function<void(size_t)> &Run, DeviceBuffer<int8_t> &Out,
                   const std::vector<int8_t> &Want, size_t Count) {
  Version V{"Launch (CDP)", {}};
  auto CheckedRun = [&](size_t Items) {
    float Ms = 0;
    Variant Var{"first " + std::to_string(Items) + " items", [&] { Run(Items); }};
    size_t Bad = checkOutput(R.Example + " " + R.Input, V, Var, Out, Want, Items, &Ms);
    R.Ok = R.Ok && Bad == 0;
    return Ms;
  };
  CheckedRun(std::min<size_t>(Count, 256)); // the device runtime's first use stays untimed
  size_t Probe = std::min(Count, ProbeItems);
  float ProbeMs = CheckedRun(Probe);
  double PerItem = double(ProbeMs) / double(Probe);
  size_t Items = Count;
  if (PerItem * double(Count) > LaunchFullLimitMs)
    Items = std::max(Probe, std::min({Count, LaunchMaxItems, size_t(LaunchPrefixMs / PerItem)}));
  std::printf("  %-13s %-22s Launch probe: %zu items in %.3f ms (%.3f us per item); measuring "
              "%zu of %zu items\n",
              R.Example.c_str(), R.Input.c_str(), Probe, ProbeMs, 1e3 * PerItem, Items, Count);
  std::vector<float> Ms{CheckedRun(Items)};
  double Used = Ms[0];
  while (Used < LaunchBudgetMs && int(Ms.size()) < LaunchMaxRuns) {
    Ms.push_back(eventMs([&] { Run(Items); }));
    Used += Ms.back();
  }
  R.LaunchMeasured = double(Items) / double(Count);
  R.Launch = float(median(Ms) / R.LaunchMeasured);
  std::printf("  %-13s %-22s %-13s %-30s %10.4f ms%s\n", R.Example.c_str(), R.Input.c_str(),
              "Launch (CDP)",
              ("child warp per item, " + std::to_string(Ms.size()) + " runs").c_str(), R.Launch,
              R.LaunchMeasured < 1 ? " (extrapolated from the prefix)" : "");
}

CUfunction loadKernel(spmdc_cuda_module &M, const std::string &Path, const char *Name) {
  if (!M.module && spmdc_cuda_load_ptx_file(&M, 0, Path.c_str()) != 0)
    fatal(spmdc_cuda_last_error());
  CUfunction F;
  if (spmdc_cuda_get_kernel(&M, Name, &F) != 0)
    fatal(spmdc_cuda_last_error());
  return F;
}

// The launch shapes of the spmdc kernels: one item per lane (Items/32 warps) and a
// full-occupancy grid (64 warps per SM) whose warps each take a longer chunk; both with 8 warps
// (256 threads, the CUDA versions' block) per block.
std::vector<Variant> spmdVariants(size_t Items, int SMs,
                                  const std::function<void(unsigned, unsigned)> &Run) {
  unsigned PerLane = unsigned((Items + 31) / 32), Full = unsigned(SMs * 64);
  return {{"item per lane (" + std::to_string(PerLane) + " warps)", [=] { Run(PerLane, 8); }},
          {"64 warps/SM (" + std::to_string(Full) + " warps)", [=] { Run(Full, 8); }}};
}

struct Options {
  std::string PtxDir;
  bool Quick = false;
  unsigned Alphabet = 4;
  int Records = 160000;
  std::vector<std::string> Examples{"string_match",     "book_filter",          "dfs",
                                    "bellman_ford",     "connected_components", "quicksort_bitonic",
                                    "mergesort_bitonic"};
};

struct Device {
  int SMs = 0;
  int ParentThreads = 0; // the Launch versions' parent grid
};

void benchStringMatch(const Options &O, const Device &D, std::vector<Result> &Results) {
  // The CPU example's input (examples/crev/string_match/main.cpp, seed 12345): the same text
  // and the same patterns, so the hit counts match the CPU table.
  size_t Size = O.Quick ? (size_t(8) << 20) : (size_t(64) << 20);
  Rng R(12345);
  std::vector<int8_t> Text = randomText(Size, O.Alphabet, R);
  DeviceBuffer<int8_t> DText(Size), DPat(64), Found(Size);
  DeviceBuffer<int> Failures(1);
  DText.upload(Text);
  check(cudaMemset(Failures.Ptr, 0, sizeof(int)), "memset");

  spmdc_cuda_module M{};
  std::string Path = O.PtxDir + "/string_match.ptx";
  CUfunction Par = loadKernel(M, Path, spmd::spmd_match_par_spmd_name);
  CUfunction Crev = loadKernel(M, Path, spmd::spmd_match_crev_spmd_name);

  for (int Len = 4; Len <= 32; Len += 4) {
    size_t At = R.below(unsigned(Size - 64));
    std::vector<int8_t> Pat(Text.begin() + long(At), Text.begin() + long(At) + Len);
    if (O.Quick && Len != 4 && Len != 16 && Len != 32)
      continue;
    std::vector<int8_t> Pat64(64, 0);
    std::copy(Pat.begin(), Pat.end(), Pat64.begin());
    DPat.upload(Pat64);
    size_t Positions = Size - size_t(Len) + 1;
    std::vector<int8_t> Want(Size);
    matchReference(Text, Pat, Want);
    size_t Hits = size_t(std::count(Want.begin(), Want.begin() + long(Positions), int8_t(1)));

    int N = int(Size);
    spmd::spmd_match_par_spmd_params P{DText.dev(), N, DPat.dev(), Len, Found.dev()};
    auto RunPar = [&](unsigned Warps, unsigned PerBlock) {
      check(spmd::spmd_launch_match_par_spmd(Par, (Warps + PerBlock - 1) / PerBlock, PerBlock,
                                             nullptr, &P),
            "match_par_spmd");
    };
    spmd::spmd_match_crev_spmd_params C{DText.dev(), N, DPat.dev(), Len, Found.dev()};
    auto RunCrev = [&](unsigned Warps, unsigned PerBlock) {
      check(spmd::spmd_launch_match_crev_spmd(Crev, (Warps + PerBlock - 1) / PerBlock, PerBlock,
                                              nullptr, &C),
            "match_crev_spmd");
    };
    std::string Input = "m=" + std::to_string(Len) + " (" + std::to_string(Hits) + " hits)";
    std::vector<Version> Versions{
        {"naive CUDA",
         {{"thread per position",
           [&] { match_naive_cuda(DText.Ptr, N, DPat.Ptr, Len, Found.Ptr); }}}},
        {"spmdc PAR", spmdVariants(Positions, D.SMs, RunPar)},
        {"spmdc CREV", spmdVariants(Positions, D.SMs, RunCrev)},
    };
    Result Res = measure("string_match", Input, Versions, Found, Want, Positions);
    // Launch on the first `Items` positions: a text of Items + Len - 1 characters.
    measureLaunch(
        Res,
        [&](size_t Items) {
          match_launch_cuda(DText.Ptr, int(Items) + Len - 1, DPat.Ptr, Len, Found.Ptr,
                            D.ParentThreads, Failures.Ptr);
        },
        Found, Want, Positions);
    int Failed = Failures.download()[0];
    if (Failed) {
      std::printf("  string_match %s: %d child launches failed\n", Input.c_str(), Failed);
      Res.Ok = false;
      check(cudaMemset(Failures.Ptr, 0, sizeof(int)), "memset");
    }
    Results.push_back(Res);
  }
  spmdc_cuda_unload(&M);
}

void benchBookFilter(const Options &O, const Device &D, std::vector<Result> &Results) {
  int Records = O.Quick ? 20000 : O.Records;
  Rng R(12345);
  Books B = randomBooks(Records, R);
  std::vector<int8_t> Want(static_cast<size_t>(Records));
  filterReference(B, Want);
  size_t Kept = size_t(std::count(Want.begin(), Want.end(), int8_t(1)));
  int M = int(B.Keyword.size());
  DeviceBuffer<int8_t> DText(B.Text.size()), DKey(B.Keyword.size()),
      DKept(static_cast<size_t>(Records));
  DeviceBuffer<int> DOffsets(B.Offsets.size()), Failures(1);
  DText.upload(B.Text);
  DKey.upload(B.Keyword);
  DOffsets.upload(B.Offsets);
  check(cudaMemset(Failures.Ptr, 0, sizeof(int)), "memset");

  spmdc_cuda_module Mod{};
  std::string Path = O.PtxDir + "/book_filter.ptx";
  CUfunction Par = loadKernel(Mod, Path, spmd::spmd_filter_par_spmd_name);
  CUfunction Crev = loadKernel(Mod, Path, spmd::spmd_filter_crev_spmd_name);
  spmd::spmd_filter_par_spmd_params P{DText.dev(), DOffsets.dev(), Records, DKey.dev(),
                                      M,           DKept.dev()};
  auto RunPar = [&](unsigned Warps, unsigned PerBlock) {
    check(spmd::spmd_launch_filter_par_spmd(Par, (Warps + PerBlock - 1) / PerBlock, PerBlock,
                                            nullptr, &P),
          "filter_par_spmd");
  };
  spmd::spmd_filter_crev_spmd_params C{DText.dev(), DOffsets.dev(), Records, DKey.dev(),
                                       M,           DKept.dev()};
  auto RunCrev = [&](unsigned Warps, unsigned PerBlock) {
    check(spmd::spmd_launch_filter_crev_spmd(Crev, (Warps + PerBlock - 1) / PerBlock, PerBlock,
                                             nullptr, &C),
          "filter_crev_spmd");
  };
  char Input[96];
  std::snprintf(Input, sizeof Input, "%d records, %.0f MB, %zu kept", Records,
                double(B.Text.size()) / 1e6, Kept);
  std::vector<Version> Versions{
      {"naive CUDA",
       {{"thread per record",
         [&] { filter_naive_cuda(DText.Ptr, DOffsets.Ptr, Records, DKey.Ptr, M, DKept.Ptr); }}}},
      {"spmdc PAR", spmdVariants(size_t(Records), D.SMs, RunPar)},
      {"spmdc CREV", spmdVariants(size_t(Records), D.SMs, RunCrev)},
  };
  Result Res = measure("book_filter", Input, Versions, DKept, Want, size_t(Records));
  measureLaunch(
      Res,
      [&](size_t Items) {
        filter_launch_cuda(DText.Ptr, DOffsets.Ptr, int(Items), DKey.Ptr, M, DKept.Ptr,
                           D.ParentThreads, Failures.Ptr);
      },
      DKept, Want, size_t(Records));
  int Failed = Failures.download()[0];
  if (Failed) {
    std::printf("  book_filter: %d child launches failed\n", Failed);
    Res.Ok = false;
  }
  Results.push_back(Res);
  spmdc_cuda_unload(&Mod);
}

// ---- The graph and sorting examples: outputs of any type, runs of a whole host loop ----

// Downloads Out and compares its first Want.size() entries with Want exactly; reports and
// returns the number that differ.
template <typename T>
size_t compareOutput(const std::string &What, const std::string &Who, const DeviceBuffer<T> &Out,
                     const std::vector<T> &Want) {
  std::vector<T> Got = Out.download();
  size_t Bad = 0, First = 0;
  for (size_t I = 0; I < Want.size(); ++I)
    if (!(Got[I] == Want[I])) {
      if (!Bad)
        First = I;
      ++Bad;
    }
  if (Bad)
    std::printf("  %s %s: MISMATCH in %zu of %zu entries (first at %zu: got %g, want %g)\n",
                What.c_str(), Who.c_str(), Bad, Want.size(), First, double(Got[First]),
                double(Want[First]));
  return Bad;
}

// Checks every variant of every version (one run, then Check), then times them as measure()
// does. Versions[0..2] are naive CUDA, spmdc PAR, spmdc CREV.
Result measureRuns(const std::string &Example, const std::string &Input,
                   std::vector<Version> &Versions,
                   const std::function<size_t(const std::string &)> &Check) {
  Result R{Example, Input};
  for (Version &V : Versions)
    for (Variant &Var : V.Variants) {
      Var.Launch();
      check(cudaDeviceSynchronize(), V.Name.c_str());
      R.Ok = Check(V.Name + " " + Var.Shape) == 0 && R.Ok;
    }
  std::vector<float> Times;
  for (const Version &V : Versions) {
    float Best = 0;
    for (size_t J = 0; J < V.Variants.size(); ++J) {
      float Ms = timeFast(V.Variants[J].Launch);
      std::printf("  %-13s %-22s %-13s %-30s %10.4f ms\n", Example.c_str(), Input.c_str(),
                  V.Name.c_str(), V.Variants[J].Shape.c_str(), Ms);
      Best = J == 0 ? Ms : std::min(Best, Ms);
    }
    Times.push_back(Best);
  }
  R.Naive = Times[0];
  R.Par = Times[1];
  R.Crev = Times[2];
  return R;
}

// The Launch version of a graph or sorting example, on its whole input: a first run (the
// device runtime's first use) checked and untimed, then timed runs while the version has used
// less than LaunchBudgetMs (at least one, at most LaunchMaxRuns); the median counts.
void measureLaunchRuns(Result &R, const std::function<void()> &Run,
                       const std::function<size_t(const std::string &)> &Check,
                       DeviceBuffer<int> &Failures) {
  check(cudaMemset(Failures.Ptr, 0, sizeof(int)), "memset");
  auto T0 = std::chrono::steady_clock::now();
  Run();
  check(cudaDeviceSynchronize(), "Launch (CDP)");
  double FirstMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0).count();
  R.Ok = Check("Launch (CDP)") == 0 && R.Ok;
  std::vector<float> Ms;
  double Used = FirstMs;
  do {
    Ms.push_back(eventMs(Run));
    Used += Ms.back();
  } while (Used < LaunchBudgetMs && int(Ms.size()) < LaunchMaxRuns);
  R.Launch = median(Ms);
  int Failed = Failures.download()[0];
  if (Failed) {
    std::printf("  %s: %d child launches failed\n", R.Example.c_str(), Failed);
    R.Ok = false;
  }
  std::printf("  %-13s %-22s %-13s %-30s %10.4f ms (first run %.1f ms)\n", R.Example.c_str(),
              R.Input.c_str(), "Launch (CDP)",
              ("child warp per item, " + std::to_string(Ms.size()) + " runs").c_str(), R.Launch,
              FirstMs);
}

// The two launch shapes of spmdVariants for a kernel run on a varying number of items (a
// graph step): warps for `Items` items.
struct Shape {
  std::string Name;
  std::function<unsigned(size_t)> Warps;
};

std::vector<Shape> spmdShapes(int SMs) {
  unsigned Full = unsigned(SMs * 64);
  return {{"item per lane",
           [](size_t Items) { return unsigned(std::max<size_t>(1, (Items + 31) / 32)); }},
          {"64 warps/SM (" + std::to_string(Full) + " warps)", [=](size_t) { return Full; }}};
}

unsigned blocksOf(unsigned Warps) { return (Warps + 7) / 8; }

// A graph on the device, with the initial states the runs reset from.
struct DeviceGraph {
  DeviceBuffer<int> Offsets, Edges, Weights;
  explicit DeviceGraph(const Graph &G)
      : Offsets(G.Offsets.size()), Edges(G.Edges.size()), Weights(G.Weights.size()) {
    Offsets.upload(G.Offsets);
    Edges.upload(G.Edges);
    Weights.upload(G.Weights);
  }
};

template <typename T> void copyDevice(DeviceBuffer<T> &To, const DeviceBuffer<T> &From) {
  check(cudaMemcpyAsync(To.Ptr, From.Ptr, From.Count * sizeof(T), cudaMemcpyDeviceToDevice, 0),
        "reset copy");
}

template <typename T> DeviceBuffer<T> *uploaded(const std::vector<T> &H) {
  auto *B = new DeviceBuffer<T>(H.size());
  B->upload(H);
  return B;
}

int readCount(const DeviceBuffer<int> &State) {
  int Count = 0;
  check(cudaMemcpy(&Count, State.Ptr, sizeof(int), cudaMemcpyDeviceToHost), "read count");
  return Count;
}

std::string graphInput(const Graph &G, const char *What, long Value) {
  return std::to_string(G.Vertices) + " v, " + std::to_string(G.edgeCount()) + " e, " +
         std::to_string(Value) + " " + What;
}

void benchDfs(const Options &O, const Device &D, std::vector<Result> &Results) {
  Rng R(12345);
  Graph G = randomGraph(O.Quick ? 20000 : 200000, R, false);
  int V = G.Vertices;
  std::vector<float> Want;
  dfsReference(G, 0, Want);
  long Reached = std::count_if(Want.begin(), Want.end(), [](float X) { return X >= 0; });
  DeviceGraph DG(G);
  std::vector<int> VisitedInit(size_t(V), 0), StackInit(size_t(V) + 1, 0);
  VisitedInit[0] = 1;
  std::unique_ptr<DeviceBuffer<int>> DVisitedInit(uploaded(VisitedInit)),
      DStackInit(uploaded(StackInit));
  std::unique_ptr<DeviceBuffer<float>> DFInit(uploaded(std::vector<float>(size_t(V), -1.0f)));
  DeviceBuffer<int> Visited(static_cast<size_t>(V)), StackA(size_t(V) + 1), StackB(size_t(V) + 1),
      State(1), Failures(1);
  DeviceBuffer<float> F(static_cast<size_t>(V));
  // One whole traversal: Step(stack, count, next) pushes onto next and counts in State.
  auto Traverse = [&](const std::function<void(int *, int, int *)> &Step) {
    copyDevice(Visited, *DVisitedInit);
    copyDevice(F, *DFInit);
    copyDevice(StackA, *DStackInit);
    int *Stack = StackA.Ptr, *Next = StackB.Ptr;
    for (int Count = 1; Count > 0;) {
      check(cudaMemsetAsync(State.Ptr, 0, sizeof(int), 0), "memset");
      Step(Stack, Count, Next);
      Count = readCount(State);
      std::swap(Stack, Next);
    }
  };
  spmdc_cuda_module M{};
  std::string Path = O.PtxDir + "/dfs.ptx";
  CUfunction Par = loadKernel(M, Path, spmd::spmd_dfs_step_par_spmd_name);
  CUfunction Crev = loadKernel(M, Path, spmd::spmd_dfs_step_crev_spmd_name);
  auto SpmdVersion = [&](const char *Name, CUfunction K) {
    Version Ver{Name, {}};
    for (const Shape &S : spmdShapes(D.SMs))
      Ver.Variants.push_back({S.Name, [&, K, S, Name] {
                                Traverse([&](int *Stack, int Count, int *Next) {
                                  spmd::spmd_dfs_step_par_spmd_params P{DG.Offsets.dev(),
                                                                        DG.Edges.dev(),
                                                                        V,
                                                                        CUdeviceptr(Stack),
                                                                        Count,
                                                                        Visited.dev(),
                                                                        F.dev(),
                                                                        CUdeviceptr(Next),
                                                                        State.dev()};
                                  check(spmd::spmd_launch_dfs_step_par_spmd(
                                            K, blocksOf(S.Warps(size_t(Count))), 8, nullptr, &P),
                                        Name);
                                });
                              }});
    return Ver;
  };
  std::vector<Version> Versions{
      {"naive CUDA",
       {{"thread per vertex",
         [&] {
           Traverse([&](int *Stack, int Count, int *Next) {
             dfs_step_naive_cuda(DG.Offsets.Ptr, DG.Edges.Ptr, V, Stack, Count, Visited.Ptr, F.Ptr,
                                 Next, State.Ptr);
           });
         }}}},
      SpmdVersion("spmdc PAR", Par),
      SpmdVersion("spmdc CREV", Crev),
  };
  std::string Input = graphInput(G, "reached", Reached);
  auto Check = [&](const std::string &Who) { return compareOutput("dfs", Who, F, Want); };
  Result Res = measureRuns("dfs", Input, Versions, Check);
  measureLaunchRuns(
      Res,
      [&] {
        Traverse([&](int *Stack, int Count, int *Next) {
          dfs_step_launch_cuda(DG.Offsets.Ptr, DG.Edges.Ptr, V, Stack, Count, Visited.Ptr, F.Ptr,
                               Next, State.Ptr, D.ParentThreads, Failures.Ptr);
        });
      },
      Check, Failures);
  Results.push_back(Res);
  spmdc_cuda_unload(&M);
}

void benchBellmanFord(const Options &O, const Device &D, std::vector<Result> &Results) {
  Rng R(12345);
  Graph G = randomGraph(O.Quick ? 20000 : 200000, R, false);
  int V = G.Vertices;
  std::vector<int> Want;
  bellmanFordReference(G, 0, Want);
  DeviceGraph DG(G);
  std::vector<int> DistInit(size_t(V), Infinity), FrontierInit(size_t(V), 0);
  DistInit[0] = 0;
  std::unique_ptr<DeviceBuffer<int>> DDistInit(uploaded(DistInit)),
      DFrontierInit(uploaded(FrontierInit)), DStampInit(uploaded(std::vector<int>(size_t(V), 0)));
  DeviceBuffer<int> Dist(static_cast<size_t>(V)), Stamp(static_cast<size_t>(V)),
      FrontierA(static_cast<size_t>(V)), FrontierB(static_cast<size_t>(V)), State(1), Failures(1);
  int LastRounds = 0;
  auto Solve = [&](const std::function<void(const int *, int, int, int *)> &RoundStep) {
    copyDevice(Dist, *DDistInit);
    copyDevice(Stamp, *DStampInit);
    copyDevice(FrontierA, *DFrontierInit);
    int *Frontier = FrontierA.Ptr, *Next = FrontierB.Ptr, Round = 1;
    for (int Count = 1; Count > 0; ++Round) {
      check(cudaMemsetAsync(State.Ptr, 0, sizeof(int), 0), "memset");
      RoundStep(Frontier, Count, Round, Next);
      Count = readCount(State);
      std::swap(Frontier, Next);
    }
    LastRounds = Round - 1;
  };
  spmdc_cuda_module M{};
  std::string Path = O.PtxDir + "/bellman_ford.ptx";
  CUfunction Par = loadKernel(M, Path, spmd::spmd_bf_round_par_spmd_name);
  CUfunction Crev = loadKernel(M, Path, spmd::spmd_bf_round_crev_spmd_name);
  auto SpmdVersion = [&](const char *Name, CUfunction K) {
    Version Ver{Name, {}};
    for (const Shape &S : spmdShapes(D.SMs))
      Ver.Variants.push_back(
          {S.Name, [&, K, S, Name] {
             Solve([&](const int *Frontier, int Count, int Round, int *Next) {
               spmd::spmd_bf_round_par_spmd_params P{
                   DG.Offsets.dev(),      DG.Edges.dev(), DG.Weights.dev(), Dist.dev(),
                   CUdeviceptr(Frontier), Count,          Stamp.dev(),      Round,
                   CUdeviceptr(Next),     State.dev()};
               check(spmd::spmd_launch_bf_round_par_spmd(K, blocksOf(S.Warps(size_t(Count))), 8,
                                                         nullptr, &P),
                     Name);
             });
           }});
    return Ver;
  };
  std::vector<Version> Versions{
      {"naive CUDA",
       {{"thread per vertex",
         [&] {
           Solve([&](const int *Frontier, int Count, int Round, int *Next) {
             bf_round_naive_cuda(DG.Offsets.Ptr, DG.Edges.Ptr, DG.Weights.Ptr, Dist.Ptr, Frontier,
                                 Count, Stamp.Ptr, Round, Next, State.Ptr);
           });
         }}}},
      SpmdVersion("spmdc PAR", Par),
      SpmdVersion("spmdc CREV", Crev),
  };
  auto Check = [&](const std::string &Who) {
    std::printf("  bellman_ford %s: %d rounds\n", Who.c_str(), LastRounds);
    return compareOutput("bellman_ford", Who, Dist, Want);
  };
  long Reached = std::count_if(Want.begin(), Want.end(), [](int X) { return X < Infinity; });
  Result Res = measureRuns("bellman_ford", graphInput(G, "reached", Reached), Versions, Check);
  measureLaunchRuns(
      Res,
      [&] {
        Solve([&](const int *Frontier, int Count, int Round, int *Next) {
          bf_round_launch_cuda(DG.Offsets.Ptr, DG.Edges.Ptr, DG.Weights.Ptr, Dist.Ptr, Frontier,
                               Count, Stamp.Ptr, Round, Next, State.Ptr, D.ParentThreads,
                               Failures.Ptr);
        });
      },
      Check, Failures);
  Results.push_back(Res);
  spmdc_cuda_unload(&M);
}

void benchComponents(const Options &O, const Device &D, std::vector<Result> &Results) {
  Rng R(12345);
  Graph G = randomGraph(O.Quick ? 20000 : 200000, R, true);
  int V = G.Vertices;
  std::vector<int> Want;
  componentsReference(G, Want);
  long Components = 0;
  for (int I = 0; I < V; ++I)
    Components += Want[size_t(I)] == I;
  DeviceGraph DG(G);
  std::vector<int> Identity(static_cast<size_t>(V));
  for (int I = 0; I < V; ++I)
    Identity[size_t(I)] = I;
  std::unique_ptr<DeviceBuffer<int>> DIdentity(uploaded(Identity));
  DeviceBuffer<int> Labels(static_cast<size_t>(V)), Changed(1), Failures(1);
  int LastSweeps = 0;
  auto Solve = [&](const std::function<void()> &Sweep) {
    copyDevice(Labels, *DIdentity);
    int Sweeps = 0;
    for (int Again = 1; Again; ++Sweeps) {
      check(cudaMemsetAsync(Changed.Ptr, 0, sizeof(int), 0), "memset");
      Sweep();
      Again = readCount(Changed);
    }
    LastSweeps = Sweeps;
  };
  spmdc_cuda_module M{};
  std::string Path = O.PtxDir + "/connected_components.ptx";
  CUfunction Par = loadKernel(M, Path, spmd::spmd_cc_sweep_par_spmd_name);
  CUfunction Crev = loadKernel(M, Path, spmd::spmd_cc_sweep_crev_spmd_name);
  auto SpmdVersion = [&](const char *Name, CUfunction K) {
    Version Ver{Name, {}};
    for (const Shape &S : spmdShapes(D.SMs))
      Ver.Variants.push_back(
          {S.Name, [&, K, S, Name] {
             Solve([&] {
               spmd::spmd_cc_sweep_par_spmd_params P{DG.Offsets.dev(), DG.Edges.dev(), V,
                                                     Labels.dev(), Changed.dev()};
               check(spmd::spmd_launch_cc_sweep_par_spmd(
                         K, blocksOf(S.Warps(static_cast<size_t>(V))), 8, nullptr, &P),
                     Name);
             });
           }});
    return Ver;
  };
  std::vector<Version> Versions{
      {"naive CUDA",
       {{"thread per vertex",
         [&] {
           Solve([&] {
             cc_sweep_naive_cuda(DG.Offsets.Ptr, DG.Edges.Ptr, V, Labels.Ptr, Changed.Ptr);
           });
         }}}},
      SpmdVersion("spmdc PAR", Par),
      SpmdVersion("spmdc CREV", Crev),
  };
  auto Check = [&](const std::string &Who) {
    std::printf("  connected_components %s: %d sweeps\n", Who.c_str(), LastSweeps);
    return compareOutput("connected_components", Who, Labels, Want);
  };
  Result Res =
      measureRuns("connected_components", graphInput(G, "components", Components), Versions, Check);
  measureLaunchRuns(
      Res,
      [&] {
        Solve([&] {
          cc_sweep_launch_cuda(DG.Offsets.Ptr, DG.Edges.Ptr, V, Labels.Ptr, Changed.Ptr,
                               D.ParentThreads, Failures.Ptr);
        });
      },
      Check, Failures);
  Results.push_back(Res);
  spmdc_cuda_unload(&M);
}

// Both sorting examples: the same batch, a run = reset the keys from a device copy of the
// input, then sort (the copy is in every version's time).
void benchSort(const Options &O, const Device &D, bool Quick, std::vector<Result> &Results) {
  const char *Example = Quick ? "quicksort_bitonic" : "mergesort_bitonic";
  int Arrays = O.Quick ? 2048 : 32768;
  Rng R(12345);
  Batch B = randomBatch(Arrays, 2048, R);
  std::vector<int> Want;
  sortReference(B, Want);
  std::unique_ptr<DeviceBuffer<int>> DInput(uploaded(B.Keys)), DOffsets(uploaded(B.Offsets));
  DeviceBuffer<int> Keys(B.Keys.size()), Scratch(B.Keys.size()), Failures(1);
  unsigned MaxWarps = unsigned(std::max<size_t>(size_t(D.SMs) * 64, (size_t(Arrays) + 31) / 32));
  DeviceBuffer<int> Cells(4 * size_t(MaxWarps));
  spmdc_cuda_module M{};
  std::string Path = O.PtxDir + "/" + Example + ".ptx";
  CUfunction Par =
      loadKernel(M, Path, Quick ? spmd::spmd_qsort_par_spmd_name : spmd::spmd_msort_par_spmd_name);
  CUfunction Crev = loadKernel(
      M, Path, Quick ? spmd::spmd_qsort_crev_spmd_name : spmd::spmd_msort_crev_spmd_name);
  auto Reset = [&] { copyDevice(Keys, *DInput); };
  auto SpmdVersion = [&](const char *Name, bool IsCrev) {
    Version Ver{Name, {}};
    for (const Shape &S : spmdShapes(D.SMs)) {
      unsigned Blocks = blocksOf(S.Warps(size_t(Arrays)));
      Ver.Variants.push_back(
          {S.Name, [&, Blocks, IsCrev, Name] {
             Reset();
             CUresult Rc;
             if (Quick && IsCrev) {
               spmd::spmd_qsort_crev_spmd_params P{Keys.dev(), Scratch.dev(), DOffsets->dev(),
                                                   Arrays, Cells.dev()};
               Rc = spmd::spmd_launch_qsort_crev_spmd(Crev, Blocks, 8, nullptr, &P);
             } else if (Quick) {
               spmd::spmd_qsort_par_spmd_params P{Keys.dev(), DOffsets->dev(), Arrays};
               Rc = spmd::spmd_launch_qsort_par_spmd(Par, Blocks, 8, nullptr, &P);
             } else {
               spmd::spmd_msort_par_spmd_params P{Keys.dev(), Scratch.dev(), DOffsets->dev(),
                                                  Arrays};
               Rc = spmd::spmd_launch_msort_par_spmd(IsCrev ? Crev : Par, Blocks, 8, nullptr, &P);
             }
             check(Rc, Name);
           }});
    }
    return Ver;
  };
  std::vector<Version> Versions{
      {"naive CUDA",
       {{"thread per array",
         [&] {
           Reset();
           if (Quick)
             qsort_naive_cuda(Keys.Ptr, DOffsets->Ptr, Arrays);
           else
             msort_naive_cuda(Keys.Ptr, Scratch.Ptr, DOffsets->Ptr, Arrays);
         }}}},
      SpmdVersion("spmdc PAR", false),
      SpmdVersion("spmdc CREV", true),
  };
  auto Check = [&](const std::string &Who) { return compareOutput(Example, Who, Keys, Want); };
  std::string Input =
      std::to_string(Arrays) + " arrays, " + std::to_string(B.Keys.size()) + " keys";
  Result Res = measureRuns(Example, Input, Versions, Check);
  measureLaunchRuns(
      Res,
      [&] {
        Reset();
        if (Quick)
          qsort_launch_cuda(Keys.Ptr, Scratch.Ptr, DOffsets->Ptr, Arrays, D.ParentThreads,
                            Failures.Ptr);
        else
          msort_launch_cuda(Keys.Ptr, Scratch.Ptr, DOffsets->Ptr, Arrays, D.ParentThreads,
                            Failures.Ptr);
      },
      Check, Failures);
  // The reset copy alone, for reading the sort times.
  std::printf("  %-13s reset copy of the keys alone: %.4f ms\n", Example, timeFast(Reset));
  Results.push_back(Res);
  spmdc_cuda_unload(&M);
}

Options parseOptions(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&] {
      if (I + 1 >= Argc)
        fatal("missing value after " + A);
      return std::string(Argv[++I]);
    };
    if (A == "--quick")
      O.Quick = true;
    else if (A == "--alphabet")
      O.Alphabet = unsigned(std::atoi(Next().c_str()));
    else if (A == "--records")
      O.Records = std::atoi(Next().c_str());
    else if (A == "--examples") {
      O.Examples.clear();
      std::string L = Next();
      for (size_t Pos = 0; Pos <= L.size();) {
        size_t Comma = std::min(L.find(',', Pos), L.size());
        O.Examples.push_back(L.substr(Pos, Comma - Pos));
        Pos = Comma + 1;
      }
    } else if (O.PtxDir.empty() && A[0] != '-')
      O.PtxDir = A;
    else
      fatal("unknown argument " + A);
  }
  if (O.PtxDir.empty())
    fatal("usage: bench PTX_DIR [--quick] [--alphabet N] [--records N] [--examples a,b]");
  if (O.Alphabet < 1 || O.Alphabet > 26 || O.Records < 1)
    fatal("--alphabet must be 1..26 and --records positive");
  return O;
}

void printTables(const std::vector<Result> &Results) {
  std::printf(
      "\n| example | input | naive CUDA ms | Launch (CDP) ms | spmdc PAR ms | spmdc CREV ms "
      "| CREV vs naive | CREV vs Launch | spmdc PAR vs naive | check |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  // Speedups: how many times faster the first version is than the second (> 1: faster).
  // "~": the Launch time is extrapolated from a measured prefix of the input.
  auto Print = [](const Result &R) {
    const char *Approx = R.LaunchMeasured < 1 ? "~" : "";
    std::printf("| %s | %s | %.3f | %s%.3f | %.3f | %.3f | %.2fx | %s%.1fx | %.2fx | %s |\n",
                R.Example.c_str(), R.Input.c_str(), R.Naive, Approx, R.Launch, R.Par, R.Crev,
                R.Naive / R.Crev, Approx, R.Launch / R.Crev, R.Naive / R.Par,
                R.Ok ? "ok" : "FAILED");
  };
  Result Sum{"string_match", "all lengths (sum)"};
  int Lengths = 0;
  for (const Result &R : Results) {
    Print(R);
    if (R.Example == "string_match") {
      Sum.Naive += R.Naive;
      Sum.Launch += R.Launch;
      Sum.Par += R.Par;
      Sum.Crev += R.Crev;
      Sum.Ok = Sum.Ok && R.Ok;
      Sum.LaunchMeasured = std::min(Sum.LaunchMeasured, R.LaunchMeasured);
      ++Lengths;
    }
  }
  if (Lengths > 1)
    Print(Sum);
}

} // namespace

int main(int Argc, char **Argv) {
  // Line-buffered, so that a run cut short by a time limit still shows how far it got.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options O = parseOptions(Argc, Argv);
  auto T0 = std::chrono::steady_clock::now();
  cudaDeviceProp Prop;
  check(cudaGetDeviceProperties(&Prop, 0), "cudaGetDeviceProperties");
  Device D;
  D.SMs = Prop.multiProcessorCount;
  // The Launch parents: 4 blocks of 256 threads per SM (half its threads), striding over the
  // items, so that children (one-warp blocks) always find room on the SMs while parents wait
  // for pending-launch slots.
  D.ParentThreads = D.SMs * 4 * 256;
  check(cudaError_t(launch_setup_cuda(PendingLaunches)), "cudaDeviceSetLimit(pending launches)");
  check(cudaDeviceSetLimit(cudaLimitStackSize, ThreadStackBytes), "cudaDeviceSetLimit(stack)");
  size_t Pending = 0;
  check(cudaDeviceGetLimit(&Pending, cudaLimitDevRuntimePendingLaunchCount), "cudaDeviceGetLimit");
  std::printf("%s, %d SMs; Launch: %d parent threads, pending launch limit %zu%s\n", Prop.name,
              D.SMs, D.ParentThreads, Pending, O.Quick ? "; quick sizes" : "");
  std::vector<Result> Results;
  for (const std::string &E : O.Examples) {
    if (E == "string_match")
      benchStringMatch(O, D, Results);
    else if (E == "book_filter")
      benchBookFilter(O, D, Results);
    else if (E == "dfs")
      benchDfs(O, D, Results);
    else if (E == "bellman_ford")
      benchBellmanFord(O, D, Results);
    else if (E == "connected_components")
      benchComponents(O, D, Results);
    else if (E == "quicksort_bitonic")
      benchSort(O, D, true, Results);
    else if (E == "mergesort_bitonic")
      benchSort(O, D, false, Results);
    else
      fatal("unknown example " + E);
  }
  printTables(Results);
  bool Ok = std::all_of(Results.begin(), Results.end(), [](const Result &R) { return R.Ok; });
  std::printf("\nbench-crev-gpu: %zu measurements, %s (%.1f s)\n", Results.size(),
              Ok ? "all checked ok" : "SOME FAILED",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count());
  return Ok ? 0 : 1;
}
