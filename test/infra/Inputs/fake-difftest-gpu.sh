#!/bin/sh
# Stands in for tools/difftest's GPU driver (difftest-gpu --timeout T MODULE SEED...)
# in difftest-gpu-watchdog-restarts-after-hang.test: seed 1 hangs (the driver
# prints `hang 1`, status 3), seed 4 faults, seed 5 kills the driver; every other
# seed S writes slot 0 = S.
shift 3
for s in "$@"; do
  echo "seed $s"
  case $s in
    1) echo "hang 1"; exit 3 ;;
    4) echo "fault 4"; exit 3 ;;
    5) kill -9 $$ ;;
  esac
  printf '0 %016x\nend %s\n' "$s" "$s"
done
