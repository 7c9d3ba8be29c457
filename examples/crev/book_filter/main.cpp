// Book filter benchmark: records kept when their text contains a keyword; sequential, PAR and CREV,
// checked exactly.
#include "../common/bench.h"
#include "book_filter.h"

#include <vector>

using namespace crev;

int main(int argc, char **argv) {
  Options O = parseOptions(argc, argv);
  int Records = O.Small ? 2000 : int(40000 * O.Scale);
  Rng R(O.Seed);
  // Record lengths are skewed like book blurbs: most short, some long.
  const char *Letters = "etaoinshrdlcumwfgypbvkjxqz";
  std::vector<int8_t> Keyword = {'c', 'r', 'e', 'v', 'o', 'l', 'u', 't', 'i', 'o', 'n'};
  int M = int(Keyword.size());
  std::vector<int> Offsets(Records + 1, 0);
  std::vector<int8_t> Text;
  for (int Rec = 0; Rec < Records; ++Rec) {
    int Length = R.below(4) == 0 ? 2048 + int(R.below(6144)) : 64 + int(R.below(448));
    size_t Start = Text.size();
    for (int I = 0; I < Length; ++I)
      Text.push_back(int8_t(Letters[R.below(12)]));
    if (R.below(5) == 0) { // one record in five mentions the keyword
      size_t At = Start + R.below(unsigned(Length - M));
      std::copy(Keyword.begin(), Keyword.end(), Text.begin() + At);
    }
    Offsets[Rec + 1] = int(Text.size());
  }
  std::vector<int> Ref(Records), Kept(Records);
  int RefCount = 0, Count = 0, Cell[1];
  double Seq = bestOf(O.Reps, [&] {
    RefCount = 0;
    for (int Rec = 0; Rec < Records; ++Rec) {
      bool Found = false;
      for (int P = Offsets[Rec]; P <= Offsets[Rec + 1] - M && !Found; ++P) {
        int J = 0;
        while (J < M && Text[P + J] == Keyword[J])
          ++J;
        Found = J == M;
      }
      if (Found)
        Ref[RefCount++] = Rec;
    }
  });
  auto Same = [&] {
    return Count == RefCount && std::equal(Ref.begin(), Ref.begin() + Count, Kept.begin());
  };
  double Par = bestOf(O.Reps, [&] {
    Count = ispc::filter_par(Text.data(), Offsets.data(), Records, Keyword.data(), M, Kept.data(),
                             Cell);
  });
  if (!Same())
    return fail("book_filter", "PAR", "kept records differ");
  double Crev = bestOf(O.Reps, [&] {
    Count = ispc::filter_crev(Text.data(), Offsets.data(), Records, Keyword.data(), M, Kept.data(),
                              Cell);
  });
  if (!Same())
    return fail("book_filter", "CREV", "kept records differ");
  std::printf("  %d records, %zu characters, %d kept\n", Records, Text.size(), RefCount);
  printResult("book_filter", O, Seq, Par, Crev);
  std::printf("check: ok\n");
  return 0;
}
