// check.h - failure reporting shared by the runtime library's test programs.
#ifndef SPMDC_TEST_RUNTIME_LIB_CHECK_H
#define SPMDC_TEST_RUNTIME_LIB_CHECK_H

#include <cstdio>
#include <cstdlib>

// Reports the failed condition with its line and exits 1 (the lit test then fails).
#define CHECK_OR_FAIL(Condition, ...)                                                              \
  do {                                                                                             \
    if (!(Condition)) {                                                                            \
      std::fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #Condition);           \
      std::fprintf(stderr, __VA_ARGS__);                                                           \
      std::fprintf(stderr, "\n");                                                                  \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

#endif
