#!/usr/bin/env python3
"""The tuning mode of horizontal fusion (HFuse's profiling search, SPEC section 4).

  hfuse-tune.py build --pair A,B --source FILE.spmd [--source ...] --out DIR
      Here (no GPU): compiles every candidate fusion of kernels A and B for
      nvptx-sm_90: gA+gB gangs per block, gA and gB multiples of --step gangs
      (4 gangs = 128 threads, HFuse's step), 32*(gA+gB) <= --max-threads; each
      once without a register bound and once with the bound of HFuse's occupancy
      formula (below) when that bound is lower than the registers the fused kernel
      uses. Register counts come from `ptxas -v`. Writes DIR/hfuse_A_B/: one cubin
      (and its PTX) per candidate, apart.cubin (A and B unfused) and manifest.txt.

  hfuse-tune.py run DIR --pair A,B --bench BENCH [--ratios 1] [--out OUTDIR]
      On the GPU: runs the host program BENCH (examples/hfuse/bench.cu), which
      times every candidate of the manifest on real inputs and writes the fastest
      as a line of OUTDIR/tuned.conf in the --hfuse-config syntax.

  hfuse-tune.py pick TUNED.conf [--into examples/hfuse/hfuse-tuned.conf]
      Installs the tuned lines: each replaces the line for the same kernel list in
      the target file (or is appended), so that the next
      `spmdc --hfuse-config=examples/hfuse/hfuse-tuned.conf ...` builds the tuned kernel.

The register bound (HFuse section III-B, "Limit Register Usage for Occupancy"): with
R registers, S bytes of shared memory and T threads per SM, side X apart at
dX = 32*gX threads, rX registers and sX bytes of shared memory runs
BX = min(R / (ceil8(rX)*dX), S / sX, T / dX, 32) blocks per SM. The fused kernel
should run as many blocks per SM as the input kernels, unless threads or shared
memory allow fewer: B = min(BA, BB, T/(dA+dB), S/(sA+sB)), and the bound is
maxnreg = R / (B*(dA+dB)) rounded down to a multiple of 8 (at most 255, at least 16).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Hopper (sm_90) per-SM resources.
SM_REGISTERS = 65536
SM_SHARED_BYTES = 228 * 1024
SM_SHARED_PER_BLOCK_RESERVED = 1024
SM_THREADS = 2048
SM_BLOCKS = 32


def fail(msg):
    sys.stderr.write("hfuse-tune: %s\n" % msg)
    sys.exit(1)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("command failed (status %d): %s\n%s%s" % (r.returncode, " ".join(cmd), r.stdout, r.stderr))
    return r.stdout + r.stderr


def ptxas_resources(ptxas, ptx, cubin, arch):
    """Assembles ptx into cubin; returns {kernel: (registers, shared bytes, spill bytes)}."""
    log = run([ptxas, "-arch=" + arch, "-v", ptx, "-o", cubin])
    kernels, current = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
            kernels[current] = [0, 0, 0]
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes spill stores", line)
        if m:
            kernels[current][2] = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            kernels[current][0] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            kernels[current][1] = int(s.group(1)) if s else 0
    return {k: tuple(v) for k, v in kernels.items()}


def blocks_per_sm(registers, threads, shared):
    by_regs = SM_REGISTERS // (max(8, (registers + 7) // 8 * 8) * threads)
    by_shared = SM_SHARED_BYTES // (shared + SM_SHARED_PER_BLOCK_RESERVED)
    return max(0, min(by_regs, by_shared, SM_THREADS // threads, SM_BLOCKS))


def register_bound(res_a, res_b, gangs_a, gangs_b):
    """HFuse's occupancy-preserving maxnreg for the partition (see the module doc)."""
    d_a, d_b = 32 * gangs_a, 32 * gangs_b
    b_a = blocks_per_sm(res_a[0], d_a, res_a[1])
    b_b = blocks_per_sm(res_b[0], d_b, res_b[1])
    shared = res_a[1] + res_b[1] + SM_SHARED_PER_BLOCK_RESERVED
    target = min(b_a, b_b, SM_THREADS // (d_a + d_b), SM_SHARED_BYTES // shared)
    if target < 1:
        return None
    bound = SM_REGISTERS // (target * (d_a + d_b)) // 8 * 8
    return max(16, min(255, bound))


def partitions(step, max_threads):
    limit = max_threads // 32
    return [(a, b) for a in range(step, limit, step) for b in range(step, limit - a + 1, step)]


def build(args):
    a, b = parse_pair(args.pair)
    spmdc = args.spmdc or os.path.join(ROOT, "build", "bin", "spmdc")
    ptxas = args.ptxas or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    for tool in (spmdc, ptxas):
        if not os.path.exists(tool):
            fail("%s not found" % tool)
    out = os.path.join(args.out, "hfuse_%s_%s" % (a, b))
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    # One translation unit that includes every source (kernels may live in different files).
    unit = os.path.join(out, "pair.spmd")
    with open(unit, "w") as f:
        for src in args.source:
            f.write('#include "%s"\n' % os.path.abspath(src))
    spmdc_cmd = [spmdc, "--target=nvptx-" + args.arch, "-O3", unit] + [
        "-I" + d for d in args.include]

    def compile_candidate(stem, hfuse):
        ptx = os.path.join(out, stem + ".ptx")
        run(spmdc_cmd + (["--hfuse=" + hfuse] if hfuse else []) + ["-o", ptx])
        return ptxas_resources(ptxas, ptx, os.path.join(out, stem + ".cubin"), args.arch)

    apart = compile_candidate("apart", None)
    for k in (a, b):
        if k not in apart:
            fail("kernel %s is not in %s" % (k, ", ".join(args.source)))
    fused = "hfuse_%s_%s" % (a, b)
    lines = ["# hfuse-tune.py build: pair %s %s, target %s, step %d gangs, <= %d threads"
             % (a, b, args.arch, args.step, args.max_threads),
             "apart %s registers %d shared %d" % (a, apart[a][0], apart[a][1]),
             "apart %s registers %d shared %d" % (b, apart[b][0], apart[b][1]),
             "# candidate gA gB maxnreg(0: none) registers file spill-bytes"]
    count = 0
    for g_a, g_b in partitions(args.step, args.max_threads):
        stem = "g%d_%d" % (g_a, g_b)
        res = compile_candidate(stem, "%s,%s:%d,%d" % (a, b, g_a, g_b))
        if fused not in res:
            fail("%s is not in the PTX of %s (does this spmdc have --hfuse?)" % (fused, stem))
        lines.append("candidate %d %d 0 %d %s.cubin %d" % (g_a, g_b, res[fused][0], stem, res[fused][2]))
        count += 1
        bound = register_bound(apart[a], apart[b], g_a, g_b)
        if bound is not None and bound < res[fused][0]:
            stem_b = "%s_r%d" % (stem, bound)
            res_b = compile_candidate(stem_b, "%s,%s:%d,%d:maxnreg=%d" % (a, b, g_a, g_b, bound))
            lines.append("candidate %d %d %d %d %s.cubin %d"
                         % (g_a, g_b, bound, res_b[fused][0], stem_b, res_b[fused][2]))
            count += 1
        else:
            lines.append("# %d+%d: bound %s does not lower the %d registers; no bounded variant"
                         % (g_a, g_b, bound, res[fused][0]))
    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d candidates in %s (apart: %s %d regs, %s %d regs)"
          % (fused, count, out, a, apart[a][0], b, apart[b][0]))


def run_bench(args):
    a, b = parse_pair(args.pair)
    os.makedirs(args.out, exist_ok=True)
    cmd = [args.bench, args.dir, "--pairs", "%s+%s" % (a, b), "--ratios", args.ratios,
           "--out", args.out]
    sys.exit(subprocess.call(cmd))


def kernel_list(line):
    """The kernel list of an --hfuse value (the part before the first ':')."""
    return line.split(":", 1)[0].replace(" ", "")


def pick(args):
    new = [l.strip() for l in open(args.tuned) if l.strip() and not l.strip().startswith("#")]
    if not new:
        fail("%s holds no tuned line" % args.tuned)
    old = open(args.into).read().splitlines() if os.path.exists(args.into) else [
        "# Tuned horizontal fusions (scripts/hfuse-tune.py pick); spmdc --hfuse-config=THIS_FILE"]
    replaced = {kernel_list(l): l for l in new}
    merged = []
    for line in old:
        key = kernel_list(line.strip()) if line.strip() and not line.strip().startswith("#") else None
        if key in replaced:
            merged.append(replaced.pop(key))
        else:
            merged.append(line)
    merged += [l for l in new if kernel_list(l) in replaced]
    with open(args.into, "w") as f:
        f.write("\n".join(merged) + "\n")
    for l in new:
        print("picked %s" % l)


def parse_pair(text):
    parts = [p for p in re.split(r"[,+]", text) if p]
    if len(parts) != 2:
        fail("--pair wants two kernel names, A,B (got '%s')" % text)
    return parts


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--pair", required=True)
    b.add_argument("--source", action="append", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--include", "-I", action="append", default=[])
    b.add_argument("--spmdc")
    b.add_argument("--ptxas")
    b.add_argument("--arch", default="sm_90")
    b.add_argument("--step", type=int, default=4)
    b.add_argument("--max-threads", type=int, default=1024)
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--pair", required=True)
    r.add_argument("--bench", required=True)
    r.add_argument("--ratios", default="1")
    r.add_argument("--out", default=".")
    k = sub.add_parser("pick")
    k.add_argument("tuned")
    k.add_argument("--into", default=os.path.join(ROOT, "examples", "hfuse", "hfuse-tuned.conf"))
    args = p.parse_args()
    {"build": build, "run": run_bench, "pick": pick}[args.cmd](args)


if __name__ == "__main__":
    main()
