#!/usr/bin/env bash
# The CPU check of the HFuse examples: builds cpu_tasks.spmd (the kernels as
# tasks) and, with --fused, kernels.spmd with one --hfuse per pair (the fused
# exports) for each x86 target, links them with cpu_check.cpp (scalar C++
# references) and runs it. Prints `TARGET: cpu check: N passed, M failed` per
# target; exit status 1 if anything fails.
#
#   cpu-check.sh [--spmdc PATH] [--build-dir DIR] [--targets t1,t2|all|host] [--fused]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
spmdc="$root/build/bin/spmdc" dir="$root/build/hfuse-cpu" targets=all fused=0
while [ $# -gt 0 ]; do
  case "$1" in
  --spmdc) spmdc="$2"; shift 2 ;;
  --build-dir) dir="$2"; shift 2 ;;
  --targets) targets="$2"; shift 2 ;;
  --fused) fused=1; shift ;;
  *) echo "cpu-check: unknown option $1" >&2; exit 2 ;;
  esac
done
runtime="$(dirname "$spmdc")/../lib/libspmdc_runtime.a"
cxx="$(command -v clang++-22 || command -v c++)"
if [ "$targets" = all ]; then
  targets="sse4-i32x4 avx2-i32x8 avx2-i32x16"
  grep -qw avx512f /proc/cpuinfo && targets="$targets avx512skx-x16"
fi
# The pairs of docs/hfuse-examples.md; cpu_check.cpp checks each hfuse_A_B.
pairs=(batchnorm_stats,upsample_bilinear2x batchnorm_stats,histogram1d histogram1d,im2col3x3
  histogram1d,maxpool2d maxpool2d,upsample_bilinear2x memhash,computehash)
hfuse_flags=()
for p in "${pairs[@]}"; do hfuse_flags+=("--hfuse=$p"); done
mkdir -p "$dir"
rc=0
for t in ${targets//,/ }; do
  d="$dir/$t"
  mkdir -p "$d"
  objs=("$d/cpu_tasks.o") defs=()
  "$spmdc" --target="$t" -O2 "$here/cpu_tasks.spmd" -o "$d/cpu_tasks.o" -h "$d/cpu_tasks.h" ||
    { echo "$t: FAILED to compile cpu_tasks.spmd"; rc=1; continue; }
  if [ "$fused" = 1 ]; then
    "$spmdc" --target="$t" -O2 "$here/kernels.spmd" "${hfuse_flags[@]}" -o "$d/fused.o" -h "$d/fused.h" ||
      { echo "$t: FAILED to compile the fused pairs"; rc=1; continue; }
    objs+=("$d/fused.o") defs+=(-DHFUSE_FUSED)
  fi
  "$cxx" -O2 -std=c++17 -ffp-contract=off "${defs[@]}" -I"$d" -I"$here" "$here/cpu_check.cpp" "${objs[@]}" \
    "$runtime" -lpthread -o "$d/cpu_check" || { echo "$t: FAILED to link"; rc=1; continue; }
  "$d/cpu_check" >"$d/log.txt" 2>&1
  s=$?
  grep FAIL "$d/log.txt"
  echo "$t: $(tail -1 "$d/log.txt")"
  [ $s -eq 0 ] || rc=1
done
exit $rc
