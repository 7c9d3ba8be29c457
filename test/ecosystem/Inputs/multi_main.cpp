// Calls the dispatching entries of a multi-target object: prints the gang width of the
// variant chosen for this CPU and checks the results against a scalar computation.
#include "multi.h"

#include <cstdio>

int main() {
  float A[37];
  ispc::fill(A, 37);
  int Wrong = 0;
  for (int I = 0; I < 37; ++I)
    Wrong += A[I] != 2.0f * I + 100.0f;
  std::printf("width %d wrong %d\n", ispc::gang_width(), Wrong);
  return Wrong != 0;
}
