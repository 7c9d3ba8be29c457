// Uses both kernels through their headers (scale.h, count.h: ISPC's, namespace ispc).
#include "count.h"
#include "scale.h"

#include <cstdio>

int main() {
  float X[20];
  for (int I = 0; I < 20; ++I)
    X[I] = I;
  ispc::scale(X, 20);
  int Wrong = 0;
  for (int I = 0; I < 20; ++I)
    Wrong += X[I] != 2.0f * I + 1.0f;
  std::printf("width %d wrong %d\n", ispc::width(), Wrong);
  return Wrong != 0;
}
