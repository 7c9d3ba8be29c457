// Per-op lowering of calls: direct, through uniform and varying function pointers, stdlib hooks.
#include "backend/LLVMEmitterInternal.h"

#include "backend/StdlibHooks.h"

namespace spmdc::emitter {

void OpLowering::call(ir::Op &O) {
  ir::Function *Callee = O.Callee;
  if (Callee && Callee->IsStdlib && !Callee->Body)
    return stdlibCall(O);
  std::vector<llvm::Value *> Args;
  llvm::FunctionCallee FC;
  size_t First = 0;
  if (Callee) {
    llvm::Function *LF = Functions[Callee];
    FC = LF;
    if (Callee->HasMaskParam)
      Args.push_back(mask(O));
  } else {
    // Through a function pointer: every SPMD function takes its mask first.
    std::vector<llvm::Type *> Params = {maskType()};
    const Type *FnTy = O.Operands[0]->Ty->getPointee();
    for (const Type *P : FnTy->getParamTypes())
      Params.push_back(llvmType(P));
    auto *FT = llvm::FunctionType::get(llvmType(FnTy->getReturnType()), Params, false);
    if (O.Operands[0]->Ty->isVarying())
      return callVaryingPointer(O, FT);
    FC = llvm::FunctionCallee(FT, val(O.Operands[0]));
    Args.push_back(mask(O));
    First = 1;
  }
  for (size_t I = First; I < O.Operands.size(); ++I)
    Args.push_back(val(O.Operands[I]));
  llvm::CallInst *Call = B.CreateCall(FC, Args);
  if (Target.isGPU() && !Callee) // the callee through a pointer may vote (see declareFunction)
    Call->setConvergent();
  set(O, Call);
}

/// A call through a varying function pointer (ISPC's semantics): while some
/// lane of the call's mask is left, take the pointer of the first such lane
/// and call it once, uniformly, with the lanes holding that same pointer as
/// its mask; each lane's result comes from its own callee. On NVPTX the
/// whole warp takes part in every call, so the callee may vote and shuffle.
void OpLowering::callVaryingPointer(ir::Op &O, llvm::FunctionType *FT) {
  llvm::Value *Ptrs = val(O.Operands[0]);
  std::vector<llvm::Value *> Args = {nullptr};
  for (size_t I = 1; I < O.Operands.size(); ++I)
    Args.push_back(val(O.Operands[I]));
  const Type *ResultTy = O.result() ? O.result()->Ty : nullptr;
  llvm::Value *ResultSlot = nullptr;
  if (ResultTy) {
    llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
    ResultSlot = Entry.CreateAlloca(FT->getReturnType(), nullptr, "fnptr.result");
    // Zero for the lanes that call nothing, not poison: code without a mask may still
    // read them (NVPTXLaneOps' guarded blocks give zero for the same reason).
    B.CreateStore(llvm::Constant::getNullValue(FT->getReturnType()), ResultSlot);
  }
  llvm::BasicBlock *Before = B.GetInsertBlock();
  auto *Head = llvm::BasicBlock::Create(Ctx, "fnptr.next", Fn);
  auto *Body = llvm::BasicBlock::Create(Ctx, "fnptr.call", Fn);
  auto *Done = llvm::BasicBlock::Create(Ctx, "fnptr.done", Fn);
  llvm::Value *Entry = mask(O);
  B.CreateBr(Head);
  B.SetInsertPoint(Head);
  llvm::PHINode *Left = B.CreatePHI(maskType(), 2, "fnptr.left");
  Left->addIncoming(Entry, Before);
  B.CreateCondBr(Lanes->any(Left), Body, Done);
  B.SetInsertPoint(Body);
  llvm::Value *FirstLane = B.CreateZExtOrTrunc(
      B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, Lanes->bits(Left), B.getTrue()),
      B.getInt32Ty());
  llvm::Value *Callee = Lanes->extract(Ptrs, FirstLane);
  llvm::Value *Same = B.CreateAnd(Left, B.CreateICmpEQ(Ptrs, splat(Callee)));
  Args[0] = Same;
  llvm::CallInst *R = B.CreateCall(llvm::FunctionCallee(FT, Callee), Args);
  if (Target.isGPU())
    R->setConvergent();
  if (ResultTy)
    storeActiveLanes(ResultSlot, R, ResultTy, Same, /*IsSlot=*/true);
  Left->addIncoming(B.CreateAnd(Left, B.CreateNot(Same)), B.GetInsertBlock());
  B.CreateBr(Head);
  B.SetInsertPoint(Done);
  if (ResultTy)
    set(O, B.CreateLoad(FT->getReturnType(), ResultSlot));
}

/// A standard library prototype: a target hook (backend/StdlibHooks.cpp).
void OpLowering::stdlibCall(ir::Op &O) {
  HookCall Call;
  Call.Name = O.Callee->Name;
  for (ir::Value *V : O.Operands) {
    Call.Args.push_back(val(V));
    Call.ArgTypes.push_back(V->Ty);
  }
  if (O.result()) {
    Call.ResultType = O.result()->Ty;
    Call.ResultLLVM = llvmType(O.result()->Ty);
  }
  Call.Mask = mask(O);
  Call.ThreadAlone = Target.isGPU() && !SimtScopes.empty();
  llvm::Value *R = nullptr;
  if (!emitStdlibHook(Call, B, *Lanes, Target.isGPU(), R)) {
    unsupported(O, "the standard library function '" + Call.Name + "' with these arguments");
    return;
  }
  set(O, R);
}

} // namespace spmdc::emitter
