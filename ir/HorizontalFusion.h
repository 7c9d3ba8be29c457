// Horizontal fusion (HFuse): requests from pragmas, --hfuse and --hfuse-config, and the pass.
#pragma once

#include "frontend/SourceLocation.h"

#include <optional>
#include <string>
#include <vector>

namespace spmdc {
class DiagnosticEngine;
struct TargetInfo;
} // namespace spmdc

namespace spmdc::ir {

class Module;

/// Where a fusion request came from; errors are reported in that form's style.
enum class FusionOrigin { Pragma, CommandLine, ConfigFile };

/// One requested fusion: the kernels in order, the gangs (GPU: warps) per
/// block each side gets, and an optional register bound for the entry.
struct FusionRequest {
  std::vector<std::string> Kernels;
  std::vector<int64_t> Gangs; ///< empty: 4 per side
  unsigned MaxNReg = 0;       ///< 0: none
  FusionOrigin Origin = FusionOrigin::CommandLine;
  std::string Spelling; ///< as the user wrote it (for one-line errors)
  SourceLoc Loc;        ///< the pragma's `#`; for config files, the file and line
  /// Pragma form: the column of each kernel name / gang count in the source
  /// line (0: unknown), so that errors point at the offending word.
  std::vector<uint32_t> KernelCols, GangCols;
  uint32_t MaxNRegCol = 0;
};

/// Gangs per side when a request names none: HFuse's step of 128 threads.
constexpr int64_t DefaultGangsPerSide = 4;
/// The threads of one block on the GPU.
constexpr int64_t MaxThreadsPerBlock = 1024;

/// Parses the `--hfuse` value syntax `A,B[,C...][:gA,gB...][:maxnreg=R]`.
/// On a syntax error returns nothing and sets `Error` to a message.
std::optional<FusionRequest> parseFusionSpec(const std::string &Spec, std::string &Error);

/// Reads an --hfuse-config file: one fusion per line in the --hfuse syntax,
/// `#` starts a comment. Errors are reported one per line as `file:line: ...`.
bool readFusionConfig(const std::string &Path, std::vector<FusionRequest> &Out,
                      DiagnosticEngine &Diags);

/// Collects the requests of every form (`#pragma hfuse` from the module,
/// then the config file's, then the command line's, a later form replacing an
/// earlier one for the same kernel list) and builds one fused kernel for each.
/// Runs before the divergence transform. Returns false after reporting errors.
bool runHorizontalFusion(Module &M, const std::vector<FusionRequest> &Requested,
                         const TargetInfo &Target, DiagnosticEngine &Diags);

} // namespace spmdc::ir
