#!/usr/bin/env bash
# Campaigns on another x86 machine that has no LLVM, e.g. the GPU machine's 16 cores: the
# x86 differential campaign (difftest.py) and the whole-pipeline fuzzer. `prepare` bundles
# this spmdc, ISPC and the shared libraries both need (libLLVM, libclang-cpp, libz3 and the
# small ones under them) into DIR; `run`, there, unpacks them into /tmp and runs difftest.py
# from this tree for SECONDS. `prepare-fuzz` bundles build-fuzz's spmdc-fuzz-pipeline (ASan,
# UBSan), the same libraries and its seeds; `fuzz`, there, runs WORKERS fuzzers for SECONDS.
#
#   bash tools/difftest/remote-campaign.sh prepare DIR            # here (about 60 MB, xz)
#   bash tools/difftest/remote-campaign.sh run DIR OUT SEED SECONDS [JOBS]   # there
#   bash tools/difftest/remote-campaign.sh prepare-fuzz DIR       # here (about 58 MB)
#   bash tools/difftest/remote-campaign.sh fuzz DIR OUT SECONDS [WORKERS] [SEED]   # there
#
# `run` writes OUT/tools.txt (versions, CPU), OUT/difftest.log (the summary),
# OUT/results.json and OUT/findings/ (each reduced for 60 s). `fuzz` writes OUT/summary.txt
# (executions, each worker's exits), OUT/findings/ (crash-*, timeout-*, oom-*: findings;
# slow-unit-*: inputs over 10 s, not failures), OUT/logs.tar.xz and OUT/new-corpus.tar.xz.
# The machine's own copies of the small libraries are used where it has them (ldd decides),
# ours otherwise.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# DIR/libs.tar.xz: every library BINARY and libLLVM load, but the C/C++ runtime every Linux has.
bundle_libs() {
  local dir="$1" binary="$2"
  mkdir -p "$dir" && rm -rf "$dir/libs" && mkdir -p "$dir/libs"
  ldd "$binary" /usr/lib/llvm-22/lib/libLLVM.so.22.1 | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' | while read -r lib; do
      cp -L "$lib" "$dir/libs/"
    done
  # ICU's data (30 MB) only travels with libxml2's ICU, which the machine may have itself.
  rm -f "$dir"/libs/libicu*
  tar cf - -C "$dir/libs" . | xz -6 -T2 > "$dir/libs.tar.xz" && rm -rf "$dir/libs"
}

# Unpacks DIR/libs.tar.xz into LIB/core (the big three) and LIB/sys (the rest).
unpack_libs() {
  local dir="$1" lib="$2"
  rm -rf "$lib" && mkdir -p "$lib/core" "$lib/sys" && tar xJf "$dir/libs.tar.xz" -C "$lib/sys" || exit 1
  mv "$lib"/sys/libLLVM.so.* "$lib"/sys/libclang-cpp.so.* "$lib"/sys/libz3.so.* "$lib/core/"
}

# The LD_LIBRARY_PATH for the binaries under LIB: the machine's small libraries where it has them.
library_path() {
  local lib="$1"; shift
  if LD_LIBRARY_PATH="$lib/core" ldd "$@" | grep -q 'not found'; then
    echo "$lib/core:$lib/sys"
  else
    echo "$lib/core"
  fi
}

prepare() {
  local dir="$1" spmdc="$root/build/bin/spmdc" ispc="${ISPC:-$root/../shared/ispc/ispc}"
  [ -x "$spmdc" ] || { echo "prepare: build spmdc first" >&2; exit 1; }
  [ -f "$(dirname "$ispc")/ispc.xz" ] || { echo "prepare: no ISPC at $ispc" >&2; exit 1; }
  bundle_libs "$dir" "$spmdc"
  xz -6 -T2 -c "$spmdc" > "$dir/spmdc.xz"
  cp "$(dirname "$ispc")/ispc.xz" "$dir/ispc.xz"
  du -sh "$dir"
}

run() {
  local dir out start secs jobs lib=/tmp/spmdc-remote-campaign
  dir="$(cd "$1" && pwd)"; out="$2"; start="$3"; secs="$4"; jobs="${5:-$(nproc)}"
  mkdir -p "$out"
  if [ ! -x "$lib/spmdc.bin" ] || [ "$dir/spmdc.xz" -nt "$lib/spmdc.bin" ]; then
    unpack_libs "$dir" "$lib"
    xz -dc "$dir/spmdc.xz" > "$lib/spmdc.bin" && xz -dc "$dir/ispc.xz" > "$lib/ispc.bin" &&
      chmod +x "$lib"/*.bin || exit 1
  fi
  local path
  path="$(library_path "$lib" "$lib/spmdc.bin" "$lib/ispc.bin")"
  for t in spmdc ispc; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/%s.bin "$@"\n' "$path" "$lib" "$t" > "$lib/$t"
    chmod +x "$lib/$t"
  done
  { "$lib/spmdc" --version | head -1; "$lib/ispc" --version | head -1
    "$lib/spmdc" --print-host-targets | tr '\n' ' '; echo; nproc
    grep -m1 'model name' /proc/cpuinfo; } > "$out/tools.txt" 2>&1
  if LD_LIBRARY_PATH="$path" ldd "$lib/spmdc.bin" "$lib/ispc.bin" | grep 'not found' >> "$out/tools.txt"; then
    echo "remote-campaign: a library is missing (tools.txt)" >&2; exit 1
  fi
  python3 "$root/tools/difftest/difftest.py" --spmdc "$lib/spmdc" --ispc "$lib/ispc" --batch 20 \
    --jobs "$jobs" --count 1000000 --seed-start "$start" --seconds "$secs" \
    --targets avx2-i32x8,sse4-i32x4 --ispc-opt 1 --reduce-seconds 60 \
    --json "$out/results.json" --findings "$out/findings" > "$out/difftest.log" 2>&1
  local rc=$?
  echo "difftest exit $rc" >> "$out/difftest.log"
  return $rc
}

# Seeds: the committed corpus, every .spmd/.ispc of test/ and examples/ under 16 KB, and
# GENERATED programs of tools/difftest/gen.py (valid, deep; seeds 500000 on).
prepare_fuzz() {
  local dir="$1" fuzzer="$root/build-fuzz/bin/spmdc-fuzz-pipeline" generated="${GENERATED:-300}"
  [ -x "$fuzzer" ] || { echo "prepare-fuzz: build it first (scripts/fuzz.sh)" >&2; exit 1; }
  bundle_libs "$dir" "$fuzzer"
  xz -6 -T2 -c "$fuzzer" > "$dir/fuzz-pipeline.xz"
  cp "$root/fuzz/dict" "$dir/dict"
  local seeds="$dir/seeds" i=0 f s
  rm -rf "$seeds" && mkdir -p "$seeds"
  for f in "$root"/fuzz/corpus/*; do cp "$f" "$seeds/corpus-$(basename "$f")"; done
  while read -r f; do
    cp "$f" "$seeds/$(printf %05d $i)-$(basename "$f")"; i=$((i + 1))
  done < <(cd "$root" && find test examples \( -name '*.spmd' -o -name '*.ispc' \) -size -16k | sort)
  for ((s = 500000; s < 500000 + generated; s++)); do
    python3 "$root/tools/difftest/gen.py" "$s" > "$seeds/gen-$s.ispc"
  done
  tar cf - -C "$seeds" . | xz -6 -T2 > "$dir/seeds.tar.xz" && rm -rf "$seeds"
  du -sh "$dir"
}

# WORKERS independent libFuzzer processes, each on its own core with its own shard of the
# seeds and its own -seed; one that stops on a finding starts again for the time left.
fuzz() {
  local dir out secs workers base lib=/tmp/spmdc-remote-fuzz work=/tmp/spmdc-remote-fuzz-work
  dir="$(cd "$1" && pwd)"; out="$2"; secs="$3"; workers="${4:-$(nproc)}"; base="${5:-1000}"
  mkdir -p "$out/findings" "$out/logs"
  unpack_libs "$dir" "$lib"
  xz -dc "$dir/fuzz-pipeline.xz" > "$lib/fuzz.bin" && chmod +x "$lib/fuzz.bin" || exit 1
  local path w i=0 f
  path="$(library_path "$lib" "$lib/fuzz.bin")"
  rm -rf "$work" && mkdir -p "$work/seeds" && tar xJf "$dir/seeds.tar.xz" -C "$work/seeds" || exit 1
  for ((w = 0; w < workers; w++)); do mkdir -p "$work/shard$w" "$work/new$w"; done
  for f in "$work"/seeds/*; do mv "$f" "$work/shard$((i % workers))/"; i=$((i + 1)); done
  local end=$(($(date +%s) + secs)) cores
  cores=$(nproc)
  worker() {
    local w=$1 n=0 left
    while left=$((end - $(date +%s))); ((left > 30)); do
      LD_LIBRARY_PATH="$path" taskset -c $((w % cores)) "$lib/fuzz.bin" \
        -seed=$((base + 100 * w + n)) -max_total_time=$left -max_len=16384 -timeout=60 \
        -rss_limit_mb=6000 -dict="$dir/dict" -artifact_prefix="$out/findings/w$w-" \
        -print_final_stats=1 "$work/new$w" "$work/shard$w" > "$out/logs/w$w-$n.log" 2>&1
      echo "worker $w run $n exit $?" >> "$out/logs/exits.txt"
      n=$((n + 1))
    done
  }
  for ((w = 0; w < workers; w++)); do worker "$w" & done
  wait
  { echo "workers $workers, seconds $secs, seeds $i"
    grep -h "stat::number_of_executed_units" "$out"/logs/*.log | awk '{s += $2} END {print "executions", s}'
    grep -c . "$out/logs/exits.txt" | sed 's/^/fuzzer runs /'
    grep -v 'exit 0$' "$out/logs/exits.txt"
    ls "$out/findings"; } > "$out/summary.txt"
  (cd "$work" && tar cJf "$out/new-corpus.tar.xz" new*)
  (cd "$out" && tar cJf logs.tar.xz logs && rm -rf logs)
  cat "$out/summary.txt"
}

case "${1:-}" in
  prepare) prepare "${2:?prepare DIR}" ;;
  run) run "${2:?run DIR OUT SEED SECONDS}" "${3:?OUT}" "${4:?SEED}" "${5:?SECONDS}" "${6:-}" ;;
  prepare-fuzz) prepare_fuzz "${2:?prepare-fuzz DIR}" ;;
  fuzz) fuzz "${2:?fuzz DIR OUT SECONDS}" "${3:?OUT}" "${4:?SECONDS}" "${5:-}" "${6:-}" ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
