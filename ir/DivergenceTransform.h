// The context-stack divergence transform: varying control flow -> explicit masks.
#pragma once

namespace spmdc::ir {

class Module;
class Op;

/// Whether a `loop` op runs lanes different numbers of times: its condition
/// is varying, or a break/continue/return sits under varying control flow.
bool isVaryingLoop(const Op &Loop);

/// Rewrites every function with a body so that all remaining `if`/`loop`
/// conditions are uniform and every op whose effect depends on the active
/// lanes carries its mask (Op::Mask):
/// - each function (but extern "C" ones) takes its entry mask as Params[0];
/// - varying `if`: both arms run under `mask & c` / `mask & ~c`, each only when
///   some lane is on; varying loops keep a loop mask, `break`/`continue`/
///   `return` under varying control clear lanes instead of jumping;
/// - `foreach*` become uniform loops over gang-sized chunks / active lanes;
/// - `everywhere`/`unmasked` push the all-on mask and pop it after;
/// - `crev f(a...)` becomes a loop over the active lanes calling `f` with all
///   lanes on and lane l's arguments, inserting a uniform result into lane l.
/// `GangWidth` is programCount of the target.
void runDivergenceTransform(Module &M, unsigned GangWidth);

} // namespace spmdc::ir
