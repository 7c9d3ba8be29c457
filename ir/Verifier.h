// Checks that SPMD IR is well formed, before and after the divergence transform.
#pragma once

#include <string>
#include <vector>

namespace spmdc::ir {

class Module;

/// Returns one line per problem (empty when the module is well formed):
/// values used outside the regions that define them, mistyped loads, stores
/// and operators, loops without their regions, break/continue outside loops;
/// after the transform also varying conditions, ops the transform removes,
/// and calls, prints and asserts without a mask.
std::vector<std::string> verifyModule(Module &M, bool AfterDivergenceTransform);

} // namespace spmdc::ir
