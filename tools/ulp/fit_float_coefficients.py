#!/usr/bin/env python3
"""Fits the single-precision polynomial kernels of stdlib/math.spmd and prints them as
.spmd-ready float literals, with the Cody-Waite splits of ln2 and pi/2.

Each fit is a weighted minimax fit (Lawson's iteratively reweighted least squares on
Chebyshev nodes, mpmath at 50 digits) of the relative error of the whole kernel, with
the leading coefficients fixed to exact values; the remaining coefficients are then
rounded to float one at a time, highest degree last, refitting the ones not yet
rounded, and the error of the rounded polynomial is printed. Rerun to reproduce."""
import struct
import sys

import mpmath as mp

mp.mp.dps = 50


def to_float(v):
    return mp.mpf(struct.unpack("f", struct.pack("f", float(v)))[0])


def lit(v):
    """Shortest decimal that reads back as the same float, with an f suffix."""
    f = float(to_float(v))
    for digits in range(6, 12):
        s = "%.*g" % (digits, f)
        if float(to_float(mp.mpf(s))) == f:
            break
    if "e" not in s and "." not in s:
        s += ".0"
    return s + "f"


def solve_weighted(rows, rhs, weights):
    n = len(rows[0])
    a = mp.matrix(n, n)
    b = mp.matrix(n, 1)
    for row, y, w in zip(rows, rhs, weights):
        for i in range(n):
            b[i] += w * row[i] * y
            for j in range(n):
                a[i, j] += w * row[i] * row[j]
    return list(mp.lu_solve(a, b))


def fit(name, target, scale, powers, fixed, lo, hi, npts=160, iters=60):
    """Skipped unless `name` starts with one of the command-line words (none: all).
Minimizes max |(fixed(x) + sum c_i basis_i(x) - target(x)) / scale(x)| over [lo, hi],
    basis_i(x) = x^powers[i]. Returns the float-rounded coefficients."""
    if len(sys.argv) > 1 and not any(name.startswith(w) for w in sys.argv[1:]):
        return None
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + mp.mpf(0.5)) / npts)
          for k in range(npts)]
    tx = [target(x) for x in xs]
    sx = [scale(x) for x in xs]
    coeffs = [None] * len(powers)

    def solve_free():
        free = [i for i in range(len(powers)) if coeffs[i] is None]
        rows, rhs = [], []
        for x, t, s in zip(xs, tx, sx):
            known = fixed(x) + sum(coeffs[i] * x**powers[i] for i in range(len(powers))
                                   if coeffs[i] is not None)
            rows.append([x**powers[i] / s for i in free])
            rhs.append((t - known) / s)
        w = [mp.mpf(1)] * len(xs)
        sol = None
        for _ in range(iters):
            sol = solve_weighted(rows, rhs, w)
            err = [abs(sum(r[j] * sol[j] for j in range(len(free))) - y) for r, y in zip(rows, rhs)]
            total = sum(wi * e for wi, e in zip(w, err))
            w = [wi * e / total for wi, e in zip(w, err)]
        return free, sol

    for _ in range(len(powers)):
        free, sol = solve_free()
        coeffs[free[0]] = to_float(sol[0])
    dense = [lo + (hi - lo) * k / 4000 for k in range(4001)]
    err = max(abs((fixed(x) + sum(c * x**p for c, p in zip(coeffs, powers)) - target(x)) / scale(x))
              for x in dense if scale(x) != 0)
    print(f"// {name}: on [{float(lo):.6g}, {float(hi):.6g}], max relative error "
          f"{float(err):.3g} (2^{float(mp.log(err, 2)):.1f})")
    print("//   " + ", ".join(f"x^{p}: {lit(c)}" for p, c in zip(powers, coeffs)))
    return coeffs


def split(name, v, bits, pieces):
    """v = sum of pieces, each but the last holding `bits` significant bits."""
    out = []
    rest = v
    for i in range(pieces - 1):
        e = mp.floor(mp.log(abs(rest), 2))
        scale = mp.mpf(2)**(bits - 1 - e)
        head = mp.nint(rest * scale) / scale
        out.append(head)
        rest -= head
    out.append(to_float(rest))
    print(f"// {name} in {pieces} pieces ({bits} bits each but the last): " +
          ", ".join(lit(p) for p in out) + f"; rest {float(rest - out[-1]):.3g}")
    return out


def near0(f, series):
    return lambda x: series(x) if abs(x) < mp.mpf(10)**-20 else f(x)


ln2 = mp.log(2)
# exp: e^r = 1 + r + r^2 (1/2 + c3 r + ...), |r| <= ln2/2 (+ rounding slack).
R = ln2 / 2 * (1 + mp.mpf(2)**-10)
fit("exp: e^r = 1 + r + r^2 P(r)", mp.exp, mp.exp, [2, 3, 4, 5, 6, 7],
    lambda r: 1 + r, -R, R)
# log: 2 atanh(s) = 2s + s z R(z) with z = s^2 <= (3 - 2 sqrt2)^2; relative to 2s.
smax2 = ((mp.sqrt(2) - 1) / (mp.sqrt(2) + 1))**2 * (1 + mp.mpf(2)**-10)
fit("log: (2 atanh(s) - 2s) / s = z R(z)",
    near0(lambda z: 2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2, lambda z: 2 * z / 3),
    lambda z: 2, [1, 2, 3, 4], lambda z: 0, mp.mpf(0), smax2)
# pow's log in double-float: 2 atanh(s) = 2s + (2/3)s^3 (both double-float) + s^5 P(z).
fit("pow log: (2 atanh(s) - 2s - (2/3)s^3) / s^5 = P(z)",
    near0(lambda z: ((2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z - mp.mpf(2) / 3) / z,
          lambda z: mp.mpf(2) / 5 + 2 * z / 7),
    near0(lambda z: ((2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z - mp.mpf(2) / 3) / z,
          lambda z: mp.mpf(2) / 5 + 2 * z / 7),
    [0, 1, 2, 3], lambda z: 0, mp.mpf(0), smax2)
# sin, cos on |r| <= pi/4 (z = r^2): sin r = r + r z S(z), cos r = 1 - z/2 + z^2 C(z).
# |r| <= 0.9: pi/4 plus the error of q = round(x * (2/pi)) in float for |x| < 1.6e6.
z4 = mp.mpf(0.9)**2
fit("sin: sin(r) / r = 1 + z S(z)", near0(lambda z: mp.sin(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 - z / 6),
    near0(lambda z: mp.sin(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 - z / 6), [1, 2, 3, 4],
    lambda z: 1, mp.mpf(0), z4)
fit("cos: cos r = 1 - z/2 + z^2 C(z)", lambda z: mp.cos(mp.sqrt(z)), lambda z: mp.cos(mp.sqrt(z)),
    [2, 3, 4, 5], lambda z: 1 - z / 2, mp.mpf(0), z4)
# asin on |s| <= 1/2: asin s = s + s z A(z).
fit("asin: asin(s) / s = 1 + z A(z)",
    near0(lambda z: mp.asin(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 + z / 6),
    near0(lambda z: mp.asin(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 + z / 6),
    [1, 2, 3, 4, 5], lambda z: 1, mp.mpf(0), mp.mpf(0.25) * (1 + mp.mpf(2)**-10))
# atan on |t| <= tan(pi/8): atan t = t + t z T(z).
fit("atan: atan(t) / t = 1 + z T(z)",
    near0(lambda z: mp.atan(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 - z / 3),
    near0(lambda z: mp.atan(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 - z / 3),
    [1, 2, 3, 4, 5], lambda z: 1, mp.mpf(0), mp.tan(mp.pi / 8)**2 * (1 + mp.mpf(2)**-10))
split("ln2", ln2, 16, 2)
split("pi/2", mp.pi / 2, 13, 5)
for n, v in [("log2(e)", 1 / ln2), ("2/pi", 2 / mp.pi), ("sqrt2", mp.sqrt(2)), ("ln2", ln2)]:
    hi = to_float(v)
    print(f"// {n} = {lit(hi)} + {lit(v - hi)}")
for n, v in [("pi", mp.pi), ("pi/2", mp.pi / 2), ("pi/4", mp.pi / 4), ("3pi/4", 3 * mp.pi / 4),
             ("2/3", mp.mpf(2) / 3), ("tan(pi/8)", mp.tan(mp.pi / 8))]:
    hi = to_float(v)
    print(f"// {n} = {lit(hi)} + {lit(v - hi)}")

# erf of the default library (spmd_mathf_fast_erf), the form of ISPC's: below 1.26,
# erf(x) = x + x P(x^2) (P of degree 7, relative error; 2/sqrt(pi) - 1 as a float is
# 2^-28 from exact where 2/sqrt(pi) would be 2^-25); above, erf(x) = 1 - q(x)^-16 with
# q = erfc^(-1/16) a polynomial with q(0) = 1 (absolute error of erf: an error d of q
# costs 16 erfc(x) d / q in erf, which is why the split sits where erfc < 1/13).
ERF_SPLIT = mp.mpf("1.26")
fit("erf small: erf(x) = x + x P(x^2)", mp.erf, mp.erf, [1, 3, 5, 7, 9, 11, 13, 15],
    lambda x: x, mp.mpf(0), ERF_SPLIT)
fit("erf big: erfc(x)^(-1/16) = 1 + x Q(x)", lambda x: mp.erfc(x)**(-mp.mpf(1) / 16),
    lambda x: mp.erfc(x)**(-mp.mpf(1) / 16) / (16 * mp.erfc(x)), [1, 2, 3, 4, 5, 6, 7],
    lambda x: 1, ERF_SPLIT, mp.mpf("3.92"))

# exp of the default library (spmd_mathf_fast_exp): degree 6, e^r = 1 + r + r^2 E(r) with
# E of degree 4 on |r| <= ln2/2 (+ rounding slack): 2^-29 relative, far below the final
# roundings (degree 7 buys nothing measurable).
fit("fast exp: e^r = 1 + r + r^2 E(r), E of degree 4", mp.exp, mp.exp, [2, 3, 4, 5, 6],
    lambda r: 1 + r, -R, R)
# log of the default library (spmd_mathf_fast_log): no division; log(1 + f) = f - f^2/2 +
# f^3 P(f) on f = m - 1, m in [sqrt(1/2), sqrt(2)) (the form of Cephes' logf).
F_LO, F_HI = mp.sqrt(mp.mpf(0.5)) - 1, mp.sqrt(2) - 1
fit("fast log: log(1 + f) = f - f^2/2 + f^3 P(f)",
    near0(lambda f: mp.log1p(f), lambda f: f - f**2 / 2 + f**3 / 3),
    near0(lambda f: mp.log1p(f), lambda f: f), [3, 4, 5, 6, 7, 8, 9, 10, 11],
    lambda f: f - f**2 / 2, F_LO * (1 + mp.mpf(2)**-20), F_HI * (1 + mp.mpf(2)**-20))
# log of --math-lib=fast (log, log1p, pow): the same form with P of degree 5.
fit("fastlib log: log(1 + f) = f - f^2/2 + f^3 P(f), P of degree 5",
    near0(lambda f: mp.log1p(f), lambda f: f - f**2 / 2 + f**3 / 3),
    near0(lambda f: mp.log1p(f), lambda f: f), [3, 4, 5, 6, 7, 8],
    lambda f: f - f**2 / 2, F_LO * (1 + mp.mpf(2)**-20), F_HI * (1 + mp.mpf(2)**-20))
# atan of the default library (spmd_mathf_fast_atan): atan u = u + u z T(z) on the whole
# [0, 1] (1/|x| above 1).
fit("fast atan: atan(u) / u = 1 + z T(z), z in [0, 1]",
    near0(lambda z: mp.atan(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 - z / 3),
    near0(lambda z: mp.atan(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 - z / 3),
    [1, 2, 3, 4, 5, 6, 7], lambda z: 1, mp.mpf(0), mp.mpf(1))
# acos of the default library (spmd_mathf_fast_acos): acos(x) = sqrt(1 - x) (pi/2 + x Q(x))
# on [0, 1], pi/2 exact (the kernel adds it last as head + tail).
fit("fast acos: acos(x) / sqrt(1 - x) = pi/2 + x Q(x)",
    lambda x: mp.acos(x) / mp.sqrt(1 - x) if x < 1 else mp.sqrt(2),
    lambda x: mp.acos(x) / mp.sqrt(1 - x) if x < 1 else mp.sqrt(2), list(range(1, 8)),
    lambda x: mp.pi / 2, mp.mpf(0), mp.mpf(1))
# acos of --math-lib=fast (spmd_mathf_fastlib_acos): acos(x) = sqrt(t) P(t) on t = 1 - |x| in
# [0, 1], P of degree 5 (ISPC's fast kernel's form and degree), relative error.
fit("fastlib acos: acos(1 - t) = sqrt(t) P(t), P of degree 5",
    lambda t: mp.acos(1 - t) / mp.sqrt(t) if t > 0 else mp.sqrt(2),
    lambda t: mp.acos(1 - t) / mp.sqrt(t) if t > 0 else mp.sqrt(2), list(range(0, 6)),
    lambda t: 0, mp.mpf(0), mp.mpf(1))
# asin of --math-lib=fast (spmd_mathf_fastlib_asin): the default kernel's form with A of
# degree 3.
fit("fastlib asin: asin(s) / s = 1 + z A(z), A of degree 3",
    near0(lambda z: mp.asin(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 + z / 6),
    near0(lambda z: mp.asin(mp.sqrt(z)) / mp.sqrt(z), lambda z: 1 + z / 6),
    [1, 2, 3, 4], lambda z: 1, mp.mpf(0), mp.mpf(0.25) * (1 + mp.mpf(2)**-10))
