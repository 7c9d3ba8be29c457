// The value tables of ISPC's command-line options: devices, --opt, and the ISPC
// options spmdc knows but does not support.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace spmdc {

/// LLVM's name for an ISPC --cpu/--device name ("skx" -> "skylake-avx512"); nullopt if ISPC
/// does not know the device.
std::optional<std::string> llvmCpuForIspcDevice(std::string_view Device);

/// ISPC's device list, for the error about an unknown one.
std::string ispcDeviceNames();

/// True for every --opt= value ISPC 1.32 takes (disable-fma, fast-math, fast-math:balanced, ...).
bool isIspcOptFlag(std::string_view Value);

/// For an ISPC option spmdc recognizes but does not implement: why (one phrase). `Flag` is the
/// option without its value ("--dllexport", "--nanobind-wrapper").
std::optional<std::string> unsupportedIspcOption(std::string_view Flag);

} // namespace spmdc
