// TaskSystem.cpp - spmdc's CPU task system: launch groups, their arenas and the thread pool.
//
// Model (ISPC's ISPCLaunch/ISPCSync): a function that launches owns a handle; every launch
// queues a range of tasks in the handle's group; sync waits for the group and frees it.
//
// One pool mutex guards the queue and every group's bookkeeping. A launch is one record with a
// cursor; threads claim chunks of consecutive task indices from it under the mutex and run
// them outside it. A thread waiting in sync runs the unclaimed chunks of its own group itself
// and sleeps only when all of them are claimed by other threads, which finish them without
// waiting on it; so nested launch/sync cannot deadlock, whatever the number of workers.
//
// Only pthreads and libc are used (no exceptions, no libstdc++ symbols), so C programs link the
// archive with `-lspmdc_runtime -lpthread` and no C++ runtime.

#include "Sync.h"
#include "spmdc_runtime.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace spmdc::runtime;

namespace {

[[noreturn]] void fatal(const char *Message) {
  std::fflush(stdout);
  std::fprintf(stderr, "spmdc runtime: fatal error: %s\n", Message);
  std::abort();
}

// A bump allocator whose blocks all go away with it: the memory of spmdc_task_alloc and the
// launch records of one group.
class Arena {
public:
  Arena() = default;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
  ~Arena() {
    while (Blocks) {
      Block *Next = Blocks->Next;
      std::free(Blocks);
      Blocks = Next;
    }
  }

  // Align must be a power of two.
  void *allocate(size_t Size, size_t Align) {
    uintptr_t Address = alignUp(Cursor, Align);
    if (!Cursor || Address + Size > End || Address + Size < Address) {
      // A fresh block with room for the padding the alignment may need.
      size_t Payload = std::max(DefaultBlockPayload, Size + Align);
      auto *NewBlock = static_cast<Block *>(std::malloc(sizeof(Block) + Payload));
      if (!NewBlock)
        fatal("out of memory in spmdc_task_alloc");
      NewBlock->Next = Blocks;
      Blocks = NewBlock;
      Cursor = reinterpret_cast<uintptr_t>(NewBlock + 1);
      End = Cursor + Payload;
      Address = alignUp(Cursor, Align);
    }
    Cursor = Address + Size;
    return reinterpret_cast<void *>(Address);
  }

private:
  struct alignas(16) Block {
    Block *Next;
  };
  static constexpr size_t DefaultBlockPayload = 16 * 1024;

  static uintptr_t alignUp(uintptr_t Value, size_t Align) {
    return (Value + Align - 1) & ~static_cast<uintptr_t>(Align - 1);
  }

  Block *Blocks = nullptr;
  uintptr_t Cursor = 0;
  uintptr_t End = 0;
};

struct TaskGroup;

// One spmdc_task_launch call (or the unrun tail of a chunk handed back at exit). Lives in its
// group's arena. The fields from Next on are guarded by the pool mutex.
struct Launch {
  TaskGroup *Group;
  spmdc_task_fn Function;          // one of these two is set
  spmdc_ispc_task_fn IspcFunction; // ISPC's signature (ISPCLaunch)
  void *Data;
  int32_t Count0, Count1, Count2;
  int64_t ChunkSize; // how many consecutive tasks one claim takes
  int64_t Next;      // first unclaimed linear task index
  int64_t Limit;     // one past the last index this record hands out
  // Links of the pool's queue (only while InQueue) and of the group's open list.
  bool InQueue;
  Launch *QueuePrev, *QueueNext;
  Launch *GroupPrev, *GroupNext;
};

// An intrusive doubly linked list of launches through the given link fields: O(1) removal of
// an exhausted launch wherever it is.
template <Launch *Launch::*Prev, Launch *Launch::*Next> class LaunchList {
public:
  bool empty() const { return !Head; }
  Launch *front() const { return Head; }
  void pushBack(Launch *L) {
    L->*Prev = Tail;
    L->*Next = nullptr;
    (Tail ? Tail->*Next : Head) = L;
    Tail = L;
  }
  void remove(Launch *L) {
    (L->*Prev ? L->*Prev->*Next : Head) = L->*Next;
    (L->*Next ? L->*Next->*Prev : Tail) = L->*Prev;
    L->*Prev = L->*Next = nullptr;
  }

private:
  Launch *Head = nullptr;
  Launch *Tail = nullptr;
};
using QueueList = LaunchList<&Launch::QueuePrev, &Launch::QueueNext>;
using GroupList = LaunchList<&Launch::GroupPrev, &Launch::GroupNext>;

struct TaskGroup {
  // Guarded by the pool mutex.
  int64_t Pending = 0;    // tasks launched and not yet finished
  int Waiters = 0;        // threads sleeping in sync on this group
  CondVar Finished;       // signalled when Pending drops to 0 or work arrives
  GroupList OpenLaunches; // launches of this group with unclaimed tasks

  Mutex ArenaMutex; // the owner allocates; the lock keeps stray concurrent use safe
  Arena Memory;

  void *allocate(size_t Size, size_t Align) {
    Lock Guard(ArenaMutex);
    return Memory.allocate(Size, Align);
  }
};

// A claimed range [Begin, End) of one launch's linear task indices.
struct Chunk {
  Launch *Source = nullptr;
  int64_t Begin = 0;
  int64_t End = 0;
};

// ISPC's threadIndex of this thread: a worker's number, or the worker count for every other
// thread (threads that run tasks while they wait in sync).
thread_local int ThreadIndex = -1;
int ThreadCount = 1; // workers + 1, set when the pool starts

// Runs the chunk's tasks in order; stops early (returning the first index not run) only when
// *StopEarly becomes true, which happens to workers at exit.
int64_t runChunk(const Chunk &Work, const std::atomic<bool> *StopEarly) {
  const Launch &L = *Work.Source;
  int32_t I0 = static_cast<int32_t>(Work.Begin % L.Count0);
  int64_t Rest = Work.Begin / L.Count0;
  int32_t I1 = static_cast<int32_t>(Rest % L.Count1);
  int32_t I2 = static_cast<int32_t>(Rest / L.Count1);
  for (int64_t Index = Work.Begin; Index < Work.End; ++Index) {
    if (StopEarly && StopEarly->load(std::memory_order_relaxed))
      return Index;
    if (L.IspcFunction)
      L.IspcFunction(L.Data, ThreadIndex < 0 ? ThreadCount - 1 : ThreadIndex, ThreadCount,
                     static_cast<int>(Index), static_cast<int>(static_cast<int64_t>(L.Count0) * L.Count1 * L.Count2),
                     I0, I1, I2, L.Count0, L.Count1, L.Count2);
    else
      L.Function(L.Data, I0, I1, I2, L.Count0, L.Count1, L.Count2);
    if (++I0 == L.Count0) {
      I0 = 0;
      if (++I1 == L.Count1) {
        I1 = 0;
        ++I2;
      }
    }
  }
  return Work.End;
}

constexpr long MaxWorkers = 1024;

// Reads SPMDC_NUM_THREADS; falls back to the number of online processors.
int workerCountFromEnvironment() {
  long Online = sysconf(_SC_NPROCESSORS_ONLN);
  int Default = static_cast<int>(std::clamp(Online, 1L, MaxWorkers));
  const char *Setting = std::getenv("SPMDC_NUM_THREADS");
  if (!Setting || !*Setting)
    return Default;
  char *Rest = nullptr;
  long Value = std::strtol(Setting, &Rest, 10);
  if (*Rest != '\0' || Value < 0 || Value > MaxWorkers) {
    std::fprintf(stderr,
                 "spmdc runtime: warning: ignoring SPMDC_NUM_THREADS='%s' (expected an integer "
                 "from 0 to %ld); using %d worker threads\n",
                 Setting, MaxWorkers, Default);
    return Default;
  }
  return static_cast<int>(Value);
}

class Pool {
public:
  // The pool is created on first use and never destroyed (threads that outlive exit() may still
  // touch its mutex); its workers are stopped and joined by an atexit handler.
  static Pool &get() {
    pthread_once(&Once, [] {
      Instance = new (Storage) Pool();
      Instance->startWorkers(workerCountFromEnvironment());
      ThreadCount = Instance->workerCount() + 1;
      std::atexit([] { Instance->shutdown(); });
    });
    return *Instance;
  }

  int workerCount() const { return WorkerCount; }

  void launch(TaskGroup *Group, spmdc_task_fn Function, spmdc_ispc_task_fn IspcFunction,
              void *Data, int32_t Count0, int32_t Count1, int32_t Count2) {
    int64_t Total = static_cast<int64_t>(Count0) * Count1;
    if (__builtin_mul_overflow(Total, static_cast<int64_t>(Count2), &Total))
      fatal("spmdc_task_launch: task count overflows 64 bits");
    // A few chunks per thread balance the load without a lock round trip per tiny task.
    int64_t Chunks = 8 * (static_cast<int64_t>(WorkerCount) + 1);
    int64_t ChunkSize = std::max<int64_t>(1, Total / Chunks);
    void *Memory = Group->allocate(sizeof(Launch), alignof(Launch));
    Launch *Record =
        new (Memory) Launch{Group, Function, IspcFunction, Data,    Count0,  Count1,
                            Count2, ChunkSize, 0,         Total, true,    nullptr,
                            nullptr, nullptr, nullptr};
    {
      Lock Guard(PoolMutex);
      Group->Pending += Total;
      Queue.pushBack(Record);
      Group->OpenLaunches.pushBack(Record);
      if (Group->Waiters)
        Group->Finished.notifyAll();
    }
    if (Total > ChunkSize)
      WorkAvailable.notifyAll();
    else
      WorkAvailable.notifyOne();
  }

  void sync(TaskGroup *Group) {
    Lock Guard(PoolMutex);
    while (Group->Pending != 0) {
      if (!Group->OpenLaunches.empty()) {
        Chunk Work = claimLocked(Group->OpenLaunches.front());
        Guard.unlock();
        runChunk(Work, nullptr);
        Guard.lock();
        finishLocked(Work, Work.End);
        continue;
      }
      ++Group->Waiters;
      Group->Finished.wait(Guard);
      --Group->Waiters;
    }
  }

private:
  // Stops the workers after the task each is running; queued work and the unrun rest of their
  // chunks stay for the syncing threads, which run them themselves.
  void shutdown() {
    {
      Lock Guard(PoolMutex);
      Stopping.store(true);
    }
    WorkAvailable.notifyAll();
    pthread_t Self = pthread_self();
    for (int I = 0; I < WorkerCount; ++I) {
      if (pthread_equal(Workers[I], Self))
        pthread_detach(Workers[I]); // exit() called from inside a task
      else
        pthread_join(Workers[I], nullptr);
    }
  }

  void startWorkers(int Count) {
    if (Count == 0)
      return;
    Workers = static_cast<pthread_t *>(std::calloc(Count, sizeof(pthread_t)));
    if (!Workers)
      fatal("out of memory starting the task system");
    // Each worker learns its index from its place in Workers.
    for (int I = 0; I < Count; ++I) {
      int Error = pthread_create(
          &Workers[I], nullptr,
          [](void *Self) -> void * {
            Pool *P = Instance;
            P->workerLoop(static_cast<int>(static_cast<pthread_t *>(Self) - P->Workers));
            return nullptr;
          },
          &Workers[I]);
      if (Error != 0) {
        // Fewer workers only cost speed: syncing threads run whatever is left.
        std::fprintf(stderr, "spmdc runtime: warning: started only %d of %d worker threads: %s\n",
                     I, Count, std::strerror(Error));
        break;
      }
      WorkerCount = I + 1;
    }
  }

  void workerLoop(int Index) {
    ThreadIndex = Index;
    Lock Guard(PoolMutex);
    while (!Stopping.load()) {
      if (Queue.empty()) {
        WorkAvailable.wait(Guard);
        continue;
      }
      Chunk Work = claimLocked(Queue.front());
      Guard.unlock();
      int64_t Stop = runChunk(Work, &Stopping);
      Guard.lock();
      if (Stop != Work.End)
        reopenLocked(Work, Stop);
      finishLocked(Work, Stop);
    }
  }

  // Claims the next chunk of a launch that has unclaimed tasks; a launch whose last chunk is
  // claimed leaves both lists.
  Chunk claimLocked(Launch *Source) {
    Chunk Work;
    Work.Source = Source;
    Work.Begin = Source->Next;
    Work.End = Source->Next + std::min(Source->ChunkSize, Source->Limit - Source->Next);
    Source->Next = Work.End;
    if (Source->Next == Source->Limit) {
      if (Source->InQueue)
        Queue.remove(Source);
      Source->InQueue = false;
      Source->Group->OpenLaunches.remove(Source);
    }
    return Work;
  }

  // Hands the unrun tail [From, Work.End) of a chunk back to its group's syncing thread.
  void reopenLocked(const Chunk &Work, int64_t From) {
    TaskGroup *Group = Work.Source->Group;
    void *Memory = Group->allocate(sizeof(Launch), alignof(Launch));
    Launch *Rest = new (Memory) Launch(*Work.Source);
    Rest->Next = From;
    Rest->Limit = Work.End;
    Rest->InQueue = false;
    Group->OpenLaunches.pushBack(Rest);
    if (Group->Waiters)
      Group->Finished.notifyAll();
  }

  // After this returns and the mutex is released, a syncing thread may free the group (and the
  // launch record), so nothing touches them afterwards.
  void finishLocked(const Chunk &Work, int64_t RunUntil) {
    TaskGroup *Group = Work.Source->Group;
    Group->Pending -= RunUntil - Work.Begin;
    if (Group->Pending == 0 && Group->Waiters)
      Group->Finished.notifyAll();
  }

  static pthread_once_t Once;
  static Pool *Instance;
  alignas(64) static unsigned char Storage[];

  Mutex PoolMutex;
  CondVar WorkAvailable;
  QueueList Queue;                   // launches with unclaimed tasks, oldest first
  std::atomic<bool> Stopping{false}; // written under the mutex, read by running chunks too
  pthread_t *Workers = nullptr;
  int WorkerCount = 0;
};

pthread_once_t Pool::Once = PTHREAD_ONCE_INIT;
Pool *Pool::Instance = nullptr;
alignas(64) unsigned char Pool::Storage[sizeof(Pool)];

TaskGroup *groupOf(void **Handle) {
  if (!Handle)
    fatal("spmdc task call with a null handle pointer");
  if (!*Handle) {
    void *Memory = std::malloc(sizeof(TaskGroup));
    if (!Memory)
      fatal("out of memory creating a launch group");
    *Handle = new (Memory) TaskGroup();
  }
  return static_cast<TaskGroup *>(*Handle);
}

size_t effectiveAlignment(int32_t Alignment) {
  size_t Align = 16;
  while (Align < static_cast<size_t>(std::max<int32_t>(Alignment, 1)))
    Align <<= 1;
  return Align;
}

} // namespace

extern "C" void *spmdc_task_alloc(void **Handle, int64_t Size, int32_t Alignment) {
  TaskGroup *Group = groupOf(Handle);
  if (Size < 0)
    return nullptr;
  if (static_cast<uint64_t>(Size) > SIZE_MAX / 2)
    fatal("spmdc_task_alloc: size too large");
  return Group->allocate(static_cast<size_t>(Size), effectiveAlignment(Alignment));
}

namespace {

// Both launch entries: one of Function and IspcFunction is set; `Caller` names the entry in
// the fatal error.
void launchInGroup(void **Handle, spmdc_task_fn Function, spmdc_ispc_task_fn IspcFunction,
                   void *Data, int32_t Count0, int32_t Count1, int32_t Count2,
                   const char *Caller) {
  TaskGroup *Group = groupOf(Handle);
  if (Count0 <= 0 || Count1 <= 0 || Count2 <= 0)
    return;
  if (!Function && !IspcFunction) {
    char Message[96];
    std::snprintf(Message, sizeof(Message), "%s: null task function", Caller);
    fatal(Message);
  }
  Pool::get().launch(Group, Function, IspcFunction, Data, Count0, Count1, Count2);
}

} // namespace

extern "C" void spmdc_task_launch(void **Handle, spmdc_task_fn Function, void *Data, int32_t Count0,
                                  int32_t Count1, int32_t Count2) {
  launchInGroup(Handle, Function, nullptr, Data, Count0, Count1, Count2, "spmdc_task_launch");
}

extern "C" void spmdc_task_launch_ispc(void **Handle, spmdc_ispc_task_fn Function, void *Data,
                                       int32_t Count0, int32_t Count1, int32_t Count2) {
  launchInGroup(Handle, nullptr, Function, Data, Count0, Count1, Count2, "ISPCLaunch");
}

extern "C" void spmdc_task_sync(void *Handle) {
  if (!Handle)
    return;
  auto *Group = static_cast<TaskGroup *>(Handle);
  Pool::get().sync(Group);
  Group->~TaskGroup();
  std::free(Group);
}

extern "C" int32_t spmdc_num_worker_threads(void) { return Pool::get().workerCount(); }
