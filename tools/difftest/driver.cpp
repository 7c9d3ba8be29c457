// Host driver of the differential tests (tools/difftest): calls a generated
// program's `difftest` entry point on fixed inputs and prints every output slot
// the program wrote, one `index value` pair per line, values in hex.
//
// The same driver links against spmdc's object and ISPC's, so any line that
// differs between the two runs is a difference between the compilers.
#include <cinttypes>
#include <cstdint>
#include <cstdio>

extern "C" void difftest(uint64_t *Out, const int32_t *In, const float *InF, int32_t N);

namespace {
constexpr int Slots = 1024;
constexpr int InputSize = 64; // the programs index IN/INF below 64
constexpr int N = 37;         // a multiple of no gang width
constexpr uint64_t Unwritten = 0xDEADBEEFDEADBEEFull;
} // namespace

int main() {
  static uint64_t Out[Slots];
  int32_t In[InputSize];
  float InF[InputSize];
  for (int I = 0; I < InputSize; ++I) {
    // Small values, negative ones, and a few near the int32 limits.
    uint32_t H = static_cast<uint32_t>(I) * 2654435761u;
    In[I] = (I % 9 == 4) ? static_cast<int32_t>(H) : static_cast<int32_t>(H % 201) - 100;
    // Exactly representable floats of both signs, a few large.
    InF[I] = static_cast<float>(static_cast<int32_t>(H % 97) - 48) * 0.25f * (I % 11 == 3 ? 1e6f : 1.0f);
  }
  for (uint64_t &O : Out)
    O = Unwritten;
  difftest(Out, In, InF, N);
  for (int I = 0; I < Slots; ++I)
    if (Out[I] != Unwritten)
      std::printf("%d %016" PRIx64 "\n", I, Out[I]);
  return 0;
}
