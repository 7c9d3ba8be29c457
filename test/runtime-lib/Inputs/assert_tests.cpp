// assert_tests.cpp - calls spmdc_assert_fail for a varying (lanes given) or uniform assertion.

#include "spmdc_runtime.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  std::string Mode = argc == 2 ? argv[1] : "";
  // Buffered output before the failure must still appear.
  std::printf("before the assertion\n");
  if (Mode == "varying")
    spmdc_assert_fail("kernel.spmd", 12, "x < programCount", 0x8000000000000025ULL);
  if (Mode == "uniform")
    spmdc_assert_fail("kernel.spmd", 7, "n > 0", 0);
  std::fprintf(stderr, "usage: assert_tests varying | uniform\n");
  return 2;
}
