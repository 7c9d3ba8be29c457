// If predication: varying ifs with cheap arms run as blends, without a branch.
#pragma once

namespace spmdc::ir {

class Module;
class Op;

/// Runs on the structured IR before the divergence transform (x86 only; the
/// GPU branches per thread anyway). Marks Op::Predicated on every varying `if`
/// whose arms are cheap (a few arithmetic ops, loads and stores of the
/// function's own slots, nested ifs of the same kind) and safe to run with no
/// lane on (no integer division, call, loop, jump or memory access other than
/// to local slots). The divergence transform then emits their arms under the
/// narrowed masks without the `if (any(mask))` test: the masked stores into
/// private slots become selects, as ISPC does for `?:`, `&&`, `||` and its
/// cheap ifs (PREDICATE_SAFE_IF_STATEMENT_COST).
void runIfPredication(Module &M);

/// A call of a standard library hook without a body that is each lane's own
/// arithmetic (backend/StdlibHooks.cpp: bit casts, abs, min, max, floor, sqrt, ...):
/// safe with no lane on, cheap, and the same whatever the mask (ISPC counts its
/// bit casts and these as safe functions too).
bool isLaneArithmeticHook(const Op &Call);

} // namespace spmdc::ir
