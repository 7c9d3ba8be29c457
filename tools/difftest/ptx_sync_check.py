#!/usr/bin/env python3
"""Finds warp-synchronous instructions under lane-divergent control in PTX.

spmdc's NVPTX code keeps "synchronization parity" (docs/design-spmd-ir.md): a
`vote.sync`, `shfl.sync`, `match.sync` or `bar.warp.sync` with the full mask runs
only where the warp's 32 threads are converged. One that runs on one side of a
branch whose condition differs between threads waits for threads that are on the
other side: undefined behaviour in the PTX ISA, a hang or a wrong vote on the GPU.
This check needs no GPU, so a GPU batch (difftest.py --gpu-prepare) and a test
can look for that class of bug where they cannot run the code.

For each function: the registers whose value may differ between threads are found
by a flow-insensitive taint from %laneid/%tid (divergent_registers); a branch `@%p bra` on a tainted
predicate is divergent; the blocks it reaches before its immediate post-dominator
(where the threads meet again) must hold no warp-synchronous instruction. It is
conservative (a butterfly reduction's result counts as divergent), so it may flag
code that is correct; it does not prove termination.

A branch whose condition is divergent only through butterfly shuffles (shfl.sync.bfly)
is reported as unsure: most likely a reduction (reduce_add of a 64-bit value is split in
halves and reassociated by LLVM, beyond the pattern this check follows), whose result
is the same in every thread.

usage: ptx_sync_check.py FILE.ptx...   (exit 1 if anything but an unsure case is flagged)
"""
import re
import sys

WARP_SYNC = re.compile(r"^(?:@!?%p\d+\s+)?(vote\.sync|shfl\.sync|match\.sync|bar\.warp\.sync|"
                       r"redux\.sync|activemask)")
BRANCH = re.compile(r"^(@!?(%p\d+)\s+)?bra(\.uni)?\s+(\$?\w+)")
DEF = re.compile(r"^(?:@!?%p\d+\s+)?([\w.]+)\s+(\{[^}]*\}|%\w+)\s*,\s*(.*);")
FUNC = re.compile(r"^(?:\.visible\s+|\.weak\s+)?\.(entry|func)\b.*?(\w+)\s*\(")


def functions(path):
    """[(name, [(label, [instruction])])]: each function's blocks in order."""
    out, blocks, depth = [], None, 0
    for raw in open(path):
        line = raw.split("//")[0].strip()
        m = FUNC.match(line)
        if m and depth == 0:
            blocks = []
            out.append((m.group(2), blocks))
            continue
        if blocks is None:
            continue
        depth += line.count("{") - line.count("}")
        m = re.match(r"^(\$?\w+):", line)
        if m:
            blocks.append((m.group(1), []))
        elif line.endswith(";") and not line.startswith("."):
            if not blocks:
                blocks.append(("(entry)", []))
            blocks[-1][1].append(line)
    return out


def split_at_branches(blocks):
    """Basic blocks: a label's instructions cut after every branch or return."""
    out = []
    for label, ins in blocks:
        cur = (label, [])
        out.append(cur)
        for k, i in enumerate(ins):
            cur[1].append(i)
            if BRANCH.match(i) or re.match(r"^(@!?%p\d+\s+)?(ret|exit)\b", i):
                cur = ("%s+%d" % (label, k + 1), [])
                out.append(cur)
    return out


UNIFORM, LANE_AFFINE, DIVERGENT = 0, 1, 2


def divergent_registers(blocks, butterflies_uniform=False):
    """The registers whose value may differ between the threads of a warp.

    A flow-insensitive fixpoint over three levels: the same in every thread,
    lane-affine (a warp-uniform value plus %tid.x or %laneid: `tid / 32` of it is
    the warp's number, `tid & -32` its first thread, the same in every thread, as
    spmdc launches blocks whose x size is a multiple of 32; so %tid.y and %tid.z are
    the same in every thread of a warp too),
    and divergent. Votes and shuffles from a lane all threads agree on give every thread the
    same value; atomics give each its own."""
    defs = []
    for _, ins in blocks:
        # Registers known to hold a constant here (a mov of an immediate earlier in
        # the block): LLVM reuses a register for a constant and for a lane's value.
        constant = {}
        for i in ins:
            m = DEF.match(i)
            if not m or m.group(1).startswith(("st.", "bra")):
                continue
            op, dst, rest = m.groups()
            operands = [constant.get(x.strip(), x.strip()) for x in rest.split(",")]
            dsts = re.findall(r"%\w+", dst)
            defs.append((op, dsts, operands))
            for d in dsts:
                constant.pop(d, None)
            if op.startswith("mov") and len(dsts) == 1 and re.match(r"^-?\d+$", operands[0]):
                constant[dsts[0]] = operands[0]
    level = {}
    # With butterflies_uniform: every value computed from a butterfly shuffle counts
    # as the same in every thread (a reduction's result, whatever its pieces).
    from_butterfly = set()
    while butterflies_uniform:
        grown = {d for op, dsts, operands in defs for d in dsts
                 if op.startswith("shfl.sync.bfly") or from_butterfly & set(operands)}
        if grown <= from_butterfly:
            break
        from_butterfly |= grown
    # A butterfly reduction: d = op(x, shfl.sync.bfly(x, k)) for a commutative op
    # holds the same value in lanes l and l^k; after the offsets 16, 8, 4, 2 and 1
    # every thread holds the same value. partner[d] = (x, k); invariant[d] = the offsets.
    ndefs = {}
    for _, dsts, _ in defs:
        for d in dsts:
            ndefs[d] = ndefs.get(d, 0) + 1
    partner = {dsts[0]: (operands[0], int(operands[1])) for op, dsts, operands in defs
               if op.startswith("shfl.sync.bfly") and operands[1].isdigit()}
    invariant = {}
    for op, dsts, operands in defs:
        if (len(dsts) == 1 and ndefs[dsts[0]] == 1 and len(operands) == 2
                and op.split(".")[0] in ("add", "mul", "min", "max", "and", "or", "xor")):
            a, b = operands
            if partner.get(b, (None,))[0] != a:
                a, b = b, a
            if partner.get(b, (None,))[0] == a:
                invariant[dsts[0]] = invariant.get(a, frozenset()) | {partner[b][1]}
    butterfly_uniform = {d for d, offsets in invariant.items() if offsets >= {1, 2, 4, 8, 16}}

    def of(x):
        if x in ("%tid.x", "%laneid"):
            return LANE_AFFINE
        if x.startswith("[") and any(
                level.get(r, UNIFORM) for r in re.findall(r"%\w+", x)):
            return DIVERGENT
        return level.get(x, UNIFORM)

    # A lane-affine register shifted by k bits (a warp frame's offset: the thread's
    # linear index scaled to the frame size): its low 5 + k bits hold the lane.
    shift = {}
    changed = True
    while changed:
        changed = False
        for op, dsts, operands in defs:
            if dsts and dsts[0] in butterfly_uniform:
                continue
            levels = [of(x) for x in operands]
            if op.startswith("vote.sync") or (op.startswith("shfl.sync.idx") and
                                              levels[1:2] == [UNIFORM]) or (
                                                  dsts and dsts[0] in from_butterfly):
                continue  # every thread gets the same value (from a lane all agree on)
            if op.startswith("atom"):
                new = DIVERGENT
            elif max(levels, default=UNIFORM) == UNIFORM:
                new = UNIFORM
            elif (op.startswith(("mov", "add")) and sorted(levels) in
                  ([LANE_AFFINE], [UNIFORM, LANE_AFFINE]) and len(dsts) == 1):
                k = shift.get(operands[levels.index(LANE_AFFINE)], 0)
                new = LANE_AFFINE if shift.get(dsts[0], k) == k else DIVERGENT
                shift[dsts[0]] = k
            elif op.startswith("mad.lo") and levels[:2] == [UNIFORM, UNIFORM]:
                new = levels[2]
            elif (op.startswith(("shl", "shr")) and levels[0] == LANE_AFFINE
                  and operands[1].isdigit() and len(dsts) == 1):
                k = int(operands[1]) * (1 if op.startswith("shl") else -1)
                low = 5 + shift.get(operands[0], 0) + k  # bits below the warp's part
                if low <= 0:
                    new = UNIFORM  # the warp's number
                elif shift.get(dsts[0], low - 5) == low - 5:
                    new = LANE_AFFINE
                    shift[dsts[0]] = low - 5
                else:
                    new = DIVERGENT
            elif (op.startswith("and") and levels[0] == LANE_AFFINE
                  and re.match(r"^-?\d+$", operands[1])
                  and int(operands[1]) % (1 << (5 + shift.get(operands[0], 0))) == 0):
                new = UNIFORM  # the warp's first thread (times 2^k)
            else:
                new = DIVERGENT
            for d in dsts:
                if new > level.get(d, UNIFORM):
                    level[d] = new
                    changed = True
    return {r for r, v in level.items() if v != UNIFORM}


def check_function(blocks):
    """[(branch block, branch, reconvergence block, [(block, instruction)],
    whether the condition is divergent only through butterfly shuffles)]"""
    blocks = split_at_branches(blocks)
    index = {label: n for n, (label, _) in enumerate(blocks)}
    n_blocks = len(blocks)
    exit_node = n_blocks
    succ = []
    for n, (_, ins) in enumerate(blocks):
        last = ins[-1] if ins else ""
        m = BRANCH.match(last)
        if m:
            s = [index[m.group(4)]] if m.group(4) in index else [exit_node]
            if m.group(1) and n + 1 < n_blocks:
                s.append(n + 1)
        elif re.match(r"^(ret|exit)\b", last) or n + 1 >= n_blocks:
            s = [exit_node]
        else:
            s = [n + 1]
        succ.append(s)
    # Post-dominators, iteratively (the functions are small).
    everything = set(range(n_blocks + 1))
    pdom = [set(everything) for _ in range(n_blocks)] + [{exit_node}]
    changed = True
    while changed:
        changed = False
        for n in range(n_blocks - 1, -1, -1):
            new = {n} | set.intersection(*[pdom[s] for s in succ[n]])
            if new != pdom[n]:
                pdom[n], changed = new, True

    def ipdom(n):
        strict = pdom[n] - {n}
        for d in strict:
            if all(e == d or e in pdom[d] for e in strict):
                return d
        return exit_node

    tainted = divergent_registers(blocks)
    # Divergent only through butterfly shuffles: most likely a reduction whose pieces
    # (64-bit halves, reassociated sums) this check cannot follow to the uniform result.
    tainted_elsewhere = divergent_registers(blocks, butterflies_uniform=True)
    found = []
    for n, (label, ins) in enumerate(blocks):
        m = BRANCH.match(ins[-1]) if ins else None
        if not m or not m.group(2) or m.group(2) not in tainted:
            continue
        meet = ipdom(n)
        seen, stack = set(), list(succ[n])
        while stack:
            x = stack.pop()
            if x in seen or x in (meet, exit_node):
                continue
            seen.add(x)
            stack += succ[x]
        syncs = [(blocks[x][0], i) for x in sorted(seen) for i in blocks[x][1] if WARP_SYNC.match(i)]
        if syncs:
            found.append((label, ins[-1], blocks[meet][0] if meet < n_blocks else "(exit)", syncs,
                          m.group(2) not in tainted_elsewhere))
    return found


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    flagged = 0
    for path in sys.argv[1:]:
        fns = functions(path)
        checked = [(name, check_function(blocks)) for name, blocks in fns]
        sure = [name for name, found in checked if any(not f[4] for f in found)]
        unsure = [name for name, found in checked if found and name not in sure]
        flagged += len(sure)
        print("%s: %d functions, %d with a warp-synchronous instruction under divergent control"
              "%s" % (path, len(fns), len(sure),
                      ", %d more where only a butterfly reduction makes the condition "
                      "divergent (unsure)" % len(unsure) if unsure else ""))
        for name, found in checked:
            for label, branch, meet, syncs, through_butterfly in found:
                print("  %s%s: %s (%s) reaches %s in %s before the threads meet at %s" % (
                    "(unsure) " if through_butterfly else "", name, re.sub(r"\s+", " ", branch),
                    label, re.sub(r"\s+", " ", syncs[0][1]), syncs[0][0], meet))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
