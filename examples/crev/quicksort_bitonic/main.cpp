// Batch quicksort benchmark: sequential quicksort, PAR (array per lane) and CREV (gang quicksort
// with bitonic leaves).
#include "../common/bench.h"
#include "quicksort_bitonic.h"

#include <vector>

using namespace crev;

namespace {
int median3(int A, int B, int C) { return std::max(std::min(A, B), std::min(std::max(A, B), C)); }

/// The same quicksort the PAR lanes run, in scalar C++.
void quicksortSequential(int *Keys, int Lo, int Hi) {
  while (Hi - Lo > 16) {
    int Pivot = median3(Keys[Lo], Keys[(Lo + Hi) / 2], Keys[Hi - 1]);
    int I = Lo, J = Hi - 1;
    while (I <= J) {
      while (Keys[I] < Pivot)
        ++I;
      while (Keys[J] > Pivot)
        --J;
      if (I <= J)
        std::swap(Keys[I++], Keys[J--]);
    }
    quicksortSequential(Keys, Lo, J + 1);
    Lo = I;
  }
  for (int I = Lo + 1; I < Hi; ++I) {
    int Key = Keys[I], J = I - 1;
    while (J >= Lo && Keys[J] > Key) {
      Keys[J + 1] = Keys[J];
      --J;
    }
    Keys[J + 1] = Key;
  }
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
    K = int(R.below(1u << 20)); // duplicates on purpose
  std::vector<int> Ref(Input.size()), Keys(Input.size()), Scratch(Input.size());
  double Seq = bestOf(
      O.Reps, [&] { Ref = Input; },
      [&] {
        for (int A = 0; A < Arrays; ++A)
          quicksortSequential(Ref.data(), Offsets[A], Offsets[A + 1]);
      });
  {
    std::vector<int> Std = Input;
    for (int A = 0; A < Arrays; ++A)
      std::sort(Std.begin() + Offsets[A], Std.begin() + Offsets[A + 1]);
    if (Std != Ref)
      return fail("quicksort_bitonic", "sequential", "differs from std::sort");
  }
  double Par = bestOf(
      O.Reps, [&] { Keys = Input; },
      [&] { ispc::quicksort_par(Keys.data(), Offsets.data(), Arrays); });
  if (Keys != Ref)
    return fail("quicksort_bitonic", "PAR", "not sorted like the reference");
  double Crev = bestOf(
      O.Reps, [&] { Keys = Input; },
      [&] { ispc::quicksort_crev(Keys.data(), Scratch.data(), Offsets.data(), Arrays); });
  if (Keys != Ref)
    return fail("quicksort_bitonic", "CREV", "not sorted like the reference");
  std::printf("  %d arrays, %zu keys\n", Arrays, Input.size());
  printResult("quicksort_bitonic", O, Seq, Par, Crev);
  std::printf("check: ok\n");
  return 0;
}
