#!/usr/bin/env python3
"""Runs every runtime test (test/runtime/*.spmd) that ISPC accepts through ISPC
as well as spmdc, with the same driver (test/runtime/Inputs/driver.cpp), and
compares what the two print, target by target.

A test ISPC rejects (spmdc-only constructs: everywhere, crev, hfuse, ...) is
skipped with ISPC's first error; so is one whose `// SPMDC-FLAGS:` asks for
something ISPC has no flag for. Exit status 0 when no accepted test disagrees.

A difference listed in the settled file (--settled; by default
scripts/runtime-tests-vs-ispc.settled: `test/runtime/NAME.spmd: who is right: why`,
docs/testing.md explains each) is reported as SETTLED and does not fail the run;
a listed test that no longer differs fails it as STALE, so the list stays true.

usage: runtime-tests-vs-ispc.py [--spmdc PATH] [--ispc PATH] [--targets a,b]
                                [--jobs N] [--settled FILE] [--verbose] [TEST.spmd ...]
Without ISPC (default /work/shared/ispc/ispc, or $ISPC) it says so and exits 0.
"""
import argparse
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIVER = os.path.join(ROOT, "test", "runtime", "Inputs", "driver.cpp")
ALL_X86 = ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"]
CXX = shutil.which("clang++-22") or shutil.which("c++") or "c++"


def run(cmd, timeout=120):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timed out"


def first_line(text):
    for line in text.splitlines():
        if "rror" in line:
            return line.strip()
    return text.strip().splitlines()[0] if text.strip() else "(no message)"


def build_and_run(cmd, obj, exe, driver_obj, runtime_lib):
    """Compiles with `cmd`, links with the driver (and `runtime_lib`, a list of
    objects and archives), runs; returns (stage reached, its output)."""
    rc, out, err = run(cmd)
    if rc != 0:
        return "compile", out + err
    rc, out, err = run([CXX, obj, driver_obj] + runtime_lib + ["-o", exe, "-lm", "-lpthread"])
    if rc != 0:
        return "link", out + err
    rc, out, err = run([exe], 60)
    if rc != 0:
        return "run", "status %d: %s" % (rc, err[-500:])
    return "ok", out


def read_settled(path):
    """test path (relative to the repository) -> the reason its difference is settled."""
    settled = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    name, _, reason = line.partition(": ")
                    settled[name] = reason
    return settled


def check_test(job):
    test, targets, spmdc, ispc, driver_obj, runtime_lib, ispc_tasks_obj, work = job
    name = os.path.relpath(test, ROOT)
    with open(test) as f:
        src = f.read()
    if "// SPMDC-FLAGS:" in src:
        return name, "skipped", "uses // SPMDC-FLAGS (no ISPC equivalent)"
    for pragma in ("vfuse", "hfuse", "coarsen"):
        if "#pragma " + pragma in src:
            # ISPC ignores the pragma, so the kernel it would build is missing at link time.
            return name, "skipped", "uses #pragma %s (spmdc's fusion: no ISPC equivalent)" % pragma
    d = tempfile.mkdtemp(dir=work)
    disagreements = []
    for target in targets:
        io = os.path.join(d, "ispc-%s.o" % target)
        so = os.path.join(d, "spmdc-%s.o" % target)
        istage, iout = build_and_run(
            [ispc, "--target=" + target, "-O2", "--opt=disable-fma", "--pic", "--woff", test,
             "-o", io], io, io + ".exe", driver_obj, [ispc_tasks_obj])
        if istage == "compile":
            return name, "skipped", "ISPC rejects it: " + first_line(iout)
        sstage, sout = build_and_run([spmdc, "--target=" + target, test, "-o", so], so,
                                     so + ".exe", driver_obj, runtime_lib)
        if istage != "ok" or sstage != "ok":
            disagreements.append("%s: ispc %s, spmdc %s: %s" % (
                target, istage, sstage, (iout if istage != "ok" else sout)[-300:]))
            continue
        if iout != sout:
            il, sl = iout.splitlines(), sout.splitlines()
            diff = [(a, b) for a, b in zip(il, sl) if a != b] or [("(%d lines)" % len(il),
                                                                     "(%d lines)" % len(sl))]
            disagreements.append("%s:\n    ispc:  %s\n    spmdc: %s" % (target, diff[0][0][:400],
                                                                      diff[0][1][:400]))
    shutil.rmtree(d, ignore_errors=True)
    if disagreements:
        return name, "differs", "\n  ".join(disagreements)
    return name, "same", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spmdc", default=os.path.join(ROOT, "build", "bin", "spmdc"))
    ap.add_argument("--ispc", default=os.environ.get("ISPC", "/work/shared/ispc/ispc"))
    ap.add_argument("--targets", default="", help="default: every x86 target this CPU runs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--settled", default=os.path.join(ROOT, "scripts", "runtime-tests-vs-ispc.settled"),
                    help="differences already settled (see the module doc)")
    ap.add_argument("--verbose", action="store_true", help="also list skipped and settled tests")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    if not os.path.exists(a.ispc):
        print("runtime-tests-vs-ispc: no ISPC at %s: nothing compared" % a.ispc)
        return 0
    if a.targets:
        targets = a.targets.split(",")
    else:
        host = run([a.spmdc, "--print-host-targets"])[1].split()
        targets = [t for t in ALL_X86 if t in host]
    tests = a.tests or sorted(glob.glob(os.path.join(ROOT, "test", "runtime", "*.spmd")))
    work = tempfile.mkdtemp(prefix="rt-vs-ispc-")
    try:
        driver_obj = os.path.join(work, "driver.o")
        subprocess.run([CXX, "-O1", "-c", DRIVER, "-o", driver_obj], check=True)
        # The task runtime, for tests that launch tasks (ISPC's ABI, docs/runtime.md).
        lib = os.path.join(os.path.dirname(os.path.dirname(a.spmdc)), "lib", "libspmdc_runtime.a")
        runtime_lib = [lib] if os.path.exists(lib) else []
        # ISPC's side gets a serial implementation of ISPC's task ABI instead.
        ispc_tasks_obj = os.path.join(work, "ispc-serial-tasks.o")
        subprocess.run([CXX, "-O1", "-c", os.path.join(ROOT, "scripts", "ispc-serial-tasks.cpp"),
                        "-o", ispc_tasks_obj], check=True)
        jobs = [(t, targets, a.spmdc, a.ispc, driver_obj, runtime_lib, ispc_tasks_obj, work)
                for t in tests]
        settled = read_settled(a.settled)
        counts = {"same": 0, "skipped": 0, "differs": 0, "settled": 0, "stale": 0}
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for name, status, detail in pool.map(check_test, jobs):
                if status == "differs" and name in settled:
                    status, detail = "settled", settled[name]
                elif status != "differs" and name in settled:
                    status, detail = "stale", "listed as settled but " + (
                        "the outputs agree now" if status == "same" else detail)
                counts[status] += 1
                if status in ("differs", "stale") or a.verbose:
                    print("%s: %s\n  %s" % (status.upper(), name, detail), flush=True)
        print("runtime-tests-vs-ispc: %d same, %d differ, %d settled differences, %d stale, "
              "%d skipped (ISPC rejects them); targets %s" % (
                  counts["same"], counts["differs"], counts["settled"], counts["stale"],
                  counts["skipped"], ",".join(targets)))
        return 1 if counts["differs"] or counts["stale"] else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
