// The same object with spmdc's default task system (libspmdc_runtime.a's ISPCLaunch).
#include "tasks.h"

#include <cstdio>

int main() {
  int Out[24];
  ispc::run(Out, 3);
  int Bad = 0;
  for (int I2 = 0; I2 < 2; ++I2)
    for (int I1 = 0; I1 < 3; ++I1)
      for (int I0 = 0; I0 < 4; ++I0)
        Bad += Out[I0 + 4 * (I1 + 3 * I2)] != 3 * (I0 + 10 * I1 + 100 * I2);
  std::printf("wrong=%d\n", Bad);
  return Bad != 0;
}
