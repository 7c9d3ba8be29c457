// Sin/cos pairing: sin(x) and cos(x) of the same x in one region become one sincos(x).
#pragma once

namespace spmdc::ir {

class Module;

/// Runs on the structured IR before the divergence transform (x86, -O1 and up). Where
/// one region calls the standard library's `sin` and `cos` on the same value (aobench's
/// sample directions: `cos(phi) * theta`, `sin(phi) * theta`), the two calls become one
/// call of its `sincos` at the first of them, which shares the range reduction and picks
/// each result from both polynomials instead of evaluating one polynomial with its
/// coefficients picked per lane twice (the same bits: stdlib.md). The second call's
/// lanes are the first's or fewer (a varying return between them), and sin and cos are
/// pure and defined everywhere, so computing it early changes nothing. Only where the
/// library has a `sincos` for that type (not for user functions named sin or cos).
void runSinCosPairing(Module &M);

} // namespace spmdc::ir
