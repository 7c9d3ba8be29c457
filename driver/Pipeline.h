// The whole compiler in order: read, preprocess, parse, check, (lower, transform, emit).
#pragma once

namespace spmdc {

struct CompilerOptions;

/// Runs one compilation; returns the process exit status (0 ok, 1 errors).
int runCompiler(const CompilerOptions &Opts);

} // namespace spmdc
