// The compilation targets of SPEC section 3: gang width, mask form and ISA per target flag.
#include "target/TargetInfo.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace spmdc {

namespace {
struct TargetRow {
  const char *Name;
  TargetInfo::Arch Arch;
  unsigned Width;
  const char *ISA;
  bool BitMask;
};

const TargetRow Table[] = {
    {"sse4-i32x4", TargetInfo::Arch::X86, 4, "sse4", false},
    {"avx2-i32x8", TargetInfo::Arch::X86, 8, "avx2", false},
    {"avx2-i32x16", TargetInfo::Arch::X86, 16, "avx2", false},
    {"avx512skx-x16", TargetInfo::Arch::X86, 16, "avx512skx", true},
    {"nvptx-sm_70", TargetInfo::Arch::NVPTX, 32, "sm_70", true},
    {"nvptx-sm_80", TargetInfo::Arch::NVPTX, 32, "sm_80", true},
    {"nvptx-sm_90", TargetInfo::Arch::NVPTX, 32, "sm_90", true},
};

TargetInfo fromRow(const TargetRow &R) {
  TargetInfo T;
  T.Name = R.Name;
  T.Architecture = R.Arch;
  T.GangWidth = R.Width;
  T.ISA = R.ISA;
  T.HasBitMask = R.BitMask;
  return T;
}

bool hostHas(const llvm::StringMap<bool> &F, std::initializer_list<const char *> Names) {
  for (const char *N : Names) {
    auto It = F.find(N);
    if (It == F.end() || !It->second)
      return false;
  }
  return true;
}
} // namespace

std::string TargetInfo::macroName() const {
  if (isGPU())
    return "NVPTX";
  if (ISA == "sse4")
    return "SSE4";
  if (ISA == "avx2")
    return "AVX2";
  return "AVX512SKX";
}

std::vector<std::string> hostRunnableTargets() {
  llvm::StringMap<bool> F = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> Names;
  if (hostHas(F, {"sse4.1", "sse4.2"}))
    Names.push_back("sse4-i32x4");
  if (hostHas(F, {"avx2", "fma"})) {
    Names.push_back("avx2-i32x8");
    Names.push_back("avx2-i32x16");
  }
  if (hostHas(F, {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd"}))
    Names.push_back("avx512skx-x16");
  return Names;
}

std::optional<TargetInfo> lookupTarget(std::string_view Name) {
  if (Name == "host") {
    std::vector<std::string> Runnable = hostRunnableTargets();
    // Prefer AVX2 over AVX-512 as ISPC does for its default: 8 lanes of 32 bits
    // avoid the frequency drop of 512-bit units on many parts.
    for (const char *Pref : {"avx2-i32x8", "avx512skx-x16", "sse4-i32x4"})
      for (const std::string &R : Runnable)
        if (R == Pref)
          return lookupTarget(R);
    return lookupTarget("sse4-i32x4");
  }
  if (Name == "nvptx")
    return lookupTarget("nvptx-sm_90");
  for (const TargetRow &R : Table)
    if (Name == R.Name)
      return fromRow(R);
  return std::nullopt;
}

std::vector<std::string> targetNames() {
  std::vector<std::string> Names;
  for (const TargetRow &R : Table)
    Names.push_back(R.Name);
  Names.push_back("host");
  Names.push_back("nvptx");
  return Names;
}

} // namespace spmdc
