// LSD radix sort (four passes of 8-bit digits) in plain scalar C++: the reference and baseline
// of sort.spmd.
#include "sort_scalar.h"

#include <utility>

void sort_scalar(uint32_t *Keys, uint32_t *Tmp, int N) {
  uint32_t *Src = Keys, *Dst = Tmp;
  for (int Bit = 0; Bit < 32; Bit += 8) {
    int Offsets[256] = {};
    for (int I = 0; I < N; ++I)
      ++Offsets[(Src[I] >> Bit) & 0xff];
    int Running = 0;
    for (int D = 0; D < 256; ++D) {
      int Count = Offsets[D];
      Offsets[D] = Running;
      Running += Count;
    }
    for (int I = 0; I < N; ++I) {
      uint32_t Key = Src[I];
      Dst[Offsets[(Key >> Bit) & 0xff]++] = Key;
    }
    std::swap(Src, Dst);
  }
  // Four passes: the sorted keys are back in Keys.
}
