// The back end of `new` and `delete`: C's aligned allocator on x86, device malloc/free on NVPTX.
//
// As ISPC does, x86 allocates with posix_memalign (so the memory is freed
// with free) and a failed allocation gives null; NVPTX calls the device-side
// malloc/free that CUDA provides to every kernel (16-byte aligned). A
// varying `new` runs the allocator once per active lane (on NVPTX each
// active thread for itself); a uniform one once for the gang (on NVPTX in the
// first active thread, its pointer then shared with the warp). On NVPTX a
// thread's varying object holds only its own lane, so a uniform `new` of a
// varying type allocates the warp's 32 objects in one block and each thread's
// pointer addresses its own (as a varying global's address does); its delete
// frees the block through lane 0's pointer.
#include "backend/DynamicMemory.h"

#include "backend/LaneOps.h"

#include "llvm/IR/Module.h"

namespace spmdc {

namespace {

llvm::Module &moduleOf(llvm::IRBuilder<> &B) { return *B.GetInsertBlock()->getModule(); }

/// One allocation of `Bytes` (a uniform i64).
llvm::Value *allocateOne(llvm::IRBuilder<> &B, bool GPU, llvm::Value *Bytes, uint64_t Align) {
  llvm::Module &M = moduleOf(B);
  llvm::Type *Ptr = B.getPtrTy();
  if (GPU) {
    llvm::FunctionCallee Malloc = M.getOrInsertFunction("malloc", Ptr, B.getInt64Ty());
    return B.CreateCall(Malloc, {Bytes});
  }
  llvm::FunctionCallee Memalign = M.getOrInsertFunction(
      "posix_memalign", B.getInt32Ty(), Ptr, B.getInt64Ty(), B.getInt64Ty());
  llvm::BasicBlock &Entry = B.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> EB(&Entry, Entry.begin());
  llvm::Value *Slot = EB.CreateAlloca(Ptr, nullptr, "new.ptr");
  llvm::Value *Status = B.CreateCall(Memalign, {Slot, B.getInt64(Align), Bytes});
  llvm::Value *P = B.CreateLoad(Ptr, Slot);
  return B.CreateSelect(B.CreateICmpEQ(Status, B.getInt32(0)), P,
                        llvm::ConstantPointerNull::get(llvm::PointerType::get(B.getContext(), 0)));
}

void freeOne(llvm::IRBuilder<> &B, llvm::Value *P) {
  llvm::FunctionCallee Free =
      moduleOf(B).getOrInsertFunction("free", B.getVoidTy(), B.getPtrTy());
  B.CreateCall(Free, {P});
}

} // namespace

llvm::Value *emitNew(llvm::IRBuilder<> &B, LaneOps &Lanes, bool GPU, llvm::Value *Bytes,
                     uint64_t Align, bool PerLane, bool VaryingObject, llvm::Value *Mask) {
  if (!PerLane && GPU && VaryingObject) {
    llvm::Value *Block = Lanes.once(Mask, [&] {
      return allocateOne(B, GPU, B.CreateMul(Bytes, B.getInt64(Lanes.width())), Align);
    });
    llvm::Value *Own = B.CreateGEP(B.getInt8Ty(), Block, B.CreateMul(Lanes.laneIndex64(), Bytes));
    return B.CreateSelect(B.CreateIsNull(Block), Block, Own);
  }
  if (!PerLane)
    return Lanes.once(Mask, [&] { return allocateOne(B, GPU, Bytes, Align); });
  llvm::Value *Ptrs = Lanes.perLane(Mask, B.getPtrTy(), [&](const LaneOps::LaneValue &Lane) {
    return allocateOne(B, GPU, Lane(Bytes), Align);
  });
  // Lanes that were off get null, as in ISPC.
  return B.CreateSelect(Mask, Ptrs, llvm::Constant::getNullValue(Ptrs->getType()));
}

void emitDelete(llvm::IRBuilder<> &B, LaneOps &Lanes, bool GPU, llvm::Value *Ptr, bool PerLane,
                bool VaryingObject, llvm::Value *Mask) {
  if (!PerLane && GPU && VaryingObject)
    Ptr = Lanes.extract(Ptr, B.getInt32(0)); // lane 0's object starts the block
  if (!PerLane) {
    Lanes.once(Mask, [&]() -> llvm::Value * {
      freeOne(B, Ptr);
      return nullptr;
    });
    return;
  }
  Lanes.perLane(Mask, nullptr, [&](const LaneOps::LaneValue &Lane) -> llvm::Value * {
    freeOne(B, Lane(Ptr));
    return nullptr;
  });
}

} // namespace spmdc
