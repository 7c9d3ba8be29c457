// A serial implementation of ISPC's task ABI (ISPCAlloc, ISPCLaunch, ISPCSync),
// linked only into the ISPC-compiled side of scripts/runtime-tests-vs-ispc.py so
// that tests using launch/sync run there too. Each launch runs its tasks at once,
// in order; sync frees the launch's allocations. Order and concurrency do not
// matter to the runtime tests (their results may not depend on them).
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace {
using TaskFn = void (*)(void *Data, int ThreadIndex, int ThreadCount, int TaskIndex, int TaskCount,
                        int TaskIndex0, int TaskIndex1, int TaskIndex2, int TaskCount0,
                        int TaskCount1, int TaskCount2);
struct Group {
  std::vector<void *> Blocks;
};
} // namespace

extern "C" void *ISPCAlloc(void **Handle, int64_t Size, int32_t Alignment) {
  if (!*Handle)
    *Handle = new Group;
  void *P = nullptr;
  if (posix_memalign(&P, Alignment < 16 ? 16 : Alignment, Size ? Size : 1) != 0)
    std::abort();
  static_cast<Group *>(*Handle)->Blocks.push_back(P);
  return P;
}

extern "C" void ISPCLaunch(void **Handle, void *F, void *Data, int Count0, int Count1, int Count2) {
  if (!*Handle)
    *Handle = new Group;
  const int Count = Count0 * Count1 * Count2;
  int Index = 0;
  for (int Z = 0; Z < Count2; ++Z)
    for (int Y = 0; Y < Count1; ++Y)
      for (int X = 0; X < Count0; ++X)
        reinterpret_cast<TaskFn>(F)(Data, 0, 1, Index++, Count, X, Y, Z, Count0, Count1, Count2);
}

extern "C" void ISPCSync(void *Handle) {
  auto *G = static_cast<Group *>(Handle);
  if (!G)
    return;
  for (void *P : G->Blocks)
    std::free(P);
  delete G;
}
