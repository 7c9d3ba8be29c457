// One SPMD IR op -> LLVM IR: function bodies, the op dispatch, control flow, warp frames.
#include "backend/LLVMEmitterInternal.h"

#include "backend/DynamicMemory.h"
#include "backend/NVPTXSimt.h"
#include "ir/SimtBranches.h"

#include "llvm/IR/IntrinsicsNVPTX.h"

namespace spmdc::emitter {

OpLowering::OpLowering(ModuleState &State)
    : State(State), IRM(State.IRM), Target(State.Target), Ctx(State.Ctx), Diags(State.Diags),
      W(State.W), Mod(State.Mod), B(State.B), Lanes(State.Lanes), WarpFrames(State.WarpFrames),
      CStrings(State.CStrings), WarpFramesGV(State.WarpFramesGV), TaskEntries(State.TaskEntries),
      Functions(State.Functions), Globals(State.Globals) {}

void OpLowering::defineFunction(ir::Function &F) {
  Fn = Functions[&F];
  CurIR = &F;
  Values.clear();
  Loops.clear();
  LabelBlocks.clear();
  auto *Entry = llvm::BasicBlock::Create(Ctx, "entry", Fn);
  AllocaIP = Entry;
  B.SetInsertPoint(Entry);
  // -g describes the user's functions; the library's inline into them unlined.
  CurSubprogram = State.Debug && !F.IsStdlib ? State.Debug->describeFunction(*Fn, F.Name, F.Loc)
                                             : nullptr;
  B.SetCurrentDebugLocation(CurSubprogram ? llvm::DebugLoc(State.Debug->location(CurSubprogram, F.Loc))
                                          : llvm::DebugLoc());
  WarpRegion = WarpFrames.HasSlots.count(&F) ? warpRegion() : nullptr;
  for (size_t I = 0; I < F.Params.size(); ++I) {
    Values[F.Params[I].get()] = Fn->getArg(I);
    Fn->getArg(I)->setName(F.Params[I]->NameHint);
  }
  if (F.flags().Task) {
    static const char *Names[TaskIndexParams] = {"taskIndex0",  "taskIndex1", "taskIndex2",
                                                 "taskCount0",  "taskCount1", "taskCount2",
                                                 "threadIndex", "threadCount"};
    for (unsigned I = 0; I < TaskIndexParams; ++I)
      Fn->getArg(F.Params.size() + I)->setName(Names[I]);
  }
  // Functions that launch tasks keep their launch group; it starts empty.
  LaunchGroup = nullptr;
  if (containsOp(*F.Body, OpCode::Launch)) {
    LaunchGroup = B.CreateAlloca(B.getPtrTy(), nullptr, "__launch_group");
    B.CreateStore(llvm::Constant::getNullValue(B.getPtrTy()), LaunchGroup);
  }
  region(*F.Body);
  // Falling off the end: return void, or an undefined value as C does.
  if (!B.GetInsertBlock()->getTerminator())
    emitReturn(Fn->getReturnType()->isVoidTy() ? nullptr
                                               : llvm::PoisonValue::get(Fn->getReturnType()));
  // Blocks left empty after a jump get an unreachable terminator.
  for (llvm::BasicBlock &BB : *Fn)
    if (!BB.getTerminator()) {
      B.SetInsertPoint(&BB);
      B.CreateUnreachable();
    }
}

void OpLowering::region(ir::Region &R) {
  for (auto &O : R.Ops) {
    if (B.GetInsertBlock()->getTerminator()) {
      // Code after a jump: give it a block of its own (it is unreachable).
      B.SetInsertPoint(llvm::BasicBlock::Create(Ctx, "dead", Fn));
    }
    op(*O);
  }
}

llvm::Value *OpLowering::val(ir::Value *V) {
  auto It = Values.find(V);
  if (It != Values.end())
    return It->second;
  Diags.errorNoLoc(std::string("internal error: SPMD IR value used before its definition: ") +
                   (V->Def ? ir::opName(V->Def->Code) : "parameter " + V->NameHint));
  return llvm::PoisonValue::get(llvmType(V->Ty));
}

llvm::Value *OpLowering::mask(ir::Op &O) {
  return O.Mask ? val(O.Mask) : llvm::ConstantInt::getTrue(maskType());
}

void OpLowering::set(ir::Op &O, llvm::Value *V) {
  if (O.result())
    Values[O.result()] = V;
}

bool OpLowering::unsupported(ir::Op &O, const std::string &What) {
  Diags.error(O.Loc, What + " is not supported by the " + Target.Name + " code generator yet");
  if (O.result())
    set(O, llvm::PoisonValue::get(llvmType(O.result()->Ty)));
  return false;
}

/// Register <-> memory representation (bools are bytes in memory).
llvm::Value *OpLowering::fromMemory(llvm::Value *V, const Type *T) {
  if (T->isBool())
    return B.CreateICmpNE(V, llvm::Constant::getNullValue(V->getType()));
  return V;
}

llvm::Value *OpLowering::toMemory(llvm::Value *V, const Type *T) {
  if (T->isBool())
    return B.CreateZExt(V, llvmType(T, true));
  return V;
}

void OpLowering::op(ir::Op &O) {
  // An op without a position (made by a transform) keeps the previous one's.
  if (CurSubprogram && O.Loc.isValid())
    B.SetCurrentDebugLocation(State.Debug->location(CurSubprogram, O.Loc));
  switch (O.Code) {
  case OpCode::ConstInt: {
    llvm::Type *T = llvmType(O.result()->Ty);
    set(O, llvm::ConstantInt::get(T, static_cast<uint64_t>(O.Imm), true));
    return;
  }
  case OpCode::ConstFloat:
    set(O, llvm::ConstantFP::get(llvmType(O.result()->Ty), O.FImm));
    return;
  case OpCode::ConstNull:
    set(O, llvm::Constant::getNullValue(llvmType(O.result()->Ty)));
    return;
  case OpCode::Builtin:
    return builtin(O);
  case OpCode::Unary:
    return unary(O);
  case OpCode::Binary:
    return binary(O);
  case OpCode::Convert:
    return convert(O);
  case OpCode::Broadcast:
    set(O, broadcast(val(O.Operands[0]), O.Operands[0]->Ty, O.result()->Ty));
    return;
  case OpCode::Select:
    set(O, B.CreateSelect(val(O.Operands[0]), val(O.Operands[1]), val(O.Operands[2])));
    return;
  case OpCode::SizeOf:
    set(O, B.getInt64(Mod->getDataLayout().getTypeAllocSize(llvmType(O.VarType, true))));
    return;
  case OpCode::Var: {
    auto Slot = WarpFrames.SlotOffset.find(O.result());
    if (Slot != WarpFrames.SlotOffset.end()) {
      set(O, warpSlot(Slot->second));
      return;
    }
    llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
    set(O, Entry.CreateAlloca(llvmType(O.VarType, true), nullptr, O.result()->NameHint));
    return;
  }
  case OpCode::GlobalAddr: {
    llvm::GlobalVariable *GV = Globals[O.GlobalRef];
    // Shared memory is its own address space on NVPTX: hand out generic pointers.
    if (GV->getAddressSpace() != 0)
      set(O, B.CreateAddrSpaceCast(GV, B.getPtrTy()));
    else if (GV->isThreadLocal())
      set(O, B.CreateThreadLocalAddress(GV));
    else if (isPerLaneGlobal(*O.GlobalRef))
      set(O, B.CreateGEP(GV->getValueType(), GV, {B.getInt64(0), Lanes->laneIndex64()}));
    else
      set(O, GV);
    return;
  }
  case OpCode::FuncAddr:
    set(O, Functions[O.Callee]);
    return;
  case OpCode::Load:
    return load(O);
  case OpCode::Store:
    return store(O);
  case OpCode::ElementAddr:
    return elementAddr(O);
  case OpCode::FieldAddr: {
    ir::Value *Base = O.Operands[0];
    llvm::Type *ST = llvmType(Base->Ty->getPointee(), true);
    set(O, B.CreateGEP(ST, val(Base), {B.getInt32(0), B.getInt32(O.FieldIndex)}));
    return;
  }
  case OpCode::Call:
    return call(O);
  case OpCode::If:
    return ifOp(O);
  case OpCode::Loop:
    return loop(O);
  case OpCode::Yield:
    return; // read by loop()
  case OpCode::Break:
    B.CreateBr(Loops.back().Exit);
    return;
  case OpCode::Continue:
    B.CreateBr(Loops.back().Continue);
    return;
  case OpCode::Return:
    emitReturn(O.Operands.empty() ? nullptr : val(O.Operands[0]));
    return;
  case OpCode::MaskAllOn:
    set(O, llvm::ConstantInt::getTrue(maskType()));
    return;
  case OpCode::Any:
    set(O, Lanes->any(val(O.Operands[0])));
    return;
  case OpCode::All:
    set(O, Lanes->all(val(O.Operands[0])));
    return;
  case OpCode::LaneCount:
  case OpCode::FirstLane: {
    llvm::Value *Bits = Lanes->bits(val(O.Operands[0]));
    llvm::Value *R = O.Code == OpCode::LaneCount
                         ? B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, Bits)
                         : B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, Bits, B.getTrue());
    set(O, B.CreateZExtOrTrunc(R, B.getInt32Ty()));
    return;
  }
  case OpCode::LaneIsSet: {
    llvm::Value *Bit = B.CreateLShr(Lanes->bits(val(O.Operands[0])),
                                    B.CreateZExt(val(O.Operands[1]), B.getInt64Ty()));
    set(O, B.CreateTrunc(Bit, B.getInt1Ty()));
    return;
  }
  case OpCode::Extract:
    set(O, Lanes->extract(val(O.Operands[0]), val(O.Operands[1])));
    return;
  case OpCode::Insert:
    set(O, Lanes->insert(val(O.Operands[0]), val(O.Operands[1]), val(O.Operands[2])));
    return;
  case OpCode::Print:
    return Target.isGPU() ? printGPU(O) : print(O);
  case OpCode::Assert:
    return Target.isGPU() ? assertGPU(O) : assertOp(O);
  case OpCode::Launch:
    if (Target.isGPU())
      return Diags.error(O.Loc, "'launch' is not available on NVPTX: launch the task's kernel "
                                "from the host (spmdc uses no dynamic parallelism)");
    return launch(O);
  case OpCode::Sync:
    emitSync();
    return;
  case OpCode::PartialBarrier:
    Lanes->partialBarrier(static_cast<unsigned>(O.Imm), static_cast<unsigned>(O.BarrierThreads));
    return;
  case OpCode::New:
    set(O, emitNew(B, *Lanes, Target.isGPU(), val(O.Operands[0]), static_cast<uint64_t>(O.Imm),
                   O.result()->isVarying(), O.result()->Ty->getPointee()->isVarying(), mask(O)));
    return;
  case OpCode::Delete:
    emitDelete(B, *Lanes, Target.isGPU(), val(O.Operands[0]), O.Operands[0]->isVarying(),
               O.Operands[0]->Ty->getPointee()->isVarying(), mask(O));
    return;
  case OpCode::Label: {
    llvm::BasicBlock *Block = labelBlock(O.Imm);
    if (!B.GetInsertBlock()->getTerminator())
      B.CreateBr(Block);
    B.SetInsertPoint(Block);
    return;
  }
  case OpCode::Goto:
    B.CreateBr(labelBlock(O.Imm));
    return;
  case OpCode::Crev:
  case OpCode::Foreach:
  case OpCode::ForeachActive:
  case OpCode::ForeachUnique:
  case OpCode::Everywhere:
  case OpCode::Unmasked:
    Diags.error(O.Loc, std::string("internal error: '") + ir::opName(O.Code) +
                           "' reached the back end before the divergence transform");
    return;
  }
}

/// The block a `label` op starts (a `goto` may reach it first).
llvm::BasicBlock *OpLowering::labelBlock(int64_t Id) {
  llvm::BasicBlock *&BB = LabelBlocks[Id];
  if (!BB)
    BB = llvm::BasicBlock::Create(Ctx, "label", Fn);
  return BB;
}

bool OpLowering::containsOp(ir::Region &R, OpCode Code) {
  for (auto &O : R.Ops) {
    if (O->Code == Code)
      return true;
    for (auto &Sub : O->Regions)
      if (containsOp(*Sub, Code))
        return true;
  }
  return false;
}

void OpLowering::emitReturn(llvm::Value *V) {
  emitSync();
  if (V)
    B.CreateRet(V);
  else
    B.CreateRetVoid();
}

/// A SIMT if branches on an opaque copy of its condition: code after its region may hold
/// warp operations, which threading on a known condition would copy into the arms of the
/// divergent branch. Except in a SIMT loop's condition: the loop's own test is never opaque,
/// and an if there is part of it (the second test of a `&&` or `||`), inside the loop's
/// region, which holds no warp operation (SimtBranches.cpp's scan). Plain, LLVM merges the
/// tests and rotates the loop: the book filter's `while (j < m && text[p + j] ==
/// keyword[j])` took nvcc's shape (PAR 0.76x -> 0.93x of the naive CUDA loop; quicksort's
/// insertion sort `while (j >= lo && keys[j] > key)`: 0.86x -> 0.93x). Nested ifs
/// elsewhere keep the copy: plain, they would be as safe, but LLVM's rewrites of them cost
/// registers and occupancy (Black-Scholes 32 -> 33, the fused stencil at c = 2 48 -> 40 warps
/// per SM, mergesort's CREV kernel 48 -> 52 registers and 17% slower; docs/gpu.md).
void OpLowering::ifOp(ir::Op &O) {
  llvm::Value *C = val(O.Operands[0]);
  bool Opaque = O.Simt && (SimtScopes.empty() || SimtScopes.back() != SimtScope::LoopCondition);
  if (Opaque && O.Operands[0]->isVarying() && !llvm::isa<llvm::Constant>(C))
    C = opaqueSimtCondition(B, C);
  if (O.Simt)
    SimtScopes.push_back(SimtScope::IfArm);
  auto *Then = llvm::BasicBlock::Create(Ctx, "if.then", Fn);
  auto *Else = llvm::BasicBlock::Create(Ctx, "if.else", Fn);
  auto *End = llvm::BasicBlock::Create(Ctx, "if.end", Fn);
  B.CreateCondBr(C, Then, Else);
  B.SetInsertPoint(Then);
  region(*O.Regions[0]);
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(End);
  B.SetInsertPoint(Else);
  if (O.Regions.size() > 1)
    region(*O.Regions[1]);
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(End);
  B.SetInsertPoint(End);
  if (O.Simt)
    SimtScopes.pop_back();
  // Leaving the outermost SIMT region (the divergence transform's guard) of a
  // masked body: the warp is converged again; its threads' own atomics in the
  // region are made visible to every lane, as the masked form's barrier does.
  if (O.Simt && SimtScopes.empty() && ir::hasPerLaneGlobalAtomic(*O.Regions[0]))
    warpSync();
}

void OpLowering::loop(ir::Op &O) {
  auto *Cond = llvm::BasicBlock::Create(Ctx, "loop.cond", Fn);
  auto *Body = llvm::BasicBlock::Create(Ctx, "loop.body", Fn);
  auto *Step = llvm::BasicBlock::Create(Ctx, "loop.step", Fn);
  auto *Exit = llvm::BasicBlock::Create(Ctx, "loop.exit", Fn);
  B.CreateBr(O.DoWhile ? Body : Cond);
  B.SetInsertPoint(Cond);
  if (O.Simt)
    SimtScopes.push_back(SimtScope::LoopCondition);
  region(*O.Regions[0]);
  if (O.Simt)
    SimtScopes.back() = SimtScope::LoopBody;
  ir::Op *Yield = O.Regions[0]->Ops.back().get();
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateCondBr(val(Yield->Operands[0]), Body, Exit);
  B.SetInsertPoint(Body);
  Loops.push_back({Step, Exit});
  region(*O.Regions[1]);
  Loops.pop_back();
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(Step);
  B.SetInsertPoint(Step);
  region(*O.Regions[2]);
  if (!B.GetInsertBlock()->getTerminator())
    B.CreateBr(Cond);
  B.SetInsertPoint(Exit);
  if (O.Simt)
    SimtScopes.pop_back();
}

llvm::Value *OpLowering::sreg(llvm::Intrinsic::ID Id) {
  return B.CreateIntrinsic(Id, llvm::ArrayRef<llvm::Type *>{}, llvm::ArrayRef<llvm::Value *>{});
}

/// This warp's region of the frames (in the entry block): the warp's index
/// in its block from the linear thread index, times the region size.
llvm::Value *OpLowering::warpRegion() {
  using namespace llvm::Intrinsic;
  llvm::Value *Tid =
      B.CreateAdd(sreg(nvvm_read_ptx_sreg_tid_x),
                  B.CreateMul(sreg(nvvm_read_ptx_sreg_ntid_x),
                              B.CreateAdd(sreg(nvvm_read_ptx_sreg_tid_y),
                                          B.CreateMul(sreg(nvvm_read_ptx_sreg_ntid_y),
                                                      sreg(nvvm_read_ptx_sreg_tid_z)))));
  llvm::Value *Warp = B.CreateZExt(B.CreateLShr(Tid, 5), B.getInt64Ty());
  return B.CreateGEP(B.getInt8Ty(), WarpFramesGV,
                     B.CreateMul(Warp, B.getInt64(WarpFrames.BytesPerWarp)), "warp.frame");
}

/// A local's slot in this warp's region, as a generic pointer.
/// Computed in the entry block, after the region: a `goto` may jump over
/// the declaration to a use.
llvm::Value *OpLowering::warpSlot(uint64_t Offset) {
  llvm::IRBuilder<> EB(Ctx);
  if (auto *I = llvm::dyn_cast<llvm::Instruction>(WarpRegion))
    EB.SetInsertPoint(I->getParent(), std::next(I->getIterator()));
  else
    EB.SetInsertPoint(&Fn->getEntryBlock(), Fn->getEntryBlock().getFirstInsertionPt());
  llvm::Value *P = EB.CreateConstGEP1_64(EB.getInt8Ty(), WarpRegion, Offset);
  return EB.CreateAddrSpaceCast(P, EB.getPtrTy());
}

/// bar.warp.sync around accesses to a warp slot: what one lane wrote (also
/// through an escaped pointer, e.g. an atomic) is seen by all lanes after it,
/// and no lane overwrites a slot another lane has still to read.
void OpLowering::warpSync() {
  B.CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {}, {B.getInt32(0xffffffffu)});
}

} // namespace spmdc::emitter
