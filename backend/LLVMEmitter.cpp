// SPMD IR (after the divergence transform) -> LLVM IR for one target: the module level.
//
// Uniform values are LLVM scalars, varying values vectors of the gang width,
// masks <W x i1>. Memory holds bools as bytes. Masked memory operations map to
// LLVM's masked intrinsics, except stores into local slots, which blend so
// that mem2reg can still promote the slot. This file emits the module: types,
// globals, function signatures, exported wrappers and NVPTX kernels; the
// function bodies are lowered op by op in OpLowering.cpp and the *Lowering.cpp
// files beside it (LLVMEmitterInternal.h).
#include "backend/LLVMEmitter.h"

#include "backend/LLVMEmitterInternal.h"

#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

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

namespace emitter {

ModuleState::ModuleState(ir::Module &M, const TargetInfo &Target, llvm::TargetMachine &TM,
                         llvm::LLVMContext &Ctx, DiagnosticEngine &Diags)
    : IRM(M), Target(Target), Ctx(Ctx), Diags(Diags), W(Target.GangWidth),
      Optimizing(TM.getOptLevel() != llvm::CodeGenOptLevel::None),
      Mod(std::make_unique<llvm::Module>("spmdc", Ctx)), B(Ctx),
      Lanes(Target.isGPU() ? createNVPTXLaneOps(B) : createX86LaneOps(B, W, Target.ISA)) {
  Mod->setTargetTriple(TM.getTargetTriple());
  Mod->setDataLayout(TM.createDataLayout());
}

llvm::Type *ModuleState::scalarType(const Type *T, bool InMemory) {
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
llvm::Type *ModuleState::llvmType(const Type *T, bool InMemory) {
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

llvm::StructType *ModuleState::structType(const Type *T) {
  auto Key = std::make_pair(T->getStructDecl(), T->getVariability());
  auto It = Structs.find(Key);
  if (It != Structs.end())
    return It->second;
  auto *ST = llvm::StructType::create(Ctx, std::string(T->isVarying() ? "v_" : "") + "struct." +
                                               T->getStructDecl()->Name);
  Structs[Key] = ST;
  std::vector<llvm::Type *> Fields;
  for (const FieldDecl &FD : T->getStructDecl()->Fields)
    Fields.push_back(llvmType(IRM.Types.memberType(FD.Ty, T->getVariability()), /*InMemory=*/true));
  // An empty struct still takes a byte (sizeof 1, as in ISPC); no member
  // index refers to the filler.
  if (Fields.empty()) {
    Fields.push_back(B.getInt8Ty());
    EmptyStructs.insert(ST);
  }
  ST->setBody(Fields);
  return ST;
}

/// On NVPTX a varying value lives in one thread per lane, so a varying
/// global is an array with one element per lane of the warp.
bool ModuleState::isPerLaneGlobal(const ir::Global &G) const {
  return Target.isGPU() && !G.IsShared && G.Ty->isVarying();
}

llvm::FunctionCallee ModuleState::runtimeFn(const char *Name, llvm::Type *Ret,
                                            std::vector<llvm::Type *> Params) {
  return Mod->getOrInsertFunction(Name, llvm::FunctionType::get(Ret, Params, false));
}

/// The thread's current task indices (taskIndex0..2, taskCount0..2), one
/// thread-local array shared by every spmdc module of a program.
llvm::GlobalVariable *ModuleState::taskContext() {
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

namespace {

/// Module-level emission: globals, function signatures, exported wrappers, NVPTX kernels.
class ModuleEmitter : public ModuleState {
public:
  using ModuleState::ModuleState;

  std::unique_ptr<llvm::Module> run();

private:
  std::set<ir::Function *> reachableFunctions();
  llvm::Constant *globalInitializer(ir::Global &G, bool WithFunctions);
  void declareGlobal(ir::Global &G);
  bool declareWarpFrames(const std::set<ir::Function *> &Used);
  llvm::Constant *constantInit(ir::Global &G, llvm::Type *T);
  llvm::Function *declareFunction(ir::Function &F);
  void markParamsNoAlias(ir::Function &F, llvm::Function &LF);
  void defineExportWrapper(ir::Function &F);
  void defineKernel(ir::Function &F);
  void describeEntry(llvm::Function &Entry, ir::Function &F);
};

} // namespace

std::unique_ptr<llvm::Module> ModuleEmitter::run() {
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
  OpLowering Lowering(*this);
  for (auto &F : IRM.Functions)
    if (F->Body && Used.count(F.get()))
      Lowering.defineFunction(*F);
  for (auto &F : IRM.Functions) {
    if (!F->Body)
      continue;
    if (Target.isGPU() && (F->flags().Export || F->flags().Task))
      defineKernel(*F);
    else if (F->flags().Export)
      defineExportWrapper(*F);
  }
  if (Debug)
    Debug->finalize();
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

/// The user's functions and every function they call or take the address
/// of, transitively.
std::set<ir::Function *> ModuleEmitter::reachableFunctions() {
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

/// The initial value of a non-extern global; function addresses in it read
/// as null until `WithFunctions` (once the functions are declared).
llvm::Constant *ModuleEmitter::globalInitializer(ir::Global &G, bool WithFunctions) {
  llvm::Type *T = llvmType(G.Ty, true);
  llvm::Constant *Init = G.InitInt.empty() || (!G.InitFuncs.empty() && !WithFunctions)
                             ? llvm::Constant::getNullValue(T)
                             : constantInit(G, T);
  if (isPerLaneGlobal(G) && G.PerLaneInit)
    Init = constantInit(G, llvm::ArrayType::get(T, W)); // lane by lane
  else if (isPerLaneGlobal(G))
    Init = llvm::ConstantArray::get(llvm::ArrayType::get(T, W),
                                    std::vector<llvm::Constant *>(W, Init));
  return Init;
}

void ModuleEmitter::declareGlobal(ir::Global &G) {
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
bool ModuleEmitter::declareWarpFrames(const std::set<ir::Function *> &Used) {
  const llvm::DataLayout &DL = Mod->getDataLayout();
  uint64_t SharedBytes = 0;
  for (auto &[G, GV] : Globals)
    if (G->IsShared)
      SharedBytes += DL.getTypeAllocSize(GV->getValueType());
  constexpr uint64_t StaticSharedLimit = 48 * 1024; // per block, without opt-in
  auto SizeAlign = [&](const Type *T) {
    llvm::Type *LT = llvmType(T, true);
    return std::make_pair(DL.getTypeAllocSize(LT).getFixedValue(), DL.getABITypeAlign(LT).value());
  };
  if (!layoutWarpFrames(IRM, Used, SizeAlign,
                        SharedBytes < StaticSharedLimit ? StaticSharedLimit - SharedBytes : 0,
                        Diags, WarpFrames))
    return false;
  if (!WarpFrames.BytesPerWarp)
    return true;
  auto *T = llvm::ArrayType::get(B.getInt8Ty(), WarpFrames.BytesPerWarp * MaxWarpsPerBlock);
  WarpFramesGV = new llvm::GlobalVariable(*Mod, T, false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(T), "__spmdc_warp_frames", nullptr,
                                          llvm::GlobalValue::NotThreadLocal, 3u);
  WarpFramesGV->setAlignment(llvm::Align(16));
  return true;
}

llvm::Constant *ModuleEmitter::constantInit(ir::Global &G, llvm::Type *T) {
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
    if (auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(Ty)) {
      if (!G.PerLaneInit)
        return llvm::ConstantVector::getSplat(VT->getElementCount(), Build(VT->getElementType()));
      std::vector<llvm::Constant *> Lanes;
      for (unsigned I = 0; I < VT->getNumElements(); ++I)
        Lanes.push_back(Build(VT->getElementType()));
      return llvm::ConstantVector::get(Lanes);
    }
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

llvm::Function *ModuleEmitter::declareFunction(ir::Function &F) {
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
  // NVPTX: a function may vote or shuffle over the warp (or call one that does), so
  // LLVM must not make its calls depend on a per-thread branch (e.g. duplicate a call
  // into the two arms of a masked load's branch: the threads of one arm would vote
  // without the others). function-attrs drops the attribute where no such call is left.
  if (Target.isGPU())
    LF->addFnAttr(llvm::Attribute::Convergent);
  // The ISPC guide: "inline is not a hint, but forces inlining"; noinline never inlines.
  if (F.IsInline && F.Body)
    LF->addFnAttr(llvm::Attribute::AlwaysInline);
  else if (F.IsNoInline)
    LF->addFnAttr(llvm::Attribute::NoInline);
  markParamsNoAlias(F, *LF);
  Functions[&F] = LF;
  return LF;
}

/// The ISPC guide ("Data Alignment and Aliasing"): pointers and references passed
/// to a function must not alias, and ISPC marks every pointer parameter `noalias`.
/// So does spmdc on x86, for the user's functions with a body: LLVM may then keep a
/// value read through one parameter in a register across stores through another
/// (aobench's `*rng` across its sphere loads), also after inlining (scoped
/// metadata). Not the standard library's (memmove's operands may overlap), not
/// extern "C" declarations, and not yet on NVPTX.
void ModuleEmitter::markParamsNoAlias(ir::Function &F, llvm::Function &LF) {
  if (Target.isGPU() || !F.Body || F.IsStdlib || F.flags().ExternC)
    return;
  for (size_t I = 0; I < F.Params.size(); ++I) {
    const Type *T = F.Params[I]->Ty;
    if ((T->isReference() || (T->isPointer() && T->isUniform())) &&
        LF.getArg(I)->getType()->isPointerTy())
      LF.addParamAttr(I, llvm::Attribute::NoAlias);
  }
}

/// With -g, an entry (the C wrapper, the kernel) is described as the function it enters:
/// the body inlined into it keeps its lines. Without, the builder carries no location.
void ModuleEmitter::describeEntry(llvm::Function &Entry, ir::Function &F) {
  if (!Debug) {
    B.SetCurrentDebugLocation(llvm::DebugLoc());
    return;
  }
  llvm::DISubprogram *SP = Debug->describeFunction(Entry, F.Name, F.Loc);
  B.SetCurrentDebugLocation(Debug->location(SP, F.Loc));
}

void ModuleEmitter::defineExportWrapper(ir::Function &F) {
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
  describeEntry(*C, F);
  std::vector<llvm::Value *> Args = {llvm::ConstantInt::getTrue(maskType())};
  for (size_t I = 1; I < F.Params.size(); ++I) {
    llvm::Value *A = C->getArg(I - 1);
    if (Masked->hasParamAttribute(I, llvm::Attribute::NoAlias)) // as the masked entry's
      C->addParamAttr(I - 1, llvm::Attribute::NoAlias);
    if (F.Params[I]->Ty->isBool())
      A = B.CreateICmpNE(A, B.getInt8(0));
    Args.push_back(A);
  }
  llvm::CallInst *R = B.CreateCall(Masked, Args);
  // The body is inlined into the entry (as ISPC compiles an export twice), so that it is
  // optimized for the all-on mask: a uniform loop whose stores the function's mask
  // guards is otherwise left with a mask test in its body, and on SSE4 (no masked
  // stores) the loop vectorizer then declines it (uniform stdlib math calls in a loop
  // ran scalar). The masked copy stays for callers that pass a mask; -O0 keeps the call.
  if (Optimizing)
    R->addFnAttr(llvm::Attribute::AlwaysInline);
  if (Ret->isVoid())
    B.CreateRetVoid();
  else
    B.CreateRet(Ret->isBool() ? B.CreateZExt(R, B.getInt8Ty()) : R);
}

/// An export or task function on NVPTX: a `.entry` kernel with the
/// function's uniform parameters that runs the body with every lane on.
void ModuleEmitter::defineKernel(ir::Function &F) {
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
  describeEntry(*K, F);
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

} // namespace emitter

std::unique_ptr<llvm::Module> emitLLVM(ir::Module &M, const TargetInfo &Target,
                                       llvm::TargetMachine &TM, llvm::LLVMContext &Ctx,
                                       DiagnosticEngine &Diags, const DebugInfoOptions &Debug,
                                       const std::string &MainFile) {
  emitter::ModuleEmitter Emitter(M, Target, TM, Ctx, Diags);
  if (Debug.Enabled)
    Emitter.Debug = std::make_unique<emitter::DebugInfoEmitter>(*Emitter.Mod, Debug,
                                                                 Target.isGPU(), MainFile);
  return Emitter.run();
}

} // namespace spmdc
