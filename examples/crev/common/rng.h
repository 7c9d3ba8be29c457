// The deterministic input generator of the CREV examples, shared by the CPU examples
// (bench.h) and the GPU benchmark (gpu/inputs.h), so one seed gives the same inputs on both.
#pragma once

namespace crev {

/// xorshift64*: a fast deterministic generator so inputs do not depend on the libc.
struct Rng {
  unsigned long long S;
  explicit Rng(unsigned Seed) : S(0x9E3779B97F4A7C15ull ^ (Seed + 1)) {}
  unsigned long long next() {
    S ^= S >> 12;
    S ^= S << 25;
    S ^= S >> 27;
    return S * 2685821657736338717ull;
  }
  /// Uniform in [0, N).
  unsigned below(unsigned N) { return unsigned((next() >> 32) % N); }
};

} // namespace crev
