#!/usr/bin/env bash
# The GPU part of the CREV benchmark (docs/crev.md): per example (string matching, book
# filter, DFS, Bellman-Ford, connected components, quicksort and mergesort with bitonic steps),
# spmdc's crev kernel (PTX) against CUDA dynamic parallelism (a child launch per thread) and
# the naive per-thread CUDA loop, plus spmdc's PAR kernel, all checked against a scalar
# reference before timing.
#
#   bash scripts/gpu-bench-crev.sh prepare [OUT]   # here: PTX + host headers + sources into OUT
#                                                  # (default build/gpu-bench-crev); kernels
#                                                  # checked on this CPU, PTX by ptxas, the host
#                                                  # code compiled and linked by nvcc
#   bash scripts/gpu-bench-crev.sh run DIR [--ptx PTX_DIR] [bench options]   # on the GPU
#                                                  # machine: nvcc (unless prepare's
#                                                  # DIR/bin-prebuilt has the binary), run
# SPMDC=path selects the compiler for prepare (default build/bin/spmdc).
#
# Bench options: --quick (small inputs), --alphabet N, --records N, --examples a,b (names as
# above: string_match, book_filter, dfs, bellman_ford, connected_components, quicksort_bitonic,
# mergesort_bitonic).
# `run` exits non-zero when a build fails or any version disagrees with the reference.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$(dirname "${BASH_SOURCE[0]}")/cuda-toolkit.sh"
nvcc="$cuda/bin/nvcc"
nvcc_flags=(-O3 -arch=sm_90 -std=c++17)
kernels=(string_match book_filter dfs bellman_ford connected_components quicksort_bitonic
  mergesort_bitonic)

prepare() {
  local out="${1:-$root/build/gpu-bench-crev}" spmdc="${SPMDC:-$root/build/bin/spmdc}" k
  local runtime="$root/build/lib/libspmdc_runtime.a"
  [ -x "$spmdc" ] || { echo "prepare: build spmdc first ($spmdc)" >&2; exit 1; }
  [ -f "$runtime" ] || { echo "prepare: build the runtime first (ninja -C build spmdc_runtime)" >&2; exit 1; }
  rm -rf "$out" && mkdir -p "$out/src" "$out/ptx"
  out="$(cd "$out" && pwd)"
  # The kernels' logic on this CPU first: built for the host as tasks and launched as 1..64
  # tasks (a task standing for a warp, the graph kernels under bench.cu's host loops) against
  # the scalar references.
  local cpu="$out/cpu-check"
  mkdir -p "$cpu"
  "$spmdc" --target=host -O2 "$root/examples/crev/gpu/cpu_tasks.spmd" -o "$cpu/cpu_tasks.o" \
    -h "$cpu/cpu_tasks.h" || { echo "prepare: spmdc --target=host failed on cpu_tasks.spmd" >&2; exit 1; }
  if ! c++ -O2 -std=c++17 -fopenmp -I"$cpu" -I"$root/examples/crev/common" "$root/examples/crev/gpu/cpu_check.cpp" "$cpu/cpu_tasks.o" \
    "$runtime" -lpthread -o "$cpu/cpu_check" || ! "$cpu/cpu_check" >"$cpu/cpu_check.log"; then
    cat "$cpu/cpu_check.log" >&2 2>/dev/null
    echo "prepare: the crev GPU kernels are wrong on the CPU" >&2
    exit 1
  fi
  tail -1 "$cpu/cpu_check.log"
  rm -rf "$cpu"
  for k in "${kernels[@]}"; do
    "$spmdc" --target=nvptx-sm_90 -O3 "$root/examples/crev/gpu/$k.spmd" -o "$out/ptx/$k.ptx" \
      -h "$out/src/${k}_host.h" || { echo "prepare: spmdc failed on $k.spmd" >&2; exit 1; }
  done
  : >"$out/ptxas.log"
  for k in "${kernels[@]}"; do
    echo "== $k.ptx" >>"$out/ptxas.log"
    "$cuda/bin/ptxas" -arch=sm_90 -v "$out/ptx/$k.ptx" -o /dev/null >>"$out/ptxas.log" 2>&1 ||
      { cat "$out/ptxas.log" >&2; echo "prepare: ptxas rejects $k.ptx" >&2; exit 1; }
  done
  cp "$root"/examples/crev/gpu/{bench.cu,cuda_naive.cu,cuda_launch.cu,kernels_cuda.h,inputs.h} \
    "$root"/runtime/cuda/spmdc_cuda.{h,c} "$root"/examples/common/cuda_bench.h \
    "$root"/examples/crev/common/{rng.h,graph.h} "$out/src/"
  cp "$root/scripts/gpu-bench-crev.sh" "$root/scripts/cuda-toolkit.sh" "$out/"
  # Build here too (libcuda from the toolkit's stubs), so that `run` can fail only on the GPU.
  # The binary stays (OUT/bin-prebuilt): it needs only the driver's libcuda.so.1 there.
  local check="$out/bin-prebuilt"
  mkdir -p "$check"
  build_bench "$out" "$check" "-L$cuda/lib64/stubs" || { echo "prepare: the benchmark does not build" >&2; exit 1; }
  rm -f "$check"/*.o
  echo "prepared ${#kernels[@]} spmdc modules + CUDA twins in $out (ptxas -arch=sm_90 ok)"
  # One line per function: entries with their registers, called functions (the recursive
  # sorts) with their frames.
  awk '/Function properties for/ { name = $NF } /stack frame/ { frame = $0; sub(/^ +/, "", frame) }
       /Used [0-9]+ registers/ { sub(/.*Used /, "Used "); print "  " name ": " frame "; " $0; frame = "" }
       /stack frame/ && name !~ /_spmd$/ { print "  " name " (called): " frame }' "$out/ptxas.log"
}

# build_bench DIR BIN_DIR [extra link flags] [parallel]: the benchmark binary BIN_DIR/bench.
# The Launch (dynamic parallelism) file needs relocatable device code and the device runtime.
build_bench() {
  local dir="$1" bin="$2" extra="${3:-}" parallel="${4:-}" rc=0 pids=() p
  local omp=(-Xcompiler -fopenmp)
  # The scalar references use OpenMP where the host compiler has it.
  echo 'int main(){}' >"$bin/omp.cpp"
  c++ -fopenmp "$bin/omp.cpp" -o "$bin/omp" 2>/dev/null || omp=()
  compile() { "$nvcc" "${nvcc_flags[@]}" "${omp[@]}" -I"$dir/src" "$@"; }
  if [ -n "$parallel" ]; then
    compile -c "$dir/src/bench.cu" -o "$bin/bench.o" &
    pids+=($!)
    compile -c "$dir/src/cuda_naive.cu" -o "$bin/cuda_naive.o" &
    pids+=($!)
    compile -rdc=true -c "$dir/src/cuda_launch.cu" -o "$bin/cuda_launch.o" &
    pids+=($!)
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
  else
    compile -c "$dir/src/bench.cu" -o "$bin/bench.o" || rc=1
    compile -c "$dir/src/cuda_naive.cu" -o "$bin/cuda_naive.o" || rc=1
    compile -rdc=true -c "$dir/src/cuda_launch.cu" -o "$bin/cuda_launch.o" || rc=1
  fi
  gcc -O2 -std=gnu11 -I"$cuda/include" -c "$dir/src/spmdc_cuda.c" -o "$bin/spmdc_cuda.o" || rc=1
  [ "$rc" -eq 0 ] || return 1
  # shellcheck disable=SC2086 # $extra is empty or one flag
  "$nvcc" "${nvcc_flags[@]}" "${omp[@]}" -rdc=true -o "$bin/bench" \
    "$bin"/{bench,cuda_naive,cuda_launch,spmdc_cuda}.o $extra -lcuda -lcudadevrt
}

run() {
  local dir
  dir="$(cd "${1:?directory}" && pwd)"
  shift
  local bin="$dir/bin" t0=$SECONDS ptx="$dir/ptx"
  if [ "${1:-}" = "--ptx" ]; then # another build's PTX, timed with this benchmark binary
    ptx="$2"
    shift 2
  fi
  if [ -x "$dir/bin-prebuilt/bench" ]; then
    bin="$dir/bin-prebuilt"
  else
    rm -rf "$bin" && mkdir -p "$bin"
    build_bench "$dir" "$bin" "" parallel || { echo "run: nvcc failed" >&2; exit 1; }
    echo "built in $((SECONDS - t0)) s"
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null
  local rc=0
  "$bin/bench" "$ptx" "$@" || rc=1
  echo "finished in $((SECONDS - t0)) s"
  return "$rc"
}

case "${1:-}" in
prepare) prepare "${2:-}" ;;
run)
  shift
  run "$@"
  ;;
*) echo "usage: $0 prepare [OUT] | run DIR [bench options]" >&2; exit 2 ;;
esac
