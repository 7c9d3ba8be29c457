// IspcTaskAbi.cpp - ISPC's task ABI (ISPCAlloc, ISPCLaunch, ISPCSync) over spmdc's task system.
//
// spmdc's objects call these three, as ISPC's do. They are weak and alone in this archive
// member: a program that defines its own (ISPC's examples/common/tasksys.cpp, a TBB or OpenMP
// one) never pulls this member in, and if something else does, the program's strong
// definitions still win.
#include "spmdc_runtime.h"

extern "C" __attribute__((weak)) void *ISPCAlloc(void **Handle, int64_t Size, int32_t Alignment) {
  return spmdc_task_alloc(Handle, Size, Alignment);
}

extern "C" __attribute__((weak)) void ISPCLaunch(void **Handle, void *Function, void *Data,
                                                 int Count0, int Count1, int Count2) {
  spmdc_task_launch_ispc(Handle, reinterpret_cast<spmdc_ispc_task_fn>(Function), Data, Count0,
                         Count1, Count2);
}

extern "C" __attribute__((weak)) void ISPCSync(void *Handle) { spmdc_task_sync(Handle); }
