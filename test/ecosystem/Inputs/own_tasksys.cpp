// An ISPC host program that brings its own task system, as ISPC's examples do with
// tasksys.cpp: ISPCLaunch queues, ISPCSync runs the queue serially (so the tasks run only if
// the object really syncs before it returns), ISPCAlloc hands out memory the sync frees.
#include "tasks.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
typedef void (*TaskFn)(void *, int, int, int, int, int, int, int, int, int, int);
struct Launch {
  TaskFn F;
  void *Data;
  int C0, C1, C2;
};
struct Group {
  std::vector<Launch> Launches;
  std::vector<void *> Memory;
};
int Launches = 0, Syncs = 0, Allocs = 0, TasksRun = 0;
Group *group(void **Handle) {
  if (!*Handle)
    *Handle = new Group;
  return static_cast<Group *>(*Handle);
}
} // namespace

extern "C" void *ISPCAlloc(void **Handle, int64_t Size, int32_t Alignment) {
  ++Allocs;
  void *P = std::aligned_alloc(Alignment < 16 ? 16 : Alignment, (Size + 63) / 64 * 64);
  group(Handle)->Memory.push_back(P);
  return P;
}

extern "C" void ISPCLaunch(void **Handle, void *F, void *Data, int C0, int C1, int C2) {
  ++Launches;
  group(Handle)->Launches.push_back({reinterpret_cast<TaskFn>(F), Data, C0, C1, C2});
}

extern "C" void ISPCSync(void *Handle) {
  ++Syncs;
  Group *G = static_cast<Group *>(Handle);
  for (const Launch &L : G->Launches)
    for (int I2 = 0; I2 < L.C2; ++I2)
      for (int I1 = 0; I1 < L.C1; ++I1)
        for (int I0 = 0; I0 < L.C0; ++I0, ++TasksRun)
          L.F(L.Data, 0, 1, I0 + L.C0 * (I1 + L.C1 * I2), L.C0 * L.C1 * L.C2, I0, I1, I2, L.C0,
              L.C1, L.C2);
  for (void *P : G->Memory)
    std::free(P);
  delete G;
}

int main() {
  int Out[24];
  ispc::launches_nothing(Out);
  std::printf("after launches_nothing: launches=%d syncs=%d allocs=%d\n", Launches, Syncs, Allocs);
  ispc::run(Out, 2);
  int Bad = 0;
  for (int I2 = 0; I2 < 2; ++I2)
    for (int I1 = 0; I1 < 3; ++I1)
      for (int I0 = 0; I0 < 4; ++I0)
        Bad += Out[I0 + 4 * (I1 + 3 * I2)] != 2 * (I0 + 10 * I1 + 100 * I2);
  std::printf("after run: launches=%d syncs=%d allocs=%d tasks=%d wrong=%d\n", Launches, Syncs,
              Allocs, TasksRun, Bad);
  return Bad != 0;
}
