#!/usr/bin/env bash
# The GPU test run: the runtime tests (test/runtime/*.spmd) as PTX on a GPU,
# compared with their x86 results.
#
#   bash scripts/gpu-test.sh prepare [GLOB]  # here: PTX + expected outputs into build/gpu-tests/
#                                            # (GLOB: only test/runtime/GLOB.spmd, e.g. 'hfuse-*')
#   bash scripts/gpu-test.sh run DIR [JOBS]  # on the GPU machine: nvcc the driver, run JOBS
#                                            # tests at a time (default 4), compare
#
# `prepare` also makes the headers of examples/cuda-embed (the CUDA runtime-API
# program with the PTX embedded) the way spmdc_add_ptx does; `run` builds it with
# nvcc and runs it from a folder without the PTX (line `embed: PASS|FAIL`).
#
# `run` prints one line per test and ends with `N passed, N passed without fma
# only, N failed, N skipped`: a test whose output differs from x86's only by
# the rounding of fma (NVPTX contracts a*b+c, x86 does not) passes when built
# with --opt=disable-fma; its fma output is shown.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

prepare() {
  local out="$root/build/gpu-tests" spmdc="$root/build/bin/spmdc"
  rm -rf "$out" && mkdir -p "$out/src"
  cp "$root/test/gpu/driver.cpp" "$root/runtime/cuda/spmdc_cuda.h" "$root/runtime/cuda/spmdc_cuda.c" "$out/src/"
  local cxx
  cxx=$(command -v clang++-22 || command -v c++)
  for t in "$root"/test/runtime/${1:-*}.spmd; do
    local name
    name=$(basename "$t" .spmd)
    # Tests with their own RUN line (not the shared driver) are x86-only,
    # unless they state their 32-lane output in `// GPU-OUTPUT:` lines.
    local gpu_output=""
    if ! grep -q '%run-spmd' "$t"; then
      if ! grep -q '^// GPU-OUTPUT:' "$t"; then
        echo "not a shared-driver test" >"$out/$name.skip"
        continue
      fi
      gpu_output=1
    fi
    # The test's own flags (`// SPMDC-FLAGS: ...`, e.g. --hfuse=...), as run-spmd.py's.
    local flags
    flags=$(sed -n 's|^// SPMDC-FLAGS:||p' "$t")
    # shellcheck disable=SC2086 # the flags are words
    if ! "$spmdc" --target=nvptx-sm_90 "$t" $flags -o "$out/$name.ptx" 2>"$out/$name.err"; then
      head -1 "$out/$name.err" >"$out/$name.skip"
      rm -f "$out/$name.ptx"
      continue
    fi
    # NVPTX contracts a*b+c into fma, x86 does not: a test whose printed
    # digits show that rounding is re-run without fma (see `run`).
    "$spmdc" --target=nvptx-sm_90 --opt=disable-fma "$t" -o "$out/$name.nofma"
    if [ -n "$gpu_output" ]; then
      sed -n 's|^// GPU-OUTPUT: ||p' "$t" >"$out/$name.expected"
      continue
    fi
    python3 "$root/test/runtime/run-spmd.py" "$spmdc" "$root/build/lib/libspmdc_test_driver.a" \
      "$cxx" "$out/tmp/$name" "$t" 2>/dev/null | grep -v '^targets:' >"$out/$name.expected"
  done
  # The embedded-PTX example: the commands of spmdc_add_ptx (cmake/spmdcFunctions.cmake).
  mkdir -p "$out/embed"
  "$spmdc" --target=nvptx-sm_90 "$root/examples/cuda-embed/kernels.spmd" -o "$out/embed/kernels.ptx" \
    -h "$out/embed/kernels_host.h" &&
    cmake -DINPUT="$out/embed/kernels.ptx" -DOUTPUT="$out/embed/kernels_ptx.h" -DSYMBOL=kernels_ptx \
      -P "$root/cmake/spmdcEmbed.cmake" &&
    cp "$root/examples/cuda-embed/main.cu" "$out/embed/" && rm "$out/embed/kernels.ptx" ||
    { echo "cannot prepare examples/cuda-embed" >&2; exit 1; }
  echo "prepared $(ls "$out"/*.ptx | wc -l) PTX tests, $(ls "$out"/*.skip 2>/dev/null | wc -l) skipped, in $out"
}

# passes DIR NAME PTX: runs one test's PTX and compares with the x86 output.
passes() {
  "$1/driver" "$3" >"$1/$2.gpu" 2>"$1/$2.gpuerr" && diff -q "$1/$2.expected" "$1/$2.gpu" >/dev/null
}

# run_one DIR NAME: the test's verdict and details into DIR/NAME.result.
run_one() {
  local dir="$1" name="$2"
  if passes "$dir" "$name" "$dir/$name.ptx"; then
    echo "PASS $name" >"$dir/$name.result"
  elif cp "$dir/$name.gpu" "$dir/$name.fma.gpu" && passes "$dir" "$name" "$dir/$name.nofma"; then
    # Only the rounding of fma differs from x86: show where.
    { echo "PASS-NOFMA $name (passes with --opt=disable-fma; with fma it prints:)"
      diff "$dir/$name.expected" "$dir/$name.fma.gpu" | head -4; } >"$dir/$name.result"
  else
    { echo "FAIL $name"
      diff "$dir/$name.expected" "$dir/$name.gpu" | head -5
      head -3 "$dir/$name.gpuerr"; } >"$dir/$name.result"
  fi
}

run() {
  # Each test's context reserves a 64 KiB stack for every resident thread
  # (about 17 GB on an H100/H200): more than 4 at a time fail in cuCtxSetLimit.
  local dir="$1" jobs="${2:-4}" pass=0 nofma=0 fail=0 skip=0 running=0
  nvcc -O2 -o "$dir/driver" "$dir/src/driver.cpp" "$dir/src/spmdc_cuda.c" -I"$dir/src" -lcuda || exit 1
  # Each test is its own process (one warp each): several at a time.
  for ptx in "$dir"/*.ptx; do
    run_one "$dir" "$(basename "$ptx" .ptx)" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
      wait -n
      running=$((running - 1))
    fi
  done
  wait
  for ptx in "$dir"/*.ptx; do
    local result="$dir/$(basename "$ptx" .ptx).result"
    cat "$result"
    case "$(head -c 10 "$result")" in
    "PASS-NOFMA") nofma=$((nofma + 1)) ;;
    PASS*) pass=$((pass + 1)) ;;
    *) fail=$((fail + 1)) ;;
    esac
  done
  for s in "$dir"/*.skip; do
    [ -e "$s" ] || continue
    echo "SKIP $(basename "$s" .skip): $(cat "$s")"
    skip=$((skip + 1))
  done
  echo "$pass passed, $nofma passed without fma only, $fail failed, $skip skipped"
  local embed=FAIL
  if [ -d "$dir/embed" ]; then
    # Built and run in a folder holding no .ptx: the program carries its PTX.
    (cd "$dir/embed" && nvcc -O2 -arch=sm_90 -o cuda_embed main.cu && ./cuda_embed) && embed=PASS
    echo "embed: $embed (examples/cuda-embed, the CUDA runtime API with the PTX in the binary)"
  else
    echo "embed: not prepared"
  fi
  [ "$fail" -eq 0 ] && [ "$embed" = PASS ]
}

case "${1:-}" in
prepare) prepare "${2:-}" ;;
run) run "${2:?directory}" "${3:-}" ;;
*) echo "usage: $0 prepare [GLOB] | run DIR [JOBS]" >&2; exit 2 ;;
esac
