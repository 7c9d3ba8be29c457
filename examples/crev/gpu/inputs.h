// The inputs and scalar references of the examples/crev/gpu benchmark, shared by the GPU
// benchmark (bench.cu) and the CPU check of the spmdc kernels (cpu_check.cpp): the same
// generators as the CPU examples in examples/crev/, sized by the caller.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace crevgpu {

using std::size_t;

/// The CPU examples' generator (examples/crev/common/bench.h): the same seed gives the same
/// inputs here.
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

/// Letters by English frequency; the first `Alphabet` of them make up the text.
inline const char *letters() { return "etaoinshrdlcumwfgypbvkjxqz"; }

/// `Size` characters drawn uniformly from the first `Alphabet` letters.
inline std::vector<int8_t> randomText(size_t Size, unsigned Alphabet, Rng &R) {
  std::vector<int8_t> Text(Size);
  for (auto &C : Text)
    C = int8_t(letters()[R.below(Alphabet)]);
  return Text;
}

/// Scalar reference: found[p] = the pattern occurs at p, the naive search position by position.
inline void matchReference(const std::vector<int8_t> &Text, const std::vector<int8_t> &Pat,
                           std::vector<int8_t> &Found) {
  long N = long(Text.size()), M = long(Pat.size());
#pragma omp parallel for schedule(static)
  for (long P = 0; P <= N - M; ++P) {
    long J = 0;
    while (J < M && Text[P + J] == Pat[J])
      ++J;
    Found[P] = J == M;
  }
}

/// Book records: most 64-511 characters, one in four 2048-8191, one in five holding the
/// keyword once (the CPU example's law).
struct Books {
  std::vector<int8_t> Text;
  std::vector<int> Offsets; // Records + 1 entries
  std::vector<int8_t> Keyword;
};

inline Books randomBooks(int Records, Rng &R) {
  Books B;
  B.Keyword = {'c', 'r', 'e', 'v', 'o', 'l', 'u', 't', 'i', 'o', 'n'};
  int M = int(B.Keyword.size());
  B.Offsets.assign(size_t(Records) + 1, 0);
  for (int Rec = 0; Rec < Records; ++Rec) {
    int Length = R.below(4) == 0 ? 2048 + int(R.below(6144)) : 64 + int(R.below(448));
    size_t Start = B.Text.size();
    for (int I = 0; I < Length; ++I)
      B.Text.push_back(int8_t(letters()[R.below(12)]));
    if (R.below(5) == 0) {
      size_t At = Start + R.below(unsigned(Length - M));
      std::copy(B.Keyword.begin(), B.Keyword.end(), B.Text.begin() + long(At));
    }
    B.Offsets[size_t(Rec) + 1] = int(B.Text.size());
  }
  return B;
}

/// Scalar reference of the book filter: kept[r] = record r contains the keyword.
inline void filterReference(const Books &B, std::vector<int8_t> &Kept) {
  int Records = int(B.Offsets.size()) - 1, M = int(B.Keyword.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (int Rec = 0; Rec < Records; ++Rec) {
    bool Found = false;
    for (int P = B.Offsets[size_t(Rec)]; P <= B.Offsets[size_t(Rec) + 1] - M && !Found; ++P) {
      int J = 0;
      while (J < M && B.Text[size_t(P + J)] == B.Keyword[size_t(J)])
        ++J;
      Found = J == M;
    }
    Kept[size_t(Rec)] = Found;
  }
}

} // namespace crevgpu
