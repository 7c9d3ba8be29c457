// The compilation targets of SPEC section 3: gang width, mask form and ISA per target flag.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spmdc {

struct TargetInfo {
  enum class Arch { X86, NVPTX };

  std::string Name; ///< the --target spelling, e.g. "avx2-i32x8", "nvptx-sm_90"
  Arch Architecture = Arch::X86;
  unsigned GangWidth = 8; ///< programCount
  /// x86: "sse4", "avx2", "avx512skx"; NVPTX: "sm_70", "sm_80", "sm_90".
  std::string ISA;
  /// True where the mask is a vector of i1 (AVX-512 and NVPTX), false where it
  /// is a vector of lane-wide integers (SSE4/AVX2 blend style).
  bool HasBitMask = false;

  bool isGPU() const { return Architecture == Arch::NVPTX; }
  /// The ISA as the TARGET_* macro part, e.g. "AVX2", "NVPTX".
  std::string macroName() const;
};

/// Looks up a --target name. "host" picks the widest x86 target this CPU runs;
/// "nvptx" alone means nvptx-sm_90. Returns nullopt for unknown names.
std::optional<TargetInfo> lookupTarget(std::string_view Name);

/// Every accepted --target name, for --help and error messages.
std::vector<std::string> targetNames();

/// The x86 target names this machine can execute (for runtime tests).
std::vector<std::string> hostRunnableTargets();

} // namespace spmdc
