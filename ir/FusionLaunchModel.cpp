// The launch model of vertical fusion: chooses a fused GPU kernel's thread coarsening c and launch coarsening k.
//
// What it can know at compile time: the work per item (operations weighted by
// their cost, a transcendental or an integer division counting as many), the
// elements each item moves through global memory (the traffic model's), the
// per-gang prologue (the range computation), the shape of the fused loops
// (elements, rows, tiles), an estimate of the registers per thread and the
// occupancy those allow on an SM at the 256-thread blocks the examples use.
// docs/fusion.md ("The launch model") gives the rules and their calibration.
#include "ir/FusionLaunchModel.h"

#include "ir/Coarsening.h"
#include "ir/IR.h"
#include "target/TargetInfo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace spmdc::ir {

namespace {

// Hopper (sm_90) per SM: registers, shared memory, threads, blocks; the
// register allocation unit per warp; the block the examples launch.
constexpr unsigned SMRegisters = 65536, SMSharedBytes = 228 * 1024, SMThreads = 2048, SMBlocks = 32,
                   WarpRegisterUnit = 256, ReservedSharedPerBlock = 1024, BlockThreads = 256;
// Lane operations an H100 issues per 4-byte element of HBM bandwidth:
// 132 SMs x 128 lanes x 1.75 GHz / (3.35 TB/s / 4 B) ~ 35.
constexpr double BalanceOpsPerElement = 32;
// A gang's start and exit, in operations (an assumption, see docs/fusion.md).
constexpr double GangStartCost = 64;
// The prologue may cost at most this fraction of a gang's work.
constexpr double PrologueShare = 0.05;
// The largest k: 16 chunks of 32 items per gang still fill the 132 x 64 warp
// slots of an H100 from 2^22 items on.
constexpr unsigned MaxLaunchCoarsening = 16;
// Block composition's tile on the GPU, in gang-width chunks (ir/VerticalFusion.cpp).
constexpr unsigned TileGangs = 4;

bool isTranscendental(const std::string &N) {
  static const std::set<std::string> Names = {"exp",  "log",   "pow",  "sin",   "cos",  "tan",
                                              "tanh", "atan",  "atan2", "asin", "acos", "sinh",
                                              "cosh", "exp2",  "log2", "log10", "expm1", "log1p",
                                              "erf",  "erfc",  "sincos"};
  return Names.count(N) > 0;
}

/// The weighted cost of one op (not of its regions).
double opCost(const Op &O) {
  switch (O.Code) {
  case OpCode::Binary: {
    const Type *T = O.Operands[0]->Ty;
    bool Divide = O.BinOp == BinaryOp::Div || O.BinOp == BinaryOp::Rem;
    if (Divide && T->isInteger())
      return 20; // a 32-bit integer division is a sequence of about 20 instructions
    if (Divide && T->isFloatingPoint())
      return 8;
    return 1;
  }
  case OpCode::Unary:
  case OpCode::Convert:
  case OpCode::Select:
    return 1;
  case OpCode::Load:
  case OpCode::Store: {
    // A local variable's slot becomes a register; memory costs an access.
    const Value *Addr = O.Operands[0];
    return Addr->Def && Addr->Def->Code == OpCode::Var ? 0 : 1;
  }
  case OpCode::Call:
  case OpCode::Crev: {
    if (!O.Callee)
      return 16;
    const std::string &N = O.Callee->Name;
    if (isTranscendental(N))
      return 16;
    if (N == "sqrt" || N == "rsqrt" || N == "rcp")
      return 4;
    if (N.rfind("reduce_", 0) == 0)
      return 10; // five shuffles and five operations across the warp
    return 2;
  }
  default:
    return 0;
  }
}

double regionCost(const Region &R) {
  double C = 0;
  for (const auto &P : R.Ops) {
    C += opCost(*P);
    for (const auto &Sub : P->Regions)
      C += regionCost(*Sub);
  }
  return C;
}

/// The values a region computes (each costed op counts once, whatever its
/// cost): what a copy of the body keeps in registers at worst.
unsigned regionValues(const Region &R) {
  unsigned N = 0;
  for (const auto &P : R.Ops) {
    N += opCost(*P) > 0 ? 1 : 0;
    for (const auto &Sub : P->Regions)
      N += regionValues(*Sub);
  }
  return N;
}

/// Sums the cost of every `foreach` body (per item; also the window loop's), the largest one, and
/// what lies outside every loop (per gang, by kernel of the chain).
void measure(const Region &R, bool InLoop, const FusedKernelFacts &Facts, LaunchChoice &C,
             std::map<int, double> &Prologue) {
  for (const auto &P : R.Ops) {
    // A warp composition's window loop steps a gang width per iteration, as a
    // `foreach` does: its body is per item too.
    if (P->Code == OpCode::Foreach || P.get() == Facts.WindowLoop) {
      const Region &Body = P->region(P->Code == OpCode::Foreach ? 0 : 1);
      double Cost = regionCost(Body);
      C.WorkPerItem += Cost;
      C.LargestLoopWork = std::max(C.LargestLoopWork, Cost);
      C.LargestLoopValues = std::max(C.LargestLoopValues, regionValues(Body));
      continue;
    }
    if (!InLoop)
      Prologue[Facts.KernelOf ? Facts.KernelOf(*P) : -1] += opCost(*P);
    for (const auto &Sub : P->Regions)
      measure(*Sub, InLoop || P->Code == OpCode::Loop, Facts, C, Prologue);
  }
}

/// Registers per thread, estimated: two per pointer parameter, one per other
/// parameter, eight for the indices, bounds and masks, and per copy of the
/// loop body one per four values its largest loop computes (about that many
/// are live at once). ptxas's counts for the examples are in docs/fusion.md.
unsigned estimateRegisters(const Function &F, unsigned LargestLoopValues, unsigned Copies) {
  unsigned Base = 8;
  for (const auto &P : F.Params)
    Base += P->Ty->isPointer() || P->Ty->isArray() ? 2 : 1;
  unsigned PerCopy = (LargestLoopValues + 3) / 4;
  return std::min(255u, Base + Copies * PerCopy);
}

unsigned warpsPerSM(unsigned Registers, unsigned SharedBytes) {
  unsigned PerWarp = (Registers * 32 + WarpRegisterUnit - 1) / WarpRegisterUnit * WarpRegisterUnit;
  unsigned WarpsPerBlock = BlockThreads / 32;
  unsigned Blocks = std::min(SMBlocks, SMThreads / BlockThreads);
  Blocks = std::min(Blocks, SMRegisters / (PerWarp * WarpsPerBlock));
  if (SharedBytes)
    Blocks = std::min(Blocks, SMSharedBytes / (SharedBytes + ReservedSharedPerBlock));
  return Blocks * WarpsPerBlock;
}

} // namespace

LaunchChoice chooseLaunch(Function &Fused, const FusedKernelFacts &Facts, const TargetInfo &Target) {
  (void)Target;
  LaunchChoice C;
  std::map<int, double> Prologue;
  measure(*Fused.Body, false, Facts, C, Prologue);
  double Costliest = 0;
  for (const auto &[Kernel, Cost] : Prologue)
    if (Kernel >= 0)
      Costliest = std::max(Costliest, Cost);
  C.PrologueWork = Costliest + (Prologue.count(-1) ? Prologue[-1] : 0);
  C.ComputeBound = C.WorkPerItem >= BalanceOpsPerElement * std::max(1u, Facts.ElementsMoved);
  const unsigned Factors[3] = {1, 2, 4};
  for (int I = 0; I < 3; ++I) {
    C.Registers[I] = estimateRegisters(Fused, C.LargestLoopValues, Factors[I]);
    C.WarpsPerSM[I] = warpsPerSM(C.Registers[I], Facts.SharedBytes);
  }
  // c: the most copies that keep the occupancy of one copy (their loads are
  // then in flight together at no cost in resident warps).
  C.NoThreadCoarsening = Facts.Shape == FusedShape::Window
                             ? "warp composition: the window is one gang-wide vector per step"
                             : threadCoarseningObstacle(Fused);
  if (C.NoThreadCoarsening.empty() && C.ComputeBound)
    C.NoThreadCoarsening = "compute-bound: more loads in flight gain nothing";
  if (C.NoThreadCoarsening.empty()) {
    for (int I = 2; I > 0; --I)
      if (C.WarpsPerSM[I] >= C.WarpsPerSM[0]) {
        C.ThreadCoarsening = Factors[I];
        break;
      }
    int Next = C.ThreadCoarsening == 1 ? 1 : C.ThreadCoarsening == 2 ? 2 : -1;
    if (Next > 0)
      C.NoThreadCoarsening = "c = " + std::to_string(Factors[Next]) + " would leave " +
                             std::to_string(C.WarpsPerSM[Next]) + " warps per SM of " +
                             std::to_string(C.WarpsPerSM[0]);
  }
  // k: rows re-read in several passes, 16 rows per gang; elements and tiles,
  // the fewest chunks per gang (at least c) whose work makes the gang's
  // prologue and start a small share.
  if (Facts.Shape == FusedShape::Rows) {
    C.LaunchCoarsening = Facts.RowPasses >= 2 ? MaxLaunchCoarsening : 1;
    C.Why = Facts.RowPasses >= 2
                ? "the row is read in " + std::to_string(Facts.RowPasses) +
                      " passes, whose re-reads must hit the cache: fewer rows in flight"
                : "the row is read once: a row per gang is many chunks already";
    return C;
  }
  // A tile is TileGangs chunks: fewer per gang would leave it part empty
  // while the halo is recomputed all the same.
  double Fixed = C.PrologueWork + GangStartCost, PerChunk = std::max(1.0, C.WorkPerItem);
  // A window's chunk recomputes one vector of stage 1 (the one before it):
  // as a tile's halo, worth amortizing over as many chunks.
  bool Halo = Facts.Shape == FusedShape::Tiles || Facts.Shape == FusedShape::Window;
  unsigned K = std::max(C.ThreadCoarsening, Halo ? TileGangs : 1u);
  while (K < MaxLaunchCoarsening && Fixed > PrologueShare * K * PerChunk)
    K *= 2;
  C.LaunchCoarsening = K;
  char Buf[200];
  std::snprintf(Buf, sizeof Buf,
                "the gang's prologue and start, about %.0f operations, are %.0f%% of the work of %u "
                "chunk%s%s",
                Fixed, 100 * Fixed / (Fixed + K * PerChunk), K, K == 1 ? "" : "s",
                K == MaxLaunchCoarsening ? ", the most that fill the device from 2^22 items" : "");
  C.Why = Buf;
  return C;
}

std::string describeLaunch(const LaunchChoice &C, const FusedKernelFacts &Facts,
                           const std::string &Kernel) {
  const char *Shape = Facts.Shape == FusedShape::Rows    ? "rows"
                      : Facts.Shape == FusedShape::Tiles ? "tiles"
                      : Facts.Shape == FusedShape::Window ? "window"
                                                         : "elements";
  char Buf[512];
  std::snprintf(Buf, sizeof Buf,
                "launch model (%s): about %.0f operations per item for %u element%s moved (%s); "
                "registers about %u/%u/%u at c = 1/2/4, %u/%u/%u warps per SM at 256 threads; ",
                Shape, C.WorkPerItem, Facts.ElementsMoved, Facts.ElementsMoved == 1 ? "" : "s",
                C.ComputeBound ? "compute-bound" : "memory-bound", C.Registers[0], C.Registers[1],
                C.Registers[2], C.WarpsPerSM[0], C.WarpsPerSM[1], C.WarpsPerSM[2]);
  std::string S = Buf;
  S += "thread coarsening c = " + std::to_string(C.ThreadCoarsening) +
       (C.NoThreadCoarsening.empty() ? "" : " (" + C.NoThreadCoarsening + ")") +
       "; launch coarsening k = " + std::to_string(C.LaunchCoarsening) + " (" + C.Why + "): " +
       (C.LaunchCoarsening == 1
            ? std::string("launch as many gangs as the kernels apart")
            : "launch " + std::to_string(C.LaunchCoarsening) +
                  " times fewer gangs than the kernels apart") +
       " (spmd_" + Kernel + "_launch_coarsening in the -h header)";
  return S;
}

} // namespace spmdc::ir
