#!/usr/bin/env bash
# Builds the front-end fuzzer (build-fuzz/) and fuzzes for the given number of seconds.
#
# Usage: bash scripts/fuzz.sh SECONDS [extra libFuzzer flags]
# Seeds: fuzz/corpus (read only). New inputs: build-fuzz/corpus-new (kept between
# runs). Crashes, hangs and out-of-memory inputs: fuzz/findings/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ $# -lt 1 || ! "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: bash scripts/fuzz.sh SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
seconds="$1"
shift

spmdc_install_missing_packages
spmdc_build_fuzzer

cd "$SPMDC_ROOT"
scratch=build-fuzz/corpus-new
mkdir -p "$scratch" fuzz/findings
echo "fuzz: ${seconds}s; new inputs in $scratch, findings in fuzz/findings/"
status=0
# The first directory receives new inputs; the committed corpus is only read.
build-fuzz/bin/spmdc-fuzz-frontend "$scratch" fuzz/corpus \
  -dict=fuzz/dict -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$seconds" -artifact_prefix=fuzz/findings/ -print_final_stats=1 "$@" ||
  status=$?
if ((status != 0)); then
  echo "fuzz: the fuzzer stopped with status $status; reproduce with" \
    "build-fuzz/bin/spmdc-fuzz-frontend fuzz/findings/<file>" >&2
fi
exit "$status"
