/* spmdc_runtime.h - C ABI of libspmdc_runtime.a: task system (launch/sync), print, assert. */
#ifndef SPMDC_RUNTIME_H
#define SPMDC_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One task of a launch: `data` is the argument block the launching code filled in, the indices
   run over [0, taskCountN). taskIndex0 varies fastest; the linear task index is
   i0 + c0 * (i1 + c1 * i2). */
typedef void (*spmdc_task_fn)(void *data, int32_t taskIndex0, int32_t taskIndex1,
                              int32_t taskIndex2, int32_t taskCount0, int32_t taskCount1,
                              int32_t taskCount2);

/* ISPC's task function (the guide's "Task Parallelism"): threadIndex is in [0, threadCount),
   taskIndex = taskIndex0 + taskCount0 * (taskIndex1 + taskCount1 * taskIndex2), taskCount the
   product of the three counts. */
typedef void (*spmdc_ispc_task_fn)(void *data, int threadIndex, int threadCount, int taskIndex,
                                   int taskCount, int taskIndex0, int taskIndex1, int taskIndex2,
                                   int taskCount0, int taskCount1, int taskCount2);

/* Allocates `size` bytes aligned to `alignment` that live until the sync of *handle; creates the
   launch group *handle on first use (*handle == NULL). An alignment that is not a power of two
   is rounded up to one; alignments below 16 become 16. Returns NULL only for size < 0. */
void *spmdc_task_alloc(void **handle, int64_t size, int32_t alignment);

/* Queues count0*count1*count2 calls of fn(data, i0, i1, i2, count0, count1, count2) in group
   *handle (creating it if *handle == NULL). Returns at once. A count <= 0 queues nothing (but
   still creates the group). */
void spmdc_task_launch(void **handle, spmdc_task_fn fn, void *data, int32_t count0, int32_t count1,
                       int32_t count2);

/* spmdc_task_launch for a task function with ISPC's signature. Workers pass their number as
   threadIndex; a thread running tasks while it waits in spmdc_task_sync passes the worker
   count; threadCount is the worker count + 1. */
void spmdc_task_launch_ispc(void **handle, spmdc_ispc_task_fn fn, void *data, int32_t count0,
                            int32_t count1, int32_t count2);

/* Waits until every task of the group has finished, frees the group's allocations, sets
   nothing (the caller resets its handle). A NULL handle returns at once. The waiting thread
   runs queued tasks of the group itself, so nested launch/sync never deadlocks. */
void spmdc_task_sync(void *handle);

/* ISPC's print: each '%' of `format` is replaced by the next argument. `types` has one char per
   argument, lowercase = uniform, uppercase = varying: b bool (uint8), i int32, u uint32,
   l int64, v uint64, f float, d double, p pointer. args[k] points at the value (uniform) or at
   `width` values (varying); lanes not in `mask` print as ((value)). One call = one write to
   stdout, flushed. */
void spmdc_print(const char *format, const char *types, int32_t width, uint64_t mask, void **args);

/* Prints "file:line: assertion failed: message (lanes 0,3)" to stderr (without the lanes part
   when failing_lanes == 0, i.e. a uniform assertion) and aborts. */
void spmdc_assert_fail(const char *file, int32_t line, const char *message, uint64_t failing_lanes)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((noreturn))
#endif
    ;

/* ISPC's task ABI, which spmdc's objects call (launch, sync, and the argument blocks of
   launches): ISPCAlloc is spmdc_task_alloc, ISPCLaunch spmdc_task_launch_ispc, ISPCSync
   spmdc_task_sync. The library defines them weakly in a member of their own, so a program that
   brings its own task system (ISPC's tasksys.cpp, TBB, ...) links unchanged and uses its own. */
void *ISPCAlloc(void **handle, int64_t size, int32_t alignment);
void ISPCLaunch(void **handle, void *f, void *data, int count0, int count1, int count2);
void ISPCSync(void *handle);

/* Number of worker threads the task system uses (starts it if it has not started yet). */
int32_t spmdc_num_worker_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* SPMDC_RUNTIME_H */
