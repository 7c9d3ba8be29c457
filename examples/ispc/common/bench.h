// Shared helpers of the ISPC-style examples: command-line sizes, best-of-N timing, result checks.
#ifndef SPMDC_EXAMPLES_BENCH_H
#define SPMDC_EXAMPLES_BENCH_H

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#ifndef SPMDC_TARGET_NAME
#define SPMDC_TARGET_NAME "unknown-target"
#endif

namespace bench {

// The flags every example takes: `--small` for a quick correctness run, `--runs N`
// for the number of timed runs (best of N is reported).
struct Options {
  bool Small = false;
  int Runs = 5;
};

inline Options parseOptions(int Argc, char **Argv) {
  Options Opts;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--small"))
      Opts.Small = true;
    else if (!std::strcmp(Argv[I], "--runs") && I + 1 < Argc)
      Opts.Runs = std::max(1, std::atoi(Argv[++I]));
    else {
      std::fprintf(stderr, "usage: %s [--small] [--runs N]\n", Argv[0]);
      std::exit(2);
    }
  }
  if (Opts.Small)
    Opts.Runs = 1;
  return Opts;
}

// Milliseconds on the clock the runs are timed with: wall-clock time, or with
// SPMDC_BENCH_CLOCK=cpu in the environment the CPU time of the whole process (every
// thread), which time slices given to other processes do not count toward: on a host
// shared with busy neighbours it compares the versions' work, where wall-clock time
// mostly measures the neighbours. For the `+tasks` versions it is the sum over threads.
inline double nowMs() {
  static const bool CpuClock = [] {
    const char *C = std::getenv("SPMDC_BENCH_CLOCK");
    return C && !std::strcmp(C, "cpu");
  }();
  if (CpuClock) {
    timespec T;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &T);
    return T.tv_sec * 1e3 + T.tv_nsec * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Runs Fn `Runs` times and returns the fastest run in milliseconds.
template <typename Fn> double bestOf(int Runs, Fn &&F) {
  double Best = 1e300;
  for (int R = 0; R < Runs; ++R) {
    double Start = nowMs();
    F();
    Best = std::min(Best, nowMs() - Start);
  }
  return Best;
}

// Runs each of the functions once per round, in turn, for `Runs` rounds, and returns each
// one's fastest run in milliseconds. Interleaving exposes the versions compared to the same
// machine load (the benchmarks share their machine).
template <typename... Fns>
std::array<double, sizeof...(Fns)> bestOfInterleaved(int Runs, Fns &&...F) {
  std::array<double, sizeof...(Fns)> Best;
  Best.fill(1e300);
  for (int R = 0; R < Runs; ++R) {
    size_t I = 0;
    ((Best[I] = std::min(Best[I], bestOf(1, F)), ++I), ...);
  }
  return Best;
}

// Exact comparison (integer outputs). Prints `check: ok` or the first mismatch.
template <typename T> bool checkExact(const char *What, const T *Expected, const T *Got, size_t N) {
  for (size_t I = 0; I < N; ++I)
    if (Expected[I] != Got[I]) {
      std::printf("check: %s mismatch at %zu: scalar %lld, spmdc %lld\n", What, I,
                  static_cast<long long>(Expected[I]), static_cast<long long>(Got[I]));
      return false;
    }
  return true;
}

// Float comparison: |got - expected| <= AbsTol + RelTol * |expected|.
template <typename T>
bool checkClose(const char *What, const T *Expected, const T *Got, size_t N, double RelTol,
                double AbsTol) {
  for (size_t I = 0; I < N; ++I) {
    double E = Expected[I], G = Got[I];
    if (!(std::fabs(G - E) <= AbsTol + RelTol * std::fabs(E))) {
      std::printf("check: %s mismatch at %zu: scalar %.9g, spmdc %.9g (rel tol %g, abs tol %g)\n",
                  What, I, E, G, RelTol, AbsTol);
      return false;
    }
  }
  return true;
}

inline void report(const char *Name, const char *Variant, double ScalarMs, double SpmdMs) {
  std::printf("%s%s %s: scalar %.2f ms, spmdc %.2f ms, speedup %.2fx\n", Name, Variant,
              SPMDC_TARGET_NAME, ScalarMs, SpmdMs, ScalarMs / SpmdMs);
}

} // namespace bench

#endif
