/* The embedded PTX is a C string holding the kernel's .entry. */
#include "saxpy_gpu_ptx.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  printf("ptx bytes %s, entry %s\n", strlen(saxpy_gpu_ptx) > 100 ? "many" : "few",
         strstr(saxpy_gpu_ptx, ".entry saxpy") ? "found" : "missing");
  return 0;
}
