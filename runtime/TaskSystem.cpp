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

#include "spmdc_runtime.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace {

[[noreturn]] void fatal(const char *message) {
  std::fflush(stdout);
  std::fprintf(stderr, "spmdc runtime: fatal error: %s\n", message);
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
      if (Payload < Size)
        fatal("spmdc_task_alloc: size too large");
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

// One spmdc_task_launch call. Lives in its group's arena.
struct Launch {
  TaskGroup *Group;
  spmdc_task_fn Function;
  void *Data;
  int32_t Count0, Count1, Count2;
  int64_t Next;      // first unclaimed linear task index; guarded by the pool mutex
  int64_t Limit;     // one past the last index this record hands out
  int64_t ChunkSize; // how many consecutive tasks one claim takes
};

struct TaskGroup {
  // Everything below except the arena is guarded by the pool mutex.
  int64_t Pending = 0;               // tasks launched and not yet finished
  int Waiters = 0;                   // threads sleeping in sync on this group
  std::condition_variable Finished;  // signalled when Pending drops to 0 or work arrives
  std::deque<Launch *> OpenLaunches; // launches of this group with unclaimed tasks

  std::mutex ArenaMutex; // the owner allocates; the lock keeps stray concurrent use safe
  Arena Memory;

  void *allocate(size_t Size, size_t Align) {
    std::lock_guard<std::mutex> Lock(ArenaMutex);
    return Memory.allocate(Size, Align);
  }
};

// A claimed range [Begin, End) of one launch's linear task indices.
struct Chunk {
  Launch *Source = nullptr;
  int64_t Begin = 0;
  int64_t End = 0;
};

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

// Reads SPMDC_NUM_THREADS; falls back to the hardware's thread count.
int workerCountFromEnvironment() {
  unsigned Hardware = std::thread::hardware_concurrency();
  int Default = Hardware == 0 ? 1 : static_cast<int>(std::min(Hardware, 1024u));
  const char *Setting = std::getenv("SPMDC_NUM_THREADS");
  if (!Setting || !*Setting)
    return Default;
  char *Rest = nullptr;
  long Value = std::strtol(Setting, &Rest, 10);
  if (*Rest != '\0' || Value < 0 || Value > 1024) {
    std::fprintf(stderr,
                 "spmdc runtime: warning: ignoring SPMDC_NUM_THREADS='%s' (expected an integer "
                 "from 0 to 1024); using %d worker threads\n",
                 Setting, Default);
    return Default;
  }
  return static_cast<int>(Value);
}

class Pool {
public:
  // The pool is created on first use and never destroyed (threads that outlive exit() may still
  // touch its mutex); its workers are stopped and joined by an atexit handler.
  static Pool &get() {
    static Pool *Instance = create();
    return *Instance;
  }

  int workerCount() const { return static_cast<int>(Workers.size()); }

  void launch(TaskGroup *Group, spmdc_task_fn Function, void *Data, int32_t Count0, int32_t Count1,
              int32_t Count2) {
    int64_t Total = static_cast<int64_t>(Count0) * Count1;
    if (__builtin_mul_overflow(Total, static_cast<int64_t>(Count2), &Total))
      fatal("spmdc_task_launch: task count overflows 64 bits");
    // A few chunks per thread balance the load without a lock round trip per tiny task.
    int64_t Chunks = 8 * (static_cast<int64_t>(Workers.size()) + 1);
    int64_t ChunkSize = std::max<int64_t>(1, Total / Chunks);
    void *Memory = Group->allocate(sizeof(Launch), alignof(Launch));
    Launch *Record =
        new (Memory) Launch{Group, Function, Data, Count0, Count1, Count2, 0, Total, ChunkSize};
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Group->Pending += Total;
      Queue.push_back(Record);
      Group->OpenLaunches.push_back(Record);
      if (Group->Waiters)
        Group->Finished.notify_all();
    }
    if (Total > ChunkSize)
      WorkAvailable.notify_all();
    else
      WorkAvailable.notify_one();
  }

  void sync(TaskGroup *Group) {
    std::unique_lock<std::mutex> Lock(Mutex);
    while (Group->Pending != 0) {
      if (!Group->OpenLaunches.empty()) {
        Chunk Work = claimLocked(Group->OpenLaunches.front());
        Lock.unlock();
        runChunk(Work, nullptr);
        Lock.lock();
        finishLocked(Work, Work.End);
        continue;
      }
      ++Group->Waiters;
      Group->Finished.wait(Lock);
      --Group->Waiters;
    }
  }

  // Stops the workers after the task each is running; queued work and the unrun rest of their
  // chunks stay for the syncing threads, which run them themselves.
  void shutdown() {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Stopping.store(true);
    }
    WorkAvailable.notify_all();
    pthread_t Self = pthread_self();
    for (pthread_t Worker : Workers) {
      if (pthread_equal(Worker, Self))
        pthread_detach(Worker); // exit() called from inside a task
      else
        pthread_join(Worker, nullptr);
    }
    Workers.clear();
  }

private:
  static Pool *create() {
    auto *Instance = new (std::nothrow) Pool();
    if (!Instance)
      fatal("out of memory starting the task system");
    Instance->startWorkers(workerCountFromEnvironment());
    std::atexit([] { get().shutdown(); });
    return Instance;
  }

  void startWorkers(int Count) {
    Workers.reserve(Count);
    for (int I = 0; I < Count; ++I) {
      pthread_t Thread;
      int Error = pthread_create(
          &Thread, nullptr,
          [](void *Self) -> void * {
            static_cast<Pool *>(Self)->workerLoop();
            return nullptr;
          },
          this);
      if (Error != 0) {
        // Fewer workers only cost speed: syncing threads run whatever is left.
        std::fprintf(stderr, "spmdc runtime: warning: started only %d of %d worker threads: %s\n",
                     I, Count, std::strerror(Error));
        break;
      }
      Workers.push_back(Thread);
    }
  }

  void workerLoop() {
    std::unique_lock<std::mutex> Lock(Mutex);
    while (!Stopping) {
      if (Queue.empty()) {
        WorkAvailable.wait(Lock);
        continue;
      }
      Chunk Work = claimLocked(Queue.front());
      Lock.unlock();
      int64_t Stop = runChunk(Work, &Stopping);
      Lock.lock();
      if (Stop != Work.End)
        reopenLocked(Work, Stop);
      finishLocked(Work, Stop);
    }
  }

  // Hands the unrun tail [From, Work.End) of a chunk back to its group as a new record.
  void reopenLocked(const Chunk &Work, int64_t From) {
    Launch *Source = Work.Source;
    void *Memory = Source->Group->allocate(sizeof(Launch), alignof(Launch));
    Launch *Rest = new (Memory) Launch(*Source);
    Rest->Next = From;
    Rest->Limit = Work.End;
    Source->Group->OpenLaunches.push_back(Rest);
    if (Source->Group->Waiters)
      Source->Group->Finished.notify_all();
  }

  // Claims the next chunk of a launch that has unclaimed tasks; a launch whose last chunk is
  // claimed leaves both queues.
  Chunk claimLocked(Launch *Source) {
    Chunk Work;
    Work.Source = Source;
    Work.Begin = Source->Next;
    Work.End = Source->Next + std::min(Source->ChunkSize, Source->Limit - Source->Next);
    Source->Next = Work.End;
    if (Source->Next == Source->Limit) {
      eraseLaunch(Queue, Source);
      eraseLaunch(Source->Group->OpenLaunches, Source);
    }
    return Work;
  }

  static void eraseLaunch(std::deque<Launch *> &Launches, Launch *Source) {
    auto Found = std::find(Launches.begin(), Launches.end(), Source);
    if (Found != Launches.end())
      Launches.erase(Found);
  }

  // After this returns and the mutex is released, a syncing thread may free the group (and the
  // launch record), so nothing touches them afterwards.
  void finishLocked(const Chunk &Work, int64_t RunUntil) {
    TaskGroup *Group = Work.Source->Group;
    Group->Pending -= RunUntil - Work.Begin;
    if (Group->Pending == 0 && Group->Waiters)
      Group->Finished.notify_all();
  }

  std::mutex Mutex;
  std::condition_variable WorkAvailable;
  std::deque<Launch *> Queue;        // launches with unclaimed tasks, oldest first
  std::atomic<bool> Stopping{false}; // written under the mutex, read by running chunks too
  std::vector<pthread_t> Workers;
};

TaskGroup *createGroup(void **Handle) {
  if (!Handle)
    fatal("spmdc task call with a null handle pointer");
  if (!*Handle) {
    auto *Group = new (std::nothrow) TaskGroup();
    if (!Group)
      fatal("out of memory creating a launch group");
    *Handle = Group;
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
  TaskGroup *Group = createGroup(Handle);
  if (Size < 0)
    return nullptr;
  if (static_cast<uint64_t>(Size) > SIZE_MAX / 2)
    fatal("spmdc_task_alloc: size too large");
  return Group->allocate(static_cast<size_t>(Size), effectiveAlignment(Alignment));
}

extern "C" void spmdc_task_launch(void **Handle, spmdc_task_fn Function, void *Data, int32_t Count0,
                                  int32_t Count1, int32_t Count2) {
  TaskGroup *Group = createGroup(Handle);
  if (Count0 <= 0 || Count1 <= 0 || Count2 <= 0)
    return;
  if (!Function)
    fatal("spmdc_task_launch: null task function");
  Pool::get().launch(Group, Function, Data, Count0, Count1, Count2);
}

extern "C" void spmdc_task_sync(void *Handle) {
  if (!Handle)
    return;
  auto *Group = static_cast<TaskGroup *>(Handle);
  Pool::get().sync(Group);
  delete Group;
}

extern "C" int32_t spmdc_num_worker_threads(void) { return Pool::get().workerCount(); }
