#!/usr/bin/env python3
"""Builds and runs the CREV benchmark set (examples/crev/<name>/) and prints one table.

Every example has <name>.spmd (a PAR and a CREV kernel) and main.cpp (input
generator, sequential reference, exact checks, timings). For every target of
`spmdc --print-host-targets` the script compiles the kernels with
`spmdc -O2 --target=T -h <name>.h`, compiles main.cpp once with
`clang++-22 -O3 -march=native`, links it with the target's object and
libspmdc_runtime.a, runs it, and prints the ratios of all runs in one table.

usage: scripts/bench-crev.py [--build DIR] [--spmdc PATH] [--runtime LIB] [--cxx CXX]
                             [--examples a,b] [--targets t1,t2] [--small] [--scale F]
                             [--reps N] [--out DIR] [--build-only | --run-only]
--build-only leaves the executables in --out (to run them on another machine);
--run-only runs executables built before.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES_DIR = os.path.join(ROOT, "examples", "crev")
RESULT = re.compile(r"^(\w+) (\S+): seq ([\d.]+) ms, PAR ([\d.]+) ms, CREV ([\d.]+) ms"
                    r"(?:, KMP ([\d.]+) ms)?, CREV vs PAR: ([-+][\d.]+)%")


def examples():
    return sorted(d for d in os.listdir(EXAMPLES_DIR)
                  if os.path.isfile(os.path.join(EXAMPLES_DIR, d, d + ".spmd")))


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        print(f"crev-bench: {what} failed: {' '.join(cmd)}", file=sys.stderr)
    return r.returncode == 0


def build(args, name, targets):
    """Builds out/<target>/<name> for every target; returns the targets built."""
    src_dir = os.path.join(EXAMPLES_DIR, name)
    built = []
    main_obj = None
    for target in targets:
        out = os.path.join(args.out, target)
        os.makedirs(out, exist_ok=True)
        obj = os.path.join(out, name + ".o")
        header = os.path.join(out, name + ".h")
        if not run([args.spmdc, "-O2", "--target=" + target, os.path.join(src_dir, name + ".spmd"),
                    "-o", obj, "-h", header], f"spmdc for {name} on {target}"):
            continue
        if main_obj is None:
            # The header is the same for every x86 target: compile the driver once.
            main_obj = os.path.join(args.out, name + ".main.o")
            if not run([args.cxx, "-O3", "-march=native", "-std=c++20", "-I", out, "-c",
                        os.path.join(src_dir, "main.cpp"), "-o", main_obj],
                       f"compiling {name}/main.cpp"):
                return []
        exe = os.path.join(out, name)
        if run([args.cxx, main_obj, obj, args.runtime, "-lpthread", "-o", exe],
               f"linking {name} for {target}"):
            built.append(target)
    return built


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--spmdc")
    p.add_argument("--runtime")
    p.add_argument("--cxx", default="clang++-22")
    p.add_argument("--examples")
    p.add_argument("--targets")
    p.add_argument("--small", action="store_true", help="the small sizes of the lit tests")
    p.add_argument("--scale", type=float)
    p.add_argument("--reps", type=int)
    p.add_argument("--out")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--build-only", action="store_true")
    mode.add_argument("--run-only", action="store_true")
    args = p.parse_args()
    args.spmdc = args.spmdc or os.path.join(args.build, "bin", "spmdc")
    args.runtime = args.runtime or os.path.join(os.path.dirname(os.path.dirname(args.spmdc)),
                                                "lib", "libspmdc_runtime.a")
    args.out = args.out or os.path.join(args.build, "crev-bench")
    names = args.examples.split(",") if args.examples else examples()
    if args.targets:
        targets = args.targets.split(",")
    else:
        targets = subprocess.run([args.spmdc, "--print-host-targets"], capture_output=True,
                                 text=True, check=True).stdout.split()
    flags = []
    if args.small:
        flags.append("--small")
    if args.scale:
        flags += ["--scale", str(args.scale)]
    if args.reps:
        flags += ["--reps", str(args.reps)]

    rows, failures, runs = [], 0, 0
    for name in names:
        built = targets if args.run_only else build(args, name, targets)
        failures += len(targets) - len(built)
        if args.build_only:
            continue
        for target in built:
            exe = os.path.join(args.out, target, name)
            if not os.path.exists(exe):
                print(f"{name} {target}: check: FAILED (no executable {exe})")
                failures += 1
                continue
            r = subprocess.run([exe, "--target", target] + flags, capture_output=True, text=True)
            runs += 1
            sys.stderr.write(r.stdout)
            ok = r.returncode == 0 and "check: ok" in r.stdout
            print(f"{name} {target}: check: {'ok' if ok else 'FAILED'}")
            if not ok:
                sys.stderr.write(r.stderr)
                failures += 1
                continue
            for line in r.stdout.splitlines():
                m = RESULT.match(line)
                if m:
                    rows.append(m.groups())
    if args.build_only:
        print(f"crev-bench: built in {args.out}, {failures} failures")
        return 1 if failures else 0

    if rows:
        print()
        print("| example | target | seq ms | PAR ms | CREV ms | PAR vs seq | CREV vs seq | CREV vs PAR |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for name, target, seq, par, crev, kmp, gain in rows:
            seq, par, crev = float(seq), float(par), float(crev)
            label = name if kmp is None else f"{name} (KMP {float(kmp):.1f} ms)"
            print(f"| {label} | {target} | {seq:.1f} | {par:.1f} | {crev:.1f} | "
                  f"{seq / par:.2f}x | {seq / crev:.2f}x | {gain}% |")
        print()
    what = ",".join(names) if args.examples else "all examples"
    if failures:
        print(f"crev-bench: {failures} of {runs} runs of {what} FAILED")
        return 1
    print(f"crev-bench: {runs} runs of {what}, all checked ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
