// Moving a region's ops in front of an op, for the passes that rewrite a loop in place.
#pragma once

#include "ir/IR.h"

#include <iterator>

namespace spmdc::ir {

/// Moves the ops of `New` into `O`'s region, just before `O` (`New` is left empty).
inline void spliceBefore(Op &O, Region &New) {
  Region &R = *O.ParentRegion;
  size_t At = 0;
  while (R.Ops[At].get() != &O)
    ++At;
  for (auto &P : New.Ops)
    P->ParentRegion = &R;
  R.Ops.insert(R.Ops.begin() + At, std::make_move_iterator(New.Ops.begin()),
               std::make_move_iterator(New.Ops.end()));
  New.Ops.clear();
}

} // namespace spmdc::ir
