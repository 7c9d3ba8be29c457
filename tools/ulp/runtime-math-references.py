#!/usr/bin/env python3
"""Prints the inputs and references of test/runtime/stdlib-math-families-match-mpmath*.spmd:
for each float function of one argument, 16 float inputs spread over its domain and the
exact value of the function at each (mpmath at 40 digits, printed as the nearest double), as
.spmd declarations (X_name: inputs, R_name: references). The tests check spmdc's float results against these within a relative
tolerance, on every x86 target and on the GPU. Rerun to reproduce."""
import struct

import mpmath as mp

mp.mp.dps = 40


def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def spread(lo, hi, n=16):
    """n floats from lo to hi, none exactly 0 (so that every reference is a relative one)."""
    out = []
    for k in range(n):
        v = f32(lo + (hi - lo) * (k + 0.37) / n)
        out.append(v if v != 0.0 else f32(1e-3))
    return out


def magnitudes(lo_exp, hi_exp, n=16):
    """n floats of alternating sign, log-spread from 10^lo_exp to 10^hi_exp."""
    return [f32((-1) ** k * 10 ** (lo_exp + (hi_exp - lo_exp) * k / (n - 1))) for k in range(n)]


FUNCTIONS = [
    ("asin", mp.asin, spread(-0.98, 0.98)),
    ("acos", mp.acos, spread(-0.98, 0.98)),
    ("atan", mp.atan, spread(-20, 20)),
    ("cbrt", mp.cbrt, magnitudes(-20, 20)),
    ("log1p", mp.log1p, spread(-0.9, 60)[:15] + [f32(1.5e-5)]),
    ("expm1", mp.expm1, spread(-10, 10)[:15] + [f32(-2.5e-5)]),
    ("sinh", mp.sinh, spread(-20, 20)),
    ("cosh", mp.cosh, spread(-20, 20)),
    ("tanh", mp.tanh, spread(-8, 8)),
    ("erf", mp.erf, spread(-3, 3)),
    ("erfc", mp.erfc, spread(-2, 8)),
]


def shortest(x):
    """The shortest decimal that reads back as the float x."""
    for digits in range(1, 10):
        t = "%.*g" % (digits, x)
        if f32(float(t)) == x:
            break
    return t if ("e" in t or "." in t) else t + ".0"


def double_literal(v):
    """v as an ISPC double constant (the d suffix: an unsuffixed constant is a float)."""
    t = repr(v)
    return t.replace("e", "d") if "e" in t else t + "d"


def cbrt_real(x):
    return mp.cbrt(x) if x >= 0 else -mp.cbrt(-x)


def main():
    for name, f, xs in FUNCTIONS:
        fn = cbrt_real if name == "cbrt" else f
        refs = [fn(mp.mpf(x)) for x in xs]
        print(f"static const uniform float X_{name}[16] = {{" +
              ", ".join(shortest(x) + "f" for x in xs) + "};")
        print(f"static const uniform double R_{name}[16] = {{" +
              ", ".join(double_literal(float(r)) for r in refs) + "};")


if __name__ == "__main__":
    main()
