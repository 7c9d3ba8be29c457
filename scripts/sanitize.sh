#!/usr/bin/env bash
# Builds spmdc with ASan+UBSan in build-sanitize/ and runs the lit suite with that compiler.
#
# Usage: bash scripts/sanitize.sh [lit arguments, e.g. a test directory under build-sanitize/test]
# The sanitizers go on the compiler and its libraries only (CMake option
# SPMDC_SANITIZE), not on the test driver and runtime linked into the programs the
# runtime tests build. Leaks are not reported (the compiler frees little at
# exit on purpose); any ASan or UBSan report aborts the compiler, so a test
# that expects a diagnostic (`not %spmdc`) fails on it too (`not` does not
# accept a crash). With no arguments the whole suite runs: about 3-5 times
# slower than the plain build's.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SPMDC_ROOT"

spmdc_install_missing_packages
cmake -G Ninja -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPMDC_SANITIZE=ON \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 "$(spmdc_werror_flag)"
ninja -C build-sanitize -j"$SPMDC_JOBS"

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:abort_on_error=1:${UBSAN_OPTIONS:-}"
if (($# == 0)); then
  set -- build-sanitize/test
fi
"$SPMDC_LLVM_BIN/lit" -sv "$@"
