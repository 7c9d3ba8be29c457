#!/usr/bin/env bash
# The test command: builds spmdc and its fuzzer, runs the whole lit suite, ends with "N passed, N failed".
#
# Usage: bash scripts/test.sh
# lit's full output is kept in build/lit-output.txt, its per-test results in
# build/lit-results.xml. Exit status: 0 when nothing failed.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SPMDC_ROOT"

# A step that does not even build counts as one failed test, so the last line
# is always the count CI reads.
if ! bash scripts/setup.sh; then
  echo "FAIL: setup or build of spmdc (see above)"
  echo "0 passed, 1 failed"
  exit 1
fi

extra_failed=0
# The fuzz smoke test (REQUIRES: fuzzer) runs the fuzzer this builds; a fuzzer
# that does not build must fail here rather than silently skip that test.
if ! spmdc_build_fuzzer; then
  echo "FAIL: build of spmdc-fuzz-frontend (see above)"
  rm -f build-fuzz/bin/spmdc-fuzz-frontend
  extra_failed=1
fi

results=build/lit-results.xml
rm -f "$results"
"$SPMDC_LLVM_BIN/lit" -sv build/test --xunit-xml-output "$results" 2>&1 | tee build/lit-output.txt
lit_status=${PIPESTATUS[0]}

# Counts from lit's per-test results, not from the wording of its summary.
counts=$(python3 scripts/lit_summary.py "$results") || counts=""

if [[ -z "$counts" ]]; then
  echo "FAIL: lit wrote no results (status $lit_status; see build/lit-output.txt)"
  counts="0 1 0"
fi
read -r passed failed skipped <<<"$counts"
failed=$((failed + extra_failed))
# lit failing without a failed test (a configuration error) is still a failure.
if ((lit_status != 0 && failed == 0)); then
  echo "FAIL: lit exited with status $lit_status"
  failed=1
fi

summary="$passed passed, $failed failed"
if ((skipped > 0)); then
  summary+=", $skipped skipped"
fi
echo "$summary"
((failed == 0))
