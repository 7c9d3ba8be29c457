// All-on specialization: functions that get a copy of their body for a full entry mask.
#pragma once

namespace spmdc::ir {

class Module;

/// Runs on the structured IR before the divergence transform (x86 only).
/// Marks Function::AllOnCopy on every function that receives its caller's
/// mask and is large enough, with enough work that depends on the mask
/// (masked stores, gathers, varying control flow, calls), for a second copy
/// to pay: the divergence transform then emits `if (all(__mask)) { body with
/// the constant all-on mask } else { body }`, as ISPC does at function entry
/// (CHECK_MASK_AT_FUNCTION_START_COST). In the copy LLVM folds the masks:
/// plain loads and stores, no any-lane branches, locals kept in registers.
void runAllOnSpecialization(Module &M);

} // namespace spmdc::ir
