#!/usr/bin/env python3
"""Differential testing of spmdc against ISPC on random programs (gen.py).

For each seed: generate a program, compile it with spmdc and with ISPC (the
oracle) for each x86 target this CPU runs, link both with driver.cpp, run both
and compare what they print. A difference (wrong code), a crash or internal
error of spmdc on a program ISPC accepts, or a run that crashes, is a finding:
it is shrunk (gen.py's statement tree, deleting nodes while the same kind of
failure persists) and saved under tools/difftest/findings/<id>/ with a README.
spmdc rejecting a generated program with an ordinary error is a feature gap: the
summary counts those by message (the feature set of gen.py is configurable).

usage: difftest.py [--count N] [--seconds S] [--seed-start K] [--jobs J] [--batch B]
                   [--targets t1,t2] [--every-target] [--features a,b] [--no-features c,d]
       difftest.py --reproduce SEED [--target T]   (one seed, verbose)
       difftest.py --gpu-prepare DIR --count N [--batch B]   (a GPU batch, gang 32)
       difftest.py --gpu-prepare DIR --gpu-ablate SEED        (SEED less one statement each)
       difftest.py --check-file PROGRAM --target T           (a saved finding, again)
       difftest.py --gpu-compare DIR GPU_OUT                  (its results, run.sh's gpu.out)
       difftest.py --gpu-recompile DIR                        (DIR's PTX again, this spmdc)

--batch B puts B programs in one file (names prefixed s<seed>_), compiled once per
compiler and target (BatchBuilder); a program that differs or fails there is redone
alone, so classification, shrinking and findings are the single-program path's.
The GPU mode compiles such batches to PTX for run.sh on the GPU machine and takes
ISPC's 32-wide x86 target (avx512skx-x32) as the reference of a warp-wide gang.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import ptx_sync_check  # noqa: E402

ALL_X86 = ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"]
DEFAULT_ISPC = "/work/shared/ispc/ispc"
CXX = shutil.which("clang++-22") or shutil.which("c++") or "c++"
COMPILE_TIMEOUT = 120
RUN_TIMEOUT = 20


class Tools:
    def __init__(self, spmdc, ispc, workdir, ispc_opt="-O2"):
        self.spmdc, self.ispc, self.ispc_opt = spmdc, ispc, ispc_opt
        self.driver_obj = os.path.join(workdir, "driver.o")
        if not os.path.exists(self.driver_obj):
            subprocess.run([CXX, "-O1", "-c", os.path.join(HERE, "driver.cpp"), "-o",
                            self.driver_obj], check=True)


def compile_cmd(tools, compiler, target, src, obj):
    if compiler == "spmdc":
        # NVPTX contracts a*b+c by default; x86 (and ISPC with disable-fma) does not.
        fma = ["--opt=disable-fma"] if target.startswith("nvptx") else []
        return [tools.spmdc, "--target=" + target, "-O2"] + fma + [src, "-o", obj]
    return [tools.ispc, "--target=" + target, tools.ispc_opt, "--opt=disable-fma", "--pic", "--woff", src,
            "-o", obj]


class Outcome:
    """What one compiler did with one program on one target."""

    def __init__(self, stage, rc=0, text="", output=None):
        self.stage = stage    # "compile", "link", "run" or "ok"
        self.rc, self.text, self.output = rc, text, output


def lower_priority():
    """Niceness 10 for this worker and what it starts (once: os.nice adds up, and a
    worker runs many jobs)."""
    if hasattr(os, "nice"):
        os.nice(max(0, 10 - os.nice(0)))


def run(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return r.returncode, r.stdout + r.stderr, r.stdout
    except subprocess.TimeoutExpired:
        return 124, "timed out after %ds" % timeout, ""


class X86Runner:
    """Builds and runs a program with one compiler on one x86 target."""

    def __init__(self, tools):
        self.tools = tools

    def build_and_run(self, compiler, target, src, workdir):
        obj = os.path.join(workdir, "%s-%s.o" % (compiler, target))
        exe = os.path.join(workdir, "%s-%s.exe" % (compiler, target))
        rc, text, _ = run(compile_cmd(self.tools, compiler, target, src, obj), COMPILE_TIMEOUT)
        if rc != 0:
            return Outcome("compile", rc, text)
        rc, text, _ = run([CXX, self.tools.driver_obj, obj, "-o", exe], 60)
        if rc != 0:
            return Outcome("link", rc, text)
        rc, text, out = run([exe], RUN_TIMEOUT)
        if rc != 0:
            return Outcome("run", rc, text)
        return Outcome("ok", 0, "", out)


def is_crash(outcome):
    """A crash, assertion, hang or internal error (not an ordinary diagnostic)."""
    if outcome.rc not in (0, 1):
        return True
    return "internal error" in outcome.text or "Assertion" in outcome.text


def first_error(text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"\berror:", line, re.I):
            msg = re.sub(r"^.*?[eE]rror: ", "", line).strip()
            # ISPC continues a message on indented lines.
            for more in lines[i + 1:i + 3]:
                if more.startswith("        ") and not more.strip().startswith(("^", "Passed", "Cand")):
                    msg += " " + more.strip()
                else:
                    break
            return msg
    return text.strip().splitlines()[0] if text.strip() else "(no message)"


def normalize_message(msg):
    """Error messages with names and numbers replaced, for counting by kind."""
    msg = re.sub(r"'[^']*'", "'_'", msg)
    return re.sub(r"\b\d+\b", "N", msg)


def classify(runner, src, target, workdir):
    """One of: ("same",), ("ispc-rejects", msg), ("spmdc-crash", msg),
    ("spmdc-rejects", msg), ("wrong-code", detail), ("run-fails", detail)."""
    ispc = runner.build_and_run("ispc", target, src, workdir)
    if ispc.stage == "compile":
        return ("ispc-rejects", first_error(ispc.text))
    if ispc.stage != "ok":
        return ("ispc-run-fails", ispc.text[:200])
    spmd = runner.build_and_run("spmdc", target, src, workdir)
    if spmd.stage == "compile":
        if is_crash(spmd):
            return ("spmdc-crash", spmd.text.strip()[-400:])
        return ("spmdc-rejects", first_error(spmd.text))
    if spmd.stage != "ok":
        return ("run-fails", "%s (status %d): %s" % (spmd.stage, spmd.rc, spmd.text[:300]))
    if spmd.output != ispc.output:
        return ("wrong-code", diff_lines(ispc.output, spmd.output))
    return ("same",)


def diff_lines(ispc_out, spmd_out):
    a = dict(l.split(" ", 1) for l in ispc_out.splitlines() if " " in l)
    b = dict(l.split(" ", 1) for l in spmd_out.splitlines() if " " in l)
    slots = sorted(set(a) | set(b), key=int)
    bad = [s for s in slots if a.get(s) != b.get(s)]
    return "slots differing: %s (first: ispc %s, spmdc %s)" % (
        " ".join(bad[:8]) + (" ..." if len(bad) > 8 else ""), a.get(bad[0]), b.get(bad[0]))


# ------------------------------------------------------------------ shrinking
class Shrinker:
    """Deletes statements and helpers of generator `g` while failing(text) holds.

    Each statement list is cut in chunks first (all its removable statements,
    then halves, quarters, ... single ones), then the shrinker goes into the
    statements that stay; a compound statement that must stay is replaced by
    its bodies if that still fails. Repeats until nothing changes or time is up.
    """

    def __init__(self, g, failing, deadline):
        self.g, self.failing, self.deadline = g, failing, deadline
        self.helpers = list(g.helpers)

    def holds(self):
        return time.time() < self.deadline and self.failing(gen.render(self.g, helpers=self.helpers))

    def drop_unused_helpers(self):
        changed = False
        for h in list(self.helpers):
            users = set(self.g.entry.calls())
            for other in self.helpers:
                if other is not h:
                    users |= other.calls()
            if h.name in users:
                continue
            saved = self.helpers
            self.helpers = [x for x in saved if x is not h]
            if self.holds():
                changed = True
            else:
                self.helpers = saved
        return changed

    def shrink_list(self, lst):
        changed = False
        chunk = max(1, sum(1 for s in lst if s.removable))
        while chunk >= 1 and time.time() < self.deadline:
            i = 0
            while True:
                removable = [j for j, s in enumerate(lst) if s.removable]
                if i >= len(removable):
                    break
                drop = set(removable[i:i + chunk])
                saved = list(lst)
                lst[:] = [s for j, s in enumerate(saved) if j not in drop]
                if self.holds():
                    changed = True
                else:
                    lst[:] = saved
                    i += chunk
            chunk //= 2
        j = 0
        while j < len(lst) and time.time() < self.deadline:
            node = lst[j]
            for _, body, _ in node.blocks:
                changed |= self.shrink_list(body)
            if node.blocks and not node.head and not node.tail:
                inner = [s for _, body, _ in node.blocks for s in body]
                lst[j:j + 1] = inner
                if self.holds():
                    changed = True
                    continue
                lst[j:j + len(inner)] = [node]
            j += 1
        return changed

    def run(self):
        changed = True
        while changed and time.time() < self.deadline:
            changed = self.drop_unused_helpers()
            changed |= self.shrink_list(self.g.entry.body)
            for h in list(self.helpers):
                changed |= self.shrink_list(h.body)
        self.g.helpers = self.helpers
        return gen.render(self.g)


def shrink(g, failing, deadline):
    return Shrinker(g, failing, deadline).run()


# ------------------------------------------------------------------ one seed
def check_seed(args_tuple):
    seed, targets, features, tools_paths, findings_dir, reduce_seconds = args_tuple
    lower_priority()
    work = tempfile.mkdtemp(prefix="difftest-%d-" % seed)
    try:
        tools = Tools(*tools_paths[:2], work, *tools_paths[2:])
        runner = X86Runner(tools)
        g = gen.generate(seed, features)
        text = gen.render(g)
        src = os.path.join(work, "prog.ispc")
        with open(src, "w") as f:
            f.write(text)
        results = {}
        for target in targets:
            res = classify(runner, src, target, work)
            results[target] = res
            if res[0] in ("wrong-code", "spmdc-crash", "run-fails"):
                save_finding(seed, target, res, g, text, runner, work, findings_dir, reduce_seconds,
                             features)
                break  # one finding per program: the other targets usually repeat it
            if res[0] in ("ispc-rejects", "spmdc-rejects"):
                break  # the same on every target
        return seed, results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_seed_list(args_tuple):
    return [check_seed(args_tuple)]


def save_finding(seed, target, res, g, text, runner, work, findings_dir, reduce_seconds, features):
    kind = res[0]

    def failing(candidate):
        p = os.path.join(work, "cand.ispc")
        with open(p, "w") as f:
            f.write(candidate)
        r = classify(runner, p, target, work)
        return r[0] == kind

    reduced = shrink(g, failing, time.time() + reduce_seconds) if reduce_seconds > 0 else text
    final = os.path.join(work, "cand.ispc")
    with open(final, "w") as f:
        f.write(reduced)
    res_reduced = classify(runner, final, target, work)
    d = os.path.join(findings_dir, "%s-%d-%s" % (kind, seed, target))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "original.ispc"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "reduced.ispc"), "w") as f:
        f.write(reduced)
    for compiler in ("ispc", "spmdc"):
        o = runner.build_and_run(compiler, target, final, work)
        with open(os.path.join(d, compiler + ".out"), "w") as f:
            f.write(o.output if o.stage == "ok" else "%s failed (%d):\n%s" % (o.stage, o.rc, o.text))
    feat = ",".join(k for k, v in sorted(features.items()) if v != gen.ALL_FEATURES[k]) if features else ""
    with open(os.path.join(d, "README"), "w") as f:
        f.write("%s on %s, seed %d%s: %s (reduced: %s). Reproduce: tools/difftest/difftest.py "
                "--reproduce %d --target %s%s\n" % (
                    kind, target, seed, " features " + feat if feat else "", res[1].splitlines()[0][:300],
                    res_reduced[1].splitlines()[0][:200] if len(res_reduced) > 1 else res_reduced[0],
                    seed, target, ""))


# ------------------------------------------------------------------ batches
ERROR_LINE = re.compile(r"^(\S+?):(\d+):\d+: (?:error|Error)", re.M)


def parse_batch_output(out):
    """{seed: output} of the programs whose run ended, and the seed whose run began
    without ending (a crash or hang inside it), or None."""
    done, current, lines = {}, None, []
    for line in out.splitlines():
        if line.startswith("seed "):
            current, lines = int(line[5:]), []
        elif line.startswith("end "):
            done[current] = "".join(l + "\n" for l in lines)
            current = None
        elif current is not None:
            lines.append(line)
    return done, current


class BatchBuilder:
    """Builds and runs many programs (gen.py with prefix s<seed>_) in one file,
    once per compiler and target, and finds the programs to redo alone: those
    the compiler rejects or crashes on (by the error's line, else by halving the
    batch) and the one a run crashes in (the programs after it run again)."""

    def __init__(self, tools, workdir):
        self.tools, self.work = tools, workdir

    def build_driver(self, seeds, tag):
        inc = os.path.join(self.work, "programs-%s.inc" % tag)
        with open(inc, "w") as f:
            f.write("".join("PROGRAM(%d)\n" % s for s in seeds))
        obj = os.path.join(self.work, "driver-%s.o" % tag)
        rc, text, _ = run([CXX, "-O1", "-DDIFFTEST_BATCH=\"%s\"" % inc, "-c",
                           os.path.join(HERE, "driver.cpp"), "-o", obj], 120)
        if rc != 0:
            raise RuntimeError("difftest: the batch driver does not build:\n" + text)
        return obj

    def compile(self, compiler, target, group, tag, queue, redo, suffix="o"):
        """Compiles `group` into one object; on failure, queues what to retry
        (the group less the programs an error points into, or its halves),
        records the single program that fails in `redo` and returns None."""
        text, ranges = gen.render_batch(group)
        src = os.path.join(self.work, "batch-%s.ispc" % tag)
        with open(src, "w") as f:
            f.write(text)
        obj = os.path.join(self.work, "batch-%s.%s" % (tag, suffix))
        rc, msg, _ = run(compile_cmd(self.tools, compiler, target, src, obj),
                         COMPILE_TIMEOUT + 10 * len(group))
        if rc == 0:
            return obj
        lines = {int(m.group(2)) for m in ERROR_LINE.finditer(msg) if m.group(1) == src}
        bad = {s for s, (a, b) in ranges.items() if any(a <= l <= b for l in lines)}
        if bad:
            for s in bad:
                redo[s] = "compile: " + first_error(msg)
            queue.append([g for g in group if g.seed not in bad])
        elif len(group) == 1:
            redo[group[0].seed] = "compile: " + first_error(msg)
        else:
            queue += [group[:len(group) // 2], group[len(group) // 2:]]
        return None

    def compiled(self, compiler, target, gens, suffix):
        """[(seeds, object)] covering every program that compiles, and {seed: why not}."""
        objs, redo, queue, n = [], {}, [list(gens)], 0
        while queue:
            group = queue.pop()
            if group:
                n += 1
                obj = self.compile(compiler, target, group, "%s-%s-%d" % (compiler, target, n),
                                   queue, redo, suffix)
                if obj:
                    objs.append(([g.seed for g in group], obj))
        return objs, redo

    def outputs(self, compiler, target, gens):
        """({seed: output}, {seed: why it must be redone alone})."""
        results, redo = {}, {}
        queue = [list(gens)]
        n = 0
        while queue:
            group = queue.pop()
            if not group:
                continue
            n += 1
            tag = "%s-%s-%d" % (compiler, target, n)
            obj = self.compile(compiler, target, group, tag, queue, redo)
            if obj is None:
                continue
            exe = os.path.join(self.work, "batch-%s.exe" % tag)
            rc, msg, _ = run([CXX, self.build_driver([g.seed for g in group], tag), obj, "-o", exe],
                             120)
            if rc != 0:
                raise RuntimeError("difftest: a batch does not link:\n" + msg)
            rc, msg, out = run([exe], RUN_TIMEOUT + 2 * len(group))
            done, crashed_in = parse_batch_output(out)
            results.update(done)
            if rc != 0:
                if crashed_in is not None:
                    redo[crashed_in] = "run"
                    queue.append([g for g in group if g.seed not in done and g.seed != crashed_in])
                elif len(group) == 1:
                    redo[group[0].seed] = "run"
                else:
                    queue += [group[:len(group) // 2], group[len(group) // 2:]]
        return results, redo


def check_batch(args_tuple):
    """Runs seeds as one batch per compiler and target; a seed that differs, or
    that a compiler rejects or crashes on, is redone alone (check_seed: the
    single-program path, which classifies, shrinks and saves findings).
    Returns [(seed, {target: result})]."""
    seeds, targets, features, tools_paths, findings_dir, reduce_seconds = args_tuple
    lower_priority()
    work = tempfile.mkdtemp(prefix="difftest-batch-%d-" % seeds[0])
    try:
        builder = BatchBuilder(Tools(*tools_paths[:2], work, *tools_paths[2:]), work)
        gens = [gen.generate(s, features, prefix="s%d_" % s) for s in seeds]
        results = {s: {} for s in seeds}
        for target in targets:
            live = [g for g in gens if target not in results[g.seed]]
            ispc, ispc_redo = builder.outputs("ispc", target, live)
            spmd, spmd_redo = builder.outputs("spmdc", target, live)
            for g in live:
                s = g.seed
                if s in ispc and s in spmd and ispc[s] == spmd[s]:
                    results[s][target] = ("same",)
                    continue
                _, alone = check_seed((s, [target], features, tools_paths, findings_dir,
                                       reduce_seconds))
                res = alone[target]
                if res[0] == "same":
                    # Different in the batch only: the programs of a batch interfere.
                    why = ispc_redo.get(s) or spmd_redo.get(s) or "output"
                    res = ("batch-only", "%s differs in the batch (%s), not alone" % (target, why))
                results[s][target] = res
                if res[0] in ("ispc-rejects", "spmdc-rejects"):
                    for t in targets:  # the same on every target
                        results[s].setdefault(t, res)
        return sorted(results.items())
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ------------------------------------------------------------------ GPU batches
GPU_REFERENCE_TARGET = "avx512skx-x32"  # ISPC's 32-wide x86 target: a gang as wide as a warp
GPU_FILES = [os.path.join(HERE, "gpu_driver.cpp"), os.path.join(HERE, "inputs.h"),
             os.path.join(ROOT, "runtime", "cuda", "spmdc_cuda.c"),
             os.path.join(ROOT, "runtime", "cuda", "spmdc_cuda.h")]
GPU_RUN_SCRIPT = """#!/bin/sh
# On the GPU machine: builds the driver, assembles the chunks (ptxas, in parallel)
# and runs every program of every complete chunk (one with a .seeds file);
# all outputs into $1/gpu.out, errors into $1/gpu.err (default: this directory).
# Each program is bounded (difftest-gpu --timeout, ${DIFFTEST_GPU_TIMEOUT:-10} s): a program
# that hangs or faults ends the driver's process (and with it the context and
# the kernel); the line `hang S` or `fault S` stays in gpu.out and the driver
# starts again, in a fresh process, on the programs after S.
cd "$(dirname "$0")" && out="${1:-$PWD}" && mkdir -p "$out" || exit 1
# What a previous run built is kept (the driver, each chunk's cubin).
[ -x difftest-gpu ] || nvcc -O2 -o difftest-gpu gpu_driver.cpp spmdc_cuda.c -I. -lcuda || exit 1
for s in chunk-*.seeds; do [ -e "${s%.seeds}.ptx.cubin" ] || echo "${s%.seeds}.ptx"; done |
  xargs -r -P "$(nproc)" -I{} ptxas -arch=sm_90 {} -o {}.cubin || exit 1
: > "$out/gpu.out"; : > "$out/gpu.err"
limit="${DIFFTEST_GPU_TIMEOUT:-10}"
for s in chunk-*.seeds; do
  echo "chunk ${s%.seeds}" >> "$out/gpu.err"
  rest=$(cat "$s")
  while [ -n "$rest" ]; do
    # The outer bound is for a driver that cannot even exit.
    timeout -s KILL $((60 + 2 * limit * $(echo $rest | wc -w))) \\
      ./difftest-gpu --timeout "$limit" "${s%.seeds}.ptx.cubin" $rest > part.out 2>> "$out/gpu.err"
    rc=$?
    cat part.out >> "$out/gpu.out"
    [ $rc -eq 0 ] && break
    last=$(sed -n 's/^seed //p' part.out | tail -1)
    if [ -z "$last" ] || grep -qx "end $last" part.out; then
      echo "chunk ${s%.seeds}: the driver failed outside a program (status $rc)" >> "$out/gpu.err"
      break
    fi
    grep -qE "^(hang|fault) $last\\$" part.out || echo "lost $last" >> "$out/gpu.out"
    echo "seed $last: status $rc; the rest of the chunk runs again" >> "$out/gpu.err"
    rest=$(echo $rest | tr ' ' '\\n' | awk -v s="$last" 'after; $0 == s { after = 1 }' | tr '\\n' ' ')
    rest=$(echo $rest)
  done
done
rm -f part.out
echo "ran $(cat chunk-*.seeds | wc -w) programs; $(grep -cE '^(hang|fault|lost) ' "$out/gpu.out") hung, faulted or lost"
"""


def removable_nodes(g):
    """Every statement of g that the shrinker may delete, depth first, with the
    list that holds it."""
    found = []

    def walk(lst):
        for node in lst:
            if node.removable:
                found.append((lst, node))
            for _, body, _ in node.blocks:
                walk(body)
    for fn in [g.entry] + list(g.helpers):
        walk(fn.body)
    return found


ABLATION_IDS = 1000  # variant k of seed S is program S * 1000 + k (k = 0: S unchanged)


def gpu_program(program_id, features, ablated_seed=None):
    """Program `program_id` of a GPU batch (gang 32): seed program_id, or, in an
    ablation batch (--gpu-ablate), the seed's program less its removable
    statement number program_id % ABLATION_IDS - 1 (depth first)."""
    seed = ablated_seed if ablated_seed is not None else program_id
    g = gen.generate(seed, features, prefix="s%d_" % program_id, max_gang=32)
    g.seed = program_id
    if ablated_seed is not None and program_id % ABLATION_IDS:
        lst, node = removable_nodes(g)[program_id % ABLATION_IDS - 1]
        lst.remove(node)
    return g


def gpu_ablations(seed, features):
    """{program id: the first line of the statement its program lacks}, the
    program itself (id seed * ABLATION_IDS) included."""
    g = gen.generate(seed, features, max_gang=32)
    nodes = removable_nodes(g)
    if len(nodes) >= ABLATION_IDS or seed * ABLATION_IDS + len(nodes) >= 2 ** 31:
        raise SystemExit("difftest: seed %d has too many statements (or too large a number) "
                         "for an ablation batch" % seed)
    out = {seed * ABLATION_IDS: "(nothing: the program as generated)"}
    for k, (_, node) in enumerate(nodes, 1):
        lines = []
        node.render(lines, 0)
        out[seed * ABLATION_IDS + k] = (lines[0].strip() if lines else "(empty)")[:160]
    return out


def gpu_chunk(args_tuple):
    """Builds one chunk of a GPU batch: ISPC's 32-wide x86 outputs (the
    reference) and spmdc's PTX of the programs ISPC and spmdc both compile."""
    k, seeds, features, tools_paths, out_dir, ablated_seed = args_tuple
    lower_priority()
    work = tempfile.mkdtemp(prefix="difftest-gpu-%d-" % seeds[0])
    try:
        builder = BatchBuilder(Tools(*tools_paths[:2], work, *tools_paths[2:]), work)
        gens = [gpu_program(s, features, ablated_seed) for s in seeds]
        ref, ref_fails = builder.outputs("ispc", GPU_REFERENCE_TARGET, gens)
        gens = [g for g in gens if g.seed in ref]
        ptx, spmd_fails = builder.compiled("spmdc", "nvptx-sm_90", gens, "ptx")
        for j, (group, path) in enumerate(ptx):
            name = os.path.join(out_dir, "chunk-%d-%d" % (k, j))
            for s in group:
                with open(os.path.join(out_dir, "expected", "%d.out" % s), "w") as f:
                    f.write(ref[s])
            shutil.copy(path, name + ".ptx")
            with open(name + ".seeds", "w") as f:  # last: a chunk with .seeds is complete
                f.write(" ".join(map(str, group)) + "\n")
        return ({s: "ispc: " + w for s, w in ref_fails.items()},
                {s: "spmdc: " + w for s, w in spmd_fails.items()})
    finally:
        shutil.rmtree(work, ignore_errors=True)


def gpu_prepare(a, features):
    """--gpu-prepare DIR: a GPU batch of --count programs for run.sh on the GPU machine."""
    out = a.gpu_prepare
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "expected"))
    for f in GPU_FILES:
        shutil.copy(f, out)
    with open(os.path.join(out, "run.sh"), "w") as f:
        f.write(GPU_RUN_SCRIPT)
    chunk = a.batch or 50
    if a.gpu_ablate is not None:
        # One GPU run then tells which statements a hang or a difference needs.
        names = gpu_ablations(a.gpu_ablate, features)
        seeds = sorted(names)
        with open(os.path.join(out, "ablations.txt"), "w") as f:
            f.write("".join("%d lacks: %s\n" % kv for kv in sorted(names.items())))
    else:
        seeds = list(range(a.seed_start, a.seed_start + a.count))
    jobs = [(k, seeds[i:i + chunk], features, (a.spmdc, a.ispc, "-O" + a.ispc_opt), out,
             a.gpu_ablate) for k, i in enumerate(range(0, len(seeds), chunk))]
    rejected = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for ispc_fails, spmd_fails in pool.map(gpu_chunk, jobs):
            rejected.update(ispc_fails)
            rejected.update(spmd_fails)
    with open(os.path.join(out, "rejected.json"), "w") as f:
        json.dump(rejected, f, indent=1)
    ready = len(os.listdir(os.path.join(out, "expected")))
    print("difftest: GPU batch in %s: %d programs ready, %d left out (rejected.json)" % (
        out, ready, len(rejected)))
    for s, why in sorted(rejected.items()):
        print("  seed %d: %s" % (s, why[:160]))
    return report_ptx_sync(out)


def report_ptx_sync(out):
    """Runs ptx_sync_check.py over DIR's PTX, writes ptx-sync.txt and prints the
    programs with a warp-synchronous instruction under divergent control;
    1 when some are sure cases."""
    # No GPU needed for this oracle: a warp-synchronous instruction under divergent
    # control (ptx_sync_check.py) is a hang or a wrong vote waiting to happen.

    suspects = {}
    for name in sorted(os.listdir(out)):
        if name.endswith(".ptx"):
            for fn, blocks in ptx_sync_check.functions(os.path.join(out, name)):
                found = ptx_sync_check.check_function(blocks)
                found.sort(key=lambda f: f[4])  # sure cases first
                m = re.match(r"s(\d+)_", fn)
                if found and m:
                    label, branch, meet, syncs, unsure = found[0]
                    suspects.setdefault(int(m.group(1)), "%s%s: %s reaches %s" % (
                        "(unsure) " if unsure else "", fn, re.sub(r"\s+", " ", branch),
                        re.sub(r"\s+", " ", syncs[0][1])))
    with open(os.path.join(out, "ptx-sync.txt"), "w") as f:
        f.write("".join("%d %s\n" % kv for kv in sorted(suspects.items())))
    sure = {s: why for s, why in suspects.items() if not why.startswith("(unsure)")}
    print("difftest: PTX check (ptx_sync_check.py): %d programs with a warp-synchronous "
          "instruction under divergent control, %d more unsure (ptx-sync.txt)" % (
              len(sure), len(suspects) - len(sure)))
    for s, why in sorted(sure.items()):
        print("  seed %d: %s" % (s, why[:200]))
    return 1 if sure else 0


def gpu_recompile(a, features):
    """--gpu-recompile DIR: the PTX of a prepared GPU batch again, with this spmdc
    (the seeds and ISPC's expected outputs stay): a compiler fix is checked on the
    GPU without running the oracle again. A chunk that no longer compiles whole is
    split as --gpu-prepare splits it; programs spmdc now rejects are left out."""
    out = a.gpu_recompile
    chunks = sorted(f[:-len(".seeds")] for f in os.listdir(out) if f.endswith(".seeds"))
    rejected = {}
    work = tempfile.mkdtemp(prefix="difftest-gpu-recompile-")
    try:
        builder = BatchBuilder(Tools(a.spmdc, a.ispc, work), work)
        for chunk in chunks:
            base = os.path.join(out, chunk)
            with open(base + ".seeds") as f:
                seeds = [int(x) for x in f.read().split()]
            for stale in (base + ".seeds", base + ".ptx", base + ".ptx.cubin"):
                if os.path.exists(stale):
                    os.remove(stale)
            gens = [gpu_program(s, features) for s in seeds]
            ptx, fails = builder.compiled("spmdc", "nvptx-sm_90", gens, "ptx")
            rejected.update({s: "spmdc: " + w for s, w in fails.items()})
            for j, (group, path) in enumerate(ptx):
                name = base if j == 0 else "%s-r%d" % (base, j)
                shutil.copy(path, name + ".ptx")
                with open(name + ".seeds", "w") as f:  # last: a chunk with .seeds is complete
                    f.write(" ".join(map(str, group)) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("difftest: GPU batch in %s recompiled: %d chunks, %d programs spmdc rejects" % (
        out, len(chunks), len(rejected)))
    for s, why in sorted(rejected.items()):
        print("  seed %d: %s" % (s, why[:160]))
    return report_ptx_sync(out)


def gpu_compare(a):
    """--gpu-compare DIR GPU_OUT: the GPU's outputs (run.sh's gpu.out) against ISPC's,
    seed by seed."""
    d, outs = a.gpu_compare
    counts = {"same": 0, "different": 0, "no output": 0}
    with open(outs) as f:
        text = f.read()
    got, _ = parse_batch_output(text)
    # run.sh's watchdog: `hang S`, `fault S`, or `lost S` (the driver died in S).
    ended = {int(m.group(2)): m.group(1) for m in re.finditer(r"^(hang|fault|lost) (\d+)$", text, re.M)}
    for name in sorted(os.listdir(d)):
        if not name.endswith(".seeds"):
            continue
        with open(os.path.join(d, name)) as f:
            seeds = [int(x) for x in f.read().split()]
        for s in seeds:
            with open(os.path.join(d, "expected", "%d.out" % s)) as f:
                want = f.read()
            if s not in got:
                counts["no output"] += 1
                print("seed %d: no GPU output (%s): %s" % (s, name, {
                    "hang": "a hang (still running after run.sh's timeout)",
                    "fault": "the kernel failed (gpu.err says how)",
                    "lost": "the driver died in it"}.get(ended.get(s), "not run")))
            elif got[s] != want:
                counts["different"] += 1
                print("seed %d: GPU differs from ISPC %s: %s" % (
                    s, GPU_REFERENCE_TARGET, diff_lines(want, got[s])))
            else:
                counts["same"] += 1
    print("difftest: GPU batch: %d programs the same as ISPC %s, %d different, %d without output" % (
        counts["same"], GPU_REFERENCE_TARGET, counts["different"], counts["no output"]))
    return 0 if counts["same"] and not counts["different"] and not counts["no output"] else 1


# ------------------------------------------------------------------ main
def write_json(path, counts, rejects, results):
    """The results so far (rewritten as the run goes, so an interrupted run keeps them)."""
    if path:
        with open(path, "w") as f:
            json.dump({"counts": counts, "rejects": rejects, "results": results}, f, indent=1)


def host_targets(spmdc):
    r = subprocess.run([spmdc, "--print-host-targets"], capture_output=True, text=True)
    return [t for t in ALL_X86 if t in r.stdout.split()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100, help="programs to generate")
    ap.add_argument("--seconds", type=float, default=0, help="stop starting programs after this")
    ap.add_argument("--seed-start", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--targets", default="", help="comma list (default: all the CPU runs)")
    ap.add_argument("--every-target", action="store_true",
                    help="run each program on every target (default: one target per seed, "
                         "in turn, which covers them all at the cost of one)")
    ap.add_argument("--features", default="")
    ap.add_argument("--no-features", default="")
    ap.add_argument("--spmdc", default=os.path.join(ROOT, "build", "bin", "spmdc"))
    ap.add_argument("--ispc", default=os.environ.get("ISPC", DEFAULT_ISPC))
    ap.add_argument("--ispc-opt", default="2", choices=["1", "2"],
                    help="the oracle's optimization level: -O1 costs about half of -O2's compile "
                         "time; ISPC's results almost never depend on it (seeds 40167 and "
                         "43530 are exceptions: check a difference against ISPC -O0)")
    ap.add_argument("--findings", default=os.path.join(HERE, "findings"))
    ap.add_argument("--reduce-seconds", type=float, default=300)
    ap.add_argument("--json", help="write the per-seed results here")
    ap.add_argument("--batch", type=int, default=0,
                    help="N programs per file, each compiled once per compiler and target "
                         "(implies --every-target); a program that differs or fails is "
                         "redone alone")
    ap.add_argument("--reproduce", type=int, help="run one seed and print everything")
    ap.add_argument("--check-file", metavar="PROGRAM",
                    help="compare spmdc with ISPC on one saved program (a finding's "
                         "reduced.ispc) and print the outcome; exit 1 unless the same")
    ap.add_argument("--target", default="avx2-i32x8", help="with --reproduce or --check-file")
    ap.add_argument("--gpu-prepare", metavar="DIR",
                    help="write a GPU batch of --count programs (gang 32) to DIR: spmdc's PTX, "
                         "ISPC's %s outputs, the driver and run.sh for the GPU machine"
                         % GPU_REFERENCE_TARGET)
    ap.add_argument("--gpu-ablate", type=int, metavar="SEED",
                    help="with --gpu-prepare: a batch of SEED's program and, for each of its "
                         "removable statements, the program less that statement "
                         "(ablations.txt), to shrink a GPU finding in one GPU run")
    ap.add_argument("--gpu-recompile", metavar="DIR",
                    help="compile a prepared GPU batch's programs to PTX again with this spmdc "
                         "(after a compiler change; the expected outputs stay)")
    ap.add_argument("--gpu-compare", nargs=2, metavar=("DIR", "GPU_OUT"),
                    help="compare the outputs run.sh wrote (gpu.out) with DIR's")
    a = ap.parse_args()

    if a.gpu_compare:  # needs no ISPC: the expected outputs are in DIR
        return gpu_compare(a)
    if a.gpu_recompile:  # nor does this: only spmdc's side changes
        return gpu_recompile(a, gen.features_from(a.features, a.no_features))
    if not os.path.exists(a.ispc):
        print("difftest: no ISPC at %s (set --ispc or $ISPC): skipped" % a.ispc)
        return 0
    features = gen.features_from(a.features, a.no_features)
    if a.gpu_prepare:
        return gpu_prepare(a, features)

    if a.check_file:
        work = tempfile.mkdtemp(prefix="difftest-check-")
        try:
            runner = X86Runner(Tools(a.spmdc, a.ispc, work, "-O" + a.ispc_opt))
            res = classify(runner, os.path.abspath(a.check_file), a.target, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print("%s on %s: %s" % (a.check_file, a.target, " ".join(res)[:300]))
        return 0 if res[0] == "same" else 1
    if a.reproduce is not None:
        work = tempfile.mkdtemp(prefix="difftest-repro-")
        runner = X86Runner(Tools(a.spmdc, a.ispc, work, "-O" + a.ispc_opt))
        src = os.path.join(work, "prog.ispc")
        with open(src, "w") as f:
            f.write(gen.render(gen.generate(a.reproduce, features)))
        print("program: %s" % src)
        print(classify(runner, src, a.target, work))
        return 0
    targets = a.targets.split(",") if a.targets else host_targets(a.spmdc)
    os.makedirs(a.findings, exist_ok=True)
    start = time.time()
    counts, rejects, all_results, per_target = {}, {}, {}, {}
    programs = 0
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as pool:
        pending = set()
        seed = a.seed_start
        end_seed = a.seed_start + a.count
        while True:
            out_of_time = a.seconds and time.time() - start > a.seconds
            while len(pending) < a.jobs * 2 and seed < end_seed and not out_of_time:
                if a.batch:
                    seeds = list(range(seed, min(seed + a.batch, end_seed)))
                    job = (seeds, targets, features, (a.spmdc, a.ispc, "-O" + a.ispc_opt), a.findings,
                           a.reduce_seconds)
                    pending.add(pool.submit(check_batch, job))
                    seed += len(seeds)
                    continue
                seed_targets = targets if a.every_target else [targets[seed % len(targets)]]
                job = (seed, seed_targets, features, (a.spmdc, a.ispc, "-O" + a.ispc_opt), a.findings, a.reduce_seconds)
                pending.add(pool.submit(check_seed_list, job))
                seed += 1
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when="FIRST_COMPLETED")
            for s, results in (x for fut in done for x in fut.result()):
                programs += 1
                if programs % 25 == 0:
                    write_json(a.json, counts, rejects, all_results)
                    print("difftest: %d programs, %.0fs: %s" % (
                        programs, time.time() - start,
                        ", ".join("%s %d" % kv for kv in sorted(counts.items()))), flush=True)
                all_results[s] = {t: list(r) for t, r in results.items()}
                for t, r in results.items():
                    counts[r[0]] = counts.get(r[0], 0) + 1
                    per_target.setdefault(t, {})
                    per_target[t][r[0]] = per_target[t].get(r[0], 0) + 1
                    if r[0] in ("spmdc-rejects", "ispc-rejects"):
                        key = r[0] + ": " + normalize_message(r[1])
                        rejects.setdefault(key, []).append(s)
                    if r[0] not in ("same", "spmdc-rejects", "ispc-rejects"):
                        print("seed %d %s: %s: %s" % (s, t, r[0], r[1].splitlines()[0][:200]),
                              flush=True)
    elapsed = time.time() - start
    print("difftest: %d programs in %.0fs on %s (%.1f programs a minute)" % (
        programs, elapsed, ",".join(targets), programs * 60 / max(elapsed, 1)))
    for k, v in sorted(counts.items()):
        print("  %-16s %d" % (k, v))
    for t, c in sorted(per_target.items()):
        print("  on %s: %s" % (t, ", ".join("%s %d" % kv for kv in sorted(c.items()))))
    for k, seeds in sorted(rejects.items(), key=lambda kv: -len(kv[1])):
        print("  %4d x %s (seeds %s)" % (len(seeds), k[:200], " ".join(map(str, seeds[:5]))))
    write_json(a.json, counts, rejects, all_results)
    bad = sum(v for k, v in counts.items() if k not in ("same", "spmdc-rejects", "ispc-rejects"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
