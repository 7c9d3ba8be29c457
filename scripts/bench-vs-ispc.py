#!/usr/bin/env python3
"""Times spmdc against ISPC on the ISPC-style examples (examples/ispc/<name>/), for every x86
target this CPU runs, and prints one table of ratios ISPC time / spmdc time (> 1: spmdc is
faster) with the geometric mean per target; writes a bar plot (PNG) when matplotlib is there.

For each example and target the same <name>.spmd is compiled twice:
  spmdc --target=T -O2                      -h <name>_ispc.h
  ispc  --target=T -O2 --opt=disable-fma    -h <name>_ispc.h   (spmdc never contracts on x86)
and each object is linked with the same main.cpp and <name>_scalar.cpp (clang++-22 -O3
-march=native) and libspmdc_runtime.a; ISPC's objects also get examples/ispc/common/
ispc_tasks.cpp, ISPC's task ABI on spmdc's thread pool, so both run their tasks alike. ISPC's
header declares namespace `ispc`, main.cpp calls `spmd::`: the ISPC build says -Dspmd=ispc.
Both programs check their results against the scalar code (`check: ok`). Everything is built
first; then `--rounds` rounds each run every (example, target) pair's two programs in turn
(the order alternating by round), each doing `--runs` timed runs; a row's time is the best
over all of them. (A slow spell of the host thus lands in one round of many cells, not in
every round of one.) By default the programs time CPU time
(SPMDC_BENCH_CLOCK=cpu, see examples/ispc/common/bench.h): on a host shared with busy
neighbours wall-clock time mostly measures them; `--clock wall` times wall-clock time
(then `+tasks` rows show the scaling too, not only the work).

usage: bench-vs-ispc.py [--examples a,b] [--targets t1,t2] [--rounds N] [--runs N]
                        [--ispc PATH] [--spmdc PATH] [--plot FILE|none] [--markdown FILE]
                        [--cpu LIST] [--clock cpu|wall] [--small]
Exit status 0 when ISPC is missing (a message says so), 1 if anything fails to build or check.
"""
import argparse
import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES_DIR = os.path.join(ROOT, "examples", "ispc")
DEFAULT_ISPC = "/work/shared/ispc/ispc"

# The build helpers and the example list are bench-x86.py's (spmdc against scalar C++).
_spec = importlib.util.spec_from_file_location("bench_x86", os.path.join(ROOT, "scripts", "bench-x86.py"))
bench_x86 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_x86)
RESULT = re.compile(r"^(\S+) (\S+): scalar ([0-9.]+) ms, spmdc ([0-9.]+) ms, speedup ([0-9.]+)x$")


def find_ispc(path):
    for cand in [path, shutil.which("ispc"), DEFAULT_ISPC]:
        if cand and os.path.exists(cand):
            return cand
    return None


def build_one(args, compiler, example, target, scalar_obj, tasks_obj):
    """Builds the program of `compiler` ('spmdc' or 'ispc'); returns the executable or None."""
    src_dir = os.path.join(EXAMPLES_DIR, example)
    out_dir = os.path.join(args.build_dir, example, target, compiler)
    os.makedirs(out_dir, exist_ok=True)
    obj = os.path.join(out_dir, example + "_kernels.o")
    header = os.path.join(out_dir, example + "_ispc.h")
    source = os.path.join(src_dir, example + ".spmd")
    if compiler == "spmdc":
        cmd = [args.spmdc, "--target=" + target, "-O2", source, "-o", obj, "-h", header]
        defines = []
    else:
        cmd = [args.ispc, "--target=" + target, "-O2", "--opt=disable-fma", "--woff", "--pic",
               source, "-o", obj, "-h", header]
        defines = ["-Dspmd=ispc"]
    ok, _ = bench_x86.run(cmd, sys.stderr)
    if not ok:
        return None
    main_obj = os.path.join(out_dir, "main.o")
    ok, _ = bench_x86.run([args.cxx, "-O3", "-march=native", "-std=c++17", "-I", out_dir,
                           '-DSPMDC_TARGET_NAME="%s"' % target] + defines +
                          ["-c", os.path.join(src_dir, "main.cpp"), "-o", main_obj], sys.stderr)
    if not ok:
        return None
    exe = os.path.join(out_dir, example)
    link = [args.cxx, main_obj, scalar_obj, obj] + ([tasks_obj] if compiler == "ispc" else [])
    ok, _ = bench_x86.run(link + ["-o", exe, args.runtime_lib, "-lm", "-lpthread"], sys.stderr)
    return exe if ok else None


def run_program(args, exe):
    """Runs one program; returns {row: kernel ms}, or None when it fails or its check fails."""
    cmd = ([] if not args.cpu else ["taskset", "-c", args.cpu]) + [exe]
    cmd += ["--small"] if args.small else ["--runs", str(args.runs)]
    ok, out = bench_x86.run(cmd, sys.stderr)
    lines = out.splitlines()
    if not ok or "check: ok" not in lines:
        sys.stderr.write(out)
        return None
    return {m.group(1): float(m.group(4)) for m in map(RESULT.match, lines) if m}


def build_pair(args, example, target, scalar_obj, tasks_obj):
    """Returns ({compiler: executable}, None) or (None, why)."""
    exes = {}
    for compiler in ("spmdc", "ispc"):
        exes[compiler] = build_one(args, compiler, example, target, scalar_obj, tasks_obj)
        if not exes[compiler]:
            return None, compiler + " build failed"
    return exes, None


def run_round(args, rnd, exes, best):
    """One round of a pair: both programs in turn (the order alternating by round), each
    kernel's best time kept in best[compiler][row]. Returns None or why it failed."""
    order = ("spmdc", "ispc") if rnd % 2 == 0 else ("ispc", "spmdc")
    for compiler in order:
        times = run_program(args, exes[compiler])
        if times is None:
            return compiler + " run or check failed"
        for row, ms in times.items():
            best[compiler][row] = min(ms, best[compiler].get(row, math.inf))
    return None


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def markdown_table(targets, order, cells):
    lines = ["| example | " + " | ".join(targets) + " |",
             "| --- |" + " ---: |" * len(targets)]
    for row in order:
        parts = []
        for t in targets:
            c = cells[row].get(t)
            parts.append("-" if c is None else "FAIL" if c == "FAIL" else "%.2f" % (c[0] / c[1]))
        lines.append("| %s | %s |" % (row, " | ".join(parts)))
    lines.append("| **geomean** | " + " | ".join("**%.2f**" % geomean_of(cells, t) for t in targets) + " |")
    return "\n".join(lines)


def geomean_of(cells, target):
    return geomean([c[0] / c[1] for row in cells.values() for t, c in row.items()
                    if t == target and c != "FAIL"])


def write_plot(path, targets, order, cells):
    try:
        # Debian's python3-matplotlib, also when python3 is not Debian's (pyenv, venv).
        if importlib.util.find_spec("matplotlib") is None:
            sys.path.append("/usr/lib/python3/dist-packages")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-vs-ispc: no matplotlib (apt-get install python3-matplotlib): no plot",
              file=sys.stderr)
        return
    labels = order + ["geomean"]
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(labels)), 4.8))
    width = 0.8 / len(targets)
    for i, t in enumerate(targets):
        ys = [cells[r][t][0] / cells[r][t][1] if isinstance(cells[r].get(t), tuple) else 0
              for r in order] + [geomean_of(cells, t)]
        ax.bar([x + (i - (len(targets) - 1) / 2) * width for x in range(len(labels))], ys, width,
               label=t)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylabel("ISPC time / spmdc time  (> 1: spmdc faster)")
    ax.set_title("spmdc against ISPC 1.32 (--opt=disable-fma), same sources, same host")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("plot: " + os.path.relpath(path, ROOT))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--examples", default=",".join(bench_x86.EXAMPLES))
    p.add_argument("--targets", default=None, help="default: every x86 target this CPU runs")
    p.add_argument("--rounds", type=int, default=3, help="runs of each program, in turn")
    p.add_argument("--runs", type=int, default=3, help="timed runs inside each program run")
    p.add_argument("--small", action="store_true", help="small inputs, one round: checks only")
    p.add_argument("--cpu", default=None, help="taskset -c LIST for the programs")
    p.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                   help="time the process's CPU time (default) or wall-clock time")
    p.add_argument("--ispc", default=None, help="default: ispc on PATH, or " + DEFAULT_ISPC)
    p.add_argument("--spmdc", default=None)
    p.add_argument("--cxx", default=shutil.which("clang++-22") or "clang++-22")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build", "bench-vs-ispc"))
    p.add_argument("--plot", default=os.path.join(ROOT, "docs", "x86-vs-ispc.png"),
                   help="PNG to write ('none': no plot)")
    p.add_argument("--markdown", default=None, help="also write the table (markdown) here")
    args = p.parse_args()

    os.environ["SPMDC_BENCH_CLOCK"] = args.clock
    args.ispc = find_ispc(args.ispc)
    if not args.ispc:
        print("bench-vs-ispc: skipped: no ISPC found (pass --ispc PATH)")
        return 0
    args.spmdc = args.spmdc or bench_x86.find_spmdc()
    if not args.spmdc:
        print("bench-vs-ispc: no spmdc found (build it, or pass --spmdc)", file=sys.stderr)
        return 1
    args.runtime_lib = bench_x86.find_runtime_lib(args.spmdc)
    if not args.runtime_lib:
        print("bench-vs-ispc: no libspmdc_runtime.a found (build it)", file=sys.stderr)
        return 1
    runnable = subprocess.run([args.spmdc, "--print-host-targets"], capture_output=True,
                              text=True, check=True).stdout.split()
    targets = args.targets.split(",") if args.targets else [t for t in bench_x86.ALL_X86 if t in runnable]

    os.makedirs(args.build_dir, exist_ok=True)
    tasks_obj = os.path.join(args.build_dir, "ispc_tasks.o")
    ok, _ = bench_x86.run([args.cxx, "-O2", "-std=c++17", "-c",
                           os.path.join(EXAMPLES_DIR, "common", "ispc_tasks.cpp"), "-o", tasks_obj],
                          sys.stderr)
    if not ok:
        return 1

    failures = 0
    order, cells = [], {}  # row -> {target: (ispc ms, spmdc ms) or "FAIL"}

    def fail(example, target, why):
        nonlocal failures
        failures += 1
        print(f"{example} {target}: FAILED ({why})", flush=True)
        cells.setdefault(example, {})[target] = "FAIL"
        if example not in order:
            order.append(example)

    # Everything is built first; then each round runs every (example, target) pair once,
    # so that a slow spell of the host (a neighbour on the VM, a frequency change) lands in
    # one round of many cells, where the best of the rounds leaves it, and not in every
    # round of one cell.
    pairs = []  # (example, target, executables, best times)
    for example in args.examples.split(","):
        out_dir = os.path.join(args.build_dir, example)
        os.makedirs(out_dir, exist_ok=True)
        scalar_obj = os.path.join(out_dir, example + "_scalar.o")
        scalar_ok, _ = bench_x86.run([args.cxx, "-O3", "-march=native", "-std=c++17", "-c",
                                      os.path.join(EXAMPLES_DIR, example, example + "_scalar.cpp"),
                                      "-o", scalar_obj], sys.stderr)
        for target in targets:
            exes, err = (build_pair(args, example, target, scalar_obj, tasks_obj) if scalar_ok
                         else (None, "scalar code failed to compile"))
            if exes is None:
                fail(example, target, err)
            else:
                pairs.append((example, target, exes, {"spmdc": {}, "ispc": {}}))
    failed = set()
    for rnd in range(1 if args.small else args.rounds):
        for i, (example, target, exes, best) in enumerate(pairs):
            if i in failed:
                continue
            err = run_round(args, rnd, exes, best)
            if err:
                failed.add(i)
                fail(example, target, err)
    for i, (example, target, exes, best) in enumerate(pairs):
        if i in failed:
            continue
        for row, spmdc_ms in best["spmdc"].items():
            if row not in best["ispc"]:
                continue
            ispc_ms = best["ispc"][row]
            if row not in order:
                order.append(row)
            cells.setdefault(row, {})[target] = (ispc_ms, spmdc_ms)
            print(f"{row} {target}: ispc {ispc_ms:.2f} ms, spmdc {spmdc_ms:.2f} ms, "
                  f"ISPC/spmdc {ispc_ms / spmdc_ms:.2f}", flush=True)

    if not args.small:
        table = markdown_table(targets, order, cells)
        print()
        print("ISPC time / spmdc time (> 1: spmdc faster), %s time, best of %d x %d runs each" %
              ("CPU" if args.clock == "cpu" else "wall-clock", args.rounds, args.runs))
        print(table)
        overall = geomean([c[0] / c[1] for row in cells.values() for c in row.values() if c != "FAIL"])
        print("overall geomean: %.2f" % overall)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(table + "\n")
        if args.plot != "none":
            write_plot(args.plot, targets, order, cells)
    print("examples: all ok" if failures == 0 else f"examples: {failures} failed")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
