// The value tables of ISPC's command-line options: devices, --opt, --math-lib, and the ISPC
// options spmdc knows but does not support.
#include "driver/IspcFlags.h"

#include "llvm/ADT/StringRef.h"

namespace spmdc {

namespace {

/// ISPC 1.32's --device list (its --help), each with LLVM's name where that differs.
struct DeviceRow {
  const char *Ispc;
  const char *Llvm; ///< null: the same name
};

const DeviceRow Devices[] = {
    {"x86-64", nullptr},          {"atom", nullptr},
    {"bonnell", nullptr},         {"core2", nullptr},
    {"penryn", nullptr},          {"corei7", nullptr},
    {"nehalem", nullptr},         {"btver2", nullptr},
    {"ps4", "btver2"},            {"corei7-avx", nullptr},
    {"sandybridge", nullptr},     {"core-avx-i", nullptr},
    {"ivybridge", nullptr},       {"core-avx2", nullptr},
    {"haswell", nullptr},         {"broadwell", nullptr},
    {"skylake", nullptr},         {"skx", "skylake-avx512"},
    {"icelake-client", nullptr},  {"icl", "icelake-client"},
    {"slm", nullptr},             {"silvermont", nullptr},
    {"icelake-server", nullptr},  {"icx", "icelake-server"},
    {"tigerlake", nullptr},       {"tgl", "tigerlake"},
    {"alderlake", nullptr},       {"adl", "alderlake"},
    {"meteorlake", nullptr},      {"mtl", "meteorlake"},
    {"sapphirerapids", nullptr},  {"spr", "sapphirerapids"},
    {"graniterapids", nullptr},   {"gnr", "graniterapids"},
    {"arrowlake", nullptr},       {"arl", "arrowlake"},
    {"lunarlake", nullptr},       {"lnl", "lunarlake"},
    {"diamondrapids", nullptr},   {"dmr", "diamondrapids"},
    {"novalake", nullptr},        {"nvl", "novalake"},
    {"znver1", nullptr},          {"znver2", nullptr},
    {"ps5", "znver2"},            {"znver3", nullptr},
    {"znver4", nullptr},          {"znver5", nullptr},
};

/// ISPC options spmdc parses but rejects, with the reason in one phrase.
struct UnsupportedRow {
  const char *Flag;
  const char *Why;
};

const UnsupportedRow Unsupported[] = {
    {"--dllexport", "it is for Windows targets, and spmdc builds for Linux"},
    {"--vectorcall", "it is for Windows targets, and spmdc builds for Linux"},
    {"--dev-stub", "spmdc has no Xe offload; its GPU target is NVPTX (--target=nvptx)"},
    {"--host-stub", "spmdc has no Xe offload; its GPU target is NVPTX (--target=nvptx)"},
    {"--nanobind-wrapper", "spmdc writes no Python bindings"},
    {"--instrument", "spmdc has no performance instrumentation"},
    {"--enable-llvm-intrinsics", "spmdc does not expose LLVM intrinsics to source code"},
    {"--profile-sample-use", "spmdc does not read sample profiles"},
    {"--sample-profiling-debug-info", "spmdc does not read sample profiles"},
    {"--nostdlib", "spmdc's code generation needs its standard library"},
    {"--ignore-preprocessor-errors", "preprocessor errors always stop spmdc"},
    {"-dD", "spmdc's -E does not print macro definitions"},
    {"-dM", "spmdc's -E does not print macro definitions"},
};

} // namespace

std::optional<std::string> llvmCpuForIspcDevice(std::string_view Device) {
  for (const DeviceRow &R : Devices)
    if (Device == R.Ispc)
      return std::string(R.Llvm ? R.Llvm : R.Ispc);
  return std::nullopt;
}

std::string ispcDeviceNames() {
  std::string Names;
  for (const DeviceRow &R : Devices)
    Names += (Names.empty() ? "" : ", ") + std::string(R.Ispc);
  return Names;
}

bool isIspcOptFlag(std::string_view Value) {
  llvm::StringRef V(Value.data(), Value.size());
  for (const char *Known :
       {"disable-assertions", "disable-fma", "disable-gathers", "disable-scatters",
        "disable-loop-unroll", "disable-zmm", "fast-masked-vload", "fast-math", "fast-math:legacy",
        "fast-math:balanced", "fast-math:aggressive", "force-aligned-memory", "reset-ftz-daz"})
    if (V == Known)
      return true;
  // disable-apx[=egpr,ndd,...]: APX exists only on ISPC's avx10.2 targets; the list is
  // accepted as ISPC accepts it.
  return V == "disable-apx" || V.starts_with("disable-apx=");
}

std::optional<std::string> unsupportedIspcOption(std::string_view Flag) {
  for (const UnsupportedRow &R : Unsupported)
    if (Flag == R.Flag)
      return std::string(R.Why);
  return std::nullopt;
}

} // namespace spmdc
