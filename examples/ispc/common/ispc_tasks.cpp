// ISPC's task ABI (ISPCAlloc/ISPCLaunch/ISPCSync) on top of libspmdc_runtime.a, so that the
// objects ISPC compiles from the examples run their tasks on the same thread pool as spmdc's
// (scripts/bench-vs-ispc.py links it into the ISPC builds only).
#include "../../../runtime/spmdc_runtime.h"

#include <cstdint>

namespace {

// The function ISPC generates for a `task`.
using IspcTaskFn = void (*)(void *Data, int ThreadIndex, int ThreadCount, int TaskIndex,
                            int TaskCount, int TaskIndex0, int TaskIndex1, int TaskIndex2,
                            int TaskCount0, int TaskCount1, int TaskCount2);

struct IspcLaunch {
  IspcTaskFn Fn;
  void *Data;
};

// spmdc's task signature calling ISPC's: ISPC also passes the linear index and count and a
// thread index, which the examples do not use (0 here).
void runIspcTask(void *Record, int32_t I0, int32_t I1, int32_t I2, int32_t C0, int32_t C1,
                 int32_t C2) {
  auto *Launch = static_cast<IspcLaunch *>(Record);
  Launch->Fn(Launch->Data, 0, spmdc_num_worker_threads(), I0 + C0 * (I1 + C1 * I2), C0 * C1 * C2,
             I0, I1, I2, C0, C1, C2);
}

} // namespace

extern "C" {

void *ISPCAlloc(void **Handle, int64_t Size, int32_t Alignment) {
  return spmdc_task_alloc(Handle, Size, Alignment);
}

void ISPCLaunch(void **Handle, void *Fn, void *Data, int Count0, int Count1, int Count2) {
  auto *Launch = static_cast<IspcLaunch *>(spmdc_task_alloc(Handle, sizeof(IspcLaunch), 16));
  Launch->Fn = reinterpret_cast<IspcTaskFn>(Fn);
  Launch->Data = Data;
  spmdc_task_launch(Handle, runIspcTask, Launch, Count0, Count1, Count2);
}

void ISPCSync(void *Handle) { spmdc_task_sync(Handle); }

} // extern "C"
