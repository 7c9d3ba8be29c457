// Thread and block coarsening of kernels: requests from `#pragma coarsen` and --coarsen, and the
// pass.
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

class Function;
class Module;

/// Coarsen kernel `Kernel` by `Factor`: thread coarsening (each program
/// instance does `Factor` items per step of its `foreach` loops) or block
/// coarsening (each block does the work of `Factor` blocks).
struct CoarsenRequest {
  std::string Kernel;
  int64_t Factor = 1;
  bool Block = false;
  bool FromPragma = false;
  std::string Spelling;
  SourceLoc Loc;          ///< the pragma's `#`
  uint32_t KernelCol = 0; ///< pragma form: the columns of the name and the factor
  uint32_t FactorCol = 0;
};

/// Parses the --coarsen syntax `K:F` (thread) or `K:block=F`; the pragma's
/// parenthesized text is `K : F` or `K : block(F)`. On an error returns
/// nothing and sets `Error` and `ErrorAt` (an offset in `Spec`).
std::optional<CoarsenRequest> parseCoarsenSpec(const std::string &Spec, std::string &Error,
                                               size_t &ErrorAt);

/// Why kernel `K` cannot be thread-coarsened (the first `foreach` the pass
/// would refuse, and why); empty when it can.
std::string threadCoarseningObstacle(Function &K);

/// Collects `#pragma coarsen(...)` and the command line's requests (the
/// command line's replaces a pragma's for the same kernel and kind) and
/// rewrites each kernel in place. Runs after fusion, before the variability
/// analysis. Returns false after reporting errors.
bool runCoarsening(Module &M, const std::vector<CoarsenRequest> &Requested,
                   const TargetInfo &Target, DiagnosticEngine &Diags);

} // namespace spmdc::ir
