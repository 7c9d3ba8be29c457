// The horizontal-fusion benchmark and tuner on the GPU: for each pair of the
// HFuse example kernels and each size ratio, times every fused candidate that
// scripts/hfuse-tune.py built (partitions gA+gB gangs, with and without a
// maxnreg bound), keeps the fastest ("tuned"), and prints speedups over the two
// kernels launched one after the other ("serial") for the even split
// ("naive"), the tuned kernel and the two kernels on two streams. Every fused
// candidate's outputs are compared bit for bit with the unfused kernels' at
// the same gangs per block before it is timed.
//
//   bench DIR [--pairs A+B,...] [--ratios 0.5,1,2] [--target-ms T] [--out OUTDIR]
//
// DIR holds, per pair, hfuse_A_B/manifest.txt with the candidates and
// hfuse_A_B/apart.cubin with the kernels unfused (scripts/hfuse-tune.py build;
// else DIR/apart.cubin). Writes OUTDIR/tuned.conf (the winners at ratio 1, in
// the --hfuse-config syntax), OUTDIR/candidates.txt (every candidate's time)
// and OUTDIR/results.md (the table).
#include "cuda_bench.h"
#include "spmdc_cuda.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Timing protocol (METHOD.md): warm-up launches, then the median of timed
// launches, CUDA events around each.
constexpr int WarmUps = 3;
constexpr int TimedRuns = 21;
// Tuning uses a shorter protocol per candidate; the winner is then re-timed
// with the full one next to the baselines.
constexpr int TuneWarmUps = 1;
constexpr int TuneRuns = 7;

void checkLoader(int Rc, const std::string &What) {
  if (Rc != 0)
    fatal(What + ": " + spmdc_cuda_last_error());
}

// ---------------------------------------------------------------- device helpers

__device__ uint32_t mixBits(uint64_t X) {
  X ^= X >> 33;
  X *= 0xff51afd7ed558ccdull;
  X ^= X >> 33;
  X *= 0xc4ceb9fe1a85ec53ull;
  X ^= X >> 33;
  return static_cast<uint32_t>(X);
}

__global__ void fillFloats(float *P, size_t N, float Lo, float Hi, uint64_t Seed) {
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x)
    P[I] = Lo + (Hi - Lo) * (mixBits(I * 0x9E3779B97F4A7C15ull + Seed) >> 8) * (1.0f / 16777216.0f);
}

__global__ void fillWords(uint32_t *P, size_t N, uint64_t Seed) {
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x)
    P[I] = mixBits(I * 0x9E3779B97F4A7C15ull + Seed);
}

__global__ void countMismatches(const uint32_t *A, const uint32_t *B, size_t N,
                                unsigned long long *Count) {
  unsigned long long Local = 0;
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x)
    Local += A[I] != B[I];
  if (Local)
    atomicAdd(Count, Local);
}

// A device buffer of bytes, freed at exit.
struct DeviceBytes {
  void *Ptr = nullptr;
  size_t Bytes = 0;
  explicit DeviceBytes(size_t N) : Bytes(N) { check(cudaMalloc(&Ptr, N), "cudaMalloc"); }
  ~DeviceBytes() { cudaFree(Ptr); }
  DeviceBytes(const DeviceBytes &) = delete;
  DeviceBytes &operator=(const DeviceBytes &) = delete;
  CUdeviceptr dev() const { return reinterpret_cast<CUdeviceptr>(Ptr); }
};

void fillRandom(DeviceBytes &B, float Lo, float Hi, uint64_t Seed) {
  fillFloats<<<1024, 256>>>(static_cast<float *>(B.Ptr), B.Bytes / 4, Lo, Hi, Seed);
  check(cudaGetLastError(), "fillFloats");
}

void fillRandomWords(DeviceBytes &B, uint64_t Seed) {
  fillWords<<<1024, 256>>>(static_cast<uint32_t *>(B.Ptr), B.Bytes / 4, Seed);
  check(cudaGetLastError(), "fillWords");
}

// ---------------------------------------------------------------- the kernels' problems

// One kernel with its inputs on the device. Its work is `Units` units (a unit
// is a fixed slice of the problem, see each subclass); buffers are allocated
// for MaxUnits. Output holds what the kernel writes; Check is a second copy
// that the unfused kernel writes during verification.
struct Problem {
  std::string Kernel;
  int MaxUnits;
  int Units = 1;
  unsigned ApartGangs = 8; // gangs per block when launched apart
  CUfunction Apart = nullptr;
  explicit Problem(std::string K, int Max) : Kernel(std::move(K)), MaxUnits(Max) {}
  virtual ~Problem() = default;
  virtual void setUnits(int U) = 0;
  // Blocks to launch with `Gangs` gangs per block.
  virtual unsigned blocks(unsigned Gangs) const = 0;
  // The kernel's parameters in order (pointers to host copies), writing to the
  // output buffers or, with ToCheck, to the check buffers.
  virtual std::vector<void *> args(bool ToCheck) = 0;
  // The output and check buffers' used bytes, in matching order.
  virtual std::vector<std::pair<DeviceBytes *, DeviceBytes *>> outputs() = 0;
  virtual size_t outputBytes() const = 0;
  // Called before a verification run (the histogram adds to its output).
  virtual void resetOutputs(cudaStream_t) {}
  virtual std::string sizeText() const = 0;
};

unsigned ceilDiv(size_t A, size_t B) { return static_cast<unsigned>((A + B - 1) / B); }

// Batch-norm statistics over N images of 256 channels of 56x56: a unit is one image.
struct BatchnormProblem : Problem {
  int N = 1, C = 256, HW = 56 * 56;
  DeviceBytes In, Mean, Var, MeanCheck, VarCheck;
  CUdeviceptr InP, MeanP, VarP, MeanCheckP, VarCheckP;
  BatchnormProblem(int Max)
      : Problem("batchnorm_stats", Max), In((size_t)Max * 256 * 56 * 56 * 4), Mean(256 * 4),
        Var(256 * 4), MeanCheck(256 * 4), VarCheck(256 * 4) {
    ApartGangs = 16; // PyTorch's batch-norm statistics use up to 512 threads
    fillRandom(In, -1, 2, 1);
    InP = In.dev(), MeanP = Mean.dev(), VarP = Var.dev();
    MeanCheckP = MeanCheck.dev(), VarCheckP = VarCheck.dev();
  }
  void setUnits(int U) override { Units = N = U; }
  unsigned blocks(unsigned) const override { return C; }
  std::vector<void *> args(bool ToCheck) override {
    return {&N, &C, &HW, &InP, ToCheck ? &MeanCheckP : &MeanP, ToCheck ? &VarCheckP : &VarP};
  }
  std::vector<std::pair<DeviceBytes *, DeviceBytes *>> outputs() override {
    return {{&Mean, &MeanCheck}, {&Var, &VarCheck}};
  }
  size_t outputBytes() const override { return (size_t)C * 4; }
  std::string sizeText() const override { return std::to_string(N) + "x256x56x56"; }
};

// A 1024-bin histogram of Units * 2^20 floats; a lane handles 8 values.
struct HistogramProblem : Problem {
  int N = 0, Bins = 1024;
  float Lo = -1.0f, Hi = 1.0f;
  DeviceBytes In, Hist, HistCheck;
  CUdeviceptr InP, HistP, HistCheckP;
  HistogramProblem(int Max)
      : Problem("histogram1d", Max), In((size_t)Max << 22), Hist(1024 * 4), HistCheck(1024 * 4) {
    fillRandom(In, -1.1f, 1.1f, 2);
    InP = In.dev(), HistP = Hist.dev(), HistCheckP = HistCheck.dev();
  }
  void setUnits(int U) override { Units = U, N = U << 20; }
  unsigned blocks(unsigned Gangs) const override { return ceilDiv(N, 32 * 8 * Gangs); }
  std::vector<void *> args(bool ToCheck) override {
    return {&N, &InP, &Bins, &Lo, &Hi, ToCheck ? &HistCheckP : &HistP};
  }
  std::vector<std::pair<DeviceBytes *, DeviceBytes *>> outputs() override {
    return {{&Hist, &HistCheck}};
  }
  size_t outputBytes() const override { return (size_t)Bins * 4; }
  void resetOutputs(cudaStream_t S) override {
    check(cudaMemsetAsync(Hist.Ptr, 0, Hist.Bytes, S), "memset");
    check(cudaMemsetAsync(HistCheck.Ptr, 0, HistCheck.Bytes, S), "memset");
  }
  std::string sizeText() const override { return std::to_string(Units) + "Mi"; }
};

// An image-to-image kernel over Units*64 planes; one output element per lane.
struct PlanesProblem : Problem {
  int Planes = 0, H, W;
  size_t InPerPlane, OutPerPlane;
  DeviceBytes In, Out, OutCheck;
  CUdeviceptr InP, OutP, OutCheckP;
  PlanesProblem(const char *K, int Max, int H, int W, size_t InPer, size_t OutPer, uint64_t Seed)
      : Problem(K, Max), H(H), W(W), InPerPlane(InPer), OutPerPlane(OutPer),
        In((size_t)Max * 64 * InPer * 4), Out((size_t)Max * 64 * OutPer * 4),
        OutCheck((size_t)Max * 64 * OutPer * 4) {
    fillRandom(In, -4, 4, Seed);
    InP = In.dev(), OutP = Out.dev(), OutCheckP = OutCheck.dev();
  }
  void setUnits(int U) override { Units = U, Planes = U * 64; }
  unsigned blocks(unsigned Gangs) const override {
    return ceilDiv((size_t)Planes * OutPerPlane / workPerOutput(), 32 * Gangs);
  }
  // Output elements written by one lane (im2col: 9).
  virtual size_t workPerOutput() const { return 1; }
  std::vector<void *> args(bool ToCheck) override {
    return {&Planes, &H, &W, &InP, ToCheck ? &OutCheckP : &OutP};
  }
  std::vector<std::pair<DeviceBytes *, DeviceBytes *>> outputs() override {
    return {{&Out, &OutCheck}};
  }
  size_t outputBytes() const override { return (size_t)Planes * OutPerPlane * 4; }
  std::string sizeText() const override {
    return std::to_string(Planes) + "x" + std::to_string(H) + "x" + std::to_string(W);
  }
};

struct MaxpoolProblem : PlanesProblem {
  MaxpoolProblem(int Max) : PlanesProblem("maxpool2d", Max, 112, 112, 112 * 112, 56 * 56, 3) {}
};
struct UpsampleProblem : PlanesProblem {
  UpsampleProblem(int Max)
      : PlanesProblem("upsample_bilinear2x", Max, 56, 56, 56 * 56, 112 * 112, 4) {}
};
struct Im2colProblem : PlanesProblem {
  Im2colProblem(int Max) : PlanesProblem("im2col3x3", Max, 56, 56, 56 * 56, 9 * 56 * 56, 5) {}
  size_t workPerOutput() const override { return 9; }
};

// Units * 2^16 items; one item per lane.
struct MemhashProblem : Problem {
  int Items = 0, Rows = 1 << 24, Rounds = 64;
  uint32_t Seed = 0x1234567u;
  DeviceBytes Table, Out, OutCheck;
  CUdeviceptr TableP, OutP, OutCheckP;
  MemhashProblem(int Max)
      : Problem("memhash", Max), Table((size_t)(1 << 24) * 16), Out((size_t)Max << 18),
        OutCheck((size_t)Max << 18) {
    fillRandomWords(Table, 6);
    TableP = Table.dev(), OutP = Out.dev(), OutCheckP = OutCheck.dev();
  }
  void setUnits(int U) override { Units = U, Items = U << 16; }
  unsigned blocks(unsigned Gangs) const override { return ceilDiv(Items, 32 * Gangs); }
  std::vector<void *> args(bool ToCheck) override {
    return {&Items, &Seed, &Rows, &TableP, &Rounds, ToCheck ? &OutCheckP : &OutP};
  }
  std::vector<std::pair<DeviceBytes *, DeviceBytes *>> outputs() override {
    return {{&Out, &OutCheck}};
  }
  size_t outputBytes() const override { return (size_t)Items * 4; }
  std::string sizeText() const override { return std::to_string(Units * 64) + "Ki items"; }
};

struct ComputehashProblem : Problem {
  int Items = 0, Rounds = 64;
  uint32_t Key = 0xabcdef01u;
  DeviceBytes Out, OutCheck;
  CUdeviceptr OutP, OutCheckP;
  ComputehashProblem(int Max)
      : Problem("computehash", Max), Out((size_t)Max << 18), OutCheck((size_t)Max << 18) {
    OutP = Out.dev(), OutCheckP = OutCheck.dev();
  }
  void setUnits(int U) override { Units = U, Items = U << 16; }
  unsigned blocks(unsigned Gangs) const override { return ceilDiv(Items, 32 * Gangs); }
  std::vector<void *> args(bool ToCheck) override {
    return {&Items, &Key, &Rounds, ToCheck ? &OutCheckP : &OutP};
  }
  std::vector<std::pair<DeviceBytes *, DeviceBytes *>> outputs() override {
    return {{&Out, &OutCheck}};
  }
  size_t outputBytes() const override { return (size_t)Items * 4; }
  std::string sizeText() const override { return std::to_string(Units * 64) + "Ki items"; }
};

// ---------------------------------------------------------------- launching and timing

void launch(CUfunction K, unsigned Blocks, unsigned Gangs, cudaStream_t S,
            std::vector<void *> Args) {
  checkLoader(spmdc_cuda_launch_blocks(K, Blocks, 32 * Gangs, 0, (CUstream)S, Args.data()),
              "launch");
}

void launchApart(Problem &P, unsigned Gangs, cudaStream_t S, bool ToCheck = false) {
  launch(P.Apart, P.blocks(Gangs), Gangs, S, P.args(ToCheck));
}

// A fused candidate: its module, kernel and partition.
struct Candidate {
  unsigned GangsA = 4, GangsB = 4, MaxNReg = 0, Registers = 0;
  std::string File;
  spmdc_cuda_module Module{};
  CUfunction Fused = nullptr;
  std::string config(const std::string &A, const std::string &B) const {
    std::string S = A + "," + B + ":" + std::to_string(GangsA) + "," + std::to_string(GangsB);
    if (MaxNReg)
      S += ":maxnreg=" + std::to_string(MaxNReg);
    return S;
  }
};

void launchFused(Candidate &C, Problem &A, Problem &B, cudaStream_t S, bool ToCheck = false) {
  unsigned BlocksA = A.blocks(C.GangsA), BlocksB = B.blocks(C.GangsB);
  std::vector<void *> Args = A.args(ToCheck), ArgsB = B.args(ToCheck);
  Args.insert(Args.end(), ArgsB.begin(), ArgsB.end());
  Args.push_back(&BlocksA);
  Args.push_back(&BlocksB);
  launch(C.Fused, std::max(BlocksA, BlocksB), C.GangsA + C.GangsB, S, Args);
}

struct Timer {
  cudaEvent_t Start, Stop;
  cudaStream_t Main, Side;
  cudaEvent_t SideDone;
  Timer() {
    check(cudaEventCreate(&Start), "event");
    check(cudaEventCreate(&Stop), "event");
    check(cudaEventCreateWithFlags(&SideDone, cudaEventDisableTiming), "event");
    check(cudaStreamCreateWithFlags(&Main, cudaStreamNonBlocking), "stream");
    check(cudaStreamCreateWithFlags(&Side, cudaStreamNonBlocking), "stream");
  }
  // Median milliseconds of Body(Main, Side) over Runs runs after WarmUp runs;
  // the events are recorded on Main, so Body must join Side into Main.
  template <typename F> double median(F Body, int WarmUp = WarmUps, int Runs = TimedRuns) {
    for (int I = 0; I < WarmUp; ++I)
      Body(Main, Side);
    check(cudaStreamSynchronize(Main), "warm-up");
    std::vector<float> Ms(Runs);
    for (int I = 0; I < Runs; ++I) {
      check(cudaEventRecord(Start, Main), "record");
      Body(Main, Side);
      check(cudaEventRecord(Stop, Main), "record");
      check(cudaEventSynchronize(Stop), "synchronize");
      check(cudaGetLastError(), "kernel");
      check(cudaEventElapsedTime(&Ms[I], Start, Stop), "elapsed");
    }
    std::sort(Ms.begin(), Ms.end());
    return Ms[Runs / 2];
  }
  // Side waits for the work queued so far on Main.
  void fork() {
    check(cudaEventRecord(SideDone, Main), "record");
    check(cudaStreamWaitEvent(Side, SideDone, 0), "wait");
  }
  void join() {
    check(cudaEventRecord(SideDone, Side), "record");
    check(cudaStreamWaitEvent(Main, SideDone, 0), "wait");
  }
};

unsigned long long *MismatchCount = nullptr;

// Words that differ between the output and the check buffers of P.
unsigned long long mismatches(Problem &P) {
  unsigned long long Total = 0;
  for (auto &[Out, Ref] : P.outputs()) {
    check(cudaMemset(MismatchCount, 0, sizeof *MismatchCount), "memset");
    countMismatches<<<512, 256>>>(static_cast<uint32_t *>(Out->Ptr),
                                  static_cast<uint32_t *>(Ref->Ptr), P.outputBytes() / 4,
                                  MismatchCount);
    check(cudaGetLastError(), "countMismatches");
    unsigned long long N = 0;
    check(cudaMemcpy(&N, MismatchCount, sizeof N, cudaMemcpyDeviceToHost), "download");
    Total += N;
  }
  return Total;
}

// Runs the candidate and the two kernels apart at the candidate's gangs per
// block (the same work split, so the same results bit for bit); returns the
// words that differ, or -1 if a launch failed.
unsigned long long verify(Candidate &C, Problem &A, Problem &B) {
  A.resetOutputs(nullptr);
  B.resetOutputs(nullptr);
  // Poison: the outputs that the fused kernel must overwrite.
  for (Problem *P : {&A, &B})
    for (auto &[Out, Ref] : P->outputs())
      check(cudaMemset(Out->Ptr, P->Kernel == "histogram1d" ? 0 : 0xff, P->outputBytes()),
            "poison");
  launchApart(A, C.GangsA, nullptr, /*ToCheck=*/true);
  launchApart(B, C.GangsB, nullptr, /*ToCheck=*/true);
  launchFused(C, A, B, nullptr);
  check(cudaDeviceSynchronize(), "verification run");
  return mismatches(A) + mismatches(B);
}

// ---------------------------------------------------------------- manifests

struct PairSetup {
  std::string A, B;
  std::vector<Candidate> Candidates;
};

// DIR/hfuse_A_B/manifest.txt: lines "candidate gA gB maxnreg registers file".
PairSetup readManifest(const std::string &Dir, const std::string &A, const std::string &B) {
  PairSetup P{A, B, {}};
  std::string Sub = Dir + "/hfuse_" + A + "_" + B;
  std::ifstream In(Sub + "/manifest.txt");
  if (!In) {
    // Without candidates the pair still gets its serial and two-stream times.
    std::printf("%s: no %s/manifest.txt (scripts/hfuse-tune.py build): apart timings only\n",
                (A + "+" + B).c_str(), Sub.c_str());
    return P;
  }
  std::string Line;
  while (std::getline(In, Line)) {
    std::istringstream L(Line);
    std::string Tag;
    if (!(L >> Tag) || Tag != "candidate")
      continue;
    Candidate C;
    std::string File;
    if (!(L >> C.GangsA >> C.GangsB >> C.MaxNReg >> C.Registers >> File))
      fatal("bad manifest line: " + Line);
    C.File = Sub + "/" + File;
    P.Candidates.push_back(C);
  }
  if (P.Candidates.empty())
    fatal("no candidates in " + Sub + "/manifest.txt");
  return P;
}

std::string fixed(double V) {
  char Text[32];
  std::snprintf(Text, sizeof Text, "%.3f", V);
  return Text;
}

std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Parts;
  std::stringstream In(S);
  std::string Part;
  while (std::getline(In, Part, Sep))
    if (!Part.empty())
      Parts.push_back(Part);
  return Parts;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2)
    fatal("usage: bench DIR [--pairs A+B,...] [--ratios 0.5,1,2] [--target-ms T] [--out OUTDIR]");
  std::string Dir = Argv[1], OutDir = ".";
  std::vector<std::string> PairNames = {"batchnorm_stats+upsample_bilinear2x",
                                        "batchnorm_stats+histogram1d",
                                        "histogram1d+im2col3x3",
                                        "histogram1d+maxpool2d",
                                        "maxpool2d+upsample_bilinear2x",
                                        "memhash+computehash"};
  std::vector<double> Ratios = {0.5, 1.0, 2.0};
  double TargetMs = 0.3;
  for (int I = 2; I + 1 < Argc; I += 2) {
    std::string Flag = Argv[I], Value = Argv[I + 1];
    if (Flag == "--pairs")
      PairNames = split(Value, ',');
    else if (Flag == "--ratios") {
      Ratios.clear();
      for (auto &R : split(Value, ','))
        Ratios.push_back(std::atof(R.c_str()));
    } else if (Flag == "--target-ms")
      TargetMs = std::atof(Value.c_str());
    else if (Flag == "--out")
      OutDir = Value;
    else
      fatal("unknown option " + Flag);
  }

  cudaDeviceProp Prop;
  check(cudaGetDeviceProperties(&Prop, 0), "cudaGetDeviceProperties");
  check(cudaFree(nullptr), "context");
  check(cudaMalloc(&MismatchCount, sizeof *MismatchCount), "cudaMalloc");
  std::printf("device: %s, %d SMs, L2 %d MB\n", Prop.name, Prop.multiProcessorCount,
              Prop.l2CacheSize >> 20);

  // The problems of the requested pairs, each allocated for its largest size
  // (together about 17 GB for all seven).
  std::map<std::string, std::unique_ptr<Problem>> Problems;
  auto make = [](const std::string &K) -> Problem * {
    if (K == "batchnorm_stats")
      return new BatchnormProblem(512);
    if (K == "histogram1d")
      return new HistogramProblem(512);
    if (K == "maxpool2d")
      return new MaxpoolProblem(512);
    if (K == "upsample_bilinear2x")
      return new UpsampleProblem(512);
    if (K == "im2col3x3")
      return new Im2colProblem(384);
    if (K == "memhash")
      return new MemhashProblem(512);
    if (K == "computehash")
      return new ComputehashProblem(1024);
    return nullptr;
  };
  for (auto &PairName : PairNames) {
    auto Names = split(PairName, '+');
    if (Names.size() != 2)
      fatal("a pair is A+B, not " + PairName);
    for (auto &Name : Names)
      if (!Problems.count(Name)) {
        Problem *P = make(Name);
        if (!P)
          fatal("no inputs for kernel " + Name + " in this benchmark");
        Problems[Name].reset(P);
      }
  }
  check(cudaDeviceSynchronize(), "fill");

  // The unfused kernels: from each pair's apart.cubin (scripts/hfuse-tune.py
  // build), else from DIR/apart.cubin.
  std::vector<std::unique_ptr<spmdc_cuda_module>> ApartModules;
  for (auto &PairName : PairNames) {
    auto Names = split(PairName, '+');
    std::string File = Dir + "/hfuse_" + Names[0] + "_" + Names[1] + "/apart.cubin";
    if (!std::ifstream(File))
      File = Dir + "/apart.cubin";
    ApartModules.emplace_back(new spmdc_cuda_module{});
    checkLoader(spmdc_cuda_load_ptx_file(ApartModules.back().get(), 0, File.c_str()),
                "load " + File);
    for (auto &Name : Names)
      checkLoader(
          spmdc_cuda_get_kernel(ApartModules.back().get(), Name.c_str(), &Problems[Name]->Apart),
          "kernel " + Name + " in " + File);
  }

  Timer T;
  // Calibration: each kernel apart at a quarter of its largest size; its time
  // per unit sets the sizes of the runs below (the ratio is measured again there).
  std::map<std::string, double> MsPerUnit;
  for (auto &Entry : Problems) {
    const std::string &Name = Entry.first;
    Problem *P = Entry.second.get();
    P->setUnits(std::max(1, P->MaxUnits / 4));
    double Ms = T.median([&](cudaStream_t S, cudaStream_t) { launchApart(*P, P->ApartGangs, S); });
    MsPerUnit[Name] = Ms / P->Units;
    std::printf("calibration: %-20s %-20s %8.4f ms apart (%u gangs/block)\n", Name.c_str(),
                P->sizeText().c_str(), Ms, P->ApartGangs);
  }
  auto unitsFor = [&](Problem &P, double Ms) {
    return std::clamp(static_cast<int>(std::lround(Ms / MsPerUnit[P.Kernel])), 1, P.MaxUnits);
  };

  FILE *Log = std::fopen((OutDir + "/candidates.txt").c_str(), "w");
  FILE *Conf = std::fopen((OutDir + "/tuned.conf").c_str(), "w");
  if (!Log || !Conf)
    fatal("cannot write into " + OutDir);
  std::fprintf(Conf,
               "# Written by examples/hfuse/bench.cu on %s: the fastest candidate per pair "
               "at size ratio 1 (scripts/hfuse-tune.py pick installs it).\n",
               Prop.name);
  std::string Table =
      "| pair | A size | B size | A ms | B ms | B/A | serial ms | 2 streams | naive 4+4 | tuned | "
      "tuned / 2 streams | fastest-block serial ms (gA,gB) | tuned vs it | tuned config | tuned "
      "regs | serial re-timed |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | ---: | ---: | ---: | --- | ---: | ---: |\n";
  int Failures = 0;

  for (auto &PairName : PairNames) {
    auto Names = split(PairName, '+');
    Problem &A = *Problems[Names[0]], &B = *Problems[Names[1]];
    PairSetup Setup = readManifest(Dir, A.Kernel, B.Kernel);
    std::string FusedName = "hfuse_" + A.Kernel + "_" + B.Kernel;
    Candidate *Naive = nullptr;
    for (auto &C : Setup.Candidates) {
      checkLoader(spmdc_cuda_load_ptx_file(&C.Module, 0, C.File.c_str()), "load " + C.File);
      checkLoader(spmdc_cuda_get_kernel(&C.Module, FusedName.c_str(), &C.Fused),
                  FusedName + " in " + C.File);
      if (C.GangsA == 4 && C.GangsB == 4 && C.MaxNReg == 0)
        Naive = &C;
    }
    if (!Naive && !Setup.Candidates.empty())
      fatal(PairName + ": the manifest has no 4+4 candidate without maxnreg (the naive split)");

    for (double Ratio : Ratios) {
      A.setUnits(unitsFor(A, TargetMs));
      B.setUnits(unitsFor(B, TargetMs * Ratio));
      double MsA = T.median([&](cudaStream_t S, cudaStream_t) { launchApart(A, A.ApartGangs, S); });
      double MsB = T.median([&](cudaStream_t S, cudaStream_t) { launchApart(B, B.ApartGangs, S); });
      // Tuning: every candidate verified, then timed.
      Candidate *Best = nullptr;
      double BestMs = INFINITY;
      for (auto &C : Setup.Candidates) {
        unsigned long long Bad = verify(C, A, B);
        if (Bad) {
          std::printf("MISMATCH %s %s ratio %.2f: %llu words differ from the unfused kernels\n",
                      FusedName.c_str(), C.config(A.Kernel, B.Kernel).c_str(), Ratio, Bad);
          ++Failures;
          continue;
        }
        double Ms = T.median([&](cudaStream_t S, cudaStream_t) { launchFused(C, A, B, S); },
                             TuneWarmUps, TuneRuns);
        std::fprintf(Log, "%s ratio %.2f %s regs %u: %.4f ms\n", FusedName.c_str(), Ratio,
                     C.config(A.Kernel, B.Kernel).c_str(), C.Registers, Ms);
        if (Ms < BestMs)
          BestMs = Ms, Best = &C;
      }
      // The final timings, full protocol, one after the other in one run.
      double Serial = T.median([&](cudaStream_t S, cudaStream_t) {
        launchApart(A, A.ApartGangs, S);
        launchApart(B, B.ApartGangs, S);
      });
      double Streams = T.median([&](cudaStream_t S, cudaStream_t Side) {
        T.fork();
        launchApart(A, A.ApartGangs, S);
        launchApart(B, B.ApartGangs, Side);
        T.join();
      });
      // A stronger baseline: each kernel apart at its fastest block size.
      auto fastestGangs = [&](Problem &P) {
        unsigned BestGangs = P.ApartGangs;
        double BestMs = INFINITY;
        for (unsigned Gangs : {4u, 8u, 16u, 32u}) {
          double Ms = T.median([&](cudaStream_t S, cudaStream_t) { launchApart(P, Gangs, S); },
                               TuneWarmUps, TuneRuns);
          if (Ms < BestMs)
            BestMs = Ms, BestGangs = Gangs;
        }
        return BestGangs;
      };
      unsigned FastA = fastestGangs(A), FastB = fastestGangs(B);
      double SerialFastest = T.median([&](cudaStream_t S, cudaStream_t) {
        launchApart(A, FastA, S);
        launchApart(B, FastB, S);
      });
      // Speedups of the fused kernels; "-" where no candidate was built or verified.
      std::string NaiveText = "-", TunedText = "-", BestConfig = "-", BestRegs = "-",
                  VsStreams = "-", VsFastest = "-";
      if (Naive && Best) {
        double NaiveMs =
            T.median([&](cudaStream_t S, cudaStream_t) { launchFused(*Naive, A, B, S); });
        double TunedMs =
            T.median([&](cudaStream_t S, cudaStream_t) { launchFused(*Best, A, B, S); });
        NaiveText = fixed(Serial / NaiveMs);
        TunedText = fixed(Serial / TunedMs);
        VsStreams = fixed(Streams / TunedMs);
        VsFastest = fixed(SerialFastest / TunedMs);
        BestConfig = Best->config(A.Kernel, B.Kernel);
        BestRegs = std::to_string(Best->Registers);
      }
      // The serial baseline once more, last: the run-to-run spread of the table.
      double SerialAgain = T.median([&](cudaStream_t S, cudaStream_t) {
        launchApart(A, A.ApartGangs, S);
        launchApart(B, B.ApartGangs, S);
      });
      char Row[768];
      std::snprintf(Row, sizeof Row,
                    "| %s+%s | %s | %s | %.3f | %.3f | %.2f | %.3f | %.3f | %s | %s | %s | %.3f "
                    "(%u,%u) | %s | %s | %s | %+.1f%% |\n",
                    A.Kernel.c_str(), B.Kernel.c_str(), A.sizeText().c_str(), B.sizeText().c_str(),
                    MsA, MsB, MsB / MsA, Serial, Serial / Streams, NaiveText.c_str(),
                    TunedText.c_str(), VsStreams.c_str(), SerialFastest, FastA, FastB,
                    VsFastest.c_str(), BestConfig.c_str(), BestRegs.c_str(),
                    100.0 * (SerialAgain - Serial) / Serial);
      std::printf("%s", Row);
      std::fflush(stdout);
      Table += Row;
      if (Ratio == 1.0 && Best)
        std::fprintf(Conf, "%s\n", Best->config(A.Kernel, B.Kernel).c_str());
    }
    for (auto &C : Setup.Candidates)
      spmdc_cuda_unload(&C.Module);
  }
  std::fclose(Log);
  std::fclose(Conf);
  std::string Legend =
      "\nserial: A then B on one stream, each at its default block size (batchnorm 16 gangs, the "
      "others 8); 2 streams, naive 4+4 (--hfuse=A,B) and tuned: speedups over serial (> 1 is "
      "faster); tuned / 2 streams: the tuned kernel against the two streams; fastest-block "
      "serial: each kernel at its fastest of 4, 8, 16, 32 gangs per block; serial re-timed: "
      "the serial time measured again after the others. CUDA events, median of " +
      std::to_string(TimedRuns) + " after " + std::to_string(WarmUps) + " warm-ups.\n";
  std::printf("\n%s%s", Table.c_str(), Legend.c_str());
  if (FILE *Md = std::fopen((OutDir + "/results.md").c_str(), "w")) {
    std::fprintf(Md, "device: %s\n\n%s%s", Prop.name, Table.c_str(), Legend.c_str());
    std::fclose(Md);
  }
  std::printf("%d verification failures\n", Failures);
  return Failures ? 1 : 0;
}
