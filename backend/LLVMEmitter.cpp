// SPMD IR (after the divergence transform) -> LLVM IR for one target.
//
// Uniform values are LLVM scalars, varying values vectors of the gang width,
// masks <W x i1>. Memory holds bools as bytes. Masked memory operations map to
// LLVM's masked intrinsics, except stores into local slots, which blend so
// that mem2reg can still promote the slot.
#include "backend/LLVMEmitter.h"

#include "backend/DynamicMemory.h"
#include "backend/LaneOps.h"
#include "backend/NVPTXSimt.h"
#include "backend/StdlibHooks.h"
#include "backend/TargetInfo.h"
#include "backend/WarpFrames.h"
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "ir/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace spmdc {

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetInfo &Target,
                                                         unsigned OptLevel, DiagnosticEngine &Diags,
                                                         bool ContractFMA) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  std::string TripleName, CPU, Features;
  if (Target.isGPU()) {
    TripleName = "nvptx64-nvidia-cuda";
    CPU = Target.ISA;
    Features = "+ptx80";
  } else {
    TripleName = "x86_64-unknown-linux-gnu";
    if (Target.ISA == "sse4")
      CPU = "corei7";
    else if (Target.ISA == "avx2") {
      // Haswell's ISA, with the gather tuning of Skylake and later: without it
      // LLVM turns every masked gather into one scalar load per lane; ISPC
      // always emits vgather on AVX2 (docs/decisions.md).
      CPU = "haswell";
      Features = "+fast-gather";
    } else
      CPU = "skylake-avx512";
  }
  llvm::Triple TT(TripleName);
  std::string Error;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(TT, Error);
  if (!T) {
    Diags.errorNoLoc("LLVM has no back end for '" + TripleName + "': " + Error);
    return nullptr;
  }
  llvm::TargetOptions Options;
  // NVPTX contracts a*b+c into fma, as nvcc and clang -x cuda do: one rounding
  // instead of two, in one instruction. x86 never does (LLVM's default, no
  // `contract` flags): SSE4 has no fma, and every x86 target must compute
  // the same bits.
  if (Target.isGPU() && ContractFMA)
    Options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto Level = OptLevel == 0   ? llvm::CodeGenOptLevel::None
               : OptLevel == 1 ? llvm::CodeGenOptLevel::Less
               : OptLevel == 2 ? llvm::CodeGenOptLevel::Default
                               : llvm::CodeGenOptLevel::Aggressive;
  return std::unique_ptr<llvm::TargetMachine>(
      T->createTargetMachine(TT, CPU, Features, Options, llvm::Reloc::PIC_, std::nullopt, Level));
}

namespace {

using ir::OpCode;

class Emitter {
public:
  Emitter(ir::Module &M, const TargetInfo &Target, llvm::TargetMachine &TM, llvm::LLVMContext &Ctx,
          DiagnosticEngine &Diags)
      : IRM(M), Target(Target), Ctx(Ctx), Diags(Diags), W(Target.GangWidth),
        Mod(std::make_unique<llvm::Module>("spmdc", Ctx)), B(Ctx),
        Lanes(Target.isGPU() ? createNVPTXLaneOps(B) : createX86LaneOps(B, W)) {
    Mod->setTargetTriple(TM.getTargetTriple());
    Mod->setDataLayout(TM.createDataLayout());
  }

  std::unique_ptr<llvm::Module> run() {
    for (auto &G : IRM.Globals)
      declareGlobal(*G);
    // Standard library functions with a body (written in .spmd) are compiled
    // like the user's; those without are target hooks (stdlibCall).
    // Only the stdlib bodies the program reaches: the prelude defines many.
    std::set<ir::Function *> Used = reachableFunctions();
    if (Target.isGPU() && !declareWarpFrames(Used))
      return nullptr;
    for (auto &F : IRM.Functions)
      if ((!F->IsStdlib || F->Body) && Used.count(F.get()))
        declareFunction(*F);
    // Initializers holding function addresses wait for the functions.
    for (auto &G : IRM.Globals)
      if (!G->InitFuncs.empty() && !G->IsExtern)
        Globals[G.get()]->setInitializer(globalInitializer(*G, /*WithFunctions=*/true));
    for (auto &F : IRM.Functions)
      if (F->Body && Used.count(F.get()))
        defineFunction(*F);
    for (auto &F : IRM.Functions) {
      if (!F->Body)
        continue;
      if (Target.isGPU() && (F->flags().Export || F->flags().Task))
        defineKernel(*F);
      else if (F->flags().Export)
        defineExportWrapper(*F);
    }
    if (Diags.hasErrors())
      return nullptr;
    std::string Err;
    llvm::raw_string_ostream OS(Err);
    if (llvm::verifyModule(*Mod, &OS)) {
      Diags.errorNoLoc("internal error: generated LLVM IR does not verify: " + Err);
      return nullptr;
    }
    return std::move(Mod);
  }

private:
  /// The user's functions and every function they call or take the address
  /// of, transitively.
  std::set<ir::Function *> reachableFunctions() {
    std::set<ir::Function *> Seen;
    std::vector<ir::Function *> Work;
    for (auto &F : IRM.Functions)
      if (!F->IsStdlib && Seen.insert(F.get()).second)
        Work.push_back(F.get());
    for (auto &G : IRM.Globals)
      for (auto &[Index, F] : G->InitFuncs)
        if (Seen.insert(F).second)
          Work.push_back(F);
    std::function<void(ir::Region &)> Scan = [&](ir::Region &R) {
      for (auto &O : R.Ops) {
        if (O->Callee && Seen.insert(O->Callee).second)
          Work.push_back(O->Callee);
        for (auto &Sub : O->Regions)
          Scan(*Sub);
      }
    };
    while (!Work.empty()) {
      ir::Function *F = Work.back();
      Work.pop_back();
      if (F->Body)
        Scan(*F->Body);
    }
    return Seen;
  }

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  llvm::Type *scalarType(const Type *T, bool InMemory) {
    switch (T->getKind()) {
    case Type::Void:
      return B.getVoidTy();
    case Type::Bool:
      return InMemory ? B.getInt8Ty() : B.getInt1Ty();
    case Type::Int8:
    case Type::UInt8:
      return B.getInt8Ty();
    case Type::Int16:
    case Type::UInt16:
      return B.getInt16Ty();
    case Type::Int32:
    case Type::UInt32:
    case Type::Enum:
      return B.getInt32Ty();
    case Type::Int64:
    case Type::UInt64:
      return B.getInt64Ty();
    case Type::Float16:
      return B.getHalfTy();
    case Type::Float:
      return B.getFloatTy();
    case Type::Double:
      return B.getDoubleTy();
    case Type::Pointer:
    case Type::Function:
      return B.getPtrTy();
    default:
      return nullptr;
    }
  }

  /// The LLVM type of a value (`InMemory` false) or of its storage.
  llvm::Type *llvmType(const Type *T, bool InMemory = false) {
    if (T->isArray())
      return llvm::ArrayType::get(llvmType(T->getElementType(), true), T->getArraySize());
    if (T->isStruct())
      return structType(T);
    if (T->isReference())
      return B.getPtrTy();
    llvm::Type *S = scalarType(T, InMemory);
    if (T->isVarying() && !T->isVoid())
      return Lanes->varying(S);
    return S;
  }

  llvm::StructType *structType(const Type *T) {
    auto Key = std::make_pair(T->getStructDecl(), T->getVariability());
    auto It = Structs.find(Key);
    if (It != Structs.end())
      return It->second;
    auto *ST = llvm::StructType::create(Ctx, std::string(T->isVarying() ? "v_" : "") + "struct." +
                                                 T->getStructDecl()->Name);
    Structs[Key] = ST;
    std::vector<llvm::Type *> Fields;
    for (const FieldDecl &FD : T->getStructDecl()->Fields)
      Fields.push_back(
          llvmType(IRM.Types.memberType(FD.Ty, T->getVariability()), /*InMemory=*/true));
    // An empty struct still takes a byte (sizeof 1, as in ISPC); no member
    // index refers to the filler.
    if (Fields.empty()) {
      Fields.push_back(B.getInt8Ty());
      EmptyStructs.insert(ST);
    }
    ST->setBody(Fields);
    return ST;
  }

  llvm::Type *maskType() { return Lanes->varying(B.getInt1Ty()); }

  //===--------------------------------------------------------------------===//
  // Declarations
  //===--------------------------------------------------------------------===//

  /// On NVPTX a varying value lives in one thread per lane, so a varying
  /// global is an array with one element per lane of the warp.
  bool isPerLaneGlobal(const ir::Global &G) const {
    return Target.isGPU() && !G.IsShared && G.Ty->isVarying();
  }

  /// The initial value of a non-extern global; function addresses in it read
  /// as null until `WithFunctions` (once the functions are declared).
  llvm::Constant *globalInitializer(ir::Global &G, bool WithFunctions) {
    llvm::Type *T = llvmType(G.Ty, true);
    llvm::Constant *Init = G.InitInt.empty() || (!G.InitFuncs.empty() && !WithFunctions)
                               ? llvm::Constant::getNullValue(T)
                               : constantInit(G, T);
    if (isPerLaneGlobal(G))
      Init = llvm::ConstantArray::get(llvm::ArrayType::get(T, W),
                                      std::vector<llvm::Constant *>(W, Init));
    return Init;
  }

  void declareGlobal(ir::Global &G) {
    llvm::Type *T = llvmType(G.Ty, true);
    llvm::Constant *Init = nullptr;
    if (!G.IsExtern)
      Init = globalInitializer(G, /*WithFunctions=*/false);
    if (isPerLaneGlobal(G))
      T = llvm::ArrayType::get(T, W);
    auto Linkage = G.IsExtern   ? llvm::GlobalValue::ExternalLinkage
                   : G.IsStatic ? llvm::GlobalValue::InternalLinkage
                                : llvm::GlobalValue::ExternalLinkage;
    if (G.IsShared) {
      // One copy per block: PTX .shared on NVPTX; on the CPU a block is one
      // task, so each worker thread (running one task at a time) has its own.
      bool GPU = Target.isGPU();
      auto *GV = new llvm::GlobalVariable(
          *Mod, T, false, llvm::GlobalValue::InternalLinkage,
          GPU ? llvm::UndefValue::get(T) : llvm::Constant::getNullValue(T), G.Name, nullptr,
          GPU ? llvm::GlobalValue::NotThreadLocal : llvm::GlobalValue::GeneralDynamicTLSModel,
          GPU ? 3u : 0u);
      Globals[&G] = GV;
      return;
    }
    Globals[&G] = new llvm::GlobalVariable(*Mod, T, G.Ty->isConst(), Linkage, Init, G.Name);
  }

  /// NVPTX: the per-warp shared-memory frames of the uniform locals whose
  /// address escapes (backend/WarpFrames.h), one region per warp of a block.
  bool declareWarpFrames(const std::set<ir::Function *> &Used) {
    const llvm::DataLayout &DL = Mod->getDataLayout();
    uint64_t SharedBytes = 0;
    for (auto &[G, GV] : Globals)
      if (G->IsShared)
        SharedBytes += DL.getTypeAllocSize(GV->getValueType());
    constexpr uint64_t StaticSharedLimit = 48 * 1024; // per block, without opt-in
    auto SizeAlign = [&](const Type *T) {
      llvm::Type *LT = llvmType(T, true);
      return std::make_pair(DL.getTypeAllocSize(LT).getFixedValue(),
                            DL.getABITypeAlign(LT).value());
    };
    if (!layoutWarpFrames(IRM, Used, SizeAlign,
                          SharedBytes < StaticSharedLimit ? StaticSharedLimit - SharedBytes : 0,
                          Diags, WarpFrames))
      return false;
    if (!WarpFrames.BytesPerWarp)
      return true;
    auto *T = llvm::ArrayType::get(B.getInt8Ty(), WarpFrames.BytesPerWarp * MaxWarpsPerBlock);
    WarpFramesGV = new llvm::GlobalVariable(*Mod, T, false, llvm::GlobalValue::InternalLinkage,
                                            llvm::UndefValue::get(T), "__spmdc_warp_frames",
                                            nullptr, llvm::GlobalValue::NotThreadLocal, 3u);
    WarpFramesGV->setAlignment(llvm::Align(16));
    return true;
  }

  /// This warp's region of the frames (in the entry block): the warp's index
  /// in its block from the linear thread index, times the region size.
  llvm::Value *warpRegion() {
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
  llvm::Value *warpSlot(uint64_t Offset) {
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
  void warpSync() {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_bar_warp_sync, {}, {B.getInt32(0xffffffffu)});
  }
  bool isWarpSlotAddress(ir::Value *Addr) const { return WarpFrames.SlotAddresses.count(Addr); }

  llvm::Constant *constantInit(ir::Global &G, llvm::Type *T) {
    size_t Next = 0;
    std::function<llvm::Constant *(llvm::Type *)> Build = [&](llvm::Type *Ty) -> llvm::Constant * {
      if (auto *AT = llvm::dyn_cast<llvm::ArrayType>(Ty)) {
        std::vector<llvm::Constant *> Elts;
        for (uint64_t I = 0; I < AT->getNumElements(); ++I)
          Elts.push_back(Build(AT->getElementType()));
        return llvm::ConstantArray::get(AT, Elts);
      }
      if (auto *ST = llvm::dyn_cast<llvm::StructType>(Ty)) {
        if (EmptyStructs.count(ST)) // its filler byte has no initializer
          return llvm::Constant::getNullValue(ST);
        std::vector<llvm::Constant *> Fields;
        for (llvm::Type *FT : ST->elements())
          Fields.push_back(Build(FT));
        return llvm::ConstantStruct::get(ST, Fields);
      }
      if (auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(Ty))
        return llvm::ConstantVector::getSplat(VT->getElementCount(), Build(VT->getElementType()));
      size_t I = Next < G.InitInt.size() ? Next++ : G.InitInt.size();
      if (auto F = G.InitFuncs.find(I); F != G.InitFuncs.end() && Ty->isPointerTy())
        return Functions[F->second];
      if (Ty->isFloatingPointTy())
        return llvm::ConstantFP::get(Ty, I < G.InitFloat.size() ? G.InitFloat[I] : 0.0);
      if (Ty->isIntegerTy())
        return llvm::ConstantInt::get(Ty, I < G.InitInt.size() ? G.InitInt[I] : 0, true);
      return llvm::Constant::getNullValue(Ty);
    };
    return Build(T);
  }

  llvm::Function *declareFunction(ir::Function &F) {
    std::vector<llvm::Type *> Params;
    for (auto &P : F.Params)
      Params.push_back(llvmType(P->Ty));
    // A task also receives its position in the launch: taskIndex0..2, taskCount0..2.
    if (F.flags().Task)
      Params.insert(Params.end(), TaskIndexParams, B.getInt32Ty());
    auto *FT = llvm::FunctionType::get(llvmType(F.Ty->getReturnType()), Params, false);
    std::string Name = F.flags().Export ? F.Symbol + "___masked" : F.Symbol;
    auto Linkage = (F.IsStatic || (F.Body && !F.flags().ExternC && !F.flags().Export &&
                                   !F.flags().Task && F.Symbol != "main"))
                       ? llvm::GlobalValue::InternalLinkage
                       : llvm::GlobalValue::ExternalLinkage;
    if (!F.Body)
      Linkage = llvm::GlobalValue::ExternalLinkage;
    auto *LF = llvm::Function::Create(FT, Linkage, Name, *Mod);
    // The ISPC guide: "inline is not a hint, but forces inlining"; noinline never inlines.
    if (F.IsInline && F.Body)
      LF->addFnAttr(llvm::Attribute::AlwaysInline);
    else if (F.IsNoInline)
      LF->addFnAttr(llvm::Attribute::NoInline);
    Functions[&F] = LF;
    return LF;
  }

  void defineExportWrapper(ir::Function &F) {
    // The C entry: same parameters minus the mask, all lanes on.
    llvm::Function *Masked = Functions[&F];
    std::vector<llvm::Type *> Params;
    for (size_t I = 1; I < F.Params.size(); ++I) {
      const Type *T = F.Params[I]->Ty;
      Params.push_back(T->isBool() ? B.getInt8Ty() : llvmType(T));
    }
    const Type *Ret = F.Ty->getReturnType();
    llvm::Type *RetTy = Ret->isBool() ? B.getInt8Ty() : llvmType(Ret);
    auto *FT = llvm::FunctionType::get(RetTy, Params, false);
    auto *C = llvm::Function::Create(FT, llvm::GlobalValue::ExternalLinkage, F.Symbol, *Mod);
    B.SetInsertPoint(llvm::BasicBlock::Create(Ctx, "entry", C));
    std::vector<llvm::Value *> Args = {llvm::ConstantInt::getTrue(maskType())};
    for (size_t I = 1; I < F.Params.size(); ++I) {
      llvm::Value *A = C->getArg(I - 1);
      if (F.Params[I]->Ty->isBool())
        A = B.CreateICmpNE(A, B.getInt8(0));
      Args.push_back(A);
    }
    llvm::Value *R = B.CreateCall(Masked, Args);
    if (Ret->isVoid())
      B.CreateRetVoid();
    else
      B.CreateRet(Ret->isBool() ? B.CreateZExt(R, B.getInt8Ty()) : R);
  }

  //===--------------------------------------------------------------------===//
  // Function bodies
  //===--------------------------------------------------------------------===//

  struct LoopBlocks {
    llvm::BasicBlock *Continue, *Exit;
  };

  void defineFunction(ir::Function &F) {
    Fn = Functions[&F];
    CurIR = &F;
    Values.clear();
    Loops.clear();
    LabelBlocks.clear();
    auto *Entry = llvm::BasicBlock::Create(Ctx, "entry", Fn);
    AllocaIP = Entry;
    B.SetInsertPoint(Entry);
    WarpRegion = WarpFrames.HasSlots.count(&F) ? warpRegion() : nullptr;
    for (size_t I = 0; I < F.Params.size(); ++I) {
      Values[F.Params[I].get()] = Fn->getArg(I);
      Fn->getArg(I)->setName(F.Params[I]->NameHint);
    }
    if (F.flags().Task) {
      static const char *Names[TaskIndexParams] = {"taskIndex0", "taskIndex1",  "taskIndex2",
                                                   "taskCount0", "taskCount1",  "taskCount2",
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

  void region(ir::Region &R) {
    for (auto &O : R.Ops) {
      if (B.GetInsertBlock()->getTerminator()) {
        // Code after a jump: give it a block of its own (it is unreachable).
        B.SetInsertPoint(llvm::BasicBlock::Create(Ctx, "dead", Fn));
      }
      op(*O);
    }
  }

  llvm::Value *val(ir::Value *V) {
    auto It = Values.find(V);
    if (It != Values.end())
      return It->second;
    Diags.errorNoLoc(std::string("internal error: SPMD IR value used before its definition: ") +
                     (V->Def ? ir::opName(V->Def->Code) : "parameter " + V->NameHint));
    return llvm::PoisonValue::get(llvmType(V->Ty));
  }

  llvm::Value *mask(ir::Op &O) {
    return O.Mask ? val(O.Mask) : llvm::ConstantInt::getTrue(maskType());
  }

  void set(ir::Op &O, llvm::Value *V) {
    if (O.result())
      Values[O.result()] = V;
  }

  bool unsupported(ir::Op &O, const std::string &What) {
    Diags.error(O.Loc, What + " is not supported by the " + Target.Name + " code generator yet");
    if (O.result())
      set(O, llvm::PoisonValue::get(llvmType(O.result()->Ty)));
    return false;
  }

  llvm::Value *splat(llvm::Value *V) { return Lanes->splat(V); }

  /// Register <-> memory representation (bools are bytes in memory).
  llvm::Value *fromMemory(llvm::Value *V, const Type *T) {
    if (T->isBool())
      return B.CreateICmpNE(V, llvm::Constant::getNullValue(V->getType()));
    return V;
  }
  llvm::Value *toMemory(llvm::Value *V, const Type *T) {
    if (T->isBool())
      return B.CreateZExt(V, llvmType(T, true));
    return V;
  }

  llvm::Align alignOf(llvm::Type *T) { return Mod->getDataLayout().getABITypeAlign(T); }

  void op(ir::Op &O) {
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
                     O.result()->isVarying(), mask(O)));
      return;
    case OpCode::Delete:
      emitDelete(B, *Lanes, Target.isGPU(), val(O.Operands[0]), O.Operands[0]->isVarying(),
                 mask(O));
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
  llvm::BasicBlock *labelBlock(int64_t Id) {
    llvm::BasicBlock *&BB = LabelBlocks[Id];
    if (!BB)
      BB = llvm::BasicBlock::Create(Ctx, "label", Fn);
    return BB;
  }

  void builtin(ir::Op &O) {
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

  llvm::Value *sreg(llvm::Intrinsic::ID Id) {
    return B.CreateIntrinsic(Id, llvm::ArrayRef<llvm::Type *>{}, llvm::ArrayRef<llvm::Value *>{});
  }

  /// gangIndex/gangCount: on NVPTX the warp within its block; on the CPU a
  /// block is one gang (SPEC 2.3).
  llvm::Value *gangBuiltin(BuiltinVar Which) {
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
  llvm::Value *gpuTaskBuiltin(BuiltinVar Which) {
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
      return B.CreateUDiv(B.CreateAdd(B.CreateMul(sreg(nvvm_read_ptx_sreg_ctaid_x),
                                                  sreg(nvvm_read_ptx_sreg_ntid_x)),
                                      sreg(nvvm_read_ptx_sreg_tid_x)),
                          B.getInt32(32));
    }
  }

  /// An export or task function on NVPTX: a `.entry` kernel with the
  /// function's uniform parameters that runs the body with every lane on.
  void defineKernel(ir::Function &F) {
    if (!F.Ty->getReturnType()->isVoid()) {
      // Still callable from SPMD code, just not from the host.
      Diags.warning(F.Loc, "export function '" + F.Name +
                               "' returns a value, so it is no kernel on NVPTX (kernels "
                               "return void: write results through a pointer)");
      return;
    }
    llvm::Function *Body = Functions[&F];
    std::vector<llvm::Type *> Params;
    for (size_t I = 1; I < F.Params.size(); ++I)
      Params.push_back(llvmType(F.Params[I]->Ty));
    auto *K = llvm::Function::Create(llvm::FunctionType::get(B.getVoidTy(), Params, false),
                                     llvm::GlobalValue::ExternalLinkage, F.Symbol, *Mod);
    K->setCallingConv(llvm::CallingConv::PTX_Kernel);
    // A fused kernel's block size is fixed by its partition; .maxnreg bounds
    // its registers when the user (or the tuner) asks for it.
    if (F.ThreadsPerBlock)
      K->addFnAttr("nvvm.maxntid", std::to_string(F.ThreadsPerBlock));
    if (F.MaxNReg)
      K->addFnAttr("nvvm.maxnreg", std::to_string(F.MaxNReg));
    // The body must not clash with the kernel's name.
    Body->setName(F.Symbol + "___body");
    Body->setLinkage(llvm::GlobalValue::InternalLinkage);
    B.SetInsertPoint(llvm::BasicBlock::Create(Ctx, "entry", K));
    std::vector<llvm::Value *> Args = {B.getTrue()};
    for (size_t I = 1; I < F.Params.size(); ++I) {
      K->getArg(I - 1)->setName(F.Params[I]->NameHint);
      Args.push_back(K->getArg(I - 1));
    }
    if (F.flags().Task) // the task's own index parameters are unused on NVPTX
      Args.insert(Args.end(), TaskIndexParams, B.getInt32(0));
    B.CreateCall(Body, Args);
    B.CreateRetVoid();
  }

  /// A task's own parameters after the declared ones: taskIndex0..2, taskCount0..2, then
  /// ISPC's threadIndex and threadCount.
  static constexpr unsigned TaskIndexParams = 8;

  static bool containsOp(ir::Region &R, OpCode Code) {
    for (auto &O : R.Ops) {
      if (O->Code == Code)
        return true;
      for (auto &Sub : O->Regions)
        if (containsOp(*Sub, Code))
          return true;
    }
    return false;
  }

  /// taskIndex/taskCount and their per-dimension forms. Outside a task there
  /// is one task (index 0 of 1). On the CPU a block is one task (SPEC 2.3).
  llvm::Value *taskBuiltin(BuiltinVar Which) {
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

  llvm::FunctionCallee runtimeFn(const char *Name, llvm::Type *Ret,
                                 std::vector<llvm::Type *> Params) {
    return Mod->getOrInsertFunction(Name, llvm::FunctionType::get(Ret, Params, false));
  }

  /// A function that launched tasks waits for them before it returns (as ISPC). ISPC's task
  /// ABI (the guide's "Task Parallelism"): ISPCSync(handle) only once a launch or an
  /// allocation made the handle non-null.
  void emitSync() {
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

  void emitReturn(llvm::Value *V) {
    emitSync();
    if (V)
      B.CreateRet(V);
    else
      B.CreateRetVoid();
  }

  /// ISPC's task function: `fn(data, threadIndex, threadCount, taskIndex, taskCount, i0, i1,
  /// i2, c0, c1, c2)`, called by the task system's ISPCLaunch; this entry unpacks the
  /// argument block and calls the task with every lane on.
  static constexpr unsigned TaskEntryIndexOffset = 5; ///< data, thread index/count, task index/count
  llvm::Function *taskEntry(ir::Function &Task, llvm::StructType *ArgsTy) {
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

  /// The thread's current task indices (taskIndex0..2, taskCount0..2), one
  /// thread-local array shared by every spmdc module of a program.
  llvm::GlobalVariable *taskContext() {
    const char *Name = "__spmdc_task_context";
    if (llvm::GlobalVariable *G = Mod->getNamedGlobal(Name))
      return G;
    auto *T = llvm::ArrayType::get(B.getInt32Ty(), TaskIndexParams);
    std::vector<llvm::Constant *> Init;
    for (unsigned I = 0; I < TaskIndexParams; ++I)
      Init.push_back(B.getInt32(I < 3 || I == 6 ? 0 : 1)); // index 0 of 1, thread 0 of 1
    auto *G = new llvm::GlobalVariable(*Mod, T, false, llvm::GlobalValue::LinkOnceODRLinkage,
                                       llvm::ConstantArray::get(T, Init), Name, nullptr,
                                       llvm::GlobalValue::GeneralDynamicTLSModel);
    G->setVisibility(llvm::GlobalValue::HiddenVisibility);
    return G;
  }

  void launch(ir::Op &O) {
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
                           {B.getPtrTy(), B.getPtrTy(), B.getPtrTy(), B.getInt32Ty(),
                            B.getInt32Ty(), B.getInt32Ty()}),
                 {LaunchGroup, taskEntry(Task, ArgsTy), Data, Counts[0], Counts[1], Counts[2]});
  }

  /// `print`: spmdc_print(format, types, width, mask, args) from the runtime.
  void print(ir::Op &O) {
    std::string Types;
    std::vector<llvm::Value *> Slots;
    llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
    for (ir::Value *V : O.Operands) {
      const Type *T = V->Ty;
      llvm::Value *X = val(V);
      char C;
      if (T->isBool()) {
        C = 'b';
        X = B.CreateZExt(X, T->isVarying() ? llvmType(T, true) : B.getInt8Ty());
      } else if (T->isFloatingPoint()) {
        C = T->getKind() == Type::Double ? 'd' : 'f';
        if (T->getKind() == Type::Float16)
          X = B.CreateFPExt(X, T->isVarying() ? llvm::FixedVectorType::get(B.getFloatTy(), W)
                                              : B.getFloatTy());
      } else if (T->isPointer()) {
        C = 'p';
      } else if (T->getBitWidth() == 64) {
        C = T->isUnsignedInteger() ? 'v' : 'l';
      } else {
        C = T->isUnsignedInteger() ? 'u' : 'i';
        llvm::Type *I32 =
            T->isVarying()
                ? static_cast<llvm::Type *>(llvm::FixedVectorType::get(B.getInt32Ty(), W))
                : B.getInt32Ty();
        X = B.CreateIntCast(X, I32, !T->isUnsignedInteger());
      }
      if (T->isVarying())
        C = static_cast<char>(std::toupper(C));
      Types += C;
      llvm::Value *Slot = Entry.CreateAlloca(X->getType());
      B.CreateStore(X, Slot);
      Slots.push_back(Slot);
    }
    llvm::Value *Args = Entry.CreateAlloca(llvm::ArrayType::get(B.getPtrTy(), Slots.size() + 1));
    for (size_t I = 0; I < Slots.size(); ++I)
      B.CreateStore(
          Slots[I],
          B.CreateConstGEP2_32(llvm::ArrayType::get(B.getPtrTy(), Slots.size() + 1), Args, 0, I));
    llvm::Value *Bits = Lanes->bits(mask(O));
    B.CreateCall(
        runtimeFn("spmdc_print", B.getVoidTy(),
                  {B.getPtrTy(), B.getPtrTy(), B.getInt32Ty(), B.getInt64Ty(), B.getPtrTy()}),
        {B.CreateGlobalString(O.Text), B.CreateGlobalString(Types), B.getInt32(W), Bits, Args});
  }

  //===--------------------------------------------------------------------===//
  // print and assert on NVPTX: the driver's vprintf, once per warp
  //===--------------------------------------------------------------------===//

  /// `int vprintf(const char *format, void *args)`: the CUDA driver's printf;
  /// `args` is a buffer of the promoted arguments, each at its natural alignment.
  llvm::FunctionCallee vprintf() {
    return runtimeFn("vprintf", B.getInt32Ty(), {B.getPtrTy(), B.getPtrTy()});
  }

  /// A constant C string, one global per distinct text.
  llvm::Value *cString(const std::string &Text) {
    auto It = CStrings.find(Text);
    if (It != CStrings.end())
      return It->second;
    return CStrings[Text] = B.CreateGlobalString(Text, ".str");
  }

  /// The printf conversion and the promoted value of one lane's (or a
  /// uniform) value of type T, as the x86 runtime prints it (runtime/Print.cpp).
  std::pair<std::string, llvm::Value *> printfScalar(const Type *T, llvm::Value *X) {
    if (T->isBool())
      return {"%s", B.CreateSelect(X, cString("true"), cString("false"))};
    if (T->isFloatingPoint())
      return {"%f", B.CreateFPExt(X, B.getDoubleTy())};
    if (T->isPointer())
      return {"%p", X};
    if (T->getBitWidth() == 64)
      return {T->isUnsignedInteger() ? "%llu" : "%lld", X};
    return {T->isUnsignedInteger() ? "%u" : "%d",
            B.CreateIntCast(X, B.getInt32Ty(), !T->isUnsignedInteger())};
  }

  static std::string escapePrintf(const std::string &Text) {
    std::string R;
    for (char C : Text) {
      R += C;
      if (C == '%')
        R += '%';
    }
    return R;
  }

  /// Runs `Body` in one lane of the warp, `Lane` (a uniform i32): after the
  /// shuffles every lane took part in, one thread writes the output.
  void inOneLane(llvm::Value *Lane, const std::function<void()> &Body) {
    auto *Then = llvm::BasicBlock::Create(Ctx, "one.lane", Fn);
    auto *Join = llvm::BasicBlock::Create(Ctx, "one.lane.join", Fn);
    B.CreateCondBr(B.CreateICmpEQ(Lanes->laneIndex(), Lane), Then, Join);
    B.SetInsertPoint(Then);
    Body();
    B.CreateBr(Join);
    B.SetInsertPoint(Join);
  }

  /// vprintf(Format, Args) with the arguments in a buffer in local memory.
  void callVprintf(const std::string &Format, const std::vector<llvm::Value *> &Args) {
    llvm::Value *Buffer = llvm::ConstantPointerNull::get(B.getPtrTy());
    if (!Args.empty()) {
      std::vector<llvm::Type *> Types;
      for (llvm::Value *A : Args)
        Types.push_back(A->getType());
      auto *ST = llvm::StructType::get(Ctx, Types);
      llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
      Buffer = Entry.CreateAlloca(ST, nullptr, "printf.args");
      for (unsigned I = 0; I < Args.size(); ++I)
        B.CreateStore(Args[I], B.CreateStructGEP(ST, Buffer, I));
    }
    B.CreateCall(vprintf(), {cString(Format), Buffer});
  }

  /// The first set lane of a ballot (lane 0 when none is set).
  llvm::Value *firstLane(llvm::Value *Bits) {
    llvm::Value *First = B.CreateTrunc(
        B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, Bits, B.getFalse()), B.getInt32Ty());
    return B.CreateSelect(B.CreateICmpEQ(Bits, B.getInt64(0)), B.getInt32(0), First);
  }

  /// The vprintf calls of one print: the driver's printf takes at most 32
  /// arguments besides the format, so a long output is several calls, made in
  /// order by the same thread.
  struct PrintfCalls {
    static constexpr size_t MaxArgs = 32;
    std::vector<std::pair<std::string, std::vector<llvm::Value *>>> Calls{1};

    void text(const std::string &Text) { Calls.back().first += escapePrintf(Text); }
    void item(const std::string &Spec, const std::vector<llvm::Value *> &Args) {
      if (Calls.back().second.size() + Args.size() > MaxArgs)
        Calls.emplace_back();
      Calls.back().first += Spec;
      Calls.back().second.insert(Calls.back().second.end(), Args.begin(), Args.end());
    }
  };

  void emitPrintfCalls(const PrintfCalls &P) {
    for (const auto &[Format, Args] : P.Calls)
      if (!Format.empty())
        callVprintf(Format, Args);
  }

  /// `print` on NVPTX: ISPC's format (a varying value as `[a,b,...]`, an
  /// inactive lane as `((x))`, a varying bool's inactive lane as `_________`),
  /// built per warp: the lanes' values reach every thread by shuffles, then the
  /// first active lane calls vprintf with formats made at compile time. A lane
  /// of a varying number is `%s` + its conversion, the `%s` being the
  /// separator with the previous lane's `))` and this lane's `((` as needed.
  void printGPU(ir::Op &O) {
    llvm::Value *Bits = Lanes->bits(mask(O));
    PrintfCalls P;
    size_t NextArg = 0;
    for (char C : O.Text) {
      if (C != '%') {
        P.text(std::string(1, C));
        continue;
      }
      if (NextArg == O.Operands.size()) {
        P.text("%"); // more '%' than values: printed as themselves
        continue;
      }
      ir::Value *V = O.Operands[NextArg++];
      const Type *T = V->Ty;
      llvm::Value *X = val(V);
      if (!T->isVarying()) {
        auto [Spec, A] = printfScalar(T, X);
        P.item(Spec, {A});
        continue;
      }
      P.text("[");
      llvm::Value *PrevOff = B.getFalse();
      for (unsigned Lane = 0; Lane < W; ++Lane) {
        llvm::Value *Off = B.CreateNot(B.CreateTrunc(B.CreateLShr(Bits, Lane), B.getInt1Ty()));
        auto [Spec, A] = printfScalar(T, Lanes->extract(X, B.getInt32(Lane)));
        if (T->isBool()) {
          if (Lane)
            P.text(",");
          P.item("%s", {B.CreateSelect(Off, cString("_________"), A)});
          continue;
        }
        std::string Comma = Lane ? "," : "";
        llvm::Value *Open = B.CreateSelect(Off, cString(Comma + "(("), cString(Comma));
        llvm::Value *CloseOpen =
            B.CreateSelect(Off, cString("))" + Comma + "(("), cString("))" + Comma));
        P.item("%s" + Spec, {B.CreateSelect(PrevOff, CloseOpen, Open), A});
        PrevOff = Off;
      }
      if (!T->isBool())
        P.item("%s", {B.CreateSelect(PrevOff, cString("))"), cString(""))});
      P.text("]");
    }
    inOneLane(firstLane(Bits), [&] { emitPrintfCalls(P); });
  }

  /// `assert(c)` on NVPTX: when an active lane fails, the first failing lane
  /// prints the x86 runtime's message (with the failing lanes) and calls the
  /// driver's __assertfail, which ends the kernel with CUDA_ERROR_ASSERT.
  void assertGPU(ir::Op &O) {
    llvm::Value *Failing = B.CreateAnd(mask(O), B.CreateNot(val(O.Operands[0])));
    llvm::Value *Bits = Lanes->bits(Failing);
    auto *Fail = llvm::BasicBlock::Create(Ctx, "assert.fail", Fn);
    auto *Cont = llvm::BasicBlock::Create(Ctx, "assert.ok", Fn);
    B.CreateCondBr(B.CreateICmpNE(Bits, B.getInt64(0)), Fail, Cont);
    B.SetInsertPoint(Fail);
    llvm::Value *First = firstLane(Bits);
    std::string File = O.Loc.File ? *O.Loc.File : "<unknown>";
    inOneLane(First, [&] {
      PrintfCalls P;
      P.text(File + ":" + std::to_string(O.Loc.Line) + ": assertion failed: " + O.Text +
             " (lanes ");
      for (unsigned Lane = 0; Lane < W; ++Lane) {
        llvm::Value *Set = B.CreateTrunc(B.CreateLShr(Bits, Lane), B.getInt1Ty());
        llvm::Value *Text =
            B.CreateSelect(B.CreateICmpEQ(First, B.getInt32(Lane)), cString(std::to_string(Lane)),
                           cString("," + std::to_string(Lane)));
        P.item("%s", {B.CreateSelect(Set, Text, cString(""))});
      }
      P.text(")\n");
      emitPrintfCalls(P);
      B.CreateCall(
          runtimeFn("__assertfail", B.getVoidTy(),
                    {B.getPtrTy(), B.getPtrTy(), B.getInt32Ty(), B.getPtrTy(), B.getInt64Ty()}),
          {cString(O.Text), cString(File), B.getInt32(O.Loc.Line), cString(CurIR->Name),
           B.getInt64(1)});
    });
    B.CreateBr(Cont);
    B.SetInsertPoint(Cont);
  }

  /// `assert(c)`: if some active lane fails, report it through the runtime.
  void assertOp(ir::Op &O) {
    llvm::Value *C = val(O.Operands[0]);
    if (!C->getType()->isVectorTy())
      C = splat(C);
    llvm::Value *Failing = B.CreateAnd(mask(O), B.CreateNot(C));
    llvm::Value *Bits = Lanes->bits(Failing);
    auto *Fail = llvm::BasicBlock::Create(Ctx, "assert.fail", Fn);
    auto *Cont = llvm::BasicBlock::Create(Ctx, "assert.ok", Fn);
    B.CreateCondBr(B.CreateICmpNE(Bits, B.getInt64(0)), Fail, Cont);
    B.SetInsertPoint(Fail);
    std::string File = O.Loc.File ? *O.Loc.File : "<unknown>";
    B.CreateCall(
        runtimeFn("spmdc_assert_fail", B.getVoidTy(),
                  {B.getPtrTy(), B.getInt32Ty(), B.getPtrTy(), B.getInt64Ty()}),
        {B.CreateGlobalString(File), B.getInt32(O.Loc.Line), B.CreateGlobalString(O.Text), Bits});
    B.CreateBr(Cont);
    B.SetInsertPoint(Cont);
  }

  void unary(ir::Op &O) {
    llvm::Value *V = val(O.Operands[0]);
    const Type *T = O.Operands[0]->Ty;
    switch (O.UnOp) {
    case UnaryOp::Minus:
      set(O, T->isFloatingPoint() ? B.CreateFNeg(V) : B.CreateNeg(V));
      return;
    case UnaryOp::Not:
    case UnaryOp::BitNot:
      set(O, B.CreateNot(V));
      return;
    default:
      unsupported(O, "this unary operator");
    }
  }

  void binary(ir::Op &O) {
    llvm::Value *L = val(O.Operands[0]), *R = val(O.Operands[1]);
    const Type *T = O.Operands[0]->Ty;
    bool Float = T->isFloatingPoint();
    bool Signed = T->isSignedInteger() || T->isEnum();
    using P = llvm::CmpInst::Predicate;
    auto Cmp = [&](P FP, P SP, P UP) {
      if (Float)
        return B.CreateFCmp(FP, L, R);
      return B.CreateICmp(Signed ? SP : UP, L, R);
    };
    // Integer division traps on x86 for a zero divisor, also in lanes that are
    // off: give inactive garbage lanes a divisor of one.
    auto SafeDivisor = [&]() -> llvm::Value * {
      if (!R->getType()->isVectorTy())
        return R;
      llvm::Value *Zero = B.CreateICmpEQ(R, llvm::Constant::getNullValue(R->getType()));
      return B.CreateSelect(Zero, llvm::ConstantInt::get(R->getType(), 1), R);
    };
    llvm::Value *Res = nullptr;
    switch (O.BinOp) {
    case BinaryOp::Add:
      Res = Float ? B.CreateFAdd(L, R) : B.CreateAdd(L, R, "", false, O.NoSignedWrap);
      break;
    case BinaryOp::Sub:
      Res = Float ? B.CreateFSub(L, R) : B.CreateSub(L, R, "", false, O.NoSignedWrap);
      break;
    case BinaryOp::Mul:
      Res = Float ? B.CreateFMul(L, R) : B.CreateMul(L, R, "", false, O.NoSignedWrap);
      break;
    case BinaryOp::Div:
      Res = Float    ? B.CreateFDiv(L, R)
            : Signed ? B.CreateSDiv(L, SafeDivisor())
                     : B.CreateUDiv(L, SafeDivisor());
      break;
    case BinaryOp::Rem:
      Res = Float    ? B.CreateFRem(L, R)
            : Signed ? B.CreateSRem(L, SafeDivisor())
                     : B.CreateURem(L, SafeDivisor());
      break;
    case BinaryOp::Shl:
      Res = B.CreateShl(L, R);
      break;
    case BinaryOp::Shr:
      Res = Signed ? B.CreateAShr(L, R) : B.CreateLShr(L, R);
      break;
    case BinaryOp::BitAnd:
    case BinaryOp::LogicalAnd:
      Res = B.CreateAnd(L, R);
      break;
    case BinaryOp::BitOr:
    case BinaryOp::LogicalOr:
      Res = B.CreateOr(L, R);
      break;
    case BinaryOp::BitXor:
      Res = B.CreateXor(L, R);
      break;
    case BinaryOp::LT:
      Res = Cmp(P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT);
      break;
    case BinaryOp::GT:
      Res = Cmp(P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT);
      break;
    case BinaryOp::LE:
      Res = Cmp(P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE);
      break;
    case BinaryOp::GE:
      Res = Cmp(P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE);
      break;
    case BinaryOp::EQ:
      Res = Cmp(P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ);
      break;
    case BinaryOp::NE:
      Res = Cmp(P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE);
      break;
    case BinaryOp::Comma:
      Res = R;
      break;
    }
    set(O, Res);
  }

  void convert(ir::Op &O) {
    llvm::Value *V = val(O.Operands[0]);
    const Type *From = O.Operands[0]->Ty, *To = O.result()->Ty;
    llvm::Type *DstTy = llvmType(To);
    bool SrcSigned = From->isSignedInteger() || From->isEnum();
    bool DstSigned = To->isSignedInteger() || To->isEnum();
    switch (O.Cast) {
    case CastKind::ToBool:
      if (From->isFloatingPoint())
        set(O, B.CreateFCmpUNE(V, llvm::Constant::getNullValue(V->getType())));
      else
        set(O, B.CreateICmpNE(V, llvm::Constant::getNullValue(V->getType())));
      return;
    case CastKind::IntegralCast:
    case CastKind::BoolToIntegral:
      set(O, B.CreateIntCast(V, DstTy, SrcSigned && !From->isBool()));
      return;
    case CastKind::IntegralToFloating:
    case CastKind::BoolToFloating:
      set(O, SrcSigned && !From->isBool() ? B.CreateSIToFP(V, DstTy) : B.CreateUIToFP(V, DstTy));
      return;
    case CastKind::FloatingToIntegral:
      set(O, DstSigned ? B.CreateFPToSI(V, DstTy) : B.CreateFPToUI(V, DstTy));
      return;
    case CastKind::FloatingCast:
      set(O, B.CreateFPCast(V, DstTy));
      return;
    case CastKind::PointerToIntegral:
      set(O, B.CreatePtrToInt(V, DstTy));
      return;
    case CastKind::IntegralToPointer:
      set(O, B.CreateIntToPtr(V, DstTy));
      return;
    case CastKind::NoOp:
    case CastKind::LValueToRValue:
    case CastKind::ArrayToPointer:
    case CastKind::NullToPointer:
    case CastKind::PointerCast:
      set(O, V->getType() == DstTy ? V : B.CreateBitOrPointerCast(V, DstTy));
      return;
    case CastKind::UniformToVarying:
      set(O, splat(V));
      return;
    case CastKind::VectorSplat:
    case CastKind::VectorConvert:
    case CastKind::MaterializeTemporary:
      // The lowering expands short-vector conversions element by element and
      // gives temporaries a slot.
      llvm_unreachable("front-end-only cast left in the IR");
    }
  }

  void load(ir::Op &O) {
    ir::Value *Addr = O.Operands[0];
    const Type *T = O.result()->Ty;
    if (isWarpSlotAddress(Addr))
      warpSync();
    if (!Addr->Ty->isVarying()) {
      llvm::Type *MT = llvmType(T, true);
      set(O, fromMemory(B.CreateAlignedLoad(MT, val(Addr), alignOf(MT)), T));
      return;
    }
    if (llvm::Value *First = contiguousAddress(Addr)) {
      llvm::Type *MT = llvmType(T, true);
      llvm::Align A = alignOf(MT->getScalarType());
      llvm::Value *L = O.Mask
                           ? static_cast<llvm::Value *>(B.CreateMaskedLoad(MT, First, A, mask(O)))
                           : B.CreateAlignedLoad(MT, First, A);
      set(O, fromMemory(L, T));
      return;
    }
    // Gather: one pointer per lane, only the active lanes read.
    const Type *Elt = Addr->Ty->getPointee();
    llvm::Value *G = gatherObject(val(Addr), Elt, mask(O));
    if (!G)
      return uniformMemberThroughVaryingPointer(O, "load", Elt);
    set(O, fromMemory(G, T));
  }

  /// The name of a member declared uniform in the struct `T` (or in the
  /// structs and arrays it holds), empty if none.
  std::string uniformMember(const Type *T) {
    if (T->isArray())
      return uniformMember(T->getElementType());
    if (!T->isStruct())
      return "";
    for (const FieldDecl &F : T->getStructDecl()->Fields) {
      const Type *FT = IRM.Types.memberType(F.Ty, Variability::Varying);
      if (!FT->isVarying())
        return F.Name;
      if (std::string Inner = uniformMember(FT); !Inner.empty())
        return F.Name + "." + Inner;
    }
    return "";
  }

  /// A whole struct with a uniform member cannot go through per-lane
  /// pointers: that member has one value per struct, and the lanes may
  /// address different structs (ISPC refuses it as well).
  void uniformMemberThroughVaryingPointer(ir::Op &O, const char *Verb, const Type *Pointee) {
    Diags.error(O.Loc, std::string("cannot ") + Verb + " a whole '" + Pointee->toString() +
                           "' through a varying pointer: its member '" + uniformMember(Pointee) +
                           "' is uniform; access the members one by one");
    if (O.result())
      set(O, llvm::PoisonValue::get(llvmType(O.result()->Ty)));
  }

  /// Per-lane addresses of each lane's own element of the varying scalar
  /// objects at `Ptrs` (lane l's element of a `<W x T>` object sits at offset
  /// l; on NVPTX a thread's varying object holds only its own lane).
  llvm::Value *ownLaneAddr(llvm::Value *Ptrs, const Type *VaryingScalar) {
    if (Target.isGPU())
      return Ptrs;
    return B.CreateGEP(scalarType(VaryingScalar, /*InMemory=*/true), Ptrs, Lanes->laneIndex64());
  }

  /// The object of type `Pointee` at each lane's address in `Ptrs`, read on
  /// the lanes of `Mask`, as the varying value in memory form: a uniform
  /// object is read whole by each lane; of a varying object each lane reads
  /// its own lane (ISPC's varying pointer to varying data). Structs and arrays
  /// go member by member. Null if a member declared uniform would have to
  /// hold a different value in each lane.
  llvm::Value *gatherObject(llvm::Value *Ptrs, const Type *Pointee, llvm::Value *Mask) {
    const Type *Result = IRM.Types.withVariability(Pointee, Variability::Varying);
    if (Pointee->isStruct()) {
      llvm::Type *ST = llvmType(Pointee, true);
      llvm::Value *R = llvm::PoisonValue::get(llvmType(Result, true));
      const auto &Fields = Pointee->getStructDecl()->Fields;
      for (unsigned I = 0; I < Fields.size(); ++I) {
        const Type *FT = IRM.Types.memberType(Fields[I].Ty, Pointee->getVariability());
        if (!IRM.Types.memberType(Fields[I].Ty, Variability::Varying)->isVarying())
          return nullptr;
        llvm::Value *F =
            gatherObject(B.CreateGEP(ST, Ptrs, {B.getInt32(0), B.getInt32(I)}), FT, Mask);
        if (!F)
          return nullptr;
        R = B.CreateInsertValue(R, F, I);
      }
      return R;
    }
    if (Pointee->isArray()) {
      llvm::Type *AT = llvmType(Pointee, true);
      llvm::Value *R = llvm::PoisonValue::get(llvmType(Result, true));
      for (unsigned I = 0; I < Pointee->getArraySize(); ++I) {
        llvm::Value *E = gatherObject(B.CreateGEP(AT, Ptrs, {B.getInt32(0), B.getInt32(I)}),
                                      Pointee->getElementType(), Mask);
        if (!E)
          return nullptr;
        R = B.CreateInsertValue(R, E, I);
      }
      return R;
    }
    if (Pointee->isVarying())
      Ptrs = ownLaneAddr(Ptrs, Pointee);
    llvm::Type *Scalar = scalarType(Pointee, /*InMemory=*/true);
    return Lanes->gather(llvmType(Result, true), Ptrs, alignOf(Scalar), Mask);
  }

  /// Writes the varying `Data` (memory form) to the objects of type `Pointee`
  /// at each lane's address, on the lanes of `Mask`: the mirror of
  /// gatherObject. False if a member declared uniform would get one value per
  /// lane.
  bool scatterObject(llvm::Value *Data, llvm::Value *Ptrs, const Type *Pointee, llvm::Value *Mask) {
    if (Pointee->isStruct()) {
      llvm::Type *ST = llvmType(Pointee, true);
      const auto &Fields = Pointee->getStructDecl()->Fields;
      for (unsigned I = 0; I < Fields.size(); ++I) {
        const Type *FT = IRM.Types.memberType(Fields[I].Ty, Pointee->getVariability());
        if (!IRM.Types.memberType(Fields[I].Ty, Variability::Varying)->isVarying())
          return false;
        if (!scatterObject(B.CreateExtractValue(Data, I),
                           B.CreateGEP(ST, Ptrs, {B.getInt32(0), B.getInt32(I)}), FT, Mask))
          return false;
      }
      return true;
    }
    if (Pointee->isArray()) {
      llvm::Type *AT = llvmType(Pointee, true);
      for (unsigned I = 0; I < Pointee->getArraySize(); ++I)
        if (!scatterObject(B.CreateExtractValue(Data, I),
                           B.CreateGEP(AT, Ptrs, {B.getInt32(0), B.getInt32(I)}),
                           Pointee->getElementType(), Mask))
          return false;
      return true;
    }
    if (Pointee->isVarying())
      Ptrs = ownLaneAddr(Ptrs, Pointee);
    Lanes->scatter(Data, Ptrs, alignOf(scalarType(Pointee, /*InMemory=*/true)), Mask);
    return true;
  }

  /// Stores the active lanes of a varying value of type `T` (in memory form)
  /// at `Ptr`, member by member for structs and arrays; uniform members are
  /// stored whole. Local slots blend (so mem2reg can promote them), other
  /// memory gets masked stores.
  void storeActiveLanes(llvm::Value *Ptr, llvm::Value *Data, const Type *T, llvm::Value *Mask,
                        bool IsSlot) {
    llvm::Type *MT = Data->getType();
    if (T->isStruct()) {
      const auto &Fields = T->getStructDecl()->Fields;
      for (unsigned I = 0; I < Fields.size(); ++I) {
        const Type *FT = IRM.Types.memberType(Fields[I].Ty, T->getVariability());
        storeActiveLanes(B.CreateStructGEP(MT, Ptr, I), B.CreateExtractValue(Data, I), FT, Mask,
                         IsSlot);
      }
      return;
    }
    if (T->isArray()) {
      for (unsigned I = 0; I < T->getArraySize(); ++I)
        storeActiveLanes(B.CreateConstGEP2_32(MT, Ptr, 0, I), B.CreateExtractValue(Data, I),
                         T->getElementType(), Mask, IsSlot);
      return;
    }
    if (!T->isVarying()) {
      B.CreateAlignedStore(Data, Ptr, alignOf(MT));
      return;
    }
    if (IsSlot) {
      llvm::Value *Old = B.CreateAlignedLoad(MT, Ptr, alignOf(MT));
      B.CreateAlignedStore(B.CreateSelect(Mask, Data, Old), Ptr, alignOf(MT));
    } else {
      Lanes->maskedStore(Data, Ptr, alignOf(MT), Mask);
    }
  }

  /// A uniform value as the varying type `To`: scalars are splatted, structs
  /// and arrays member by member (members declared uniform stay as they are).
  llvm::Value *broadcast(llvm::Value *V, const Type *From, const Type *To) {
    if (To->isStruct()) {
      llvm::Value *R = llvm::PoisonValue::get(llvmType(To));
      const auto &Fields = To->getStructDecl()->Fields;
      for (unsigned I = 0; I < Fields.size(); ++I) {
        const Type *FF = IRM.Types.memberType(Fields[I].Ty, From->getVariability());
        const Type *FT = IRM.Types.memberType(Fields[I].Ty, To->getVariability());
        R = B.CreateInsertValue(R, broadcast(B.CreateExtractValue(V, I), FF, FT), I);
      }
      return R;
    }
    if (To->isArray()) {
      llvm::Value *R = llvm::PoisonValue::get(llvmType(To));
      for (unsigned I = 0; I < To->getArraySize(); ++I)
        R = B.CreateInsertValue(
            R, broadcast(B.CreateExtractValue(V, I), From->getElementType(), To->getElementType()),
            I);
      return R;
    }
    if (From->isVarying() || !To->isVarying())
      return V;
    // Struct members live in memory form (bools as bytes), scalars in registers.
    return splat(V);
  }

  /// Runs `Body` when some lane of `Mask` is on (a uniform branch on both
  /// targets); directly when the mask is the constant all-on one.
  void whenAnyLane(llvm::Value *Mask, const std::function<void()> &Body) {
    if (auto *C = llvm::dyn_cast<llvm::Constant>(Mask); C && C->isAllOnesValue())
      return Body();
    auto *Then = llvm::BasicBlock::Create(Ctx, "any.lane", Fn);
    auto *Join = llvm::BasicBlock::Create(Ctx, "any.lane.join", Fn);
    B.CreateCondBr(Lanes->any(Mask), Then, Join);
    B.SetInsertPoint(Then);
    Body();
    B.CreateBr(Join);
    B.SetInsertPoint(Join);
  }

  void store(ir::Op &O) {
    ir::Value *Addr = O.Operands[0], *V = O.Operands[1];
    const Type *T = V->Ty;
    // A uniform value into one place under a mask: ISPC stores it when any
    // lane is active (a uniform variable assigned under varying control flow).
    if (!Addr->Ty->isVarying() && !T->isVarying() && O.Mask)
      return whenAnyLane(mask(O), [&] { storeValue(O); });
    storeValue(O);
  }

  void storeValue(ir::Op &O) {
    ir::Value *Addr = O.Operands[0], *V = O.Operands[1];
    const Type *T = V->Ty;
    llvm::Value *Ptr = val(Addr), *Data = toMemory(val(V), T);
    if (!Addr->Ty->isVarying()) {
      llvm::Type *MT = Data->getType();
      if (isWarpSlotAddress(Addr)) {
        warpSync();
        B.CreateAlignedStore(Data, Ptr, alignOf(MT));
        warpSync();
        return;
      }
      if (!T->isVarying() || !O.Mask) {
        B.CreateAlignedStore(Data, Ptr, alignOf(MT));
        return;
      }
      // A varying value into one place: only the active lanes change.
      storeActiveLanes(Ptr, Data, T, mask(O), Addr->Def && Addr->Def->Code == OpCode::Var);
      return;
    }
    if (llvm::Value *First = contiguousAddress(Addr)) {
      llvm::Align A = alignOf(Data->getType()->getScalarType());
      if (O.Mask)
        Lanes->maskedStore(Data, First, A, mask(O));
      else
        B.CreateAlignedStore(Data, First, A);
      return;
    }
    // Scatter: each active lane writes its own address.
    const Type *Elt = Addr->Ty->getPointee();
    bool IntoWarpSlot = isWarpSlotAddress(Addr);
    if (IntoWarpSlot)
      warpSync();
    if (!scatterObject(Data, Ptr, Elt, mask(O)))
      uniformMemberThroughVaryingPointer(O, "store", Elt);
    if (IntoWarpSlot)
      warpSync();
  }

  /// For `&base[i]` with a uniform base and i = b + programIndex (the
  /// variability analysis's affine stride 1), the scalar address of lane 0's
  /// element, &base[b]: the lanes' elements are consecutive, so a vector
  /// load/store replaces the gather/scatter. Null otherwise and on NVPTX.
  /// (Like ISPC, this assumes the int32 index b + lane does not overflow.)
  llvm::Value *contiguousAddress(ir::Value *Addr) {
    if (Target.isGPU() || !Addr->Def || Addr->Def->Code != OpCode::ElementAddr)
      return nullptr;
    ir::Value *Base = Addr->Def->Operands[0], *Index = Addr->Def->Operands[1];
    const Type *Elt = Base->Ty->getPointee();
    if (Base->Ty->isVarying() || !Elt->isScalar() || Elt->isVarying() || Elt->isBool() ||
        !Index->AffineBase || Index->AffineStride != 1)
      return nullptr;
    llvm::Value *First = val(Index->AffineBase);
    First = B.CreateIntCast(First, B.getInt64Ty(), !Index->AffineBase->Ty->isUnsignedInteger());
    return B.CreateGEP(llvmType(Elt, true), val(Base), First);
  }

  void elementAddr(ir::Op &O) {
    ir::Value *Base = O.Operands[0], *Index = O.Operands[1];
    llvm::Value *Idx = val(Index);
    bool IdxSigned = !Index->Ty->isUnsignedInteger();
    llvm::Type *I64 = Idx->getType()->isVectorTy()
                          ? static_cast<llvm::Type *>(llvm::FixedVectorType::get(B.getInt64Ty(), W))
                          : B.getInt64Ty();
    Idx = B.CreateIntCast(Idx, I64, IdxSigned);
    llvm::Value *Ptr = val(Base);
    // A uniform base with a varying index gives one pointer per lane.
    if (Idx->getType()->isVectorTy() && !Ptr->getType()->isVectorTy())
      Ptr = splat(Ptr);
    llvm::Type *EltTy = llvmType(Base->Ty->getPointee(), true);
    set(O, B.CreateGEP(EltTy, Ptr, Idx));
  }

  void call(ir::Op &O) {
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
    set(O, B.CreateCall(FC, Args));
  }

  /// A call through a varying function pointer (ISPC's semantics): while some
  /// lane of the call's mask is left, take the pointer of the first such lane
  /// and call it once, uniformly, with the lanes holding that same pointer as
  /// its mask; each lane's result comes from its own callee. On NVPTX the
  /// whole warp takes part in every call, so the callee may vote and shuffle.
  void callVaryingPointer(ir::Op &O, llvm::FunctionType *FT) {
    llvm::Value *Ptrs = val(O.Operands[0]);
    std::vector<llvm::Value *> Args = {nullptr};
    for (size_t I = 1; I < O.Operands.size(); ++I)
      Args.push_back(val(O.Operands[I]));
    const Type *ResultTy = O.result() ? O.result()->Ty : nullptr;
    llvm::Value *ResultSlot = nullptr;
    if (ResultTy) {
      llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
      ResultSlot = Entry.CreateAlloca(FT->getReturnType(), nullptr, "fnptr.result");
      B.CreateStore(llvm::PoisonValue::get(FT->getReturnType()), ResultSlot);
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
    llvm::Value *R = B.CreateCall(llvm::FunctionCallee(FT, Callee), Args);
    if (ResultTy)
      storeActiveLanes(ResultSlot, R, ResultTy, Same, /*IsSlot=*/true);
    Left->addIncoming(B.CreateAnd(Left, B.CreateNot(Same)), B.GetInsertBlock());
    B.CreateBr(Head);
    B.SetInsertPoint(Done);
    if (ResultTy)
      set(O, B.CreateLoad(FT->getReturnType(), ResultSlot));
  }

  /// A standard library prototype: a target hook (backend/StdlibHooks.cpp).
  void stdlibCall(ir::Op &O) {
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
    llvm::Value *R = nullptr;
    if (!emitStdlibHook(Call, B, *Lanes, Target.isGPU(), R)) {
      unsupported(O, "the standard library function '" + Call.Name + "' with these arguments");
      return;
    }
    set(O, R);
  }

  void ifOp(ir::Op &O) {
    llvm::Value *C = val(O.Operands[0]);
    if (O.Simt && O.Operands[0]->isVarying() && !llvm::isa<llvm::Constant>(C))
      C = opaqueSimtCondition(B, C);
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
  }

  void loop(ir::Op &O) {
    auto *Cond = llvm::BasicBlock::Create(Ctx, "loop.cond", Fn);
    auto *Body = llvm::BasicBlock::Create(Ctx, "loop.body", Fn);
    auto *Step = llvm::BasicBlock::Create(Ctx, "loop.step", Fn);
    auto *Exit = llvm::BasicBlock::Create(Ctx, "loop.exit", Fn);
    B.CreateBr(O.DoWhile ? Body : Cond);
    B.SetInsertPoint(Cond);
    region(*O.Regions[0]);
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
  }

  ir::Module &IRM;
  const TargetInfo &Target;
  llvm::LLVMContext &Ctx;
  DiagnosticEngine &Diags;
  unsigned W;
  std::unique_ptr<llvm::Module> Mod;
  llvm::IRBuilder<> B;
  std::unique_ptr<LaneOps> Lanes;
  llvm::Function *Fn = nullptr;
  ir::Function *CurIR = nullptr;
  llvm::BasicBlock *AllocaIP = nullptr;
  WarpFrameLayout WarpFrames;
  std::map<std::string, llvm::Value *> CStrings; ///< print/assert texts on NVPTX
  llvm::GlobalVariable *WarpFramesGV = nullptr;
  llvm::Value *WarpRegion = nullptr;  ///< this warp's frames in the current function (NVPTX)
  llvm::Value *LaunchGroup = nullptr; ///< the current function's launch group slot
  std::map<ir::Function *, llvm::Function *> TaskEntries;
  llvm::DenseMap<ir::Value *, llvm::Value *> Values;
  std::vector<LoopBlocks> Loops;
  std::map<int64_t, llvm::BasicBlock *> LabelBlocks; ///< the current function's labels
  std::map<ir::Function *, llvm::Function *> Functions;
  std::map<ir::Global *, llvm::GlobalVariable *> Globals;
  std::map<std::pair<StructDecl *, Variability>, llvm::StructType *> Structs;
  /// Structs without members: their one filler byte is no member.
  std::set<llvm::StructType *> EmptyStructs;
};

} // namespace

std::unique_ptr<llvm::Module> emitLLVM(ir::Module &M, const TargetInfo &Target,
                                       llvm::TargetMachine &TM, llvm::LLVMContext &Ctx,
                                       DiagnosticEngine &Diags) {
  return Emitter(M, Target, TM, Ctx, Diags).run();
}

} // namespace spmdc
