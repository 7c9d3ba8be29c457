#!/usr/bin/env python3
"""Times every math function of the ISPC guide's "Math Functions" section, compiled by spmdc and
by ISPC from the same loop source, and prints the ratios ISPC time / spmdc time (> 1: spmdc is
faster) in one run, per function, type (float, double) and form (varying: a foreach over the
array; uniform: a uniform for loop), with the geometric mean and the worst rows per target and
math library.

One source (generated into --build-dir/math_bench.ispc) holds, per function and type, the two
exported loops `<PFX><fn>_<type>_v` and `<PFX><fn>_<type>_u`; it is compiled twice per target and
library, with nothing differing but the name prefix (-DPFX=spmdc_ / -DPFX=ispc_):
  spmdc --target=T -O2 --math-lib=L                     -DPFX=spmdc_
  ispc  --target=T -O2 --math-lib=L --opt=disable-fma   -DPFX=ispc_
(--opt=disable-fma: spmdc never contracts a*b+c into fma on x86, so ISPC is asked not to either;
both then run the same kind of arithmetic). Both objects are linked into one C++ program
(clang++-22 -O3), which fills the inputs of each function from its domain (below), times each
pair of loops in turn (alternating which runs first) for --rounds rounds of about 2 ms of
thread CPU time each (CPU time: the machine is shared), keeps the best round of each, and
prints ns per element and the ratio. 1024 elements per call: three double arrays take 24 KB, in
the 32 KB L1 (with 4096, x and r alone filled it, and one binary measured rcp at 0.044 to 0.075 ns
per element from run to run).

Code placement: a loop's offset within its 64-byte line moved the cheapest rows by up to 1.7x
(rcp float, avx2-i32x16: 0.042 ns at offset 32, 0.069 ns at offset 0, the same instructions), for
either compiler, and which offset a loop gets depends on everything linked before it. So each
program is linked --placements times (default 4) with 0, 16, 32, 48 bytes of padding before the
two objects (functions are 16-byte aligned: every loop sees each of its four possible offsets),
and a row's time is the mean over the placements: what a user gets on average, not a lucky or
unlucky layout.

Disturbances: the machine is shared, and a burst of other work during one program's run can
slow one side of a row in one placement (on 30 Nov three rows of identical instructions,
`max`/`rcp_fast`/`rsqrt_fast` float avx2-i32x16, measured 0.55-0.62 in a full run and
0.92-1.03 alone). So the rows first measured below --retime-below (0.85) are timed once more
the same way, both compilers and every placement, and each compiler's time is the lower of
its two means; the output says how many rows were.

usage: bench-math-vs-ispc.py [--targets t1,t2] [--libs default,fast] [--functions f1,f2]
                             [--rounds N] [--placements P] [--ispc PATH] [--spmdc PATH]
                             [--build-dir DIR] [--markdown FILE]
Exit status 0 when ISPC is missing (a message says so), 1 if a build fails.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ISPC = "/work/shared/ispc/ispc"

# name: (arity/shape, domain of x, domain of y). Domains: ("lin", lo, hi) uniform,
# ("log", lo, hi) log-uniform of |x| in [lo, hi] with random sign when lo > 0 is given as
# ("slog", lo, hi), ("int", lo, hi) integers (stored in the float array, converted in the loop).
FUNCTIONS = [
    ("abs", "unary", ("lin", -1000, 1000), None),
    ("min", "binary", ("lin", -1000, 1000), ("lin", -1000, 1000)),
    ("max", "binary", ("lin", -1000, 1000), ("lin", -1000, 1000)),
    ("clamp", "clamp", ("lin", -1000, 1000), None),
    ("floor", "unary", ("lin", -1000, 1000), None),
    ("ceil", "unary", ("lin", -1000, 1000), None),
    ("round", "unary", ("lin", -1000, 1000), None),
    ("trunc", "unary", ("lin", -1000, 1000), None),
    ("sqrt", "unary", ("log", 1e-6, 1e6), None),
    ("rsqrt", "unary", ("log", 1e-6, 1e6), None),
    ("rsqrt_fast", "unary", ("log", 1e-6, 1e6), None),
    ("rcp", "unary", ("slog", 1e-6, 1e6), None),
    ("rcp_fast", "unary", ("slog", 1e-6, 1e6), None),
    ("fmod", "binary", ("lin", -1000, 1000), ("lin", 0.1, 10)),
    ("ldexp", "ldexp", ("lin", -1000, 1000), ("int", -30, 30)),
    ("frexp", "frexp", ("slog", 1e-20, 1e20), None),
    ("sin", "unary", ("lin", -100, 100), None),
    ("cos", "unary", ("lin", -100, 100), None),
    ("tan", "unary", ("lin", -100, 100), None),
    ("sincos", "sincos", ("lin", -100, 100), None),
    ("asin", "unary", ("lin", -1, 1), None),
    ("acos", "unary", ("lin", -1, 1), None),
    ("atan", "unary", ("lin", -10, 10), None),
    ("atan2", "binary", ("lin", -10, 10), ("lin", -10, 10)),
    ("exp", "unary", ("lin", -80, 80), None),
    ("expm1", "unary", ("lin", -10, 10), None),
    ("log", "unary", ("log", 1e-20, 1e20), None),
    ("log1p", "unary", ("lin", -0.9, 100), None),
    ("pow", "binary", ("lin", 0.1, 10), ("lin", -10, 10)),
    ("sinh", "unary", ("lin", -20, 20), None),
    ("cosh", "unary", ("lin", -20, 20), None),
    ("tanh", "unary", ("lin", -10, 10), None),
    ("cbrt", "unary", ("slog", 1e-20, 1e20), None),
    ("erf", "unary", ("lin", -5, 5), None),
    ("erfc", "unary", ("lin", -5, 5), None),
]
TYPES = ["float", "double"]

SOURCE_HEAD = """// Generated by scripts/bench-math-vs-ispc.py: one varying and one uniform loop per math
// function and type; compiled by spmdc and by ISPC with -DPFX=<compiler>_.
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(f) CAT(PFX, f)
"""


def loop_body(shape, fn, t, q):
    """The statement computing r[i] from x[i] (and y[i]) for qualifier q ('' or 'uniform ')."""
    if shape == "unary":
        return "r[i] = %s(x[i]);" % fn
    if shape == "binary":
        return "r[i] = %s(x[i], y[i]);" % fn
    if shape == "clamp":
        return "r[i] = clamp(x[i], (%s)-100, (%s)100);" % (t, t)
    if shape == "ldexp":
        return "r[i] = ldexp(x[i], (%sint)y[i]);" % q
    if shape == "frexp":
        return "{ %sint e; %s%s m = frexp(x[i], &e); r[i] = m + e; }" % (q, q, t)
    if shape == "sincos":
        return "{ %s%s s, c; sincos(x[i], &s, &c); r[i] = s + c; }" % (q, t)
    raise ValueError(shape)


def generate_source(functions):
    out = [SOURCE_HEAD]
    for fn, shape, _, _ in functions:
        for t in TYPES:
            params = "uniform const %s x[], uniform const %s y[], uniform %s r[], uniform int n" % (t, t, t)
            out.append("export void NAME(%s_%s_v)(%s) {\n  foreach (i = 0 ... n) %s\n}\n" %
                       (fn, t, params, loop_body(shape, fn, t, "")))
            out.append("export void NAME(%s_%s_u)(%s) {\n  for (uniform int i = 0; i < n; i++) %s\n}\n" %
                       (fn, t, params, loop_body(shape, fn, t, "uniform ")))
    return "".join(out)


def domain_expr(d, t):
    kind, lo, hi = d
    return "Domain{%d, %r, %r}" % ({"lin": 0, "log": 1, "slog": 2, "int": 3}[kind], float(lo), float(hi))


def generate_main(functions):
    decls, rows = [], []
    for fn, _, dx, dy in functions:
        for t in TYPES:
            for form in "vu":
                for pfx in ("spmdc_", "ispc_"):
                    decls.append('extern "C" void %s%s_%s_%s(const %s *, const %s *, %s *, int);' %
                                 (pfx, fn, t, form, t, t, t))
                rows.append('  {"%s", "%s", "%s", %s, %s, (void *)spmdc_%s_%s_%s, (void *)ispc_%s_%s_%s},' %
                            (fn, t, "varying" if form == "v" else "uniform", domain_expr(dx, t),
                             domain_expr(dy or ("lin", -1, 1), t), fn, t, form, fn, t, form))
    return MAIN_TEMPLATE.replace("@DECLS@", "\n".join(decls)).replace("@ROWS@", "\n".join(rows))


MAIN_TEMPLATE = r"""// Generated by scripts/bench-math-vs-ispc.py: times the spmdc_ and ispc_ loops of each row.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>
@DECLS@
struct Domain { int kind; double lo, hi; };
typedef void (*FloatFn)(const float *, const float *, float *, int);
typedef void (*DoubleFn)(const double *, const double *, double *, int);
struct Row { const char *fn, *type, *form; Domain dx, dy; void *spmdc, *ispc; };
static Row rows[] = {
@ROWS@
};
static double cpuNow() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static double draw(const Domain &d, std::mt19937_64 &g) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  switch (d.kind) {
  case 0: return d.lo + (d.hi - d.lo) * u(g);
  case 1: return std::exp(std::log(d.lo) + (std::log(d.hi) - std::log(d.lo)) * u(g));
  case 2: return (u(g) < 0.5 ? -1 : 1) * std::exp(std::log(d.lo) + (std::log(d.hi) - std::log(d.lo)) * u(g));
  default: return std::floor(d.lo + (d.hi - d.lo + 1) * u(g));
  }
}
static const int N = 1024;
template <typename T> static double timeOne(void *fp, const T *x, const T *y, T *r, int iters) {
  auto f = (void (*)(const T *, const T *, T *, int))fp;
  double t0 = cpuNow();
  for (int k = 0; k < iters; k++) f(x, y, r, N);
  return (cpuNow() - t0) / iters / N * 1e9;
}
template <typename T> static void bench(const Row &row, int rounds, double out[2]) {
  std::mt19937_64 g(12345);
  std::vector<T> x(N), y(N), r(N);
  for (int i = 0; i < N; i++) { x[i] = (T)draw(row.dx, g); y[i] = (T)draw(row.dy, g); }
  void *fns[2] = {row.spmdc, row.ispc};
  int iters[2];
  for (int c = 0; c < 2; c++) {  // calibrate: about 2 ms per timed round
    timeOne<T>(fns[c], x.data(), y.data(), r.data(), 1);
    double ns = timeOne<T>(fns[c], x.data(), y.data(), r.data(), 4);
    iters[c] = std::max(1, (int)(2e6 / (ns * N + 1e-3)));
    out[c] = 1e30;
  }
  for (int k = 0; k < rounds; k++)
    for (int j = 0; j < 2; j++) {
      int c = (k & 1) ? 1 - j : j;
      out[c] = std::min(out[c], timeOne<T>(fns[c], x.data(), y.data(), r.data(), iters[c]));
    }
}
// argv: rounds, then optionally the rows to time as "fn:type:form" (all rows without them).
static bool wanted(const Row &row, int argc, char **argv) {
  if (argc <= 2) return true;
  char key[96];
  snprintf(key, sizeof key, "%s:%s:%s", row.fn, row.type, row.form);
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], key)) return true;
  return false;
}
int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  for (const Row &row : rows) {
    if (!wanted(row, argc, argv)) continue;
    double t[2];
    if (!strcmp(row.type, "float")) bench<float>(row, rounds, t);
    else bench<double>(row, rounds, t);
    printf("%s %s %s %.4f %.4f\n", row.fn, row.type, row.form, t[0], t[1]);
    fflush(stdout);
  }
  return 0;
}
"""


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.stderr.write("FAILED: %s\n%s\n" % (" ".join(cmd), p.stdout[-4000:]))
        return False
    return True


def build(args, target, lib, src, main_cpp):
    """The programs of one target and library, one per placement (see the module comment)."""
    out_dir = os.path.join(args.build_dir, target, lib)
    os.makedirs(out_dir, exist_ok=True)
    s_obj, i_obj = os.path.join(out_dir, "spmdc.o"), os.path.join(out_dir, "ispc.o")
    ok = run([args.spmdc, "--target=" + target, "-O2", "--math-lib=" + lib, "-DPFX=spmdc_", src, "-o", s_obj])
    ok = ok and run([args.ispc, "--target=" + target, "-O2", "--math-lib=" + lib, "--opt=disable-fma",
                     "--woff", "--pic", "-DPFX=ispc_", src, "-o", i_obj])
    m_obj = os.path.join(args.build_dir, "main.o")
    if ok and not os.path.exists(m_obj):
        ok = run([args.cxx, "-O3", "-std=c++17", "-c", main_cpp, "-o", m_obj])
    exes = []
    for k in range(args.placements):
        pad = os.path.join(args.build_dir, "pad%d" % k)
        if ok and not os.path.exists(pad + ".o"):
            with open(pad + ".s", "w") as f:
                f.write("\t.text\n\t.p2align 4\nspmdc_bench_pad%d:\n\t.zero %d, 0x90\n" % (k, 16 * (k % 4)))
            ok = run([args.cxx, "-c", pad + ".s", "-o", pad + ".o"])
        exe = os.path.join(out_dir, "math_bench%d" % k)
        ok = ok and run([args.cxx, m_obj, pad + ".o", s_obj, i_obj, "-o", exe, "-lm"])
        exes.append(exe)
    return exes if ok else None


def time_rows(exes, rounds, only=()):
    """(fn, type, form, spmdc ns, ispc ns, ratio) per row (those of `only` where given, as
    (fn, type, form) keys): each time the mean over the programs."""
    sums = {}
    order = []
    for exe in exes:
        p = subprocess.run([exe, str(rounds)] + [":".join(k) for k in only],
                           stdout=subprocess.PIPE, text=True)
        for line in p.stdout.splitlines():
            fn, t, form, ts, ti = line.split()
            key = (fn, t, form)
            if key not in sums:
                sums[key] = [0.0, 0.0]
                order.append(key)
            sums[key][0] += float(ts) / len(exes)
            sums[key][1] += float(ti) / len(exes)
    return [k + (sums[k][0], sums[k][1], sums[k][1] / sums[k][0]) for k in order]


def retime_low_rows(exes, rounds, rows, below):
    """The rows whose ratio is below `below` timed once more, the same way (both compilers,
    every placement); each compiler's time is the lower of its two means. A disturbance of
    the shared machine during one measurement shows as one slow mean for one side; timing
    again treats both sides alike. Returns the rows and how many were re-timed."""
    low = [r[:3] for r in rows if r[5] < below]
    if not low:
        return rows, 0
    again = {r[:3]: r for r in time_rows(exes, rounds, low)}
    out = []
    for r in rows:
        a = again.get(r[:3])
        if a:
            ts, ti = min(r[3], a[3]), min(r[4], a[4])
            r = r[:3] + (ts, ti, ti / ts)
        out.append(r)
    return out, len(low)


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", default="sse4-i32x4,avx2-i32x8,avx2-i32x16,avx512skx-x16")
    ap.add_argument("--libs", default="default,fast")
    ap.add_argument("--functions", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--placements", type=int, default=4,
                    help="links per target and library, 16 bytes of padding apart (1: one layout)")
    ap.add_argument("--ispc", default=DEFAULT_ISPC)
    ap.add_argument("--spmdc", default=os.path.join(ROOT, "build", "bin", "spmdc"))
    ap.add_argument("--cxx", default="clang++-22")
    ap.add_argument("--build-dir", default="/tmp/bench-math-vs-ispc")
    ap.add_argument("--markdown", default="")
    ap.add_argument("--worst", type=int, default=5, help="worst rows listed per target and library")
    ap.add_argument("--retime-below", type=float, default=0.85,
                    help="rows first measured below this ratio are timed once more (0: never)")
    args = ap.parse_args()
    if not os.path.exists(args.ispc):
        print("ISPC not found at %s: nothing to compare against" % args.ispc)
        return 0
    functions = FUNCTIONS
    if args.functions:
        want = set(args.functions.split(","))
        functions = [f for f in FUNCTIONS if f[0] in want]
    if os.path.isdir(args.build_dir):
        shutil.rmtree(args.build_dir)
    os.makedirs(args.build_dir)
    src = os.path.join(args.build_dir, "math_bench.ispc")
    with open(src, "w") as f:
        f.write(generate_source(functions))
    main_cpp = os.path.join(args.build_dir, "main.cpp")
    with open(main_cpp, "w") as f:
        f.write(generate_main(functions))

    print("ratio = ISPC time / spmdc time per element (> 1: spmdc faster); ISPC with --opt=disable-fma")
    print("(spmdc does not contract into fma on x86); best of %d rounds of ~2 ms thread CPU time," % args.rounds)
    print("mean over %d placements of the code (0, 16, 32, 48 bytes into a 64-byte line)" % args.placements)
    summary, md = [], []
    status = 0
    for lib in args.libs.split(","):
        for target in args.targets.split(","):
            exes = build(args, target, lib, src, main_cpp)
            if not exes:
                status = 1
                continue
            rows, retimed = retime_low_rows(exes, args.rounds, time_rows(exes, args.rounds),
                                            args.retime_below)
            print("\n== %s, --math-lib=%s ==" % (target, lib))
            if retimed:
                print("(%d rows first measured below %.2f timed again; each side's time the lower"
                      " of its two means)" % (retimed, args.retime_below))
            print("%-11s %-6s %-8s %10s %10s %7s" % ("function", "type", "form", "spmdc ns", "ispc ns", "ratio"))
            for r in rows:
                print("%-11s %-6s %-8s %10.3f %10.3f %7.2f%s" % (r + (" <0.8" if r[5] < 0.8 else "",)))
            ratios = [r[5] for r in rows]
            g = geomean(ratios)
            worst = sorted(rows, key=lambda r: r[5])[:args.worst]
            print("geomean %.3f over %d rows; min %.2f; rows below 0.8: %d" %
                  (g, len(rows), min(ratios), sum(1 for x in ratios if x < 0.8)))
            summary.append((target, lib, g, len(rows), worst))
            md.append((target, lib, rows))
    print("\n== summary (ratio = ISPC / spmdc) ==")
    for target, lib, g, n, worst in summary:
        print("%-14s %-8s geomean %.3f  worst: %s" % (target, lib, g, ", ".join(
            "%s %s %s %.2f" % (r[0], r[1], r[2], r[5]) for r in worst)))
    if args.markdown:
        with open(args.markdown, "w") as f:
            for target, lib, rows in md:
                f.write("\n%s, --math-lib=%s\n\n| function | type | form | spmdc ns | ISPC ns | ratio |\n"
                        "| --- | --- | --- | --- | --- | --- |\n" % (target, lib))
                for r in rows:
                    f.write("| %s | %s | %s | %.3f | %.3f | %.2f |\n" % r)
    return status


if __name__ == "__main__":
    sys.exit(main())
