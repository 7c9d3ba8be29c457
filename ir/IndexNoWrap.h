// Index no-wrap: signed integer arithmetic that computes a varying array index is marked nsw.
#pragma once

namespace spmdc::ir {

class Module;

/// Runs on the structured IR before the divergence transform (x86, -O1 and
/// up). Marks `NoSignedWrap` on the signed varying `+`, `-` and `*` that
/// compute a varying subscript (`a[i + 1]`, `a[(z * n + y) * n + x]`, through
/// the operands of such ops and the values stored into the local slots they
/// load), as ISPC's 32-bit addressing
/// assumes the same index arithmetic does not overflow. With it LLVM may move
/// the 64-bit extension of the index inside the sum, so `a[i]` and `a[i + 1]`
/// share one per-lane address and differ by a displacement (LaneLoadGathers).
void runIndexNoWrap(Module &M);

} // namespace spmdc::ir
