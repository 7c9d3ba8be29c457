#!/usr/bin/env bash
# Refreshes the fuzz corpus copies of examples/ (fuzz/corpus/example_*.spmd), preprocessed.
#
# Usage: bash scripts/update-fuzz-corpus.sh
# The fuzzer feeds its input to the parser without the preprocessor, so the
# examples go in already expanded (clang-22 -E, the macros of avx2-i32x8, no
# line markers). The hand-written snippets in fuzz/corpus are left alone.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SPMDC_ROOT"

rm -f fuzz/corpus/example_*.spmd
while IFS= read -r src; do
  stem="${src#examples/}"
  stem="${stem%.spmd}"
  clang-22 -E -P -x c -DSPMDC=1 -DISPC=1 -DTARGET_WIDTH=8 -DSPMDC_TARGET_AVX2=1 \
    -DISPC_TARGET_AVX2=1 -DPI=3.1415926535 "$src" -o "fuzz/corpus/example_${stem//\//_}.spmd"
done < <(find examples -name '*.spmd' | LC_ALL=C sort)
ls fuzz/corpus/example_*.spmd
