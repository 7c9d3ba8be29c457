// The command-line choices that change what a program means or what the front end reports.
#pragma once

namespace spmdc {

struct LanguageOptions {
  /// --double-literals: an unsuffixed floating literal is a `double` (C's rule)
  /// instead of ISPC's `float`.
  bool DoubleLiterals = false;
  /// --warn-uniform-store-under-varying: warn where a uniform variable declared
  /// outside varying control flow is assigned inside it (ISPC accepts it and
  /// stores when any lane is active).
  bool WarnUniformStoreUnderVarying = false;
};

} // namespace spmdc
