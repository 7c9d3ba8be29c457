// launch_tests.cpp - checks spmdc_task_launch/spmdc_task_sync: every task index runs once,
// nested launches, concurrent groups, zero workers, exit with unsynced work.

#include "check.h"
#include "spmdc_runtime.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

// Arguments of one launch in the tests: counts to compare with what each task receives, and one
// counter per linear task index.
struct CountingLaunch {
  int32_t Count0, Count1, Count2;
  std::atomic<int32_t> *Runs;
  std::atomic<int32_t> *BadArguments;
};

void countingTask(void *Data, int32_t I0, int32_t I1, int32_t I2, int32_t C0, int32_t C1,
                  int32_t C2) {
  auto *L = static_cast<CountingLaunch *>(Data);
  if (C0 != L->Count0 || C1 != L->Count1 || C2 != L->Count2 || I0 < 0 || I0 >= C0 || I1 < 0 ||
      I1 >= C1 || I2 < 0 || I2 >= C2) {
    L->BadArguments->fetch_add(1);
    return;
  }
  L->Runs[I0 + static_cast<int64_t>(C0) * (I1 + static_cast<int64_t>(C1) * I2)].fetch_add(1);
}

// Launches C0 x C1 x C2 counting tasks, syncs, checks each index ran exactly once.
void launchAndCheck(int32_t C0, int32_t C1, int32_t C2) {
  int64_t Total = static_cast<int64_t>(C0) * C1 * C2;
  auto Runs = std::make_unique<std::atomic<int32_t>[]>(Total);
  std::atomic<int32_t> Bad{0};
  CountingLaunch Args{C0, C1, C2, Runs.get(), &Bad};
  void *Handle = nullptr;
  spmdc_task_launch(&Handle, countingTask, &Args, C0, C1, C2);
  CHECK_OR_FAIL(Handle != nullptr, "launch did not create a group");
  spmdc_task_sync(Handle);
  CHECK_OR_FAIL(Bad.load() == 0, "%d tasks got wrong indices or counts", Bad.load());
  for (int64_t I = 0; I < Total; ++I)
    CHECK_OR_FAIL(Runs[I].load() == 1, "task %lld ran %d times", (long long)I, Runs[I].load());
  std::printf("launch %dx%dx%d: %lld tasks, each ran once\n", C0, C1, C2, (long long)Total);
}

// Nested launches: level 0 launches Fanout tasks, each launches Fanout tasks of level 1, ...;
// the leaves (level Depth-1) count their path.
struct NestedLaunch {
  int Level;
  int Depth;
  int32_t Fanout;
  int64_t Path; // index of this task's parent chain, base Fanout
  std::atomic<int32_t> *LeafRuns;
};

void nestedTask(void *Data, int32_t I0, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto *Parent = static_cast<NestedLaunch *>(Data);
  int64_t Path = Parent->Path * Parent->Fanout + I0;
  if (Parent->Level + 1 == Parent->Depth) {
    Parent->LeafRuns[Path].fetch_add(1);
    return;
  }
  void *Handle = nullptr;
  // The child's arguments live in the child group's arena until its sync, as spmdc emits it.
  auto *Child = static_cast<NestedLaunch *>(
      spmdc_task_alloc(&Handle, sizeof(NestedLaunch), alignof(NestedLaunch)));
  *Child = {Parent->Level + 1, Parent->Depth, Parent->Fanout, Path, Parent->LeafRuns};
  spmdc_task_launch(&Handle, nestedTask, Child, Parent->Fanout, 1, 1);
  spmdc_task_sync(Handle);
}

void nestedAndCheck(int Depth, int32_t Fanout) {
  int64_t Leaves = 1;
  for (int I = 0; I < Depth; ++I)
    Leaves *= Fanout;
  auto Runs = std::make_unique<std::atomic<int32_t>[]>(Leaves);
  NestedLaunch Root{0, Depth, Fanout, 0, Runs.get()};
  void *Handle = nullptr;
  spmdc_task_launch(&Handle, nestedTask, &Root, Fanout, 1, 1);
  spmdc_task_sync(Handle);
  for (int64_t I = 0; I < Leaves; ++I)
    CHECK_OR_FAIL(Runs[I].load() == 1, "leaf %lld ran %d times", (long long)I, Runs[I].load());
  std::printf("nested depth %d fanout %d: %lld leaves, each ran once, %d workers\n", Depth, Fanout,
              (long long)Leaves, spmdc_num_worker_threads());
}

// Several host threads, each with its own groups in flight, some nested.
void concurrentGroups(int Threads, int Rounds) {
  std::atomic<int> Failures{0};
  std::vector<std::thread> Hosts;
  for (int T = 0; T < Threads; ++T) {
    Hosts.emplace_back([T, Rounds, &Failures] {
      for (int Round = 0; Round < Rounds; ++Round) {
        int32_t C0 = 1 + (T * 7 + Round * 13) % 97, C1 = 1 + Round % 3;
        int64_t Total = int64_t(C0) * C1;
        auto RunsA = std::make_unique<std::atomic<int32_t>[]>(Total);
        auto RunsB = std::make_unique<std::atomic<int32_t>[]>(Total);
        std::atomic<int32_t> Bad{0};
        std::atomic<int32_t> Leaves[8] = {};
        CountingLaunch A{C0, C1, 1, RunsA.get(), &Bad}, B{C0, C1, 1, RunsB.get(), &Bad};
        NestedLaunch Nested{0, 3, 2, 0, Leaves};
        // Two launches and a nested tree in one group, a third launch in a second group.
        void *First = nullptr, *Second = nullptr;
        spmdc_task_launch(&First, countingTask, &A, C0, C1, 1);
        spmdc_task_launch(&Second, countingTask, &B, C0, C1, 1);
        spmdc_task_launch(&First, nestedTask, &Nested, 2, 1, 1);
        spmdc_task_sync(First);
        spmdc_task_sync(Second);
        bool Ok = Bad.load() == 0;
        for (int64_t I = 0; I < Total; ++I)
          Ok = Ok && RunsA[I].load() == 1 && RunsB[I].load() == 1;
        for (auto &Leaf : Leaves)
          Ok = Ok && Leaf.load() == 1;
        if (!Ok)
          Failures.fetch_add(1);
      }
    });
  }
  for (auto &Host : Hosts)
    Host.join();
  CHECK_OR_FAIL(Failures.load() == 0, "%d rounds had a task run not exactly once", Failures.load());
  std::printf("concurrent groups: %d threads x %d rounds, every task ran once\n", Threads, Rounds);
}

std::atomic<int32_t> TasksRun{0};

void recordingTask(void *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  TasksRun.fetch_add(1);
}

// With SPMDC_NUM_THREADS=0 nothing runs before the sync, which runs everything itself.
void noWorkers() {
  CHECK_OR_FAIL(spmdc_num_worker_threads() == 0, "expected 0 workers, have %d",
                spmdc_num_worker_threads());
  void *Handle = nullptr;
  spmdc_task_launch(&Handle, recordingTask, nullptr, 10, 10, 10);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::printf("before sync: %d tasks ran\n", TasksRun.load());
  spmdc_task_sync(Handle);
  std::printf("after sync: %d tasks ran\n", TasksRun.load());
}

void slowTask(void *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  TasksRun.fetch_add(1);
}

// Returns from main with 100000 ms of queued work never synced: exit must stop the workers
// after their current chunk instead of running (or waiting for) the rest.
void exitWithPendingWork() {
  void *Handle = nullptr;
  spmdc_task_launch(&Handle, slowTask, nullptr, 100000, 1, 1);
  std::printf("returning with the group unsynced\n");
}

// Launches with a zero or negative count run nothing; syncing a group without launches, or a
// NULL handle, returns at once.
void emptyLaunches() {
  void *Handle = nullptr;
  spmdc_task_launch(&Handle, recordingTask, nullptr, 0, 5, 5);
  spmdc_task_launch(&Handle, recordingTask, nullptr, 5, -1, 5);
  spmdc_task_launch(&Handle, recordingTask, nullptr, 5, 5, 0);
  CHECK_OR_FAIL(Handle != nullptr, "an empty launch still creates the group");
  spmdc_task_sync(Handle);
  spmdc_task_sync(nullptr);
  std::printf("empty launches: %d tasks ran\n", TasksRun.load());
}

int usage() {
  std::fprintf(stderr, "usage: launch_tests counts C0 C1 C2 | nested DEPTH FANOUT | concurrent "
                       "THREADS ROUNDS | no-workers | exit-pending | empty | workers\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string Mode = argv[1];
  if (Mode == "counts" && argc == 5)
    launchAndCheck(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  else if (Mode == "nested" && argc == 4)
    nestedAndCheck(std::atoi(argv[2]), std::atoi(argv[3]));
  else if (Mode == "concurrent" && argc == 4)
    concurrentGroups(std::atoi(argv[2]), std::atoi(argv[3]));
  else if (Mode == "no-workers" && argc == 2)
    noWorkers();
  else if (Mode == "exit-pending" && argc == 2)
    exitWithPendingWork();
  else if (Mode == "empty" && argc == 2)
    emptyLaunches();
  else if (Mode == "workers" && argc == 2)
    std::printf("workers: %d\n", spmdc_num_worker_threads());
  else
    return usage();
  return 0;
}
