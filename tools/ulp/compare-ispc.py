#!/usr/bin/env python3
"""The ulp table of both compilers: builds the accuracy harness
(test/stdlib/Inputs/math_harness.cpp) against test/stdlib/Inputs/math_kernels.spmd compiled
by spmdc (--math-lib=default, accurate and fast) and by ISPC (--math-lib=default and
--math-lib=fast; --opt=disable-fma as spmdc on x86), runs each on the same inputs and prints one
markdown table: per function, type and domain, the max error in ulp of each build against
libm in higher precision (float: double libm; double: x87 long double libm).

Rows: the harness's random domains (--n inputs each, the varying form) and, for the float
functions of one argument, a sweep of every --sweep-th float of the function's domain
(by bit pattern, both signs).

usage: compare-ispc.py [--target T] [--n N] [--sweep S] [--functions f1,f2] [--build-dir D]
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = os.path.join(ROOT, "test", "stdlib", "Inputs")
FUNCTIONS = ["exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "pow", "expm1",
             "log1p", "sinh", "cosh", "tanh", "cbrt", "erf", "erfc", "fmod"]
BINARY = {"atan2", "pow", "fmod"}
BUILDS = [("spmdc default", "spmdc", "default"), ("spmdc accurate", "spmdc", "accurate"),
          ("spmdc fast", "spmdc", "fast"), ("ISPC default", "ispc", "default"),
          ("ISPC fast", "ispc", "fast")]
LINE = re.compile(r"^(\w+)\s+(float|double)\s+(.*?)\s+n=\d+ max (\S+) ulp at (.*?)(?: mean.*)?$")


def build(args, compiler, lib, harness_obj):
    out = os.path.join(args.build_dir, "%s-%s" % (compiler, lib))
    obj, exe = out + ".o", out + ".exe"
    src = os.path.join(INPUTS, "math_kernels.spmd")
    if compiler == "spmdc":
        cmd = [args.spmdc, "--target=" + args.target, "-O2", "--math-lib=" + lib, src, "-o", obj]
    else:
        cmd = [args.ispc, "--target=" + args.target, "-O2", "--math-lib=" + lib, "--opt=disable-fma",
               "--woff", "--pic", src, "-o", obj]
    subprocess.run(cmd, check=True)
    subprocess.run([args.cxx, harness_obj, obj, "-o", exe, "-lm"], check=True)
    return exe


def measure(exe, lib, args):
    """{(function, type, domain): (max ulp, worst input)}"""
    rows = {}
    harness_lib = ["--lib", lib if lib in ("default", "accurate") else "default"]
    runs = [["--n", str(args.n)] + args.functions]
    unary_float = [f for f in args.functions if f not in BINARY]
    if args.sweep and unary_float:
        runs.append(["--sweep", str(args.sweep)] + unary_float)
    for extra in runs:
        p = subprocess.run([exe] + harness_lib + extra, stdout=subprocess.PIPE, text=True)
        for line in p.stdout.splitlines():
            m = LINE.match(line)
            if m:
                rows[(m.group(1), m.group(2), m.group(3))] = (m.group(4), m.group(5))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", default="avx2-i32x8")
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--sweep", type=int, default=1021)
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--spmdc", default=os.path.join(ROOT, "build", "bin", "spmdc"))
    ap.add_argument("--ispc", default="/work/shared/ispc/ispc")
    ap.add_argument("--cxx", default="clang++-22")
    ap.add_argument("--build-dir", default="/tmp/ulp-compare-ispc")
    args = ap.parse_args()
    args.functions = args.functions.split(",")
    if not os.path.exists(args.ispc):
        print("ISPC not found at %s" % args.ispc)
        return 0
    os.makedirs(args.build_dir, exist_ok=True)
    harness_obj = os.path.join(args.build_dir, "math_harness.o")
    subprocess.run([args.cxx, "-O2", "-std=c++20", "-c", os.path.join(INPUTS, "math_harness.cpp"),
                    "-o", harness_obj], check=True)
    results = []
    for title, compiler, lib in BUILDS:
        exe = build(args, compiler, lib, harness_obj)
        results.append(measure(exe, lib, args))
    keys = []
    for r in results:
        for k in r:
            if k not in keys:
                keys.append(k)
    order = {f: i for i, f in enumerate(FUNCTIONS)}
    keys.sort(key=lambda k: (order.get(k[0], 99), k[1] != "float", "sweep" in k[2]))
    print("Max error (ulp), %s, %d random inputs per domain, sweeps of every %d-th float:\n" %
          (args.target, args.n, args.sweep))
    print("| function | type | domain | " + " | ".join(b[0] for b in BUILDS) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in BUILDS) + " |")
    for k in keys:
        cells = [r.get(k, ("-", ""))[0] for r in results]
        print("| %s | %s | %s | %s |" % (k[0], k[1], k[2].replace("|", "\\|"), " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
