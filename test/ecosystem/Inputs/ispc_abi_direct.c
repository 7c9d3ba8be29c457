/* Calls the runtime's ISPC task ABI directly, as ISPC's objects do: every task of a 5x4x3
   launch runs once, with threadIndex in [0, threadCount), taskCount the product of the counts
   and taskIndex = i0 + c0 * (i1 + c1 * i2). */
#include "spmdc_runtime.h"

#include <stdio.h>

static int Seen[60];
static int Bad;

static void task(void *Data, int ThreadIndex, int ThreadCount, int TaskIndex, int TaskCount,
                 int I0, int I1, int I2, int C0, int C1, int C2) {
  int *Tag = (int *)Data;
  if (ThreadIndex < 0 || ThreadIndex >= ThreadCount || TaskCount != C0 * C1 * C2 ||
      TaskIndex != I0 + C0 * (I1 + C1 * I2) || *Tag != 42)
    __atomic_add_fetch(&Bad, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&Seen[TaskIndex], 1, __ATOMIC_RELAXED);
}

int main(void) {
  void *Handle = NULL;
  int *Tag = (int *)ISPCAlloc(&Handle, sizeof(int), 64);
  *Tag = 42;
  ISPCLaunch(&Handle, (void *)task, Tag, 5, 4, 3);
  ISPCSync(Handle);
  int Wrong = Bad;
  for (int I = 0; I < 60; ++I)
    Wrong += Seen[I] != 1;
  printf("aligned=%d wrong=%d\n", (int)(((unsigned long)Tag % 64) == 0), Wrong);
  return Wrong != 0;
}
