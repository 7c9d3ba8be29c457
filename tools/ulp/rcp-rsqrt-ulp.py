#!/usr/bin/env python3
"""Max error in ulp of rcp, rcp_fast, rsqrt, rsqrt_fast (float and double, the varying
form) of spmdc and ISPC on the same inputs, against the quotient in long double (x87,
64-bit significand: 1/x and 1/sqrtl(x) with an error far below the double ulp).

The kernels (one exported foreach loop per function and type) are compiled by spmdc and by
ISPC (--opt=disable-fma, as the benchmarks) for --target with each --math-lib, linked into
one C++ program that evaluates them on --n inputs log-uniform in [2^-60, 2^60] (both
signs for rcp) and prints the max error per build.

usage: rcp-rsqrt-ulp.py [--target T] [--n N] [--libs default,fast] [--build-dir D]
(ISPC only for default and fast, the libraries it has.)
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNCS = ["rcp", "rcp_fast", "rsqrt", "rsqrt_fast"]

KERNELS = "".join(
    "export void NAME(%s_%s)(uniform const %s x[], uniform %s r[], uniform int n) {\n"
    "  foreach (i = 0 ... n) r[i] = %s(x[i]);\n}\n" % (f, t, t, t, f)
    for f in FUNCS for t in ("float", "double"))
HEAD = "#define CAT2(a, b) a##b\n#define CAT(a, b) CAT2(a, b)\n#define NAME(f) CAT(PFX, f)\n"

MAIN = r"""
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <random>
#include <vector>
@DECLS@
template <class T> long double ulpOf(long double v) {
  int e;
  std::frexp((double)v, &e);
  int digits = sizeof(T) == 4 ? 24 : 53, emin = sizeof(T) == 4 ? -125 : -1021;
  return std::ldexp(1.0L, std::max(e, emin) - digits);
}
template <class T> double maxUlp(void (*k)(const T *, T *, int), bool rsq, int n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-60, 60);
  std::vector<T> x(n), r(n);
  for (int i = 0; i < n; i++) {
    double v = std::exp2(u(g));
    x[i] = (T)((!rsq && (g() & 1)) ? -v : v);
  }
  k(x.data(), r.data(), n);
  double worst = 0;
  for (int i = 0; i < n; i++) {
    long double exact = rsq ? 1.0L / sqrtl((long double)x[i]) : 1.0L / (long double)x[i];
    double e = (double)(fabsl((long double)r[i] - exact) / ulpOf<T>(exact));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
@ROWS@
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", default="avx2-i32x8")
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--libs", default="default,fast")
    ap.add_argument("--spmdc", default=os.path.join(ROOT, "build", "bin", "spmdc"))
    ap.add_argument("--ispc", default="/work/shared/ispc/ispc")
    ap.add_argument("--cxx", default="clang++-22")
    ap.add_argument("--build-dir", default="/tmp/rcp-rsqrt-ulp")
    args = ap.parse_args()
    os.makedirs(args.build_dir, exist_ok=True)
    src = os.path.join(args.build_dir, "k.ispc")
    with open(src, "w") as f:
        f.write(HEAD + KERNELS)
    objs, decls, rows = [], [], []
    for lib in args.libs.split(","):
        for comp in ("spmdc", "ispc") if lib in ("default", "fast") else ("spmdc",):
            pfx = "%s_%s_" % (comp, lib)
            obj = os.path.join(args.build_dir, pfx + ".o")
            cmd = ([args.spmdc, "--target=" + args.target, "-O2"] if comp == "spmdc" else
                   [args.ispc, "--target=" + args.target, "-O2", "--opt=disable-fma", "--woff", "--pic"])
            subprocess.run(cmd + ["--math-lib=" + lib, "-DPFX=" + pfx, src, "-o", obj], check=True)
            objs.append(obj)
            for fn in FUNCS:
                for t in ("float", "double"):
                    decls.append('extern "C" void %s%s_%s(const %s *, %s *, int);' % (pfx, fn, t, t, t))
                    rows.append('  printf("%%-10s %%-6s %%-8s %%-5s %%.3f\\n", "%s", "%s", "%s", "%s", '
                                'maxUlp<%s>(%s%s_%s, %s, n, 1));' %
                                (fn, t, lib, comp, t, pfx, fn, t, "true" if fn.startswith("rsqrt") else "false"))
    main_src = os.path.join(args.build_dir, "main.cpp")
    with open(main_src, "w") as f:
        f.write(MAIN.replace("@DECLS@", "\n".join(decls)).replace("@ROWS@", "\n".join(rows)))
    exe = os.path.join(args.build_dir, "ulp.exe")
    subprocess.run([args.cxx, "-O2", main_src] + objs + ["-o", exe], check=True)
    print("function   type   lib      compiler max ulp (%s, n=%d, |x| in [2^-60, 2^60])" % (args.target, args.n))
    sys.stdout.flush()
    return subprocess.run([exe, str(args.n)]).returncode


if __name__ == "__main__":
    sys.exit(main())
