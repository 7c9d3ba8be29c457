// The standard library prelude (stdlib/stdlib.spmd), compiled into the binary.
#pragma once

namespace spmdc {
/// The text of stdlib/stdlib.spmd; every compilation parses it before the user's file.
extern const char *const StdlibSource;
} // namespace spmdc
