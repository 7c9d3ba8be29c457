#!/usr/bin/env python3
"""Fits expm1's E3(r) = (e^r - 1 - r - r^2/2) / r^3 on |r| <= ln2/2 (+ a little) for
stdlib/math.spmd (mpmath chebyfit at 60 digits); prints .spmd-ready double literals,
highest degree first. exp's own tail polynomial is accurate relative to e^r (about 2e-16
relative to the tail), which expm1 multiplies by 2^k: this one is accurate relative to
the tail itself."""
import mpmath as mp

mp.mp.dps = 60


def e3(r):
    if abs(r) < mp.mpf("1e-20"):
        return mp.mpf(1) / 6 + r / 24
    return (mp.exp(r) - 1 - r - r * r / 2) / r**3


a = mp.log(2) / 2 + mp.mpf("0.001")
coeffs, err = mp.chebyfit(e3, [-a, a], 11, error=True)
print(f"// E3: degree 10 on [{float(-a):.6g}, {float(a):.6g}], relative error ~{float(err * 6):.3g}")
print("//   " + ", ".join(repr(float(c)) for c in coeffs))


def odd(f, name, zmax, n):
    """(f(x) - x) / x^3 as a function of z = x^2 on [0, zmax]."""
    def g(z):
        if z < mp.mpf("1e-30"):
            return mp.diff(lambda t: f(t), 0, 3) / 6
        x = mp.sqrt(z)
        return (f(x) - x) / (x * z)
    coeffs, err = mp.chebyfit(g, [mp.mpf(0), mp.mpf(zmax)], n, error=True)
    print(f"// {name}: degree {n - 1} in z = x^2 on [0, {zmax}], error ~{float(err):.3g}")
    print("//   " + ", ".join(repr(float(c)) for c in coeffs))


odd(mp.sinh, "sinh S(z) = (sinh x - x) / x^3", 1, 9)
odd(mp.tanh, "tanh T(z) = (tanh x - x) / x^3", mp.mpf("0.5493061443340549") ** 2, 12)
