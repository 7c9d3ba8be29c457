// Calls an export whose assertion fails, then prints what it wrote.
#include "asserts.h"

#include <cstdio>

int main() {
  int A[16] = {0};
  ispc::f(A);
  std::printf("after f: %d\n", A[0]);
}
