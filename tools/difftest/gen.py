#!/usr/bin/env python3
"""Random program generator for differential testing of spmdc against ISPC.

Generates valid, deterministic programs in the subset of the language that ISPC
and spmdc share: one `export void difftest(...)` entry point that folds every
value it computes into hashes and writes them to an output array, which
tools/difftest/driver.cpp prints. A program is a tree of statement nodes (see
`Stmt`), so the driver can shrink a failing program by deleting nodes and
re-rendering; the same seed and feature set always give the same program.

No undefined behaviour, by construction:
  * signed +, -, * go through the unsigned type of the same width (wrapping);
    divisors are (x & 7) + 1; shift counts are masked below the width;
  * every variable is initialized where it is declared;
  * array indices are masked to the (power-of-two) array size;
  * lane-permuting operations (broadcast, rotate, shift, shuffle, extract) only
    read variables declared where every lane is on (outside foreach, outside
    varying control flow), whose every lane is defined; reductions read active
    lanes only, so they may go anywhere;
  * float values never reach a float->int conversion out of range (f2i guards it),
    NaNs are hashed as one canonical NaN, a float reduce_min/max's zero is made
    +0, and so is a float min/max's (the sign of min(+0, -0) is unspecified), and no floating operation is left
    whose result depends on contraction or association order (no float reductions
    by add, x86 spmdc never contracts, ISPC runs with --opt=disable-fma).

usage: gen.py SEED [--features=a,b,...] [--no-features=a,b]  (prints the program)
"""
import argparse
import random
import sys

INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_TYPES = ["float", "double"]
BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
        "uint32": 32, "uint64": 64}
# Types the stdlib's reduce_min/max, packed_store_active and atomics take.
REDUCE_TYPES = ["int32", "uint32", "int64", "uint64"]
CROSS_LANE_TYPES = INT_TYPES + FLOAT_TYPES

# Feature flags: what the generator may use. The default set is what both
# compilers accept today; `--features` / `--no-features` change it as spmdc
# gains (or a bug needs to be avoided while another is hunted).
ALL_FEATURES = {
    "float": True,          # float and double values
    "int8_16": True,        # int8/int16/uint8/uint16 values
    "varying_if": True,
    "cif": True,
    "loops": True,          # for / do-while with break and continue
    "varying_loops": True,  # loops with a varying trip count
    "switch": True,
    "calls": True,          # static helper functions
    "recursion": True,      # bounded recursion (uniform and varying depth)
    "return_in_varying": True,  # `return` under varying control flow in helpers
    "foreach2d": True,
    "foreach_active": True,
    "foreach_unique": True,
    "reductions": True,     # reduce_add/min/max/equal, any/all/none, popcnt
    "cross_lane": True,     # broadcast, rotate, shift, shuffle, extract, insert
    "packed_store": True,   # packed_store_active
    "atomics": True,        # atomic_*_global on global variables
    "arrays": True,         # uniform and varying local arrays
    "pointers": True,       # uniform pointers, varying pointers (gathers)
    "structs": True,
    "ternary": True,
    "uniform_assign_in_varying": False,  # uniform stores under varying control flow
    "unpromoted_arith": False,  # int8/int16 arithmetic without a cast back per operation
    # ISPC 1.32 bugs the oracle would report as differences (tools/difftest/findings):
    "varying_atomic_subtract": False,  # ISPC adds instead of subtracting (ispc-bug-...-2022)
}


def signed(t):
    return t.startswith("int")


def utype(t):
    return t if not signed(t) else "u" + t


class Var:
    def __init__(self, name, ty, uniform, all_defined, kind="scalar", size=0, struct=None,
                 readonly=False):
        self.name, self.ty, self.uniform = name, ty, uniform
        self.readonly = readonly  # loop counters and foreach indices
        self.all_defined = all_defined  # every lane defined: may be read across lanes
        self.kind, self.size, self.struct = kind, size, struct


class Stmt:
    """A node of the program tree: text lines around optional child blocks.

    `head` is a list of lines printed before the children, `blocks` a list of
    (opening line, [Stmt], closing line) and `tail` lines after them. Only nodes
    with `removable` may be deleted by the shrinker (declarations and a
    function's final return may not: deleting them could make a read undefined).
    """

    def __init__(self, head, blocks=(), tail=(), removable=True, calls=()):
        self.head, self.blocks, self.tail = list(head), list(blocks), list(tail)
        self.removable = removable
        self.calls = set(calls)

    def render(self, out, ind):
        for line in self.head:
            out.append("  " * ind + line)
        for opening, body, closing in self.blocks:
            if opening is not None:
                out.append("  " * ind + opening)
            for s in body:
                s.render(out, ind + 1)
            if closing is not None:
                out.append("  " * ind + closing)
        for line in self.tail:
            out.append("  " * ind + line)

    def all_calls(self):
        c = set(self.calls)
        for _, body, _ in self.blocks:
            for s in body:
                c |= s.all_calls()
        return c


class Function:
    def __init__(self, name, header, body, exported=False):
        self.name, self.header, self.body, self.exported = name, header, body, exported

    def render(self, out):
        out.append(self.header + " {")
        for s in self.body:
            s.render(out, 1)
        out.append("}")
        out.append("")

    def calls(self):
        c = set()
        for s in self.body:
            c |= s.all_calls()
        return c


class Ctx:
    """Where a statement is generated: what it may read, write and do."""

    def __init__(self, fn, vars, all_on, varying_cf, in_loop, in_foreach, ret_type=None,
                 ret_uniform=False, hash_v=None, hash_u=None, depth=0):
        self.fn, self.vars = fn, vars
        self.all_on = all_on          # every lane of the gang is on
        self.varying_cf = varying_cf  # under varying control flow
        self.in_loop = in_loop        # break/continue allowed
        self.loop_varying = False     # the innermost loop is under varying control
        self.in_foreach = in_foreach
        self.ret_type, self.ret_uniform = ret_type, ret_uniform
        self.hash_v, self.hash_u = hash_v, hash_u
        self.depth = depth

    def child(self, **kw):
        c = Ctx(self.fn, list(self.vars), self.all_on, self.varying_cf, self.in_loop,
                self.in_foreach, self.ret_type, self.ret_uniform, self.hash_v, self.hash_u,
                self.depth + 1)
        c.loop_varying = self.loop_varying
        for k, v in kw.items():
            setattr(c, k, v)
        return c


class Generator:
    def __init__(self, seed, features=None, prefix="", max_gang=16):
        self.r = random.Random(seed)
        self.seed = seed
        # Put before every name declared at file scope (structs, globals, helpers,
        # the entry point), so that many programs can share one file (batches).
        self.prefix = prefix
        # The widest gang the program must be right for (16 on x86, 32 for a
        # GPU warp): the per-lane output slots and lane-permuted stores depend on it.
        self.max_gang = max(16, max_gang)
        self.f = dict(ALL_FEATURES)
        if features:
            self.f.update(features)
        self.counter = 0
        self.helpers = []     # Function
        self.globals = []     # lines
        self.atomic_globals = []  # (name, type)
        self.structs = []     # (name, [(field, type)])
        self.helper_sigs = []  # (name, ret type, ret uniform, [(type, uniform)])
        self.recursive_helpers = set()
        self.atomic_ops = {}  # global -> the atomic operations used on it
        # >0 inside ?: arms and && / || operands: which lanes evaluate them is a
        # question of its own, so no mask-sensitive operation (reductions, calls) goes there.
        self.masked_operand = 0

    # ---------------------------------------------------------------- names, types
    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def fresh_global(self, prefix):
        """A fresh name at file scope (with the program's prefix)."""
        return self.prefix + self.fresh(prefix)

    def scalar_types(self):
        ts = ["int32", "int64", "uint32", "uint64"]
        if self.f["int8_16"]:
            ts += ["int8", "int16", "uint8", "uint16"]
        if self.f["float"]:
            ts += FLOAT_TYPES
        return ts

    def int_types(self):
        return [t for t in self.scalar_types() if t in INT_TYPES]

    def chance(self, p):
        return self.r.random() < p

    # ---------------------------------------------------------------- expressions
    def literal(self, t):
        r = self.r
        if t == "bool":
            return r.choice(["true", "false"])
        if t in FLOAT_TYPES:
            # Multiples of 1/8: exact as float and as double, so a literal means
            # the same whether the compiler reads an unsuffixed one as float or double.
            v = r.choice([0.0, 1.0, -1.0, 0.5, 2.0, 3.25, -7.5, 100.0, 0.125, 1.0e5])
            v = v if r.random() < 0.6 else round(r.uniform(-50, 50) * 8) / 8
            return "%sf" % repr(float(v)) if t == "float" else "((double)%r)" % float(v)
        bits = BITS[t]
        if signed(t):
            lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        else:
            lo, hi = 0, (1 << bits) - 1
        v = r.choice([0, 1, 2, 3, 7, 100, hi, lo, r.randint(lo, hi), r.randint(-20, 20)])
        v = max(lo, min(hi, v))
        if v == -(1 << 63):
            return "((int64)(-9223372036854775807 - 1))"
        if t == "uint64" and v > (1 << 63) - 1:
            return "((uint64)%d)" % (v - (1 << 64))
        if t in ("int64", "uint64") and not -(1 << 31) <= v < (1 << 31):
            return "((%s)%d)" % (t, v)
        if not -(1 << 31) <= v < (1 << 31):  # uint32 above INT32_MAX
            return "((uint32)%d)" % (v - (1 << 32))
        return "((%s)%d)" % (t, v) if v >= 0 else "((%s)(%d))" % (t, v)

    def readable(self, ctx, uniform, lane_permuting=False):
        """Scalar variables readable here (uniform: only uniform ones)."""
        out = []
        for v in ctx.vars:
            if v.kind != "scalar":
                continue
            if uniform and not v.uniform:
                continue
            if lane_permuting and (v.uniform or not v.all_defined):
                continue
            out.append(v)
        return out

    def conv(self, e, frm, to):
        """`e` of type frm as type to, with no undefined conversion."""
        if frm == to:
            return e
        if frm == "bool":
            return "((%s)(%s ? 1 : 0))" % (to, e)
        if frm in FLOAT_TYPES and to in INT_TYPES:
            return "((%s)f2i_%s(%s))" % (to, frm, e)
        return "((%s)%s)" % (to, e)

    def expr(self, ctx, t, uniform, depth=0):
        """An expression of type t; uniform-valued when `uniform`."""
        r = self.r
        if depth >= 3 or r.random() < 0.35:
            return self.leaf(ctx, t, uniform)
        choice = r.random()
        if t == "bool":
            return self.cond(ctx, uniform, depth)
        if choice < 0.5:
            return self.binary(ctx, t, uniform, depth)
        if choice < 0.6 and self.f["ternary"]:
            c = self.cond(ctx, uniform, depth + 1)
            self.masked_operand += 1
            e = "(%s ? %s : %s)" % (c, self.expr(ctx, t, uniform, depth + 1),
                                    self.expr(ctx, t, uniform, depth + 1))
            self.masked_operand -= 1
            return e
        if choice < 0.7:
            return self.unary(ctx, t, uniform, depth)
        if choice < 0.8 and self.f["calls"] and self.helper_sigs and not self.masked_operand:
            call = self.call_expr(ctx, uniform, depth)
            if call:
                e, rt = call
                return self.conv(e, rt, t)
        if choice < 0.9 and not uniform and self.f["cross_lane"]:
            e = self.cross_lane(ctx, t)
            if e:
                return e
        if choice < 0.95 and self.f["reductions"] and not self.masked_operand:
            e = self.reduction(ctx, t, depth)
            if e:
                return e
        # A conversion from another type.
        st = r.choice(self.scalar_types())
        return self.conv(self.expr(ctx, st, uniform, depth + 1), st, t)

    def leaf(self, ctx, t, uniform):
        r = self.r
        vars_ = self.readable(ctx, uniform)
        x = r.random()
        if vars_ and x < 0.55:
            v = r.choice(vars_)
            return self.conv(v.name, v.ty, t)
        if x < 0.7 and not uniform:
            # An input element, per lane.
            idx = "programIndex" if not ctx.in_foreach else "i"
            if r.random() < 0.5:
                return self.conv("IN[%s]" % idx, "int32", t)
            return self.conv("INF[%s]" % idx, "float", t)
        if x < 0.8:
            return self.conv("IN[%d]" % r.randint(0, 63), "int32", t)
        if x < 0.85 and not uniform:
            return self.conv("programIndex", "int32", t)
        if x < 0.9:
            return self.conv("programCount", "int32", t)
        if self.f["arrays"] or self.f["structs"] or self.f["pointers"]:
            e = self.aggregate_read(ctx, t, uniform)
            if e:
                return e
        return self.literal(t)

    def index_expr(self, ctx, size, uniform):
        """An index in [0, size) (size a power of two)."""
        e = self.expr(ctx, "int32", uniform, 2)
        return "((%s) & %d)" % (e, size - 1)

    def aggregate_read(self, ctx, t, uniform):
        r = self.r
        aggs = [v for v in ctx.vars if v.kind in ("array", "struct", "structarray", "pointer")
                and (v.uniform or not uniform)]
        if not aggs:
            return None
        v = r.choice(aggs)
        if v.kind == "array":
            # A varying index into a uniform array is a gather.
            idx = self.index_expr(ctx, v.size, uniform)
            return self.conv("%s[%s]" % (v.name, idx), v.ty, t)
        if v.kind == "pointer":
            idx = self.index_expr(ctx, v.size, uniform)
            return self.conv("%s[%s]" % (v.name, idx), v.ty, t)
        fields = dict(self.structs)[v.struct]
        fname, fty = r.choice(fields)
        if v.kind == "struct":
            return self.conv("%s.%s" % (v.name, fname), fty, t)
        idx = self.index_expr(ctx, v.size, uniform)
        return self.conv("%s[%s].%s" % (v.name, idx, fname), fty, t)

    def cond(self, ctx, uniform, depth=0):
        r = self.r
        x = r.random()
        bools = [v for v in self.readable(ctx, uniform) if v.ty == "bool"]
        if bools and x < 0.15:
            return r.choice(bools).name
        if x < 0.25 and depth < 3:
            op = r.choice(["&&", "||"])
            self.masked_operand += 1
            e = "(%s %s %s)" % (self.cond(ctx, uniform, depth + 1), op,
                                self.cond(ctx, uniform, depth + 1))
            self.masked_operand -= 1
            return e
        if x < 0.3 and depth < 3:
            return "(!%s)" % self.cond(ctx, uniform, depth + 1)
        t = r.choice(self.scalar_types())
        op = r.choice(["<", "<=", ">", ">=", "==", "!="])
        return "(%s %s %s)" % (self.expr(ctx, t, uniform, depth + 1), op,
                               self.expr(ctx, t, uniform, depth + 1))

    def wrap(self, t, e):
        """An integer result cast back to t (ISPC does not promote; both agree after the cast).
        With `unpromoted_arith`, 8- and 16-bit results are left uncast half of the time,
        so their type (ISPC: the operands' own, C: int) shows in what uses them."""
        if self.f["unpromoted_arith"] and BITS.get(t, 32) < 32 and self.r.random() < 0.5:
            return "(%s)" % e
        return "((%s)(%s))" % (t, e)

    def binary(self, ctx, t, uniform, depth):
        r = self.r
        a = self.expr(ctx, t, uniform, depth + 1)
        b = self.expr(ctx, t, uniform, depth + 1)
        if t in FLOAT_TYPES:
            op = r.choice(["+", "-", "*", "/", "min", "max"])
            if op == "/":
                one = "1.0f" if t == "float" else "((double)1.0)"
                return "(%s / (abs(%s) + %s))" % (a, b, one)
            if op in ("min", "max"):
                # + 0 makes a zero +0: the sign of min(+0, -0) is unspecified.
                return "(%s(%s, %s) + (%s)0)" % (op, a, b, t)
            return "(%s %s %s)" % (a, op, b)
        ut = utype(t)
        op = r.choice(["+", "-", "*", "&", "|", "^", "/", "%", "<<", ">>", "min", "max"])
        if op in ("+", "-", "*"):
            if signed(t):
                return self.wrap(t, "(%s)%s %s (%s)%s" % (ut, a, op, ut, b))
            return self.wrap(t, "%s %s %s" % (a, op, b))
        if op in ("&", "|", "^"):
            return self.wrap(t, "%s %s %s" % (a, op, b))
        if op in ("/", "%"):
            # A divisor in 1..8: no division by zero, no INT_MIN / -1.
            return self.wrap(t, "%s %s (%s)((%s & 7) + 1)" % (a, op, t, b))
        if op in ("<<", ">>"):
            amount = "(%s & %d)" % (b, BITS[t] - 1)
            if op == "<<" and signed(t):
                return self.wrap(t, "(%s)%s << %s" % (ut, a, amount))
            return self.wrap(t, "%s %s %s" % (a, op, amount))
        if t in ("int32", "int64", "uint32", "uint64"):
            return "%s(%s, %s)" % (op, a, b)
        return self.wrap(t, "%s(%s, %s)" % (op, self.conv(a, t, "int32"), self.conv(b, t, "int32")))

    def unary(self, ctx, t, uniform, depth):
        r = self.r
        a = self.expr(ctx, t, uniform, depth + 1)
        if t in FLOAT_TYPES:
            op = r.choice(["-", "abs", "floor", "ceil", "sqrt"])
            if op == "-":
                return "(-%s)" % a
            if op == "sqrt":
                return "sqrt(abs(%s))" % a
            return "%s(%s)" % (op, a)
        op = r.choice(["~", "-", "abs"])
        if op == "~":
            return self.wrap(t, "~%s" % a)
        if op == "-":
            return self.wrap(t, "-(%s)%s" % (utype(t), a)) if signed(t) else self.wrap(t, "-%s" % a)
        if signed(t) and t in ("int32", "int64"):
            # abs(INT_MIN) overflows: clear the sign bit's neighbour first.
            return "abs((%s)(%s >> 1))" % (t, a)
        return a

    def cross_lane(self, ctx, t):
        r = self.r
        vs = [v for v in self.readable(ctx, False, lane_permuting=True) if v.ty in CROSS_LANE_TYPES]
        if not vs:
            return None
        v = r.choice(vs)
        op = r.choice(["broadcast", "rotate", "shift", "shuffle", "shuffle2", "extract", "insert"])
        k = r.randint(-3, 17)
        if op == "broadcast":
            e = "broadcast(%s, %d & (programCount - 1))" % (v.name, abs(k))
        elif op == "rotate":
            e = "rotate(%s, %d)" % (v.name, k)
        elif op == "shift":
            # |offset| < programCount: beyond it ISPC 1.32's results differ from the
            # all-zero vector (tools/difftest/findings/shift-offset-beyond-gang).
            e = "shift(%s, %d %% programCount)" % (v.name, k)
        elif op == "shuffle":
            e = "shuffle(%s, (%s) & (programCount - 1))" % (v.name, self.expr(ctx, "int32", False, 2))
        elif op == "shuffle2":
            w = r.choice([x for x in vs if x.ty == v.ty])
            e = "shuffle(%s, %s, (%s) & (2 * programCount - 1))" % (
                v.name, w.name, self.expr(ctx, "int32", False, 2))
        elif op == "extract":
            e = "extract(%s, %d & (programCount - 1))" % (v.name, abs(k))
        else:
            val = self.expr(ctx, v.ty, True, 2)
            e = "insert(%s, %d & (programCount - 1), %s)" % (v.name, abs(k), val)
        return self.conv(e, v.ty, t)

    def reduction(self, ctx, t, depth):
        r = self.r
        op = r.choice(["reduce_add", "reduce_min", "reduce_max", "reduce_equal", "any", "all",
                       "none", "popcnt"])
        if op in ("any", "all", "none", "popcnt"):
            # (varying bool): for a uniform condition ISPC finds popcnt ambiguous.
            e = "%s((varying bool)%s)" % (op, self.cond(ctx, False, depth + 1))
            return self.conv(e, "int32" if op == "popcnt" else "bool", t)
        if op == "reduce_add":
            # Integer sums only (a float sum depends on the order), and unsigned (no overflow).
            rt = r.choice(["uint32", "uint64"])
        else:
            rt = r.choice(REDUCE_TYPES + (FLOAT_TYPES if self.f["float"] else []))
        a = self.expr(ctx, rt, False, depth + 1)
        if op == "reduce_equal":
            return self.conv("reduce_equal(%s)" % a, "bool", t)
        if rt in FLOAT_TYPES:
            # Which zero the min or max of +0 and -0 is, neither compiler promises
            # (decisions.md): + 0 makes a -0 result +0 and changes nothing else.
            return self.conv("(%s(%s) + (%s)0)" % (op, a, rt), rt, t)
        return self.conv("%s(%s)" % (op, a), rt, t)

    def call_expr(self, ctx, uniform, depth):
        r = self.r
        cands = [s for s in self.helper_sigs if not uniform or s[2]]
        if not cands:
            return None
        name, rt, ru, params = r.choice(cands)
        if ru and not all(pu for _, pu in params):
            return None
        args = [self.expr(ctx, pt, pu or uniform, depth + 2) for pt, pu in params]
        if name in self.recursive_helpers:
            args[-1] = "((%s) & 3)" % args[-1]  # the recursion depth: small
        return "%s(%s)" % (name, ", ".join(args)), rt

    # ---------------------------------------------------------------- statements
    def hash_stmt(self, ctx, uniform=False):
        t = self.r.choice(self.scalar_types() + ["bool"])
        if uniform:
            e = self.expr(ctx, t, True)
            return Stmt(["%s = mixu(%s, %s);" % (ctx.hash_u, ctx.hash_u, self.to_u64(e, t))],
                        calls=self.calls_in(e))
        e = self.expr(ctx, t, False)
        return Stmt(["%s = mixv(%s, %s);" % (ctx.hash_v, ctx.hash_v, self.to_u64(e, t))],
                    calls=self.calls_in(e))

    def to_u64(self, e, t):
        if t == "float":
            return "(uint64)fbits(%s)" % e
        if t == "double":
            return "dbits(%s)" % e
        if t == "bool":
            return "(uint64)(%s ? 1 : 0)" % e
        return "(uint64)%s" % e

    def calls_in(self, e):
        return {s[0] for s in self.helper_sigs if s[0] + "(" in e}

    def decl_stmt(self, ctx):
        r = self.r
        t = r.choice(self.scalar_types() + ["bool"])
        uniform = ctx.all_on and not ctx.varying_cf and r.random() < 0.35
        if ctx.varying_cf and r.random() < 0.2 and self.f["uniform_assign_in_varying"]:
            uniform = True
        name = self.fresh("u" if uniform else "v")
        e = self.expr(ctx, t, uniform)
        ctx.vars.append(Var(name, t, uniform, all_defined=ctx.all_on and not ctx.varying_cf))
        q = "uniform " if uniform else ""
        return Stmt(["%s%s %s = %s;" % (q, t, name, e)], removable=False, calls=self.calls_in(e))

    def assign_stmt(self, ctx):
        r = self.r
        targets = [v for v in ctx.vars if v.kind == "scalar" and not v.readonly
                   and (not v.uniform or not ctx.varying_cf or self.f["uniform_assign_in_varying"])]
        if not targets:
            return self.hash_stmt(ctx)
        v = r.choice(targets)
        e = self.expr(ctx, v.ty, v.uniform)
        if v.ty not in FLOAT_TYPES and v.ty != "bool" and not signed(v.ty) and r.random() < 0.3:
            op = r.choice(["+=", "-=", "*=", "&=", "|=", "^="])
            return Stmt(["%s %s %s;" % (v.name, op, e)], calls=self.calls_in(e))
        return Stmt(["%s = %s;" % (v.name, e)], calls=self.calls_in(e))

    def block(self, ctx, n):
        out = []
        for _ in range(n):
            out.append(self.stmt(ctx))
        return out

    def stmt(self, ctx):
        r = self.r
        if ctx.depth > 3:
            return self.r.choice([self.hash_stmt, self.assign_stmt])(ctx)
        kinds = [("hash", 3), ("decl", 3), ("assign", 4)]
        f = self.f
        if f["varying_if"]:
            kinds.append(("if", 3))
        if f["loops"]:
            kinds.append(("for", 2))
            kinds.append(("do", 1))
            kinds.append(("while", 1))
        if f["switch"]:
            kinds.append(("switch", 1))
        if ctx.in_loop:
            kinds += [("break", 1), ("continue", 1)]
        if ctx.ret_type and (f["return_in_varying"] or not ctx.varying_cf):
            kinds.append(("return", 1))
        if ctx.all_on and not ctx.varying_cf and not ctx.in_foreach:
            kinds.append(("uhash", 2))
            if f["atomics"] and self.atomic_globals:
                kinds.append(("uatomic", 1))
        if f["atomics"] and self.atomic_globals:
            kinds.append(("vatomic", 1))
        if f["packed_store"]:
            kinds.append(("packed", 1))
        if f["foreach_active"] and ctx.fn == "export":
            kinds.append(("factive", 1))
        if f["foreach_unique"] and ctx.fn == "export":
            kinds.append(("funique", 1))
        if f["arrays"] or f["structs"] or f["pointers"]:
            kinds.append(("store", 2))
        total = sum(w for _, w in kinds)
        x = r.uniform(0, total)
        for k, w in kinds:
            x -= w
            if x <= 0:
                break
        return getattr(self, "s_" + k)(ctx)

    def s_hash(self, ctx):
        return self.hash_stmt(ctx)

    def s_uhash(self, ctx):
        return self.hash_stmt(ctx, uniform=True)

    def s_decl(self, ctx):
        return self.decl_stmt(ctx)

    def s_assign(self, ctx):
        return self.assign_stmt(ctx)

    def s_if(self, ctx):
        r = self.r
        uniform_cond = r.random() < 0.3 or not self.f["varying_if"]
        c = self.cond(ctx, uniform_cond)
        varying = not uniform_cond
        kw = "cif" if varying and self.f["cif"] and r.random() < 0.2 else "if"
        sub = dict(varying_cf=ctx.varying_cf or varying)
        then = self.block(ctx.child(**sub), r.randint(1, 2))
        blocks = [("%s (%s) {" % (kw, c), then, "}")]
        if r.random() < 0.5:
            blocks.append(("else {", self.block(ctx.child(**sub), r.randint(1, 2)), "}"))
        s = Stmt([], blocks, calls=self.calls_in(c))
        return s

    def s_for(self, ctx):
        r = self.r
        k = self.fresh("k")
        varying = self.f["varying_loops"] and r.random() < 0.5
        # A uniform counter's ++ under varying control flow is a uniform store there.
        uniform_counter_ok = not ctx.varying_cf or self.f["uniform_assign_in_varying"]
        if not varying and not uniform_counter_ok:
            ub = r.randint(1, 5)
            head = "for (int %s = 0; %s < %d; ++%s) {" % (k, k, ub, k)
            varying = True
        elif varying:
            bound = "(%s & 7)" % self.expr(ctx, "int32", False, 2)
            head = "for (int %s = 0; %s < %s; %s++) {" % (k, k, bound, k)
        else:
            ub = r.randint(1, 5)
            kw = "cfor" if self.f["cif"] and r.random() < 0.2 else "for"
            head = "%s (uniform int %s = 0; %s < %d; ++%s) {" % (kw, k, k, ub, k)
        # A loop body counts as varying control flow even with a uniform trip
        # count: a varying break or continue in it makes the rest of it varying.
        sub = ctx.child(in_loop=True, varying_cf=True)
        sub.vars.append(Var(k, "int32", not varying, all_defined=False, readonly=True))
        body = self.block(sub, r.randint(1, 3))
        return Stmt([], [(head, body, "}")], calls=self.calls_in(head))

    def s_do(self, ctx):
        r = self.r
        k = self.fresh("d")
        cond_var = self.expr(ctx, "int32", False, 2) if self.f["varying_loops"] else "0"
        sub = ctx.child(in_loop=True, varying_cf=True)
        body = self.block(sub, r.randint(1, 3))
        # The counter is bumped first so that `continue` cannot skip it.
        return Stmt(["int %s = 0;" % k],
                    [("do {", [Stmt(["++%s;" % k], removable=False)] + body,
                      "} while (%s < 4 && ((%s) & 1) == 0);" % (k, cond_var) if self.f["varying_loops"]
                      else "} while (%s < 3);" % k)],
                    calls=self.calls_in(cond_var))

    def s_while(self, ctx):
        """while (or cwhile) with a varying condition and a counter bumped first."""
        r = self.r
        k = self.fresh("w")
        c = self.cond(ctx, False, 1)
        kw = "cwhile" if self.f["cif"] and r.random() < 0.3 else "while"
        sub = ctx.child(in_loop=True, varying_cf=True)
        body = [Stmt(["++%s;" % k], removable=False)] + self.block(sub, r.randint(1, 3))
        return Stmt(["int %s = 0;" % k], [("%s (%s < %d && %s) {" % (kw, k, r.randint(1, 4), c),
                                          body, "}")], calls=self.calls_in(c))

    def s_switch(self, ctx):
        r = self.r
        uniform = r.random() < 0.3
        e = self.expr(ctx, "int32", uniform, 2)
        sub = ctx.child(varying_cf=ctx.varying_cf or not uniform)
        sub.in_loop = ctx.in_loop  # `break` in a switch leaves the switch
        blocks = []
        for c in r.sample(range(4), r.randint(1, 3)):
            body = self.block(sub.child(in_loop=False), r.randint(1, 2))
            closing = "  break;" if r.random() < 0.7 else None
            blocks.append(("case %d: {" % c, body, "}" if closing is None else "}"))
            if closing:
                blocks[-1] = ("case %d: {" % c, body + [Stmt(["break;"], removable=True)], "}")
        if r.random() < 0.5:
            blocks.append(("default: {", self.block(sub.child(in_loop=False), 1) +
                           [Stmt(["break;"])], "}"))
        return Stmt(["switch ((%s) & 3) {" % e], blocks, ["}"], calls=self.calls_in(e))

    def s_break(self, ctx):
        c = self.cond(ctx, False)
        return Stmt(["if (%s) break;" % c], calls=self.calls_in(c))

    def s_continue(self, ctx):
        c = self.cond(ctx, False)
        return Stmt(["if (%s) continue;" % c], calls=self.calls_in(c))

    def s_return(self, ctx):
        e = self.expr(ctx, ctx.ret_type, ctx.ret_uniform)
        c = self.cond(ctx, not self.f["return_in_varying"])
        return Stmt(["if (%s) return %s;" % (c, e)], calls=self.calls_in(e) | self.calls_in(c))

    def s_uatomic(self, ctx):
        r = self.r
        g, t = r.choice(self.atomic_globals)
        op = r.choice(self.atomic_ops[g])
        e = self.expr(ctx, t, True, 2)
        return Stmt(["%s = mixu(%s, (uint64)atomic_%s_global(&%s, %s));" % (
            ctx.hash_u, ctx.hash_u, op, g, e)], calls=self.calls_in(e))

    def s_vatomic(self, ctx):
        r = self.r
        g, t = r.choice(self.atomic_globals)
        # The order the lanes run in is not defined: only order-free operations,
        # and their results (which depend on it) are dropped.
        ops = [o for o in self.atomic_ops[g]
               if o != "subtract" or self.f["varying_atomic_subtract"]]
        op = r.choice(ops)
        e = self.expr(ctx, t, False, 2)
        # Through a varying temporary: a uniform value would pick the uniform
        # overload, which under varying control flow runs once or not at all.
        return Stmt(["{", "  %s at = %s;" % (t, e), "  atomic_%s_global(&%s, at);" % (op, g), "}"],
                    calls=self.calls_in(e))

    def s_packed(self, ctx):
        r = self.r
        if ctx.varying_cf and not self.f["uniform_assign_in_varying"]:
            return self.hash_stmt(ctx)  # its array's stores are uniform stores
        t = r.choice(REDUCE_TYPES)
        e = self.expr(ctx, t, False, 2)
        name = self.fresh("pk")
        lines = ["uniform %s %s[64];" % (t, name),
                 "for (uniform int z = 0; z < 64; ++z) %s[z] = 0;" % name]
        if ctx.varying_cf or ctx.in_foreach or not ctx.all_on:
            # Under varying control flow the uniform count only goes into the varying hash.
            lines.append("%s = mixv(%s, (uint64)packed_store_active(%s, %s));" % (
                ctx.hash_v, ctx.hash_v, name, e))
            lines.append("for (uniform int z = 0; z < 64; ++z) %s = mixv(%s, (uint64)%s[z]);" % (
                ctx.hash_v, ctx.hash_v, name))
        else:
            lines.append("%s = mixu(%s, (uint64)packed_store_active(%s, %s));" % (
                ctx.hash_u, ctx.hash_u, name, e))
            lines.append("for (uniform int z = 0; z < 64; ++z) %s = mixu(%s, (uint64)%s[z]);" % (
                ctx.hash_u, ctx.hash_u, name))
        return Stmt(["{"] + ["  " + l for l in lines] + ["}"], calls=self.calls_in(e))

    def s_factive(self, ctx):
        r = self.r
        lane = self.fresh("l")
        sub = ctx.child(varying_cf=True, in_loop=False)
        sub.vars.append(Var(lane, "int32", True, all_defined=False, readonly=True))
        body = self.block(sub, r.randint(1, 2))
        body.append(Stmt(["%s = mixv(%s, (uint64)%s);" % (ctx.hash_v, ctx.hash_v, lane)]))
        return Stmt([], [("foreach_active (%s) {" % lane, body, "}")])

    def s_funique(self, ctx):
        r = self.r
        val = self.fresh("q")
        # `+ programIndex * 0`: ISPC wants a varying expression here, even a uniform value.
        e = "((%s) & 3) + programIndex * 0" % self.expr(ctx, "int32", False, 2)
        sub = ctx.child(varying_cf=True, in_loop=False)
        sub.vars.append(Var(val, "int32", True, all_defined=False, readonly=True))
        body = self.block(sub, r.randint(1, 2))
        body.append(Stmt(["%s = mixv(%s, (uint64)%s);" % (ctx.hash_v, ctx.hash_v, val)]))
        return Stmt([], [("foreach_unique (%s in %s) {" % (val, e), body, "}")],
                    calls=self.calls_in(e))

    def s_store(self, ctx):
        """A store into an array or struct. A varying store into a uniform array
        uses an index that is a permutation of the lanes (programIndex ^ k, or
        foreach's i ^ k), so no two lanes write one element."""
        r = self.r
        uniform_ok = ctx.all_on and not ctx.varying_cf
        aggs = [v for v in ctx.vars if v.kind in ("array", "struct", "structarray")]
        if not aggs:
            return self.hash_stmt(ctx)
        v = r.choice(aggs)
        if v.kind == "struct":
            if v.uniform and not uniform_ok:
                return self.hash_stmt(ctx)
            fname, fty = r.choice(dict(self.structs)[v.struct])
            e = self.expr(ctx, fty, v.uniform)
            return Stmt(["%s.%s = %s;" % (v.name, fname, e)], calls=self.calls_in(e))
        if not v.uniform:
            idx, uniform_val = self.index_expr(ctx, v.size, False), False
        elif uniform_ok and r.random() < 0.5:
            idx, uniform_val = self.index_expr(ctx, v.size, True), True
        else:
            lane = "i" if ctx.in_foreach else "programIndex"
            distinct_below = 64 if ctx.in_foreach else self.max_gang
            if v.size < distinct_below or (ctx.fn != "export"):
                return self.hash_stmt(ctx)
            idx, uniform_val = "(%s ^ %d) & %d" % (lane, r.randint(0, 15), v.size - 1), False
        if v.kind == "structarray":
            fname, fty = r.choice(dict(self.structs)[v.struct])
            e = self.expr(ctx, fty, uniform_val)
            return Stmt(["%s[%s].%s = %s;" % (v.name, idx, fname, e)],
                        calls=self.calls_in(e) | self.calls_in(idx))
        e = self.expr(ctx, v.ty, uniform_val)
        return Stmt(["%s[%s] = %s;" % (v.name, idx, e)], calls=self.calls_in(e) | self.calls_in(idx))

    # ---------------------------------------------------------------- aggregates
    def aggregate_decls(self, ctx, uniform_ok):
        """Declares arrays, structs and pointers in the all-on part of the entry point."""
        r = self.r
        out = []
        f = self.f
        if f["arrays"]:
            for _ in range(r.randint(0, 2)):
                t = r.choice(self.scalar_types())
                uniform = uniform_ok and r.random() < 0.6
                size = r.choice([4, 8, 16, 64]) if uniform else r.choice([2, 4, 8])
                name = self.fresh("ua" if uniform else "va")
                q = "uniform " if uniform else ""
                lines = ["%s%s %s[%d];" % (q, t, name, size)]
                init = self.expr(ctx, t, uniform, 2)
                # In the unsigned type: ISPC's signed overflow is undefined at every width.
                lines.append("for (uniform int z = 0; z < %d; ++z) %s[z] = (%s)((%s)(%s) + (%s)z);" % (
                    size, name, t, utype(t), init, utype(t)) if t in INT_TYPES else
                    "for (uniform int z = 0; z < %d; ++z) %s[z] = %s + (%s)z;" % (size, name, init, t))
                out.append(Stmt(lines, removable=False, calls=self.calls_in(init)))
                ctx.vars.append(Var(name, t, uniform, True, kind="array", size=size))
                if f["pointers"] and uniform and r.random() < 0.5:
                    p = self.fresh("p_")
                    off = r.randint(0, size // 2)
                    psize = 1 << ((size - off).bit_length() - 1)
                    out.append(Stmt(["uniform %s * uniform %s = &%s[%d];" % (t, p, name, off)],
                                    removable=False))
                    ctx.vars.append(Var(p, t, True, True, kind="pointer", size=psize))
                if f["pointers"] and uniform and r.random() < 0.5:
                    p = self.fresh("p_")
                    idx = self.index_expr(ctx, size, False)
                    out.append(Stmt(["uniform %s * varying %s = &%s[%s];" % (t, p, name, idx)],
                                    removable=False))
                    ctx.vars.append(Var(p, t, False, True, kind="pointer", size=1))
        if f["structs"] and self.structs:
            for _ in range(r.randint(0, 2)):
                sname, fields = r.choice(self.structs)
                uniform = uniform_ok and r.random() < 0.5
                if uniform and r.random() < 0.6:
                    size = r.choice([4, 16])
                    name = self.fresh("usa")
                    lines = ["uniform %s %s[%d];" % (sname, name, size),
                             "for (uniform int z = 0; z < %d; ++z) {" % size]
                    for fn, ft in fields:
                        at = utype(ft) if ft in INT_TYPES else ft  # no signed overflow
                        lines.append("  %s[z].%s = (%s)((%s)(%s) + (%s)z);" % (
                            name, fn, ft, at, self.expr(ctx, ft, True, 2), at))
                    lines.append("}")
                    out.append(Stmt(lines, removable=False, calls=self.calls_in("".join(lines))))
                    ctx.vars.append(Var(name, sname, True, True, kind="structarray", size=size,
                                        struct=sname))
                else:
                    name = self.fresh("s")
                    q = "uniform " if uniform else ""
                    lines = ["%s%s %s;" % (q, sname, name)]
                    for fn, ft in fields:
                        lines.append("%s.%s = %s;" % (name, fn, self.expr(ctx, ft, uniform, 2)))
                    out.append(Stmt(lines, removable=False, calls=self.calls_in("".join(lines))))
                    ctx.vars.append(Var(name, sname, uniform, True, kind="struct", struct=sname))
        return out

    # ---------------------------------------------------------------- functions
    def make_helper(self):
        r = self.r
        name = self.fresh_global("f")
        rt = r.choice(self.scalar_types())
        ru = False  # uniform-returning helpers: not generated yet
        nparams = r.randint(1, 3)
        params = []
        for _ in range(nparams):
            params.append((r.choice(self.scalar_types()), ru or r.random() < 0.3))
        recursive = self.f["recursion"] and r.random() < 0.3
        du = False
        # varying_cf from the start: a varying `return` makes the rest varying.
        ctx = Ctx(name, [], all_on=False, varying_cf=True, in_loop=False, in_foreach=False,
                  ret_type=rt, ret_uniform=ru, hash_v=None, hash_u=None)
        if ru:
            ctx.all_on = False
        plist = []
        for j, (pt, pu) in enumerate(params):
            pn = "a%d" % j
            ctx.vars.append(Var(pn, pt, pu, all_defined=False))
            plist.append("%s%s %s" % ("uniform " if pu else "", pt, pn))
        body = []
        hv = self.fresh("h")
        ctx.hash_v = hv
        hq = "uniform " if ru else ""
        body.append(Stmt(["%suint64 %s = %d;" % (hq, hv, r.randint(1, 1000))], removable=False))
        ctx.vars.append(Var(hv, "uint64", ru, False))
        if recursive:
            dparam = "depth"
            du = ru or r.random() < 0.5
            plist.append("%sint32 depth" % ("uniform " if du else ""))
            params_with_depth = params + [("int32", du)]
            # The recursive call is guarded by depth > 0 and passes depth - 1.
            args = [self.expr(ctx, pt, pu, 2) for pt, pu in params] + ["depth - 1"]
            call = "%s(%s)" % (name, ", ".join(args))
            body.append(Stmt(["if (depth > 0) %s = mix%s(%s, %s);" % (
                hv, "u" if ru else "v", hv, self.to_u64(call, rt))], removable=True))
        sig_params = params + ([("int32", du)] if recursive else [])
        # Statements that hash into the helper's own hash (no uniform hash in helpers).
        body_ctx = ctx
        body_ctx.hash_u = None
        for s in self.helper_block(body_ctx, r.randint(1, 4), ru):
            body.append(s)
        ret = self.expr(ctx, rt, ru)
        if rt in INT_TYPES:
            final = "return (%s)(%s ^ (uint64)%s);" % (rt, hv, ret)
        else:
            final = "return (%s)(%s & 1023) + %s;" % (rt, hv, ret)
        body.append(Stmt([final], removable=False, calls=self.calls_in(ret)))
        header = "static %s%s %s(%s)" % ("uniform " if ru else "", rt, name, ", ".join(plist))
        fn = Function(name, header, body)
        # Recursion only needs the signature known before the body uses it: register
        # after generating the body (no call of a helper to itself except the guarded one).
        self.helper_sigs.append((name, rt, ru, sig_params))
        if recursive:
            self.recursive_helpers.add(name)
        self.helpers.append(fn)

    def helper_block(self, ctx, n, uniform_fn):
        out = []
        for _ in range(n):
            s = self.stmt(ctx)
            out.append(s)
        return out

    # ---------------------------------------------------------------- program
    def generate(self):
        r = self.r
        f = self.f
        if f["structs"]:
            for _ in range(r.randint(1, 2)):
                sname = self.fresh_global("S")
                fields = [("m%d" % j, r.choice(self.scalar_types())) for j in range(r.randint(1, 4))]
                self.structs.append((sname, fields))
        if f["atomics"]:
            for _ in range(r.randint(1, 2)):
                t = r.choice(REDUCE_TYPES)
                self.atomic_globals.append((self.fresh_global("g_"), t))
                # One family of operations per global: operations of one family
                # commute, so the order the lanes (or calls in one expression) run in
                # cannot change the final value.
                self.atomic_ops[self.atomic_globals[-1][0]] = r.choice(
                    [["add", "subtract"], ["min"], ["max"], ["and"], ["or"], ["xor"]])
        if f["calls"]:
            for _ in range(r.randint(0, 2)):
                self.make_helper()
        return self.make_entry()

    def make_entry(self):
        r = self.r
        body = []
        ctx = Ctx("export", [], all_on=True, varying_cf=False, in_loop=False, in_foreach=False,
                  hash_v="hv", hash_u="hu")
        body.append(Stmt(["uint64 hv = 17;", "uniform uint64 hu = 23;",
                          "for (uniform int z = 0; z < 64; ++z) {",
                          "  IN[z] = IN_[z];", "  INF[z] = INF_[z];", "}"], removable=False))
        for g, t in self.atomic_globals:
            body.append(Stmt(["%s = %s;" % (g, self.literal(t))], removable=False))
        body += self.aggregate_decls(ctx, True)
        body += self.block(ctx, r.randint(2, 5))
        slot = 0
        body.append(Stmt(["OUT[%d + programIndex] = hv;" % slot], removable=False))
        slot += self.max_gang
        # foreach loops: each with its own per-lane hash.
        nfe = r.randint(1, 3)
        for j in range(nfe):
            hf = "hf%d" % j
            sub = ctx.child(in_foreach=True, hash_v=hf, all_on=False, varying_cf=True)
            sub.depth = 0
            form = r.random()
            two_d = self.f["foreach2d"] and form < 0.25
            lines_body = [Stmt(["uint64 %s = %d;" % (hf, j + 5)], removable=False)]
            if two_d:
                rows = r.randint(1, 3)
                sub.vars.append(Var("y", "int32", False, False, readonly=True))
                lines_body.append(Stmt(["int i = y * 8 + x;"], removable=False))
                sub.vars.append(Var("x", "int32", False, False, readonly=True))
                head = "foreach (y = 0 ... %d, x = 0 ... 8) {" % rows
            else:
                lo = r.choice([0, 0, 0, 3])
                head = "foreach (i = %d ... N) {" % lo
            sub.vars.append(Var("i", "int32", False, False, readonly=True))
            lines_body += self.block(sub, r.randint(1, 5))
            lines_body.append(Stmt(["OUT[%d + i] = %s;" % (slot, hf)], removable=False))
            slot += 64
            body.append(Stmt([], [(head, lines_body, "}")], removable=True))
        body.append(Stmt(["OUT[%d] = hu;" % slot], removable=False))
        for g, t in self.atomic_globals:
            body.append(Stmt(["OUT[%d] = (uint64)%s;" % (slot + 1, g)], removable=False))
            slot += 1
        name = self.prefix + "difftest"
        header = ("export void %s(uniform uint64 OUT[], uniform const int32 IN_[], "
                  "uniform const float INF_[], uniform int N)" % name)
        self.entry = Function(name, header, body, exported=True)
        return self


PRELUDE = """\
// Generated by tools/difftest/gen.py, seed %s.
static inline uint64 mixv(uint64 h, uint64 v) { return (h ^ v) * (uint64)1099511628211; }
static inline uniform uint64 mixu(uniform uint64 h, uniform uint64 v) {
  return (h ^ v) * (uint64)1099511628211;
}
static inline uint32 fbits(float f) { return f != f ? (uint32)0x7fc00000 : intbits(f); }
static inline uniform uint32 fbits(uniform float f) {
  return f != f ? (uint32)0x7fc00000 : intbits(f);
}
static inline uint64 dbits(double f) { return f != f ? (uint64)0x7ff8000000000000 : intbits(f); }
static inline uniform uint64 dbits(uniform double f) {
  return f != f ? (uint64)0x7ff8000000000000 : intbits(f);
}
static inline int64 f2i_float(float f) { return (f > -1.0e9f && f < 1.0e9f) ? (int64)f : 0; }
static inline uniform int64 f2i_float(uniform float f) {
  return (f > -1.0e9f && f < 1.0e9f) ? (int64)f : 0;
}
static inline int64 f2i_double(double f) {
  return (f > (double)-1.0e9 && f < (double)1.0e9) ? (int64)f : 0;
}
static inline uniform int64 f2i_double(uniform double f) {
  return (f > (double)-1.0e9 && f < (double)1.0e9) ? (int64)f : 0;
}
"""


# The inputs, copied to globals so that helper functions read them too (one copy
# per file: each entry point fills them first, so programs of a batch share them).
INPUT_GLOBALS = ["uniform int32 IN[64];", "uniform float INF[64];", ""]


def render_program(g, out, helpers=None, entry_body=None):
    """Appends g's file-scope declarations, helpers and entry point to `out`."""
    for sname, fields in g.structs:
        out.append("struct %s {" % sname)
        for fn, ft in fields:
            out.append("  %s %s;" % (ft, fn))
        out.append("};")
    for name, t in g.atomic_globals:
        out.append("uniform %s %s;" % (t, name))
    out.append("")
    for h in (g.helpers if helpers is None else helpers):
        h.render(out)
    entry = g.entry if entry_body is None else Function(g.entry.name, g.entry.header, entry_body, True)
    entry.render(out)


def render(g, helpers=None, entry_body=None):
    """The program text; `helpers`/`entry_body` override the generated ones (shrinking)."""
    out = [PRELUDE % g.seed] + INPUT_GLOBALS
    render_program(g, out, helpers, entry_body)
    return "\n".join(out) + "\n"


def render_batch(gens):
    """Many programs (generated with distinct prefixes) in one file. Returns the
    text and, per seed, the range of its lines [first, last] (1-based)."""
    out = [PRELUDE % ("%d-%d (a batch of %d)" % (gens[0].seed, gens[-1].seed, len(gens)))]
    out += INPUT_GLOBALS
    lines = "\n".join(out).count("\n") + 1
    ranges = {}
    for g in gens:
        first = len(out)
        render_program(g, out)
        ranges[g.seed] = (lines + 1, lines + sum(x.count("\n") + 1 for x in out[first:]))
        lines = ranges[g.seed][1]
    return "\n".join(out) + "\n", ranges


def parse_features(spec):
    out = {}
    for name in filter(None, (spec or "").split(",")):
        if name not in ALL_FEATURES:
            raise SystemExit("gen.py: unknown feature '%s' (known: %s)" % (
                name, ", ".join(sorted(ALL_FEATURES))))
        out[name] = True
    return out


def features_from(on, off):
    f = parse_features(on)
    for k in parse_features(off):
        f[k] = False
    return f


def generate(seed, features=None, prefix="", max_gang=16):
    return Generator(seed, features, prefix, max_gang).generate()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--features", default="")
    ap.add_argument("--no-features", default="")
    a = ap.parse_args()
    sys.stdout.write(render(generate(a.seed, features_from(a.features, a.no_features))))


if __name__ == "__main__":
    main()
