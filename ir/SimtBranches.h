// NVPTX: chooses the varying ifs and loops that stay real branches (SIMT) instead of masks.
#pragma once

namespace spmdc::ir {

class Module;
class Region;

/// Marks (Op::Simt) every varying `if` and varying `loop` whose region holds
/// nothing that needs the gang's explicit mask or a converged warp, together
/// with every varying if/loop nested in it; the divergence transform then
/// keeps them as per-thread branches, and the warp's threads diverge and
/// reconverge in hardware as nvcc's threads do. Run on NVPTX only, before the
/// divergence transform. See docs/design-spmd-ir.md ("SIMT branches").
void selectSimtBranches(Module &M);

/// Whether `R` does a global atomic with a varying operand: in a SIMT region
/// each thread does its own with no warp barrier after it, so the back end
/// synchronizes the warp (bar.warp.sync) where it is converged again, after
/// the region, and every lane sees what another lane's atomic wrote, as under
/// masks. (A function with such an atomic is never a SIMT body.)
bool hasPerLaneGlobalAtomic(const Region &R);

} // namespace spmdc::ir
