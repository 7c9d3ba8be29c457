/* A C program using a one-target library: its header works in C too. */
#include "single.h"

#include <stdio.h>

int main(void) {
  printf("sum_below(10) = %d\n", sum_below(10));
  return 0;
}
