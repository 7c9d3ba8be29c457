#!/usr/bin/env bash
# The vertical-fusion benchmark (docs/fusion.md): the examples of examples/fusion run
# apart, fused by spmdc (#pragma vfuse) and fused by hand in CUDA, checked against the
# scalar references and timed; on the CPU, apart against fused per x86 target.
#
#   bash scripts/fusion-bench.sh cpu [TARGETS]      # here: the CPU table (default host target)
#   bash scripts/fusion-bench.sh prepare [DIR]      # here: PTX (ptxas-checked), host sources
#   bash scripts/fusion-bench.sh run DIR            # on the GPU machine: nvcc, check, time, table
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nvcc_flags=(-O3 -arch=sm_90 -std=c++17)

prepare() {
  source "$root/scripts/cuda-toolkit.sh"
  local out="${1:-$root/.device-carry/fusion-bench}" spmdc="$root/build/bin/spmdc" ex="$root/examples/fusion"
  [ -x "$spmdc" ] || { echo "prepare: build spmdc first ($spmdc)" >&2; exit 1; }
  bash "$ex/cpu-check.sh" --spmdc "$spmdc" --build-dir "$root/build/fusion-cpu" --targets host >/dev/null ||
    { echo "prepare: the CPU check fails" >&2; exit 1; }
  rm -rf "$out" && mkdir -p "$out/src"
  # The default build: the cost model's choices (--vfuse-report, printed next to the
  # table by `run`) and the header whose constants give the model's launch coarsening.
  "$spmdc" --target=nvptx-sm_90 -O3 "$ex/kernels.spmd" -o "$out/kernels.ptx" -h "$out/src/kernels_host.h" \
    --vfuse-report 2>"$out/model.txt" || { cat "$out/model.txt" >&2; exit 1; }
  # The tuning candidates: every fused kernel thread-coarsened by c = 1, 2, 4 (the
  # launch coarsening k is the bench's); c = 4 also block-coarsens the map chain's
  # kernels apart by 4 (checked on the GPU against the plain launch).
  local fused=(map1_map2_map3_map4_map5 bias_add_gelu_dropout row_max_row_expsum_row_divide
    ln_mean_ln_var_ln_normalize row_sum_row_scale blur3_diff3) c k
  # The stencil's composition is a candidate too: the c builds compose its neighbour
  # reads by blocks (a tile), kernels-warp.ptx by warps (lane shuffles; no `foreach`
  # left to coarsen, so c = 1 only).
  for c in 1 2 4; do
    local coarsen=(--vfuse=blur3,diff3:temp=b:compose=block)
    for k in "${fused[@]}"; do coarsen+=("--coarsen=vfuse_$k:$c"); done
    [ "$c" = 4 ] && for k in map1 map2 map3 map4 map5; do coarsen+=("--coarsen=$k:block=4"); done
    "$spmdc" --target=nvptx-sm_90 -O3 "$ex/kernels.spmd" "${coarsen[@]}" -o "$out/kernels-c$c.ptx" || exit 1
  done
  "$spmdc" --target=nvptx-sm_90 -O3 "$ex/kernels.spmd" --vfuse=blur3,diff3:temp=b:compose=warp \
    -o "$out/kernels-warp.ptx" || exit 1
  # Registers and occupancy of every build (ptxas -v), next to the model's estimate.
  for k in kernels kernels-c1 kernels-c2 kernels-c4 kernels-warp; do
    "$cuda/bin/ptxas" -arch=sm_90 -v "$out/$k.ptx" -o /dev/null 2>"$out/ptxas-$k.log" ||
      { cat "$out/ptxas-$k.log" >&2; exit 1; }
  done
  for k in "${fused[@]}"; do
    printf 'ptxas registers of vfuse_%s:' "$k"
    for c in kernels kernels-c1 kernels-c2 kernels-c4 kernels-warp; do
      [ "$c" = kernels-warp ] && [ "$k" != blur3_diff3 ] && continue
      printf ' %s %s' "$(case "$c" in kernels) echo default ;; kernels-warp) echo warp ;; *) echo "c=${c#kernels-c}" ;; esac)" \
        "$(awk -v f="'vfuse_$k'" '/Compiling entry function/ { on = index($0, f) > 0 }
          on && /Used [0-9]+ registers/ { sub(/.*Used /, ""); sub(/ registers.*/, ""); print; exit }' "$out/ptxas-$c.log")"
    done
    echo
  done >"$out/registers.txt"
  cp "$ex/gpu/bench.cu" "$ex/gpu/kernels_cuda.cuh" "$ex/reference.h" "$root/runtime/cuda/spmdc_cuda.h" \
    "$root/runtime/cuda/spmdc_cuda.c" "$root/examples/common/cuda_bench.h" "$out/src/"
  cp "$root/scripts/fusion-bench.sh" "$root/scripts/cuda-toolkit.sh" "$out/"
  "$cuda/bin/nvcc" "${nvcc_flags[@]}" -I"$out/src" -c "$out/src/bench.cu" -o /dev/null ||
    { echo "prepare: bench.cu does not compile" >&2; exit 1; }
  echo "prepared $out ($(du -sh "$out" | cut -f1))"
}

run() {
  source "$(dirname "${BASH_SOURCE[0]}")/cuda-toolkit.sh"
  local dir
  dir="$(cd "${1:?directory}" && pwd)"
  mkdir -p "$dir/bin"
  "$cuda/bin/nvcc" "${nvcc_flags[@]}" -I"$dir/src" -c "$dir/src/bench.cu" -o "$dir/bin/bench.o" || exit 1
  gcc -O2 -I"$cuda/include" -c "$dir/src/spmdc_cuda.c" -o "$dir/bin/spmdc_cuda.o" || exit 1
  "$cuda/bin/nvcc" "${nvcc_flags[@]}" -o "$dir/bin/bench" "$dir/bin/bench.o" "$dir/bin/spmdc_cuda.o" -lcuda || exit 1
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null
  sed 's/^.*remark: /model: /' "$dir/model.txt"
  cat "$dir/registers.txt"
  "$dir/bin/bench" "$dir"
}

case "${1:-}" in
cpu) bash "$root/examples/fusion/cpu-check.sh" --bench --targets "${2:-host}" ;;
prepare) prepare "${2:-}" ;;
run) run "${2:-}" ;;
*) echo "usage: $0 cpu [TARGETS] | prepare [DIR] | run DIR" >&2; exit 2 ;;
esac
