// Shared helpers for the CREV benchmark drivers: command-line sizes, timing, result lines.
#pragma once

#include "rng.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace crev {

/// Options every driver understands: --small (the lit-test size), --scale N
/// (multiply the default size), --reps N (best of N runs), --seed N, --target
/// NAME (the spmdc target the program was linked for, for the result line).
struct Options {
  std::string Target = "host";
  bool Small = false;
  double Scale = 1.0;
  int Reps = 3;
  unsigned Seed = 12345;
  int Alphabet = 4; // string matching only
};

inline Options parseOptions(int argc, char **argv) {
  Options O;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Next = [&]() -> const char * {
      if (I + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", argv[0], A.c_str());
        std::exit(2);
      }
      return argv[++I];
    };
    if (A == "--small")
      O.Small = true;
    else if (A == "--scale")
      O.Scale = std::atof(Next());
    else if (A == "--reps")
      O.Reps = std::max(1, std::atoi(Next()));
    else if (A == "--seed")
      O.Seed = unsigned(std::atoi(Next()));
    else if (A == "--target")
      O.Target = Next();
    else if (A == "--alphabet")
      O.Alphabet = std::max(1, std::min(26, std::atoi(Next())));
    else {
      std::fprintf(
          stderr,
          "usage: %s [--small] [--scale F] [--reps N] [--seed N] [--target NAME] [--alphabet N]\n",
          argv[0]);
      std::exit(2);
    }
  }
  if (O.Small)
    O.Reps = 1;
  return O;
}

/// Milliseconds of the fastest of `Reps` runs of `Body`; `Reset` runs untimed before each.
template <typename ResetFn, typename BodyFn> double bestOf(int Reps, ResetFn Reset, BodyFn Body) {
  double Best = 1e300;
  for (int R = 0; R < Reps; ++R) {
    Reset();
    auto T0 = std::chrono::steady_clock::now();
    Body();
    auto T1 = std::chrono::steady_clock::now();
    Best = std::min(Best, std::chrono::duration<double, std::milli>(T1 - T0).count());
  }
  return Best;
}

template <typename BodyFn> double bestOf(int Reps, BodyFn Body) {
  return bestOf(
      Reps, [] {}, Body);
}

/// Speedup of B over A in percent: positive when B is faster.
inline double percentFaster(double SlowerMs, double FasterMs) {
  return (SlowerMs / FasterMs - 1.0) * 100.0;
}

/// The result line the benchmark script parses.
inline void printResult(const char *Name, const Options &O, double SeqMs, double ParMs,
                        double CrevMs, const char *Extra = "") {
  std::printf("%s %s: seq %.2f ms, PAR %.2f ms, CREV %.2f ms%s, CREV vs PAR: %+.1f%%\n", Name,
              O.Target.c_str(), SeqMs, ParMs, CrevMs, Extra, percentFaster(ParMs, CrevMs));
}

/// Reports a mismatch against the sequential reference and fails the run.
inline int fail(const char *Name, const char *Version, const std::string &What) {
  std::printf("check: FAILED (%s %s: %s)\n", Name, Version, What.c_str());
  return 1;
}

} // namespace crev
