#!/usr/bin/env bash
# The main job: builds spmdc, compiles the mandelbrot example for this CPU and to PTX
# for the GPU, runs it on the CPU against scalar C++ and shows the result; then
# compiles every example for x86 and NVPTX with a per-file summary.
#
# Usage: bash scripts/main-job.sh
# Per example (examples/**/*.spmd): check it (--syntax-only), dump its AST
# (--emit=ast, line count), then try x86 code generation (avx2-i32x8 object +
# header) and NVPTX code generation (PTX). Outputs and full compiler messages go
# to build/examples/. Exit status 0 when every example checks cleanly; a code
# generator that reports "not yet" is shown as such, a crash is a failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SPMDC_ROOT"

if ! bash scripts/setup.sh; then
  echo "main-job: setup or build failed (see above)" >&2
  exit 1
fi

spmdc=build/bin/spmdc

# 1. One example end to end: x86 object + header, PTX (checked by ptxas when the
#    CUDA toolkit is here), and a run on this CPU against scalar C++.
main=build/main-job
rm -rf "$main" && mkdir -p "$main"
echo "== mandelbrot: $spmdc --target=host examples/ispc/mandelbrot/mandelbrot.spmd"
"$spmdc" --target=host -O2 examples/ispc/mandelbrot/mandelbrot.spmd -o "$main/mandelbrot.o" \
  -h "$main/mandelbrot_ispc.h" || exit 1
echo "   x86 object: $main/mandelbrot.o ($(wc -c <"$main/mandelbrot.o") bytes), header $main/mandelbrot_ispc.h"
"$spmdc" --target=nvptx-sm_90 -O2 examples/gpu/mandelbrot.spmd -o "$main/mandelbrot.ptx" \
  -h "$main/mandelbrot_host.h" || exit 1
echo "   PTX: $main/mandelbrot.ptx ($(grep -c '' "$main/mandelbrot.ptx") lines; kernels: $(grep -o '\.entry [a-z_]*' "$main/mandelbrot.ptx" | cut -d' ' -f2 | tr '\n' ' '))"
ptxas=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || true)
if [[ -n "$ptxas" ]]; then
  "$ptxas" -arch=sm_90 "$main/mandelbrot.ptx" -o "$main/mandelbrot.cubin" && echo "   ptxas -arch=sm_90: ok"
else
  echo "   (no CUDA toolkit here: ptxas check skipped)"
fi
echo "== mandelbrot on this CPU (every x86 target it runs), checked against scalar C++:"
python3 scripts/bench-x86.py --small --examples mandelbrot --build-dir "$main/run" || exit 1
echo

# 2. Every example through both code generators.
# No example should take long to compile; a hang is reported like a crash.
limit_s=120
out=build/examples
rm -rf "$out"
mkdir -p "$out"

mapfile -t examples < <(find examples -name '*.spmd' | LC_ALL=C sort)
if ((${#examples[@]} == 0)); then
  echo "main-job: no examples under examples/" >&2
  exit 1
fi

# The first line of what the compiler said, without the "spmdc: error: " or
# "file:line:col: error: " prefix, for the summary table.
first_message() {
  sed -n '1{s/^[^ ]*: error: //;s/^spmdc: error: //;p;q}' "$1"
}

# Runs one code generation attempt; sets `result` to "ok", "refused" (the
# compiler said why, with status 1) or "CRASH", and notes what it said.
codegen() {
  local name="$1" log="$2"
  shift 2
  timeout "$limit_s" "$spmdc" "$@" >"$log" 2>&1
  local status=$?
  if ((status == 0)); then
    result=ok
  elif ((status == 1)); then
    result=refused
    local message
    message=$(first_message "$log")
    refusals["$message"]=$((${refusals["$message"]:-0} + 1))
  else
    result=CRASH
    if ((status == 124)); then
      notes+=("$name: compiler still running after ${limit_s}s (see $log)")
    else
      notes+=("$name: compiler exited with status $status (see $log)")
    fi
    crashed=$((crashed + 1))
  fi
}

printf '%-36s %-6s %5s %9s  %-10s %-10s\n' example check warn ast-lines x86 nvptx
notes=()
declare -A refusals=()
failed=0
crashed=0
for src in "${examples[@]}"; do
  stem="${src#examples/}"
  stem="${stem%.spmd}"
  log="$out/${stem//\//_}"

  timeout "$limit_s" "$spmdc" --syntax-only "$src" >"$log.check.txt" 2>&1
  check_status=$?
  warnings=$(grep -c ': warning: ' "$log.check.txt")
  if ((check_status == 0)); then
    check=ok
  else
    check=FAIL
    failed=$((failed + 1))
    if ((check_status == 1)); then
      notes+=("$src: $(grep -m1 ': error: ' "$log.check.txt" || first_message "$log.check.txt")")
    else
      notes+=("$src: the check ended with status $check_status (crash or hang; see $log.check.txt)")
    fi
  fi

  ast_lines=-
  if ((check_status == 0)) && timeout "$limit_s" "$spmdc" --emit=ast "$src" -o "$log.ast.txt" 2>"$log.ast.err"; then
    ast_lines=$(wc -l <"$log.ast.txt")
  fi

  codegen "$src (x86)" "$log.x86.txt" --target=avx2-i32x8 --emit=obj "$src" -o "$log.o" -h "$log.h"
  x86=$result
  codegen "$src (nvptx)" "$log.nvptx.txt" --target=nvptx --emit=ptx "$src" -o "$log.ptx"
  nvptx=$result
  printf '%-36s %-6s %5s %9s  %-10s %-10s\n' "$src" "$check" "$warnings" "$ast_lines" "$x86" "$nvptx"
done

echo
if ((${#notes[@]} > 0)); then
  echo "problems:"
  printf '  %s\n' "${notes[@]}"
  echo
fi
if ((${#refusals[@]} > 0)); then
  echo "code generation refused by the compiler (attempts: message):"
  for message in "${!refusals[@]}"; do
    printf '  %s: %s\n' "${refusals[$message]}" "$message"
  done
  echo
fi
echo "main-job: ${#examples[@]} examples, $((${#examples[@]} - failed)) checked cleanly," \
  "$failed failed to check, $crashed code generation crashes (outputs in $out/)"
((failed == 0 && crashed == 0))
