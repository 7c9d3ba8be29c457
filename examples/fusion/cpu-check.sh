#!/usr/bin/env bash
# The CPU check of the vertical-fusion examples: builds kernels.spmd (every
# chain apart and its `#pragma vfuse` kernel) for each x86 target, links it with
# cpu_check.cpp (scalar C++ references) and runs it. Prints
# `TARGET: cpu check: N passed, M failed` per target; exit status 1 on a failure.
# With --bench, prints each target's CPU table (apart vs fused) instead. --flag F
# (repeatable) passes F to spmdc, e.g. --flag --coarsen=vfuse_blur3_diff3:block=3 to
# run the fused stencil as 3 tasks per call (halos at the tasks' edges).
#
#   cpu-check.sh [--spmdc PATH] [--build-dir DIR] [--targets t1,t2|all|host] [--bench] [--flag F]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
spmdc="$root/build/bin/spmdc" dir="$root/build/fusion-cpu" targets=all mode=() flags=()
while [ $# -gt 0 ]; do
  case "$1" in
  --spmdc) spmdc="$2"; shift 2 ;;
  --build-dir) dir="$2"; shift 2 ;;
  --targets) targets="$2"; shift 2 ;;
  --bench) mode=(--bench); shift ;;
  --flag) flags+=("$2"); shift 2 ;;
  *) echo "cpu-check: unknown option $1" >&2; exit 2 ;;
  esac
done
runtime="$(dirname "$spmdc")/../lib/libspmdc_runtime.a"
cxx="$(command -v clang++-22 || command -v c++)"
if [ "$targets" = all ]; then
  targets="sse4-i32x4 avx2-i32x8 avx2-i32x16"
  grep -qw avx512f /proc/cpuinfo && targets="$targets avx512skx-x16"
elif [ "$targets" = host ]; then
  targets=avx2-i32x8
fi
rc=0
for t in ${targets//,/ }; do
  d="$dir/$t"
  mkdir -p "$d"
  "$spmdc" --target="$t" -O2 ${flags[@]+"${flags[@]}"} "$here/kernels.spmd" -o "$d/kernels.o" -h "$d/kernels.h" ||
    { echo "$t: FAILED to compile kernels.spmd"; rc=1; continue; }
  "$cxx" -O2 -std=c++17 -ffp-contract=off -I"$d" -I"$here" "$here/cpu_check.cpp" "$d/kernels.o" \
    "$runtime" -lpthread -o "$d/cpu_check" || { echo "$t: FAILED to link"; rc=1; continue; }
  if [ ${#mode[@]} -gt 0 ]; then
    echo "### $t"
    "$d/cpu_check" "${mode[@]}" || rc=1
    continue
  fi
  "$d/cpu_check" >"$d/log.txt" 2>&1
  s=$?
  grep FAIL "$d/log.txt"
  echo "$t: $(tail -1 "$d/log.txt")"
  [ $s -eq 0 ] || rc=1
done
exit $rc
