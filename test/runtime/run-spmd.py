#!/usr/bin/env python3
"""Compiles one runtime test for every x86 target this CPU runs, links it with
the shared driver, runs it, checks that all targets print the same, and prints
that output once (for FileCheck). Targets the CPU lacks are skipped, with the
reason on stderr.

usage: run-spmd.py SPMDC DRIVER_LIB CXX TMPDIR TEST.spmd [spmdc flags...]

A test adds its own spmdc flags with lines `// SPMDC-FLAGS: ...` (e.g. --hfuse=A,B).
"""
import os
import subprocess
import sys

ALL_X86 = ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"]


def test_flags(src):
    """The flags of the test's `// SPMDC-FLAGS:` lines (scripts/gpu-test.sh reads them too)."""
    flags = []
    with open(src) as f:
        for line in f:
            if line.startswith("// SPMDC-FLAGS:"):
                flags += line[len("// SPMDC-FLAGS:"):].split()
    return flags


def main():
    spmdc, driver, cxx, tmp, src = sys.argv[1:6]
    flags = sys.argv[6:] + test_flags(src)
    os.makedirs(tmp, exist_ok=True)
    runnable = subprocess.run([spmdc, "--print-host-targets"], capture_output=True,
                              text=True, check=True).stdout.split()
    outputs = {}
    for target in ALL_X86:
        if target not in runnable:
            print(f"run-spmd: skipped {target}: this CPU cannot run it", file=sys.stderr)
            continue
        obj = os.path.join(tmp, target + ".o")
        exe = os.path.join(tmp, target + ".exe")
        r = subprocess.run([spmdc, "--target=" + target, src, "-o", obj] + flags,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            print(f"run-spmd: compiling for {target} failed", file=sys.stderr)
            return 1
        runtime = os.path.join(os.path.dirname(driver), "libspmdc_runtime.a")
        r = subprocess.run([cxx, obj, driver, runtime, "-o", exe, "-lm", "-lpthread"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            print(f"run-spmd: linking for {target} failed", file=sys.stderr)
            return 1
        r = subprocess.run([exe], capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            sys.stderr.write(r.stdout + r.stderr)
            print(f"run-spmd: running on {target} failed with status {r.returncode}",
                  file=sys.stderr)
            return 1
        outputs[target] = r.stdout
    if not outputs:
        print("run-spmd: no x86 target of this CPU", file=sys.stderr)
        return 1
    first_target, first = next(iter(outputs.items()))
    for target, out in outputs.items():
        if out != first:
            print(f"run-spmd: {target} disagrees with {first_target}:\n"
                  f"{first_target}: {first}{target}: {out}", file=sys.stderr)
            return 1
    sys.stdout.write(first)
    print("targets: " + " ".join(outputs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
