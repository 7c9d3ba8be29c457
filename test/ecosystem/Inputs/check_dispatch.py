"""Checks that a multi-target program ran the widest of its targets this CPU runs.

usage: check_dispatch.py <spmdc --print-host-targets output> <program output> <targets,...>
"""
import sys

WIDTHS = {"sse4-i32x4": 4, "avx2-i32x8": 8, "avx2-i32x16": 16, "avx512skx-x16": 16}
ORDER = ["sse4", "avx2", "avx512skx"]

host = open(sys.argv[1]).read().split()
got = open(sys.argv[2]).read().strip()
built = sys.argv[3].split(",")
runnable = [t for t in built if t in host]
best = max(runnable, key=lambda t: ORDER.index(t.split("-")[0]))
want = "width %d wrong 0" % WIDTHS[best]
if got != want:
    sys.exit("expected '%s' (target %s), got '%s'" % (want, best, got))
print("ok: " + best)
