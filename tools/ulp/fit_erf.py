#!/usr/bin/env python3
"""Fits the erf/erfc kernels of stdlib/math.spmd (mpmath chebyfit at 60 digits) and prints
them as .spmd-ready double literals, highest degree first, with the relative fit error:

  R(t) = erf(x)/x - 1 for t = x^2 in [0, 0.84375^2]      (erf = x + x R(x^2))
  G_i(s) = erfc(x) e^(x^2) for x = c_i + s on [a_i, b_i]  (erfc = e^(-x^2) G(x))
  H(s) = x erfc(x) e^(x^2) for 1/x = U0 + s on [1/28, 1/6] (erfc = e^(-x^2) H / x)
"""
import sys
import mpmath as mp

mp.mp.dps = 60


def fit(name, f, a, b, n):
    coeffs, err = mp.chebyfit(f, [a, b], n, error=True)
    scale = max(abs(f(a)), abs(f(b)), abs(f((a + b) / 2)))
    print(f"// {name}: degree {n - 1} on [{float(a):.6g}, {float(b):.6g}], relative error ~{float(err / scale):.3g}")
    # The constant term as head + tail (the kernels add the tail to the small terms first).
    print("//   " + ", ".join(repr(float(c)) for c in coeffs) + f", tail {float(coeffs[-1] - mp.mpf(float(coeffs[-1])))!r}")


def erf_ratio(t):
    if t < mp.mpf("1e-30"):
        return 2 / mp.sqrt(mp.pi) - 1
    x = mp.sqrt(t)
    return mp.erf(x) / x - 1


def g(c):
    return lambda s: mp.erfc(c + s) * mp.exp((c + s) ** 2)


U0 = (1 / mp.mpf(28) + 1 / mp.mpf(6)) / 2


def h(s):
    x = 1 / (U0 + s)
    return x * mp.erfc(x) * mp.exp(x * x)


deg = int(sys.argv[1]) if len(sys.argv) > 1 else 0
fit("R", erf_ratio, mp.mpf(0), mp.mpf("0.84375") ** 2, 13)
for a, b, n in [(0.84375, 1.5, 15), (1.5, 2.5, 16), (2.5, 4, 17), (4, 6, 18)]:
    c = (a + b) / 2
    fit(f"G on [{a}, {b}] around {c}", g(mp.mpf(c)), mp.mpf(a) - c, mp.mpf(b) - c, n)
print(f"// U0 = {float(U0)!r}")
fit("H", h, 1 / mp.mpf(28) - U0, 1 / mp.mpf(6) - U0, 15)
