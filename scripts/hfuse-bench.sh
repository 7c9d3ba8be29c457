#!/usr/bin/env bash
# The horizontal-fusion benchmark (docs/hfuse-examples.md): the HFuse example
# pairs fused by spmdc (--hfuse), tuned and timed on the GPU against the two
# kernels launched serially and on two streams.
#
#   bash scripts/hfuse-bench.sh prepare [DIR]   # here: CPU check, every candidate's cubin
#                                               # (scripts/hfuse-tune.py build), host sources
#   bash scripts/hfuse-bench.sh run DIR [OUT]   # on the GPU machine: nvcc, tune, time, table
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$(dirname "${BASH_SOURCE[0]}")/cuda-toolkit.sh"
nvcc_flags=(-O3 -arch=sm_90 -std=c++17)
# The pairs: A,B as scripts/hfuse-tune.py and bench.cu name them.
pairs=(batchnorm_stats,upsample_bilinear2x batchnorm_stats,histogram1d histogram1d,im2col3x3
  histogram1d,maxpool2d maxpool2d,upsample_bilinear2x memhash,computehash)

build_host() {
  local dir="$1" bin="$2" extra="${3:-}"
  "$cuda/bin/nvcc" "${nvcc_flags[@]}" -I"$dir/src" -c "$dir/src/bench.cu" -o "$bin/bench.o" || return 1
  gcc -O2 -std=gnu11 -I"$cuda/include" -c "$dir/src/spmdc_cuda.c" -o "$bin/spmdc_cuda.o" || return 1
  # shellcheck disable=SC2086 # $extra is empty or one flag
  "$cuda/bin/nvcc" "${nvcc_flags[@]}" -o "$bin/bench" "$bin/bench.o" "$bin/spmdc_cuda.o" $extra -lcuda
}

prepare() {
  local out="${1:-$root/build/hfuse-bench}" spmdc="$root/build/bin/spmdc" ex="$root/examples/hfuse"
  [ -x "$spmdc" ] || { echo "prepare: build spmdc first ($spmdc)" >&2; exit 1; }
  bash "$root/examples/hfuse/cpu-check.sh" --spmdc "$spmdc" --build-dir "$root/build/hfuse-cpu" \
    --targets host --fused >/dev/null || { echo "prepare: the CPU check fails" >&2; exit 1; }
  rm -rf "$out" && mkdir -p "$out/src"
  "$spmdc" --target=nvptx-sm_90 -O3 "$ex/kernels.spmd" -o "$out/apart.ptx" || exit 1
  "$cuda/bin/ptxas" -arch=sm_90 -v "$out/apart.ptx" -o "$out/apart.cubin" 2>"$out/ptxas-apart.log" ||
    { cat "$out/ptxas-apart.log" >&2; exit 1; }
  local p srcs=()
  for f in batchnorm histogram maxpool upsample im2col memhash computehash; do srcs+=(--source "$ex/$f.spmd"); done
  for p in "${pairs[@]}"; do
    python3 "$root/scripts/hfuse-tune.py" build --pair "$p" "${srcs[@]}" --out "$out" \
      --spmdc "$spmdc" --ptxas "$cuda/bin/ptxas" || exit 1
  done
  # The device needs only the cubins and manifests.
  find "$out" -name '*.ptx' -delete
  cp "$ex/bench.cu" "$root/runtime/cuda/spmdc_cuda.h" "$root/runtime/cuda/spmdc_cuda.c" \
    "$root/examples/common/cuda_bench.h" "$out/src/"
  cp "$root/scripts/hfuse-bench.sh" "$root/scripts/cuda-toolkit.sh" "$out/"
  local check="$root/build/hfuse-bench-check"
  rm -rf "$check" && mkdir -p "$check"
  build_host "$out" "$check" "-L$cuda/lib64/stubs" || { echo "prepare: bench.cu does not build" >&2; exit 1; }
  rm -rf "$check"
  echo "prepared $out ($(du -sh "$out" | cut -f1))"
}

run() {
  local dir out
  dir="$(cd "${1:?directory}" && pwd)"
  out="${2:-$dir/out}"
  mkdir -p "$out" "$dir/bin"
  local t0=$SECONDS
  build_host "$dir" "$dir/bin" || { echo "run: nvcc failed" >&2; exit 1; }
  echo "built in $((SECONDS - t0)) s"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null
  "$dir/bin/bench" "$dir" --out "$out" "${@:3}"
  local rc=$?
  echo "finished in $((SECONDS - t0)) s"
  return "$rc"
}

case "${1:-}" in
prepare) prepare "${2:-}" ;;
run) run "${@:2}" ;;
*) echo "usage: $0 prepare [DIR] | run DIR [OUT] [bench options]" >&2; exit 2 ;;
esac
