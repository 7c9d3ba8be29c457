// Batch mergesort benchmark: sequential mergesort, PAR (array per lane) and CREV (gang mergesort
// with bitonic blocks).
#include "../common/bench.h"
#include "mergesort_bitonic.h"

#include <vector>

using namespace crev;

namespace {
/// The same bottom-up mergesort the PAR lanes run, in scalar C++.
void mergesortSequential(int *Keys, int *Scratch, int Begin, int End) {
  for (int Run = Begin; Run < End; Run += 16) {
    int Stop = std::min(Run + 16, End);
    for (int I = Run + 1; I < Stop; ++I) {
      int Key = Keys[I], J = I - 1;
      while (J >= Run && Keys[J] > Key) {
        Keys[J + 1] = Keys[J];
        --J;
      }
      Keys[J + 1] = Key;
    }
  }
  int *Src = Keys, *Dst = Scratch;
  for (int Width = 16; Width < End - Begin; Width *= 2) {
    for (int Run = Begin; Run < End; Run += 2 * Width) {
      int Mid = std::min(Run + Width, End), Stop = std::min(Run + 2 * Width, End);
      int I = Run, J = Mid;
      for (int K = Run; K < Stop; ++K)
        Dst[K] = (J >= Stop || (I < Mid && Src[I] <= Src[J])) ? Src[I++] : Src[J++];
    }
    std::swap(Src, Dst);
  }
  if (Src != Keys)
    std::copy(Src + Begin, Src + End, Keys + Begin);
}
} // namespace

int main(int argc, char **argv) {
  Options O = parseOptions(argc, argv);
  int Arrays = O.Small ? 64 : int(512 * O.Scale);
  int MaxLength = O.Small ? 2048 : 16384;
  Rng R(O.Seed);
  std::vector<int> Offsets(Arrays + 1, 0);
  for (int A = 0; A < Arrays; ++A)
    Offsets[A + 1] = Offsets[A] + 1 + int(R.below(unsigned(MaxLength)));
  std::vector<int> Input(Offsets[Arrays]);
  for (auto &K : Input)
    K = int(R.below(1u << 20));
  std::vector<int> Ref(Input.size()), Keys(Input.size()), Scratch(Input.size());
  double Seq = bestOf(
      O.Reps, [&] { Ref = Input; },
      [&] {
        for (int A = 0; A < Arrays; ++A)
          mergesortSequential(Ref.data(), Scratch.data(), Offsets[A], Offsets[A + 1]);
      });
  {
    std::vector<int> Std = Input;
    for (int A = 0; A < Arrays; ++A)
      std::sort(Std.begin() + Offsets[A], Std.begin() + Offsets[A + 1]);
    if (Std != Ref)
      return fail("mergesort_bitonic", "sequential", "differs from std::sort");
  }
  double Par = bestOf(
      O.Reps, [&] { Keys = Input; },
      [&] { ispc::mergesort_par(Keys.data(), Scratch.data(), Offsets.data(), Arrays); });
  if (Keys != Ref)
    return fail("mergesort_bitonic", "PAR", "not sorted like the reference");
  double Crev = bestOf(
      O.Reps, [&] { Keys = Input; },
      [&] { ispc::mergesort_crev(Keys.data(), Scratch.data(), Offsets.data(), Arrays); });
  if (Keys != Ref)
    return fail("mergesort_bitonic", "CREV", "not sorted like the reference");
  std::printf("  %d arrays, %zu keys\n", Arrays, Input.size());
  printResult("mergesort_bitonic", O, Seq, Par, Crev);
  std::printf("check: ok\n");
  return 0;
}
