// The fixed inputs of every generated program (tools/difftest), shared by the
// host driver (driver.cpp) and the GPU driver (gpu_driver.cpp).
#ifndef SPMDC_DIFFTEST_INPUTS_H
#define SPMDC_DIFFTEST_INPUTS_H
#include <cstdint>

constexpr int Slots = 1024;   // OUT's size
constexpr int InputSize = 64; // the programs index IN/INF below 64
constexpr int N = 37;         // a multiple of no gang width
constexpr uint64_t Unwritten = 0xDEADBEEFDEADBEEFull;

inline void fillInputs(int32_t *In, float *InF) {
  for (int I = 0; I < InputSize; ++I) {
    // Small values, negative ones, and a few near the int32 limits.
    uint32_t H = static_cast<uint32_t>(I) * 2654435761u;
    In[I] = (I % 9 == 4) ? static_cast<int32_t>(H) : static_cast<int32_t>(H % 201) - 100;
    // Exactly representable floats of both signs, a few large.
    InF[I] = static_cast<float>(static_cast<int32_t>(H % 97) - 48) * 0.25f * (I % 11 == 3 ? 1e6f : 1.0f);
  }
}
#endif
