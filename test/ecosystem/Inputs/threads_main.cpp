// With spmdc's task system, every task sees threadIndex in [0, threadCount) and threadCount
// = workers + 1; with a task system of the program's own (-DOWN_TASKS: it passes thread
// 2 of 5 to every task), the values are exactly the ones it passes.
#include "spmdc_runtime.h"
#include "threads.h"

#include <cstdio>

#ifdef OWN_TASKS
#include <cstdlib>
typedef void (*TaskFn)(void *, int, int, int, int, int, int, int, int, int, int);
extern "C" void *ISPCAlloc(void **Handle, int64_t Size, int32_t) {
  *Handle = std::malloc(Size); // one launch per function here: the handle is the block
  return *Handle;
}
extern "C" void ISPCLaunch(void **, void *F, void *Data, int C0, int C1, int C2) {
  for (int I = 0; I < C0 * C1 * C2; ++I)
    reinterpret_cast<TaskFn>(F)(Data, 2, 5, I, C0 * C1 * C2, I, 0, 0, C0, 1, 1);
}
extern "C" void ISPCSync(void *Handle) { std::free(Handle); }
#endif

int main() {
  int Index[100], Count[100];
  ispc::run(Index, Count, 100);
  int Bad = 0;
  for (int I = 0; I < 100; ++I) {
#ifdef OWN_TASKS
    Bad += Index[I] != 2 || Count[I] != 5;
#else
    Bad += Index[I] < 0 || Index[I] >= Count[I] || Count[I] != spmdc_num_worker_threads() + 1;
#endif
  }
  std::printf("bad %d\n", Bad);
  return Bad != 0;
}
