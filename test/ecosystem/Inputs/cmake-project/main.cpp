// Calls the ISPC kernel through the header CMake asked spmdc for (kernel.h).
#include "kernel.h"

#include <cstdio>

int main() {
  int Out[10];
  ispc::fill(Out, 10);
  int Same = 1;
  for (int I = 1; I < 10; ++I)
    Same &= Out[I] == Out[0];
  std::printf("value %d same %d width %d\n", Out[0], Same, ispc::width());
  return 0;
}
