// The back end of `new` and `delete`: C's aligned allocator on x86, device malloc/free on NVPTX.
#pragma once

#include "llvm/IR/IRBuilder.h"

namespace spmdc {

class LaneOps;

/// Allocates `Bytes` (a uniform or varying i64) aligned to `Align` on x86:
/// once for the gang when `PerLane` is false (a uniform pointer), else once
/// per lane set in `Mask` (a varying pointer, null in the other lanes).
/// `VaryingObject`: the allocated type is varying (on NVPTX a uniform `new` of
/// it gives each thread the address of its own lane's object).
llvm::Value *emitNew(llvm::IRBuilder<> &B, LaneOps &Lanes, bool GPU, llvm::Value *Bytes,
                     uint64_t Align, bool PerLane, bool VaryingObject, llvm::Value *Mask);

/// Frees `Ptr`: once for a uniform pointer, per lane set in `Mask` for a
/// varying one.
void emitDelete(llvm::IRBuilder<> &B, LaneOps &Lanes, bool GPU, llvm::Value *Ptr, bool PerLane,
                bool VaryingObject, llvm::Value *Mask);

} // namespace spmdc
