#!/usr/bin/env bash
# The x86 differential campaign (difftest.py) on another x86 machine that has no LLVM, e.g.
# the GPU machine's 16 cores: `prepare` bundles this spmdc, ISPC and the shared libraries
# both need (libLLVM, libclang-cpp, libz3 and the small ones under them) into DIR; `run`,
# there, unpacks them into /tmp and runs difftest.py from this tree for SECONDS.
#
#   bash tools/difftest/remote-campaign.sh prepare DIR            # here (about 60 MB, xz)
#   bash tools/difftest/remote-campaign.sh run DIR OUT SEED SECONDS [JOBS]   # there
#
# `run` writes OUT/tools.txt (versions, CPU), OUT/difftest.log (the summary),
# OUT/results.json and OUT/findings/ (each reduced for 60 s). The machine's own copies of
# the small libraries are used where it has them (ldd decides), ours otherwise.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

prepare() {
  local dir="$1" spmdc="$root/build/bin/spmdc" ispc="${ISPC:-$root/../shared/ispc/ispc}"
  [ -x "$spmdc" ] || { echo "prepare: build spmdc first" >&2; exit 1; }
  [ -f "$(dirname "$ispc")/ispc.xz" ] || { echo "prepare: no ISPC at $ispc" >&2; exit 1; }
  mkdir -p "$dir" && rm -rf "$dir/libs" && mkdir -p "$dir/libs"
  # Every library the two compilers load, but the C/C++ runtime every Linux has.
  ldd "$spmdc" /usr/lib/llvm-22/lib/libLLVM.so.22.1 | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' | while read -r lib; do
      cp -L "$lib" "$dir/libs/"
    done
  # ICU's data (30 MB) only travels with libxml2's ICU, which the machine may have itself.
  rm -f "$dir"/libs/libicu*
  tar cf - -C "$dir/libs" . | xz -6 -T2 > "$dir/libs.tar.xz" && rm -rf "$dir/libs"
  xz -6 -T2 -c "$spmdc" > "$dir/spmdc.xz"
  cp "$(dirname "$ispc")/ispc.xz" "$dir/ispc.xz"
  du -sh "$dir"
}

run() {
  local dir out start secs jobs lib=/tmp/spmdc-remote-campaign
  dir="$(cd "$1" && pwd)"; out="$2"; start="$3"; secs="$4"; jobs="${5:-$(nproc)}"
  mkdir -p "$out"
  if [ ! -x "$lib/spmdc.bin" ] || [ "$dir/spmdc.xz" -nt "$lib/spmdc.bin" ]; then
    rm -rf "$lib" && mkdir -p "$lib/core" "$lib/sys" && tar xJf "$dir/libs.tar.xz" -C "$lib/sys" || exit 1
    mv "$lib"/sys/libLLVM.so.* "$lib"/sys/libclang-cpp.so.* "$lib"/sys/libz3.so.* "$lib/core/"
    xz -dc "$dir/spmdc.xz" > "$lib/spmdc.bin" && xz -dc "$dir/ispc.xz" > "$lib/ispc.bin" &&
      chmod +x "$lib"/*.bin || exit 1
  fi
  local path="$lib/core"
  if LD_LIBRARY_PATH="$path" ldd "$lib/spmdc.bin" "$lib/ispc.bin" | grep -q 'not found'; then
    path="$lib/core:$lib/sys"
  fi
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

case "${1:-}" in
  prepare) prepare "${2:?prepare DIR}" ;;
  run) run "${2:?run DIR OUT SEED SECONDS}" "${3:?OUT}" "${4:?SEED}" "${5:?SECONDS}" "${6:-}" ;;
  *) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
