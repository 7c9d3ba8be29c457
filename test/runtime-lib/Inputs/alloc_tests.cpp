// alloc_tests.cpp - checks spmdc_task_alloc: alignment, distinct memory, lifetime until sync.

#include "check.h"
#include "spmdc_runtime.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Block {
  unsigned char *Bytes;
  int64_t Size;
  unsigned char Fill;
};

// Each task checks that every block still holds its fill byte: the memory stays valid and
// untouched by later allocations until the sync.
struct CheckArgs {
  const Block *Blocks;
  int32_t Count;
  std::atomic<int32_t> *Corrupt;
};

void checkBlocksTask(void *Data, int32_t I0, int32_t, int32_t, int32_t, int32_t, int32_t) {
  auto *Args = static_cast<CheckArgs *>(Data);
  const Block &B = Args->Blocks[I0];
  for (int64_t I = 0; I < B.Size; ++I)
    if (B.Bytes[I] != B.Fill) {
      Args->Corrupt->fetch_add(1);
      return;
    }
}

void alignmentsAndLifetime() {
  void *Handle = nullptr;
  std::vector<Block> Blocks;
  const int32_t Alignments[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  int Round = 0;
  for (int64_t Size : {0, 1, 3, 17, 100, 4096, 20000, 1 << 20}) {
    for (int32_t Align : Alignments) {
      auto *Bytes = static_cast<unsigned char *>(spmdc_task_alloc(&Handle, Size, Align));
      CHECK_OR_FAIL(Bytes != nullptr, "size %lld align %d", (long long)Size, Align);
      CHECK_OR_FAIL(reinterpret_cast<uintptr_t>(Bytes) % Align == 0,
                    "size %lld: %p is not aligned to %d", (long long)Size, (void *)Bytes, Align);
      CHECK_OR_FAIL(reinterpret_cast<uintptr_t>(Bytes) % 16 == 0, "below the minimum of 16");
      auto Fill = static_cast<unsigned char>(1 + Round++ % 251);
      std::memset(Bytes, Fill, Size);
      Blocks.push_back({Bytes, Size, Fill});
    }
  }
  // Alignments that are not powers of two round up to one.
  for (int32_t Align : {3, 24, 100, 1000}) {
    auto Address = reinterpret_cast<uintptr_t>(spmdc_task_alloc(&Handle, 8, Align));
    uintptr_t PowerOfTwo = 1;
    while (PowerOfTwo < static_cast<uintptr_t>(Align))
      PowerOfTwo <<= 1;
    CHECK_OR_FAIL(Address % PowerOfTwo == 0, "alignment %d not rounded up", Align);
  }
  CHECK_OR_FAIL(spmdc_task_alloc(&Handle, -1, 16) == nullptr, "a negative size gives NULL");

  // The argument block itself comes from the arena, as in generated code.
  std::atomic<int32_t> Corrupt{0};
  auto *Args = static_cast<CheckArgs *>(spmdc_task_alloc(&Handle, sizeof(CheckArgs), 8));
  auto *Copies = static_cast<Block *>(
      spmdc_task_alloc(&Handle, sizeof(Block) * Blocks.size(), alignof(Block)));
  std::memcpy(Copies, Blocks.data(), sizeof(Block) * Blocks.size());
  *Args = {Copies, static_cast<int32_t>(Blocks.size()), &Corrupt};
  spmdc_task_launch(&Handle, checkBlocksTask, Args, Args->Count, 1, 1);
  // More allocations while the tasks run must not disturb the blocks they read.
  for (int I = 0; I < 1000; ++I)
    std::memset(spmdc_task_alloc(&Handle, 64, 64), 0, 64);
  spmdc_task_sync(Handle);
  CHECK_OR_FAIL(Corrupt.load() == 0, "%d blocks were overwritten", Corrupt.load());
  std::printf("alloc: %zu blocks aligned, distinct, intact until sync\n", Blocks.size());
}

// A group that only allocates is freed by its sync; many such groups in a row reuse memory.
void allocOnlyGroups() {
  for (int I = 0; I < 10000; ++I) {
    void *Handle = nullptr;
    void *Memory = spmdc_task_alloc(&Handle, 256, 32);
    CHECK_OR_FAIL(Handle != nullptr && Memory != nullptr, "alloc created no group");
    std::memset(Memory, 0xab, 256);
    spmdc_task_sync(Handle);
  }
  std::printf("alloc-only groups: 10000 created and synced\n");
}

} // namespace

int main(int argc, char **argv) {
  std::string Mode = argc == 2 ? argv[1] : "";
  if (Mode == "alignment")
    alignmentsAndLifetime();
  else if (Mode == "alloc-only")
    allocOnlyGroups();
  else {
    std::fprintf(stderr, "usage: alloc_tests alignment | alloc-only\n");
    return 2;
  }
  return 0;
}
