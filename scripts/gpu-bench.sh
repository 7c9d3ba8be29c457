#!/usr/bin/env bash
# The GPU benchmark: the examples/gpu kernels as spmdc PTX against the same
# kernels in CUDA C++ (nvcc -O3), plus the examples/cuda-host program.
#
#   bash scripts/gpu-bench.sh prepare [OUT]  # here: PTX + host headers + sources into OUT
#                                       # (default build/gpu-bench/), every PTX checked with ptxas,
#                                       # the host code built with nvcc into OUT/bin-prebuilt
#   bash scripts/gpu-bench.sh run DIR [PTX_DIR]  # on the GPU machine: the benchmark (nvcc'd there
#                                       # unless DIR/bin-prebuilt has it), run on DIR/ptx or PTX_DIR
#
# SPMDC=path selects the compiler (default build/bin/spmdc), e.g. to time another build's PTX
# with the same benchmark binary: `run DIR OTHER/ptx`.
#
# `run` exits non-zero when a build fails or the spmdc and CUDA results disagree.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$(dirname "${BASH_SOURCE[0]}")/cuda-toolkit.sh"
kernels=(saxpy stencil mandelbrot options reduce math_ulp)

# nvcc and its flags for the benchmark; the same here (checked against the stub
# libcuda) and on the GPU machine.
nvcc_flags=(-O3 -arch=sm_90 -std=c++17)
nvcc="$cuda/bin/nvcc"

prepare() {
  local out="${1:-$root/build/gpu-bench}" spmdc="${SPMDC:-$root/build/bin/spmdc}" k
  [ -x "$spmdc" ] || { echo "prepare: build spmdc first ($spmdc)" >&2; exit 1; }
  rm -rf "$out" && mkdir -p "$out/src" "$out/ptx" "$out/cuda-host"
  out="$(cd "$out" && pwd)"
  for k in "${kernels[@]}"; do
    "$spmdc" --target=nvptx-sm_90 -O3 "$root/examples/gpu/$k.spmd" -o "$out/ptx/$k.ptx" \
      -h "$out/src/${k}_host.h" || { echo "prepare: spmdc failed on $k.spmd" >&2; exit 1; }
  done
  "$spmdc" --target=nvptx-sm_90 -O3 "$root/examples/cuda-host/saxpy.spmd" -o "$out/cuda-host/saxpy.ptx" \
    -h "$out/cuda-host/saxpy_host.h" || { echo "prepare: spmdc failed on cuda-host/saxpy.spmd" >&2; exit 1; }
  # Every PTX must assemble for sm_90; keep ptxas's register/spill report.
  : >"$out/ptxas.log"
  for p in "$out"/ptx/*.ptx "$out/cuda-host/saxpy.ptx"; do
    echo "== $p" >>"$out/ptxas.log"
    "$cuda/bin/ptxas" -arch=sm_90 -v "$p" -o /dev/null >>"$out/ptxas.log" 2>&1 ||
      { cat "$out/ptxas.log" >&2; echo "prepare: ptxas rejects $p" >&2; exit 1; }
  done
  # The kernels' logic first, on this CPU: built for the host as tasks
  # (examples/gpu/cpu_tasks.spmd) and launched as 1..64 tasks, against scalar
  # C++ (examples/gpu/cpu_check.cpp).
  local cpu="$root/build/gpu-bench-cpu" runtime="$root/build/lib/libspmdc_runtime.a"
  [ -f "$runtime" ] || { echo "prepare: build the runtime first (ninja -C build spmdc_runtime)" >&2; exit 1; }
  rm -rf "$cpu" && mkdir -p "$cpu"
  "$spmdc" --target=host -O2 "$root/examples/gpu/cpu_tasks.spmd" -o "$cpu/cpu_tasks.o" -h "$cpu/cpu_tasks.h" ||
    { echo "prepare: spmdc --target=host failed on cpu_tasks.spmd" >&2; exit 1; }
  if ! c++ -O2 -std=c++17 -ffp-contract=off -I"$cpu" "$root/examples/gpu/cpu_check.cpp" "$cpu/cpu_tasks.o" \
    "$runtime" -lpthread -o "$cpu/cpu_check" || ! "$cpu/cpu_check"; then
    echo "prepare: the kernels are wrong on the CPU" >&2
    exit 1
  fi
  rm -rf "$cpu"
  cp "$root"/examples/gpu/*.cu "$root"/examples/gpu/*.h "$root"/runtime/cuda/spmdc_cuda.h \
    "$root"/runtime/cuda/spmdc_cuda.c "$root"/examples/common/cuda_bench.h "$out/src/"
  cp "$root/examples/cuda-host/main.cpp" "$out/cuda-host/"
  # Compile and link the host code here too (libcuda from the toolkit's stubs),
  # so that `run` can fail only on the GPU itself.
  # The binaries stay (OUT/bin-prebuilt): they need only the driver's libcuda.so.1 there.
  local check="$out/bin-prebuilt"
  rm -rf "$check" && mkdir -p "$check"
  build_bench "$out" "$check" "-L$cuda/lib64/stubs" || { echo "prepare: the benchmark does not build" >&2; exit 1; }
  build_cuda_host "$out" "$check" "-L$cuda/lib64/stubs" || { echo "prepare: cuda-host does not build" >&2; exit 1; }
  rm -f "$check"/*.o
  echo "prepared ${#kernels[@]} kernel modules + cuda-host in $out (ptxas -arch=sm_90 ok; register use in ptxas.log)"
  grep -E 'spill|registers' "$out/ptxas.log" | sed 's/^ptxas info    : //' | sort | uniq -c | sort -rn | head -5
}

# build_bench DIR BIN_DIR [extra link flags] [parallel]: the benchmark binary BIN_DIR/bench.
build_bench() {
  local dir="$1" bin="$2" extra="${3:-}" parallel="${4:-}" pids=() f rc=0
  # On the GPU machine one nvcc per source in parallel (it has the cores, `run`
  # a deadline); here one at a time (shared build machine).
  for f in bench saxpy stencil mandelbrot options reduce; do
    if [ -n "$parallel" ]; then
      "$nvcc" "${nvcc_flags[@]}" -I"$dir/src" -c "$dir/src/$f.cu" -o "$bin/$f.o" &
      pids+=($!)
    else
      "$nvcc" "${nvcc_flags[@]}" -I"$dir/src" -c "$dir/src/$f.cu" -o "$bin/$f.o" || rc=1
    fi
  done
  gcc -O2 -std=gnu11 -I"$cuda/include" -c "$dir/src/spmdc_cuda.c" -o "$bin/spmdc_cuda.o" || rc=1
  for f in "${pids[@]}"; do wait "$f" || rc=1; done
  [ "$rc" -eq 0 ] || return 1
  # shellcheck disable=SC2086 # $extra is empty or one flag
  "$nvcc" "${nvcc_flags[@]}" -o "$bin/bench" "$bin"/{bench,saxpy,stencil,mandelbrot,options,reduce,spmdc_cuda}.o $extra -lcuda || return 1
  # The exhaustive error measurement of the GPU exp/log (examples/gpu/math_ulp.cu).
  "$nvcc" "${nvcc_flags[@]}" -I"$dir/src" -o "$bin/math_ulp" "$dir/src/math_ulp.cu" "$bin/spmdc_cuda.o" $extra -lcuda
}

build_cuda_host() {
  local dir="$1" bin="$2" extra="${3:-}"
  # shellcheck disable=SC2086
  g++ -O2 -std=c++17 -I"$dir/cuda-host" -I"$dir/src" -I"$cuda/include" "$dir/cuda-host/main.cpp" \
    "$bin/spmdc_cuda.o" -L"$cuda/lib64" $extra -lcuda -o "$bin/cuda-host-saxpy"
}

run() {
  local dir
  dir="$(cd "${1:?directory}" && pwd)"
  local ptx="${2:-$dir/ptx}"
  local bin="$dir/bin"
  local t0=$SECONDS
  if [ -x "$dir/bin-prebuilt/bench" ]; then
    bin="$dir/bin-prebuilt"
  else
    rm -rf "$bin" && mkdir -p "$bin"
    build_bench "$dir" "$bin" "" parallel || { echo "run: nvcc failed" >&2; exit 1; }
    build_cuda_host "$dir" "$bin" || { echo "run: cuda-host build failed" >&2; exit 1; }
    echo "built in $((SECONDS - t0)) s"
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null
  local rc=0
  echo "== examples/cuda-host"
  "$bin/cuda-host-saxpy" "$dir/cuda-host/saxpy.ptx" || rc=1
  echo "== examples/gpu benchmark"
  "$bin/bench" "$ptx" || rc=1
  echo "== exp/log error over every float (spmdc's GPU library against CUDA's expf/logf)"
  "$bin/math_ulp" "$ptx" || rc=1
  echo "finished in $((SECONDS - t0)) s"
  return "$rc"
}

case "${1:-}" in
prepare) prepare "${2:-}" ;;
run) run "${2:?directory}" "${3:-}" ;;
*) echo "usage: $0 prepare [OUT] | run DIR [PTX_DIR]" >&2; exit 2 ;;
esac
