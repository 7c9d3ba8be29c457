// String matching benchmark: sequential naive, KMP, PAR (lane per position) and CREV, checked
// exactly.
#include "../common/bench.h"
#include "string_match.h"

#include <vector>

using namespace crev;

namespace {

/// Scalar reference: the same naive algorithm, one position after the other.
int matchSequential(const std::vector<int8_t> &Text, const std::vector<int8_t> &Pat,
                    std::vector<int8_t> &Found) {
  int N = int(Text.size()), M = int(Pat.size()), Hits = 0;
  for (int P = 0; P + M <= N; ++P) {
    int J = 0;
    while (J < M && Text[P + J] == Pat[J])
      ++J;
    Found[P] = J == M;
    Hits += J == M;
  }
  return Hits;
}

/// Knuth-Morris-Pratt: linear time, the classic sequential baseline.
int matchKmp(const std::vector<int8_t> &Text, const std::vector<int8_t> &Pat,
             std::vector<int8_t> &Found) {
  int N = int(Text.size()), M = int(Pat.size()), Hits = 0;
  std::vector<int> Fail(M + 1);
  Fail[0] = -1;
  for (int I = 1, K = -1; I <= M; ++I) {
    while (K >= 0 && Pat[K] != Pat[I - 1])
      K = Fail[K];
    Fail[I] = ++K;
  }
  std::fill(Found.begin(), Found.end(), 0);
  for (int I = 0, K = 0; I < N; ++I) {
    while (K >= 0 && Pat[K] != Text[I])
      K = Fail[K];
    if (++K == M) {
      Found[I - M + 1] = 1;
      ++Hits;
      K = Fail[M];
    }
  }
  return Hits;
}

} // namespace

int main(int argc, char **argv) {
  Options O = parseOptions(argc, argv);
  size_t Size = O.Small ? (1u << 20) : size_t((64u << 20) * O.Scale);
  Rng R(O.Seed);
  // Letters by English frequency; the alphabet size controls how often a
  // position passes the first-character test and how long partial matches get.
  const char *Letters = "etaoinshrdlcumwfgypbvkjxqz";
  std::vector<int8_t> Text(Size);
  for (auto &C : Text)
    C = int8_t(Letters[R.below(unsigned(O.Alphabet))]);

  double Seq = 0, Kmp = 0, Par = 0, Crev = 0;
  std::vector<int8_t> Ref(Size), Out(Size);
  for (int M = 4; M <= 32; M += 4) {
    // A pattern copied from the text, so it occurs at least once.
    size_t At = R.below(unsigned(Size - 64));
    std::vector<int8_t> Pat(Text.begin() + At, Text.begin() + At + M);
    int N = int(Size);
    int RefHits = 0, Hits = 0;
    double S = bestOf(O.Reps, [&] { RefHits = matchSequential(Text, Pat, Ref); });
    double K = bestOf(O.Reps, [&] { Hits = matchKmp(Text, Pat, Out); });
    if (Hits != RefHits || !std::equal(Ref.begin(), Ref.begin() + (N - M + 1), Out.begin()))
      return fail("string_match", "KMP", "differs from the sequential search");
    double P = bestOf(
        O.Reps, [&] { std::fill(Out.begin(), Out.end(), 7); },
        [&] { Hits = ispc::match_par(Text.data(), N, Pat.data(), M, Out.data()); });
    if (Hits != RefHits || !std::equal(Ref.begin(), Ref.begin() + (N - M + 1), Out.begin()))
      return fail("string_match", "PAR", "pattern length " + std::to_string(M));
    double C = bestOf(
        O.Reps, [&] { std::fill(Out.begin(), Out.end(), 7); },
        [&] { Hits = ispc::match_crev(Text.data(), N, Pat.data(), M, Out.data()); });
    if (Hits != RefHits || !std::equal(Ref.begin(), Ref.begin() + (N - M + 1), Out.begin()))
      return fail("string_match", "CREV", "pattern length " + std::to_string(M));
    std::printf("  pattern %2d: %d hits, seq %.2f ms, KMP %.2f ms, PAR %.2f ms, CREV %.2f ms, "
                "CREV vs PAR %+.1f%%\n",
                M, RefHits, S, K, P, C, percentFaster(P, C));
    Seq += S;
    Kmp += K;
    Par += P;
    Crev += C;
  }
  char Extra[64];
  std::snprintf(Extra, sizeof Extra, ", KMP %.2f ms", Kmp);
  printResult("string_match", O, Seq, Par, Crev, Extra);
  std::printf("check: ok\n");
  return 0;
}
