// Per-op lowering of the launch built-ins, `launch` and `sync` (ISPC's task ABI; warps on NVPTX).
#include "backend/LLVMEmitterInternal.h"

#include "llvm/IR/IntrinsicsNVPTX.h"

namespace spmdc::emitter {

void OpLowering::builtin(ir::Op &O) {
  switch (O.BuiltinId) {
  case BuiltinVar::ProgramIndex:
    set(O, Lanes->laneIndex());
    return;
  case BuiltinVar::ProgramCount:
    set(O, B.getInt32(W));
    return;
  // On the CPU a block is one gang (SPEC 2.3). Outside a launched task
  // there is one task: index 0 of 1.
  case BuiltinVar::GangIndex:
  case BuiltinVar::GangCount:
    set(O, gangBuiltin(O.BuiltinId));
    return;
  case BuiltinVar::TaskIndex0:
  case BuiltinVar::TaskIndex1:
  case BuiltinVar::TaskIndex2:
  case BuiltinVar::TaskCount0:
  case BuiltinVar::TaskCount1:
  case BuiltinVar::TaskCount2:
  case BuiltinVar::TaskIndex:
  case BuiltinVar::TaskCount:
  case BuiltinVar::BlockIndex:
  case BuiltinVar::BlockCount:
  case BuiltinVar::ThreadIndex:
  case BuiltinVar::ThreadCount:
    set(O, taskBuiltin(O.BuiltinId));
    return;
  case BuiltinVar::None:
    break;
  }
  unsupported(O, "this built-in");
}

/// gangIndex/gangCount: on NVPTX the warp within its block; on the CPU a
/// block is one gang (SPEC 2.3).
llvm::Value *OpLowering::gangBuiltin(BuiltinVar Which) {
  if (!Target.isGPU())
    return B.getInt32(Which == BuiltinVar::GangIndex ? 0 : 1);
  llvm::Value *V =
      sreg(Which == BuiltinVar::GangIndex ? llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x
                                          : llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  return B.CreateUDiv(V, B.getInt32(32));
}

/// On NVPTX a task is a warp: taskIndex is the global warp index over the
/// x dimension of the grid, taskCount the number of warps; blockIndex and
/// blockCount are the CTA's. taskIndex1/2 are the grid's y/z block indices.
llvm::Value *OpLowering::gpuTaskBuiltin(BuiltinVar Which) {
  using namespace llvm::Intrinsic;
  switch (Which) {
  case BuiltinVar::BlockIndex:
    return sreg(nvvm_read_ptx_sreg_ctaid_x);
  case BuiltinVar::BlockCount:
    return sreg(nvvm_read_ptx_sreg_nctaid_x);
  case BuiltinVar::TaskIndex1:
    return sreg(nvvm_read_ptx_sreg_ctaid_y);
  case BuiltinVar::TaskIndex2:
    return sreg(nvvm_read_ptx_sreg_ctaid_z);
  case BuiltinVar::TaskCount1:
    return sreg(nvvm_read_ptx_sreg_nctaid_y);
  case BuiltinVar::TaskCount2:
    return sreg(nvvm_read_ptx_sreg_nctaid_z);
  case BuiltinVar::TaskCount:
  case BuiltinVar::TaskCount0:
  case BuiltinVar::ThreadCount: // a warp is the GPU's "hardware thread" of a task
    return B.CreateUDiv(
        B.CreateMul(sreg(nvvm_read_ptx_sreg_nctaid_x), sreg(nvvm_read_ptx_sreg_ntid_x)),
        B.getInt32(32));
  default: // taskIndex, taskIndex0
    return B.CreateUDiv(
        B.CreateAdd(B.CreateMul(sreg(nvvm_read_ptx_sreg_ctaid_x), sreg(nvvm_read_ptx_sreg_ntid_x)),
                    sreg(nvvm_read_ptx_sreg_tid_x)),
        B.getInt32(32));
  }
}

/// taskIndex/taskCount and their per-dimension forms. Outside a task there
/// is one task (index 0 of 1). On the CPU a block is one task (SPEC 2.3).
llvm::Value *OpLowering::taskBuiltin(BuiltinVar Which) {
  if (Target.isGPU())
    return gpuTaskBuiltin(Which);
  // A task reads its own parameters; any other function reads the context of
  // the task running on this thread (index 0 of 1 outside every task), so a
  // helper called from a task sees the task's values, as it sees the warp's
  // on NVPTX.
  std::function<llvm::Value *(unsigned)> Arg;
  if (CurIR->flags().Task) {
    unsigned First = CurIR->Params.size();
    Arg = [this, First](unsigned I) -> llvm::Value * { return Fn->getArg(First + I); };
  } else {
    llvm::GlobalVariable *Context = taskContext();
    llvm::Value *Base = B.CreateThreadLocalAddress(Context);
    Arg = [this, Context, Base](unsigned I) -> llvm::Value * {
      return B.CreateLoad(B.getInt32Ty(),
                          B.CreateConstInBoundsGEP2_32(Context->getValueType(), Base, 0, I));
    };
  }
  switch (Which) {
  case BuiltinVar::TaskIndex0:
    return Arg(0);
  case BuiltinVar::TaskIndex1:
    return Arg(1);
  case BuiltinVar::TaskIndex2:
    return Arg(2);
  case BuiltinVar::TaskCount0:
    return Arg(3);
  case BuiltinVar::TaskCount1:
    return Arg(4);
  case BuiltinVar::TaskCount2:
    return Arg(5);
  case BuiltinVar::ThreadIndex:
    return Arg(6);
  case BuiltinVar::ThreadCount:
    return Arg(7);
  case BuiltinVar::TaskCount:
  case BuiltinVar::BlockCount:
    return B.CreateMul(B.CreateMul(Arg(3), Arg(4)), Arg(5));
  default: // taskIndex, blockIndex: i0 + c0 * (i1 + c1 * i2)
    return B.CreateAdd(Arg(0),
                       B.CreateMul(Arg(3), B.CreateAdd(Arg(1), B.CreateMul(Arg(4), Arg(2)))));
  }
}

/// A function that launched tasks waits for them before it returns (as ISPC). ISPC's task
/// ABI (the guide's "Task Parallelism"): ISPCSync(handle) only once a launch or an
/// allocation made the handle non-null.
void OpLowering::emitSync() {
  if (!LaunchGroup)
    return;
  llvm::Value *G = B.CreateLoad(B.getPtrTy(), LaunchGroup);
  auto *Sync = llvm::BasicBlock::Create(Ctx, "sync", Fn);
  auto *Done = llvm::BasicBlock::Create(Ctx, "sync.done", Fn);
  B.CreateCondBr(B.CreateIsNotNull(G), Sync, Done);
  B.SetInsertPoint(Sync);
  B.CreateCall(runtimeFn("ISPCSync", B.getVoidTy(), {B.getPtrTy()}), {G});
  B.CreateStore(llvm::Constant::getNullValue(B.getPtrTy()), LaunchGroup);
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

llvm::Function *OpLowering::taskEntry(ir::Function &Task, llvm::StructType *ArgsTy) {
  auto It = TaskEntries.find(&Task);
  if (It != TaskEntries.end())
    return It->second;
  std::vector<llvm::Type *> Params = {B.getPtrTy()};
  Params.insert(Params.end(), TaskEntryIndexOffset - 1 + 6, B.getInt32Ty());
  auto *E = llvm::Function::Create(llvm::FunctionType::get(B.getVoidTy(), Params, false),
                                   llvm::GlobalValue::InternalLinkage,
                                   Task.Symbol + "___task_entry", *Mod);
  TaskEntries[&Task] = E;
  llvm::IRBuilder<> EB(llvm::BasicBlock::Create(Ctx, "entry", E));
  std::vector<llvm::Value *> Args = {llvm::ConstantInt::getTrue(maskType())};
  for (unsigned I = 1; I < Task.Params.size(); ++I)
    Args.push_back(EB.CreateLoad(ArgsTy->getElementType(I - 1),
                                 EB.CreateStructGEP(ArgsTy, E->getArg(0), I - 1)));
  std::vector<llvm::Value *> Indices;
  for (unsigned I = 0; I < 6; ++I) // taskIndex0..2, taskCount0..2
    Indices.push_back(E->getArg(TaskEntryIndexOffset + I));
  Indices.push_back(E->getArg(1)); // threadIndex
  Indices.push_back(E->getArg(2)); // threadCount
  Args.insert(Args.end(), Indices.begin(), Indices.end());
  // The functions the task calls read its indices from the thread's task
  // context; the previous one comes back afterwards, since a worker thread
  // may run this task inside another task's sync.
  llvm::GlobalVariable *Context = taskContext();
  llvm::Value *ContextAddr = EB.CreateThreadLocalAddress(Context);
  llvm::Value *Saved = EB.CreateLoad(Context->getValueType(), ContextAddr);
  for (unsigned I = 0; I < TaskIndexParams; ++I)
    EB.CreateStore(Indices[I],
                   EB.CreateConstInBoundsGEP2_32(Context->getValueType(), ContextAddr, 0, I));
  EB.CreateCall(Functions[&Task], Args);
  EB.CreateStore(Saved, ContextAddr);
  EB.CreateRetVoid();
  return E;
}

void OpLowering::launch(ir::Op &O) {
  ir::Function &Task = *O.Callee;
  std::vector<llvm::Type *> Fields;
  for (unsigned I = 1; I < Task.Params.size(); ++I)
    Fields.push_back(llvmType(Task.Params[I]->Ty));
  llvm::StructType *ArgsTy = llvm::StructType::get(Ctx, Fields);
  const llvm::DataLayout &DL = Mod->getDataLayout();
  llvm::Value *Data = B.CreateCall(
      runtimeFn("ISPCAlloc", B.getPtrTy(), {B.getPtrTy(), B.getInt64Ty(), B.getInt32Ty()}),
      {LaunchGroup, B.getInt64(DL.getTypeAllocSize(ArgsTy)),
       B.getInt32(DL.getABITypeAlign(ArgsTy).value())});
  for (unsigned I = 0; I < O.Operands.size() && I < Fields.size(); ++I)
    B.CreateStore(val(O.Operands[I]), B.CreateStructGEP(ArgsTy, Data, I));
  llvm::Value *Counts[3] = {B.getInt32(1), B.getInt32(1), B.getInt32(1)};
  for (unsigned I = 0; I < O.LaunchCounts.size() && I < 3; ++I)
    Counts[I] = val(O.LaunchCounts[I]);
  B.CreateCall(runtimeFn("ISPCLaunch", B.getVoidTy(),
                         {B.getPtrTy(), B.getPtrTy(), B.getPtrTy(), B.getInt32Ty(), B.getInt32Ty(),
                          B.getInt32Ty()}),
               {LaunchGroup, taskEntry(Task, ArgsTy), Data, Counts[0], Counts[1], Counts[2]});
}

} // namespace spmdc::emitter
