#!/usr/bin/env python3
"""Fits P of the NVPTX float log (backend/NVPTXMath.cpp): log(1 + f) = f + f^2 P(f) for
f = m - 1, m in [2/3, 4/3) (the reduction subtracts the bits of 2/3, 0x3f2aaaab), P(0) =
-1/2 fixed. Lawson's iteratively reweighted least squares on Chebyshev nodes (mpmath, 40
digits) of the relative error of log(1 + f); the coefficients are then rounded to float
one at a time, highest degree first, refitting the others. Prints them highest degree
first, as the emitter lists them. About 45 s.

    python3 tools/ulp/fit_nvptx_log.py [degree]   # 8: the emitter's polynomial

The kernel's error over every float (0.93 ulp; rounding, not the fit, dominates) is
measured on the GPU by examples/gpu/math_ulp.cu (scripts/gpu-bench.sh run)."""
import struct
import sys

import mpmath as mp

mp.mp.dps = 40
DEGREE = int(sys.argv[1]) if len(sys.argv) > 1 else 8
LO = mp.mpf(struct.unpack("f", struct.pack("I", 0x3F2AAAAB))[0]) - 1
HI = 2 * (LO + 1) - 1


def to_float(v):
    return mp.mpf(struct.unpack("f", struct.pack("f", float(v)))[0])


def target(f):
    return (mp.log1p(f) - f) / f**2


NODES = [f for f in ((LO + HI) / 2 + (HI - LO) / 2 * mp.cos(mp.pi * (2 * i + 1) / 800)
                     for i in range(400)) if abs(f) > mp.mpf("1e-6")]


def poly(coef, f):
    return -mp.mpf(0.5) + sum(v * f**d for d, v in coef.items())


def relative_error(coef, f):
    """Error of log(1 + f) relative to its value, from P's error alone."""
    return abs((target(f) - poly(coef, f)) * f**2 / mp.log1p(f))


def fit(fixed):
    free = [d for d in range(1, DEGREE + 1) if d not in fixed]
    weights = [mp.mpf(1)] * len(NODES)
    for _ in range(60):
        n = len(free)
        a, b = mp.matrix(n, n), mp.matrix(n, 1)
        for f, w in zip(NODES, weights):
            scale = f**2 / mp.log1p(f)
            y = target(f) - poly(fixed, f)
            row = [f**d for d in free]
            ww = w * scale * scale
            for i in range(n):
                b[i] += ww * row[i] * y
                for j in range(n):
                    a[i, j] += ww * row[i] * row[j]
        c = mp.lu_solve(a, b)
        coef = dict(fixed)
        coef.update({free[i]: c[i] for i in range(n)})
        errors = [relative_error(coef, f) for f in NODES]
        total = sum(w * e for w, e in zip(weights, errors))
        weights = [w * e / total for w, e in zip(weights, errors)]
    return coef


coef = fit({})
print("fit: max relative error %s" % mp.nstr(max(relative_error(coef, f) for f in NODES), 4))
fixed = {}
for d in range(DEGREE, 0, -1):
    fixed[d] = to_float(coef[d])
    if len(fixed) < DEGREE:
        coef = fit(fixed)
print("rounded: max relative error %s (2^-24 = 5.96e-8)"
      % mp.nstr(max(relative_error(fixed, f) for f in NODES), 4))
print(", ".join("%.9gf" % float(fixed[d]) for d in range(DEGREE, 0, -1)))
