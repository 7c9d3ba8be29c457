#!/usr/bin/env python3
"""Compiles every runtime test (test/runtime/*.spmd) for NVPTX and checks the PTX
with ptxas. Tests that use what NVPTX does not have (`launch`) must be
refused with a clear one-line error (as is `--math-lib=system`, the C library's math); anything else must compile and assemble.

usage: ptxas-all-runtime-tests.py SPMDC PTXAS RUNTIME_TEST_DIR TMPDIR
"""
import os
import subprocess
import sys

REFUSALS = ("'launch' is not available on NVPTX",
            "--math-lib=system is not available for NVPTX targets")


def test_flags(src):
    """The test's own spmdc flags (`// SPMDC-FLAGS: ...` lines, as run-spmd.py reads them)."""
    with open(src) as f:
        return [w for line in f if line.startswith("// SPMDC-FLAGS:")
                for w in line[len("// SPMDC-FLAGS:"):].split()]


def main():
    spmdc, ptxas, tests, tmp = sys.argv[1:5]
    os.makedirs(tmp, exist_ok=True)
    passed, refused, failed = 0, 0, []
    for name in sorted(os.listdir(tests)):
        if not name.endswith(".spmd"):
            continue
        src = os.path.join(tests, name)
        ptx = os.path.join(tmp, name + ".ptx")
        r = subprocess.run([spmdc, "--target=nvptx-sm_90", src, "-o", ptx] + test_flags(src),
                           capture_output=True, text=True)
        if r.returncode != 0:
            if r.returncode == 1 and any(m in r.stderr for m in REFUSALS):
                refused += 1
            else:
                failed.append(f"{name}: spmdc: {r.stderr.strip().splitlines()[:1]}")
            continue
        r = subprocess.run([ptxas, "-arch=sm_90", ptx, "-o", ptx + ".cubin"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failed.append(f"{name}: ptxas: {r.stderr.strip().splitlines()[:1]}")
            continue
        passed += 1
    for f in failed:
        print("FAILED " + f)
    print(f"ptxas: {passed} passed, {refused} refused by design, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
