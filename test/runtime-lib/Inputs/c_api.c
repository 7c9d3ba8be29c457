/* c_api.c - the runtime header from C: a launch whose argument block comes from the arena. */
#include "spmdc_runtime.h"

#include <stdio.h>

struct SumArgs {
  int32_t *Out;
};

static void squareTask(void *data, int32_t i0, int32_t i1, int32_t i2, int32_t c0, int32_t c1,
                       int32_t c2) {
  struct SumArgs *args = (struct SumArgs *)data;
  (void)i2;
  (void)c2;
  args->Out[i0 + c0 * i1] = (i0 + c0 * i1) * (i0 + c0 * i1);
  (void)c1;
}

int main(void) {
  int32_t out[60];
  void *handle = NULL;
  struct SumArgs *args =
      (struct SumArgs *)spmdc_task_alloc(&handle, sizeof(struct SumArgs), _Alignof(struct SumArgs));
  args->Out = out;
  spmdc_task_launch(&handle, squareTask, args, 6, 10, 1);
  spmdc_task_sync(handle);
  handle = NULL;
  int64_t sum = 0;
  for (int i = 0; i < 60; ++i)
    sum += out[i];
  void *printArgs[] = {&sum};
  spmdc_print("C: sum of squares below 60 = %\n", "l", 1, 1, printArgs);
  return sum == 70210 ? 0 : 1;
}
