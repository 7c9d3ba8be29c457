#!/usr/bin/env python3
"""Builds the math accuracy harness (Inputs/math_harness.cpp + Inputs/math_kernels.spmd)
for every x86 target this CPU runs, runs it with the given arguments on each, checks
that every target prints exactly the same (results hashes included: the math library
gives bit-identical results on every target) and prints that output once.

usage: run-math-harness.py SPMDC CXX TMPDIR [--math-lib=L] [harness args...]
--math-lib=L (default, fast, accurate) builds the kernels with that library and tells the
harness (--lib L) which bounds to check; without it, --math-lib=accurate.
"""
import os
import subprocess
import sys

ALL_X86 = ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"]
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    spmdc, cxx, tmp = sys.argv[1:4]
    args = sys.argv[4:]
    lib = "accurate"
    if args and args[0].startswith("--math-lib="):
        lib = args.pop(0).split("=", 1)[1]
    os.makedirs(tmp, exist_ok=True)
    runnable = subprocess.run([spmdc, "--print-host-targets"], capture_output=True,
                              text=True, check=True).stdout.split()
    harness_obj = os.path.join(tmp, "math_harness.o")
    subprocess.run([cxx, "-O2", "-std=c++20", "-c", os.path.join(HERE, "Inputs", "math_harness.cpp"),
                    "-o", harness_obj], check=True)
    outputs, status = {}, {}
    for target in ALL_X86:
        if target not in runnable:
            print(f"run-math-harness: skipped {target}: this CPU cannot run it", file=sys.stderr)
            continue
        obj = os.path.join(tmp, target + ".o")
        exe = os.path.join(tmp, target + ".exe")
        wanted = [a for a in args if not a.startswith("-") and not a.isdigit()]
        defines = (["-DWANT_SOME"] + ["-DWANT_" + f for f in wanted]) if wanted else []
        r = subprocess.run([spmdc, "--target=" + target, "--math-lib=" + lib] + defines + [
                            os.path.join(HERE, "Inputs", "math_kernels.spmd"), "-o", obj],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            print(f"run-math-harness: compiling for {target} failed", file=sys.stderr)
            return 1
        subprocess.run([cxx, harness_obj, obj, "-o", exe, "-lm"], check=True)
        r = subprocess.run([exe, "--lib", lib] + args, capture_output=True, text=True, timeout=600)
        outputs[target], status[target] = r.stdout, r.returncode
        sys.stderr.write(r.stderr)
    if not outputs:
        print("run-math-harness: no x86 target of this CPU", file=sys.stderr)
        return 1
    first_target, first = next(iter(outputs.items()))
    for target, out in outputs.items():
        if out != first:
            print(f"run-math-harness: {target} disagrees with {first_target}:\n"
                  f"--- {first_target}\n{first}--- {target}\n{out}", file=sys.stderr)
            return 1
    sys.stdout.write(first)
    print("targets: " + " ".join(outputs))
    return max(status.values())


if __name__ == "__main__":
    sys.exit(main())
