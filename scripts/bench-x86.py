#!/usr/bin/env python3
"""Builds and runs the ISPC-style examples (examples/ispc/<name>/) for every x86 target
this CPU runs, and prints one table of speedups of spmdc over scalar C++.

For each example: <name>.spmd is compiled by spmdc (-O2, with a -h header) once per
target; <name>_scalar.cpp and main.cpp by clang++-22 -O3 -march=native; everything is
linked with libspmdc_runtime.a (launch/sync) and run. Each program checks its spmdc
results against the scalar ones and prints `check: ok` and lines
`<name>[+variant] <target>: scalar X ms, spmdc Y ms, speedup Z.ZZx`.

usage: bench-x86.py [--small] [--examples a,b] [--targets t1,t2] [--spmdc PATH]
                    [--cxx PATH] [--runtime-lib PATH] [--build-dir DIR]
Build products go under build/bench/ by default. Exit status 1 if any example fails
to build, run or check.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES_DIR = os.path.join(ROOT, "examples", "ispc")
ALL_X86 = ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"]
EXAMPLES = ["mandelbrot", "options", "stencil", "noise", "aobench", "volume", "sort"]
RESULT = re.compile(r"^(\S+) (\S+): scalar ([0-9.]+) ms, spmdc ([0-9.]+) ms, speedup ([0-9.]+)x$")


def find_spmdc():
    for cand in [os.path.join(ROOT, "build", "bin", "spmdc"), shutil.which("spmdc")]:
        if cand and os.path.exists(cand):
            return cand
    return None


def find_runtime_lib(spmdc):
    bin_dir = os.path.dirname(os.path.abspath(spmdc))
    for cand in [os.path.join(bin_dir, "..", "lib", "libspmdc_runtime.a"),
                 os.path.join(bin_dir, "..", "runtime", "libspmdc_runtime.a"),
                 os.path.join(ROOT, "build", "lib", "libspmdc_runtime.a"),
                 os.path.join(ROOT, "build", "runtime", "libspmdc_runtime.a")]:
        if os.path.exists(cand):
            return os.path.normpath(cand)
    return None


def run(cmd, log, timeout=600):
    """Runs cmd; returns (ok, stdout). Failures are written to log (stderr)."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        log.write("timed out: %s\n" % " ".join(cmd))
        return False, ""
    if r.returncode != 0:
        log.write("failed (status %d): %s\n%s%s" % (r.returncode, " ".join(cmd), r.stdout, r.stderr))
        return False, r.stdout
    return True, r.stdout


def build_and_run(args, example, target, scalar_obj):
    src_dir = os.path.join(EXAMPLES_DIR, example)
    out_dir = os.path.join(args.build_dir, example, target)
    os.makedirs(out_dir, exist_ok=True)
    obj = os.path.join(out_dir, example + "_ispc.o")
    header = os.path.join(out_dir, example + "_ispc.h")
    exe = os.path.join(out_dir, example)
    ok, _ = run([args.spmdc, "--target=" + target, "-O2", os.path.join(src_dir, example + ".spmd"),
                 "-o", obj, "-h", header], sys.stderr)
    if not ok:
        return None, "spmdc failed"
    main_obj = os.path.join(out_dir, "main.o")
    ok, _ = run([args.cxx, "-O3", "-march=native", "-std=c++17", "-I", out_dir,
                 '-DSPMDC_TARGET_NAME="%s"' % target, "-c", os.path.join(src_dir, "main.cpp"),
                 "-o", main_obj], sys.stderr)
    if not ok:
        return None, "main.cpp failed to compile"
    link = [args.cxx, main_obj, scalar_obj, obj, "-o", exe]
    if args.runtime_lib:
        link.append(args.runtime_lib)
    link += ["-lm", "-lpthread"]
    ok, _ = run(link, sys.stderr)
    if not ok:
        return None, "link failed"
    ok, out = run([exe] + (["--small"] if args.small else []), sys.stderr)
    lines = out.splitlines()
    if not ok or "check: ok" not in lines:
        if ok:
            sys.stderr.write(out)
        return None, "check failed" if ok else "run failed"
    return [RESULT.match(l).groups() for l in lines if RESULT.match(l)], None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="small inputs: a quick correctness check")
    p.add_argument("--examples", default=",".join(EXAMPLES))
    p.add_argument("--targets", default=None, help="default: every x86 target this CPU runs")
    p.add_argument("--spmdc", default=None)
    p.add_argument("--cxx", default=shutil.which("clang++-22") or "clang++-22")
    p.add_argument("--runtime-lib", default=None)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build", "bench"))
    args = p.parse_args()

    args.spmdc = args.spmdc or find_spmdc()
    if not args.spmdc:
        print("bench-x86: no spmdc found (build it, or pass --spmdc)", file=sys.stderr)
        return 1
    args.runtime_lib = args.runtime_lib or find_runtime_lib(args.spmdc)
    if not args.runtime_lib:
        print("bench-x86: no libspmdc_runtime.a found: examples with tasks will not link",
              file=sys.stderr)
    runnable = subprocess.run([args.spmdc, "--print-host-targets"], capture_output=True,
                              text=True, check=True).stdout.split()
    targets = args.targets.split(",") if args.targets else [t for t in ALL_X86 if t in runnable]
    for t in ALL_X86:
        if t not in runnable and not args.targets:
            print(f"bench-x86: skipped {t}: this CPU cannot run it", file=sys.stderr)
    examples = args.examples.split(",")

    failures = 0
    rows = []  # (row name, {target: speedup text})
    for example in examples:
        out_dir = os.path.join(args.build_dir, example)
        os.makedirs(out_dir, exist_ok=True)
        scalar_obj = os.path.join(out_dir, example + "_scalar.o")
        ok, _ = run([args.cxx, "-O3", "-march=native", "-std=c++17", "-c",
                     os.path.join(EXAMPLES_DIR, example, example + "_scalar.cpp"), "-o", scalar_obj],
                    sys.stderr)
        per_row = {}
        order = []
        for target in targets:
            if not ok:
                results, err = None, "scalar failed to compile"
            else:
                results, err = build_and_run(args, example, target, scalar_obj)
            if results is None:
                failures += 1
                print(f"{example} {target}: FAILED ({err})", flush=True)
                per_row.setdefault(example, {})[target] = "FAIL"
                if example not in order:
                    order.append(example)
                continue
            print(f"{example} {target}: check: ok", flush=True)
            for name, _t, scalar_ms, spmd_ms, speedup in results:
                if name not in order:
                    order.append(name)
                per_row.setdefault(name, {})[target] = (float(scalar_ms), float(spmd_ms), speedup)
        rows += [(name, per_row[name]) for name in order]

    if not args.small:
        width = max([len(r[0]) for r in rows] + [10])
        print()
        print("speedup of spmdc over scalar C++ (clang++ -O3 -march=native), best of 5 runs")
        print("example".ljust(width) + "".join(t.rjust(16) for t in targets) + "   scalar ms")
        for name, cells in rows:
            line = name.ljust(width)
            scalar_ms = ""
            for t in targets:
                c = cells.get(t)
                if c is None:
                    line += "-".rjust(16)
                elif c == "FAIL":
                    line += "FAIL".rjust(16)
                else:
                    line += (c[2] + "x").rjust(16)
                    scalar_ms = scalar_ms or "%.1f" % c[0]
            print(line + scalar_ms.rjust(12))
    print("examples: all ok" if failures == 0 else f"examples: {failures} failed")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
