// Variability analysis: varying values and slots that are provably uniform or affine in
// programIndex.
#pragma once

namespace spmdc::ir {

class Module;

/// Runs on the structured IR before the divergence transform (docs/pipeline.md):
///  - `var` slots declared varying whose every store is uniform, not under
///    varying control flow, and whose address does not escape become uniform;
///    pure varying ops whose varying operands are all broadcasts are computed
///    once as uniform ops and broadcast;
///  - the outer index slots of a `foreach` become uniform and the innermost one
///    holds the chunk's first index (the IR convention of a uniform foreach slot);
///  - every varying integer value that equals `b + programIndex * s` (b
///    uniform, s a constant) gets Value::AffineBase = b, Value::AffineStride = s,
///    which the back ends use for contiguous loads and stores.
void runVariabilityAnalysis(Module &M);

} // namespace spmdc::ir
