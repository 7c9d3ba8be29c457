#!/usr/bin/env python3
"""Fits the polynomial kernels of stdlib/math.spmd (near-minimax Chebyshev fits in
mpmath at 60 digits) and the Cody-Waite splits of ln2 and pi/2; prints them as
.spmd-ready double literals. Rerun it to reproduce or change the constants."""
import mpmath as mp

mp.mp.dps = 60


def lit(v):
    return repr(float(v))


def fit(name, f, a, b, n):
    coeffs, err = mp.chebyfit(f, [a, b], n, error=True)
    print(f"// {name}: degree {n - 1} on [{float(a):.6g}, {float(b):.6g}], fit error {float(err):.3g}")
    print("//   highest degree first: " + ", ".join(lit(c) for c in coeffs))


def split(name, v, bits):
    """v = hi + lo with hi holding `bits` significant bits (so k*hi is exact for small k)."""
    e = mp.floor(mp.log(abs(v), 2))
    scale = mp.mpf(2) ** (bits - 1 - e)
    hi = mp.nint(v * scale) / scale
    lo = v - hi
    print(f"// {name}: hi = {lit(hi)} ({bits} bits), lo = {lit(lo)}, rest {float(lo - mp.mpf(float(lo))):.3g}")
    return hi, lo


def sqrt_odd(g):
    # (g(s) - s) / s^3 as a function of z = s^2.
    return lambda z: (g(mp.sqrt(z)) - mp.sqrt(z)) / (z * mp.sqrt(z))


# Near 0 the quotients below cancel at any precision; their Taylor series are used there.
fit("exp: (e^r - 1 - r) / r^2", lambda r: (mp.exp(r) - 1 - r) / r**2 if abs(r) > 1e-15 else 0.5 + r / 6,
    -mp.log(2) / 2, mp.log(2) / 2, 10)
smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
fit("log: (2 atanh(s)/s - 2) / s^2 in z = s^2", lambda z: (2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z,
    mp.mpf(0), smax**2, 7)
fit("sin: (sin(r) - r) / r^3 in z = r^2", sqrt_odd(mp.sin), mp.mpf(0), (mp.pi / 4)**2, 7)
fit("cos: (cos(r) - 1 + z/2) / z^2", lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z**2, mp.mpf(0), (mp.pi / 4)**2, 7)
fit("asin: (asin(s) - s) / s^3 in z = s^2", sqrt_odd(mp.asin), mp.mpf(0), mp.mpf(0.25), 13)
fit("atan: (atan(t) - t) / t^3 in z = t^2", sqrt_odd(mp.atan), mp.mpf(0), mp.tan(mp.pi / 8)**2, 12)
split("ln2", mp.log(2), 42)
hi, lo = split("pi/2 part 1", mp.pi / 2, 33)
hi2, lo2 = split("pi/2 part 2", lo, 33)
print(f"// pi/2 part 3: {lit(lo2)}")
for n, v in [("pi/2", mp.pi / 2), ("pi", mp.pi), ("pi/4", mp.pi / 4)]:
    print(f"// {n}: hi = {lit(v)}, lo = {lit(v - mp.mpf(float(v)))}")
print(f"// 2/pi = {lit(2 / mp.pi)}, log2(e) = {lit(1 / mp.log(2))}, sqrt2 = {lit(mp.sqrt(2))}")
# pow's log in double-double: log(m) = 2s + (2/3)s^3 (both double-double) + s^5 P(z).
fit("pow log: (2 atanh(s) - 2s - 2s^3/3) / s^5 in z = s^2",
    lambda z: ((2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z - mp.mpf(2) / 3) / z, mp.mpf(0), smax**2, 8)
print(f"// 2/3: hi = {lit(mp.mpf(2) / 3)}, lo = {lit(mp.mpf(2) / 3 - mp.mpf(float(mp.mpf(2) / 3)))}")
