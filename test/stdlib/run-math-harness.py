#!/usr/bin/env python3
"""Builds the math accuracy harness (Inputs/math_harness.cpp + Inputs/math_kernels.spmd)
for every x86 target this CPU runs, runs it with the given arguments on each, checks
that every target prints exactly the same (results hashes included: the math library
gives bit-identical results on every target) and prints that output once.

One exception, by design: under the default and fast libraries, sse4's double exp log pow
asin acos expm1 sinh cosh tanh erf erfc are the C library's (stdlib/math.spmd,
SPMD_SSE4_LIBC): the harness checks sse4's rows for them against the C library's results
bit for bit (--libc) and leaves them out of the comparison with the other targets.
Another: under the same two libraries the float sin, cos, tan and sincos reduce their argument
by three fmas on avx2 and avx512 and by exact products without fma on sse4 (stdlib/math.spmd,
spmd_mathf_fast_trig_reduce_fma), so sse4's rows for them are left out of the comparison with
the fma targets (which must still agree with each other); every target's bounds are checked
by its exit status. The float acos, asin, atan, atan2, log, log1p, pow and erf (both libraries)
and, under --math-lib=fast, the float tanh evaluate their polynomials by fmas on avx2 and
avx512 (stdlib/math.spmd, spmd_mathf_mad), so sse4's rows for them are left out the same way.

usage: run-math-harness.py SPMDC CXX TMPDIR [--math-lib=L] [harness args...]
--math-lib=L (default, fast, accurate) builds the kernels with that library and tells the
harness (--lib L) which bounds to check; without it, --math-lib=accurate.
"""
import os
import subprocess
import sys

ALL_X86 = ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"]
HERE = os.path.dirname(os.path.abspath(__file__))
# Keep in step with SPMD_SSE4_LIBC in stdlib/math.spmd.
SSE4_LIBC_DOUBLE = ["exp", "log", "pow", "asin", "acos", "expm1", "sinh", "cosh", "tanh",
                    "erf", "erfc"]
# Keep in step with spmd_mathf_fast_trig_reduce_fma and the callers of spmd_mathf_mad in
# stdlib/math.spmd: the float functions with fmas under the default and fast libraries, and
# those with fmas under the fast library only.
FMA_FLOAT = ["sin", "cos", "tan", "sincos", "acos", "asin", "atan", "atan2", "log", "log1p",
             "pow", "erf"]
FASTLIB_FMA_FLOAT = ["tanh"]


def without_rows(out, functions, type_name):
    """The output without the rows (and their indented lines) of `functions` for `type_name`."""
    kept, skipping = [], False
    for line in out.splitlines(keepends=True):
        words = line.split()
        if not line.startswith(" "):
            skipping = len(words) >= 2 and words[0] in functions and words[1] == type_name
        if not skipping:
            kept.append(line)
    return "".join(kept)


def sse4_comparable(out, lib):
    """sse4's output, or another target's, without the rows where sse4 differs by design."""
    fma_float = FMA_FLOAT + (FASTLIB_FMA_FLOAT if lib == "fast" else [])
    return without_rows(without_rows(out, SSE4_LIBC_DOUBLE, "double"), fma_float, "float")


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
        libc = ["--libc", ",".join(SSE4_LIBC_DOUBLE)] if (
            target == "sse4-i32x4" and lib != "accurate") else []
        r = subprocess.run([exe, "--lib", lib] + libc + args, capture_output=True, text=True,
                           timeout=600)
        outputs[target], status[target] = r.stdout, r.returncode
        sys.stderr.write(r.stderr)
    if not outputs:
        print("run-math-harness: no x86 target of this CPU", file=sys.stderr)
        return 1
    differs_sse4 = lib != "accurate" and "sse4-i32x4" in outputs
    kernel_targets = [t for t in outputs if not (differs_sse4 and t == "sse4-i32x4")]
    first_target = (kernel_targets or list(outputs))[0]
    first = outputs[first_target]
    for target, out in outputs.items():
        mine, theirs = out, first
        if differs_sse4 and target == "sse4-i32x4" and target != first_target:
            mine, theirs = sse4_comparable(out, lib), sse4_comparable(first, lib)
        if mine != theirs:
            print(f"run-math-harness: {target} disagrees with {first_target}:\n"
                  f"--- {first_target}\n{theirs}--- {target}\n{mine}", file=sys.stderr)
            return 1
    sys.stdout.write(first)
    print("targets: " + " ".join(outputs))
    return max(status.values())


if __name__ == "__main__":
    sys.exit(main())
