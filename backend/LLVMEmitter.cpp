// SPMD IR (after the divergence transform) -> LLVM IR for one target.
//
// Uniform values are LLVM scalars, varying values vectors of the gang width,
// masks <W x i1>. Memory holds bools as bytes. Masked memory operations map to
// LLVM's masked intrinsics, except stores into local slots, which blend so
// that mem2reg can still promote the slot.
#include "backend/LLVMEmitter.h"

#include "backend/TargetInfo.h"
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "ir/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
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

namespace spmdc {

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetInfo &Target,
                                                         unsigned OptLevel,
                                                         DiagnosticEngine &Diags) {
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
    else if (Target.ISA == "avx2")
      CPU = "haswell";
    else
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
  auto Level = OptLevel == 0   ? llvm::CodeGenOptLevel::None
               : OptLevel == 1 ? llvm::CodeGenOptLevel::Less
               : OptLevel == 2 ? llvm::CodeGenOptLevel::Default
                               : llvm::CodeGenOptLevel::Aggressive;
  return std::unique_ptr<llvm::TargetMachine>(T->createTargetMachine(
      TT, CPU, Features, Options, llvm::Reloc::PIC_, std::nullopt, Level));
}

namespace {

using ir::OpCode;

class Emitter {
public:
  Emitter(ir::Module &M, const TargetInfo &Target, llvm::TargetMachine &TM,
          llvm::LLVMContext &Ctx, DiagnosticEngine &Diags)
      : IRM(M), Target(Target), Ctx(Ctx), Diags(Diags), W(Target.GangWidth),
        Mod(std::make_unique<llvm::Module>("spmdc", Ctx)), B(Ctx) {
    Mod->setTargetTriple(TM.getTargetTriple());
    Mod->setDataLayout(TM.createDataLayout());
  }

  std::unique_ptr<llvm::Module> run() {
    for (auto &G : IRM.Globals)
      declareGlobal(*G);
    // Standard library functions with a body (written in .spmd) are compiled
    // like the user's; those without are target hooks (stdlibCall).
    for (auto &F : IRM.Functions)
      if (!F->IsStdlib || F->Body)
        declareFunction(*F);
    for (auto &F : IRM.Functions)
      if (F->Body)
        defineFunction(*F);
    for (auto &F : IRM.Functions)
      if (F->Body && F->flags().Export)
        defineExportWrapper(*F);
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
      return llvm::FixedVectorType::get(S, W);
    return S;
  }

  llvm::StructType *structType(const Type *T) {
    auto Key = std::make_pair(T->getStructDecl(), T->getVariability());
    auto It = Structs.find(Key);
    if (It != Structs.end())
      return It->second;
    auto *ST = llvm::StructType::create(
        Ctx, std::string(T->isVarying() ? "v_" : "") + "struct." + T->getStructDecl()->Name);
    Structs[Key] = ST;
    std::vector<llvm::Type *> Fields;
    for (const FieldDecl &FD : T->getStructDecl()->Fields)
      Fields.push_back(
          llvmType(IRM.Types.memberType(FD.Ty, T->getVariability()), /*InMemory=*/true));
    ST->setBody(Fields);
    return ST;
  }

  llvm::Type *maskType() { return llvm::FixedVectorType::get(B.getInt1Ty(), W); }

  //===--------------------------------------------------------------------===//
  // Declarations
  //===--------------------------------------------------------------------===//

  void declareGlobal(ir::Global &G) {
    llvm::Type *T = llvmType(G.Ty, true);
    llvm::Constant *Init = nullptr;
    if (!G.IsExtern)
      Init = G.InitInt.empty() ? llvm::Constant::getNullValue(T) : constantInit(G, T);
    auto Linkage = G.IsExtern   ? llvm::GlobalValue::ExternalLinkage
                   : G.IsStatic ? llvm::GlobalValue::InternalLinkage
                                : llvm::GlobalValue::ExternalLinkage;
    Globals[&G] = new llvm::GlobalVariable(*Mod, T, G.Ty->isConst(), Linkage, Init, G.Name);
  }

  llvm::Constant *constantInit(ir::Global &G, llvm::Type *T) {
    size_t Next = 0;
    std::function<llvm::Constant *(llvm::Type *)> Build = [&](llvm::Type *Ty) -> llvm::Constant * {
      if (auto *AT = llvm::dyn_cast<llvm::ArrayType>(Ty)) {
        std::vector<llvm::Constant *> Elts;
        for (uint64_t I = 0; I < AT->getNumElements(); ++I)
          Elts.push_back(Build(AT->getElementType()));
        return llvm::ConstantArray::get(AT, Elts);
      }
      if (auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(Ty))
        return llvm::ConstantVector::getSplat(VT->getElementCount(),
                                              Build(VT->getElementType()));
      size_t I = Next < G.InitInt.size() ? Next++ : G.InitInt.size();
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
    auto *Entry = llvm::BasicBlock::Create(Ctx, "entry", Fn);
    AllocaIP = Entry;
    B.SetInsertPoint(Entry);
    for (size_t I = 0; I < F.Params.size(); ++I) {
      Values[F.Params[I].get()] = Fn->getArg(I);
      Fn->getArg(I)->setName(F.Params[I]->NameHint);
    }
    if (F.flags().Task) {
      static const char *Names[TaskIndexParams] = {"taskIndex0", "taskIndex1", "taskIndex2",
                                                   "taskCount0", "taskCount1", "taskCount2"};
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
      emitReturn(Fn->getReturnType()->isVoidTy()
                     ? nullptr
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
    Diags.errorNoLoc(std::string("internal error: SPMD IR value used before its definition: ") + (V->Def ? ir::opName(V->Def->Code) : "parameter " + V->NameHint));
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
    Diags.error(O.Loc, What + " is not supported by the " + Target.Name +
                           " code generator yet");
    if (O.result())
      set(O, llvm::PoisonValue::get(llvmType(O.result()->Ty)));
    return false;
  }

  llvm::Value *splat(llvm::Value *V) { return B.CreateVectorSplat(W, V); }

  llvm::Constant *laneIndices64() {
    std::vector<llvm::Constant *> Lanes;
    for (unsigned I = 0; I < W; ++I)
      Lanes.push_back(B.getInt64(I));
    return llvm::ConstantVector::get(Lanes);
  }

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
      set(O, splat(val(O.Operands[0])));
      return;
    case OpCode::Select:
      set(O, B.CreateSelect(val(O.Operands[0]), val(O.Operands[1]), val(O.Operands[2])));
      return;
    case OpCode::SizeOf:
      set(O, B.getInt64(Mod->getDataLayout().getTypeAllocSize(llvmType(O.VarType, true))));
      return;
    case OpCode::Var: {
      llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
      set(O, Entry.CreateAlloca(llvmType(O.VarType, true), nullptr, O.result()->NameHint));
      return;
    }
    case OpCode::GlobalAddr:
      set(O, Globals[O.GlobalRef]);
      return;
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
      set(O, B.CreateOrReduce(val(O.Operands[0])));
      return;
    case OpCode::All:
      set(O, B.CreateAndReduce(val(O.Operands[0])));
      return;
    case OpCode::LaneCount:
    case OpCode::FirstLane: {
      llvm::Value *Bits = B.CreateBitCast(val(O.Operands[0]), B.getIntNTy(W));
      llvm::Value *R =
          O.Code == OpCode::LaneCount
              ? B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, Bits)
              : B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, Bits, B.getTrue());
      set(O, B.CreateZExtOrTrunc(R, B.getInt32Ty()));
      return;
    }
    case OpCode::LaneIsSet:
    case OpCode::Extract:
      set(O, B.CreateExtractElement(val(O.Operands[0]), val(O.Operands[1])));
      return;
    case OpCode::Insert:
      set(O, B.CreateInsertElement(val(O.Operands[0]), val(O.Operands[2]), val(O.Operands[1])));
      return;
    case OpCode::Print:
      return print(O);
    case OpCode::Assert:
      return assertOp(O);
    case OpCode::Launch:
      return launch(O);
    case OpCode::Sync:
      emitSync();
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

  void builtin(ir::Op &O) {
    switch (O.BuiltinId) {
    case BuiltinVar::ProgramIndex: {
      std::vector<llvm::Constant *> Lanes;
      for (unsigned I = 0; I < W; ++I)
        Lanes.push_back(B.getInt32(I));
      set(O, llvm::ConstantVector::get(Lanes));
      return;
    }
    case BuiltinVar::ProgramCount:
      set(O, B.getInt32(W));
      return;
    // On the CPU a block is one gang (SPEC 2.3). Outside a launched task
    // there is one task: index 0 of 1.
    case BuiltinVar::GangIndex:
      set(O, B.getInt32(0));
      return;
    case BuiltinVar::GangCount:
      set(O, B.getInt32(1));
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
      set(O, taskBuiltin(O.BuiltinId));
      return;
    case BuiltinVar::None:
      break;
    }
    unsupported(O, "this built-in");
  }

  static constexpr unsigned TaskIndexParams = 6;

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
    if (!CurIR->flags().Task) {
      bool IsCount = Which == BuiltinVar::TaskCount || Which == BuiltinVar::TaskCount0 ||
                     Which == BuiltinVar::TaskCount1 || Which == BuiltinVar::TaskCount2 ||
                     Which == BuiltinVar::BlockCount;
      return B.getInt32(IsCount ? 1 : 0);
    }
    unsigned First = CurIR->Params.size();
    auto Arg = [&](unsigned I) { return Fn->getArg(First + I); };
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
    case BuiltinVar::TaskCount:
    case BuiltinVar::BlockCount:
      return B.CreateMul(B.CreateMul(Arg(3), Arg(4)), Arg(5));
    default: // taskIndex, blockIndex: i0 + c0 * (i1 + c1 * i2)
      return B.CreateAdd(Arg(0), B.CreateMul(Arg(3), B.CreateAdd(Arg(1), B.CreateMul(Arg(4), Arg(2)))));
    }
  }

  llvm::FunctionCallee runtimeFn(const char *Name, llvm::Type *Ret, std::vector<llvm::Type *> Params) {
    return Mod->getOrInsertFunction(Name, llvm::FunctionType::get(Ret, Params, false));
  }

  /// A function that launched tasks waits for them before it returns (as ISPC).
  void emitSync() {
    if (!LaunchGroup)
      return;
    llvm::Value *G = B.CreateLoad(B.getPtrTy(), LaunchGroup);
    B.CreateCall(runtimeFn("spmdc_task_sync", B.getVoidTy(), {B.getPtrTy()}), {G});
    B.CreateStore(llvm::Constant::getNullValue(B.getPtrTy()), LaunchGroup);
  }

  void emitReturn(llvm::Value *V) {
    emitSync();
    if (V)
      B.CreateRet(V);
    else
      B.CreateRetVoid();
  }

  /// The runtime calls `fn(data, i0, i1, i2, c0, c1, c2)`; this entry unpacks
  /// the argument block and calls the task with every lane on.
  llvm::Function *taskEntry(ir::Function &Task, llvm::StructType *ArgsTy) {
    auto It = TaskEntries.find(&Task);
    if (It != TaskEntries.end())
      return It->second;
    std::vector<llvm::Type *> Params = {B.getPtrTy()};
    Params.insert(Params.end(), TaskIndexParams, B.getInt32Ty());
    auto *E = llvm::Function::Create(llvm::FunctionType::get(B.getVoidTy(), Params, false),
                                     llvm::GlobalValue::InternalLinkage,
                                     Task.Symbol + "___task_entry", *Mod);
    TaskEntries[&Task] = E;
    llvm::IRBuilder<> EB(llvm::BasicBlock::Create(Ctx, "entry", E));
    std::vector<llvm::Value *> Args = {llvm::ConstantInt::getTrue(maskType())};
    for (unsigned I = 1; I < Task.Params.size(); ++I)
      Args.push_back(EB.CreateLoad(ArgsTy->getElementType(I - 1),
                                   EB.CreateStructGEP(ArgsTy, E->getArg(0), I - 1)));
    for (unsigned I = 0; I < TaskIndexParams; ++I)
      Args.push_back(E->getArg(1 + I));
    EB.CreateCall(Functions[&Task], Args);
    EB.CreateRetVoid();
    return E;
  }

  void launch(ir::Op &O) {
    ir::Function &Task = *O.Callee;
    std::vector<llvm::Type *> Fields;
    for (unsigned I = 1; I < Task.Params.size(); ++I)
      Fields.push_back(llvmType(Task.Params[I]->Ty));
    llvm::StructType *ArgsTy = llvm::StructType::get(Ctx, Fields);
    const llvm::DataLayout &DL = Mod->getDataLayout();
    llvm::Value *Data = B.CreateCall(
        runtimeFn("spmdc_task_alloc", B.getPtrTy(), {B.getPtrTy(), B.getInt64Ty(), B.getInt32Ty()}),
        {LaunchGroup, B.getInt64(DL.getTypeAllocSize(ArgsTy)),
         B.getInt32(DL.getABITypeAlign(ArgsTy).value())});
    for (unsigned I = 0; I < O.Operands.size() && I < Fields.size(); ++I)
      B.CreateStore(val(O.Operands[I]), B.CreateStructGEP(ArgsTy, Data, I));
    llvm::Value *Counts[3] = {B.getInt32(1), B.getInt32(1), B.getInt32(1)};
    for (unsigned I = 0; I < O.LaunchCounts.size() && I < 3; ++I)
      Counts[I] = val(O.LaunchCounts[I]);
    B.CreateCall(runtimeFn("spmdc_task_launch", B.getVoidTy(),
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
        llvm::Type *I32 = T->isVarying() ? static_cast<llvm::Type *>(llvm::FixedVectorType::get(
                                               B.getInt32Ty(), W))
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
      B.CreateStore(Slots[I], B.CreateConstGEP2_32(llvm::ArrayType::get(B.getPtrTy(), Slots.size() + 1), Args, 0, I));
    llvm::Value *Bits = B.CreateZExt(B.CreateBitCast(mask(O), B.getIntNTy(W)), B.getInt64Ty());
    B.CreateCall(runtimeFn("spmdc_print", B.getVoidTy(),
                           {B.getPtrTy(), B.getPtrTy(), B.getInt32Ty(), B.getInt64Ty(), B.getPtrTy()}),
                 {B.CreateGlobalString(O.Text), B.CreateGlobalString(Types), B.getInt32(W), Bits, Args});
  }

  /// `assert(c)`: if some active lane fails, report it through the runtime.
  void assertOp(ir::Op &O) {
    llvm::Value *C = val(O.Operands[0]);
    if (!C->getType()->isVectorTy())
      C = splat(C);
    llvm::Value *Failing = B.CreateAnd(mask(O), B.CreateNot(C));
    llvm::Value *Bits = B.CreateZExt(B.CreateBitCast(Failing, B.getIntNTy(W)), B.getInt64Ty());
    auto *Fail = llvm::BasicBlock::Create(Ctx, "assert.fail", Fn);
    auto *Cont = llvm::BasicBlock::Create(Ctx, "assert.ok", Fn);
    B.CreateCondBr(B.CreateICmpNE(Bits, B.getInt64(0)), Fail, Cont);
    B.SetInsertPoint(Fail);
    std::string File = O.Loc.File ? *O.Loc.File : "<unknown>";
    B.CreateCall(runtimeFn("spmdc_assert_fail", B.getVoidTy(),
                           {B.getPtrTy(), B.getInt32Ty(), B.getPtrTy(), B.getInt64Ty()}),
                 {B.CreateGlobalString(File), B.getInt32(O.Loc.Line), B.CreateGlobalString(O.Text),
                  Bits});
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
      Res = Float ? B.CreateFAdd(L, R) : B.CreateAdd(L, R);
      break;
    case BinaryOp::Sub:
      Res = Float ? B.CreateFSub(L, R) : B.CreateSub(L, R);
      break;
    case BinaryOp::Mul:
      Res = Float ? B.CreateFMul(L, R) : B.CreateMul(L, R);
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
    }
  }

  void load(ir::Op &O) {
    ir::Value *Addr = O.Operands[0];
    const Type *T = O.result()->Ty;
    if (!Addr->Ty->isVarying()) {
      llvm::Type *MT = llvmType(T, true);
      set(O, fromMemory(B.CreateAlignedLoad(MT, val(Addr), alignOf(MT)), T));
      return;
    }
    // Gather: one pointer per lane, only the active lanes read.
    const Type *Elt = Addr->Ty->getPointee();
    if (!Elt->isScalar())
      return (void)unsupported(O, "loading a '" + Elt->toString() + "' through a varying pointer");
    llvm::Type *MT = llvmType(T, true);
    llvm::Value *G = B.CreateMaskedGather(MT, val(Addr), alignOf(llvmType(Elt, true)), mask(O));
    set(O, fromMemory(G, T));
  }

  void store(ir::Op &O) {
    ir::Value *Addr = O.Operands[0], *V = O.Operands[1];
    const Type *T = V->Ty;
    llvm::Value *Ptr = val(Addr), *Data = toMemory(val(V), T);
    if (!Addr->Ty->isVarying()) {
      llvm::Type *MT = Data->getType();
      if (!T->isVarying() || !O.Mask || T->isStruct() || T->isArray()) {
        B.CreateAlignedStore(Data, Ptr, alignOf(MT));
        return;
      }
      // A varying value into one place: only the active lanes change.
      if (Addr->Def && Addr->Def->Code == OpCode::Var) {
        llvm::Value *Old = B.CreateAlignedLoad(MT, Ptr, alignOf(MT));
        B.CreateAlignedStore(B.CreateSelect(mask(O), Data, Old), Ptr, alignOf(MT));
      } else {
        B.CreateMaskedStore(Data, Ptr, alignOf(MT), mask(O));
      }
      return;
    }
    // Scatter: each active lane writes its own address.
    const Type *Elt = Addr->Ty->getPointee();
    if (!Elt->isScalar())
      return (void)unsupported(O, "storing a '" + Elt->toString() + "' through a varying pointer");
    if (!Data->getType()->isVectorTy())
      Data = splat(Data);
    B.CreateMaskedScatter(Data, Ptr, alignOf(llvmType(Elt, true)), mask(O));
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
    llvm::Value *Addr = B.CreateGEP(EltTy, Ptr, Idx);
    // Into varying data by lane: lane l's element sits at offset l in the
    // vector its index picked.
    if (Base->Ty->getPointee()->isVarying() && !O.result()->Ty->getPointee()->isVarying())
      Addr = B.CreateGEP(EltTy->getScalarType(), Addr, laneIndices64());
    set(O, Addr);
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
      FC = llvm::FunctionCallee(
          llvm::FunctionType::get(llvmType(FnTy->getReturnType()), Params, false),
          val(O.Operands[0]));
      Args.push_back(mask(O));
      First = 1;
    }
    for (size_t I = First; I < O.Operands.size(); ++I)
      Args.push_back(val(O.Operands[I]));
    set(O, B.CreateCall(FC, Args));
  }

  /// The standard library functions that map onto LLVM intrinsics.
  void stdlibCall(ir::Op &O) {
    const std::string &Name = O.Callee->Name;
    std::vector<llvm::Value *> A;
    for (ir::Value *V : O.Operands)
      A.push_back(val(V));
    llvm::Value *M = mask(O);
    const Type *T0 = O.Operands.empty() ? nullptr : O.Operands[0]->Ty;
    bool Float = T0 && T0->isFloatingPoint();
    bool Signed = T0 && (T0->isSignedInteger() || T0->isEnum());
    auto Unary = [&](llvm::Intrinsic::ID ID) { return B.CreateUnaryIntrinsic(ID, A[0]); };
    auto Binary = [&](llvm::Intrinsic::ID ID) { return B.CreateBinaryIntrinsic(ID, A[0], A[1]); };
    auto ActiveOnly = [&](llvm::Value *V, llvm::Value *Identity) {
      return B.CreateSelect(M, V, Identity);
    };
    llvm::Value *R = nullptr;
    if (Name == "sqrt")
      R = Unary(llvm::Intrinsic::sqrt);
    else if (Name == "rsqrt" || Name == "rcp") {
      llvm::Value *X = Name == "rsqrt" ? Unary(llvm::Intrinsic::sqrt) : A[0];
      R = B.CreateFDiv(llvm::ConstantFP::get(X->getType(), 1.0), X);
    } else if (Name == "floor")
      R = Unary(llvm::Intrinsic::floor);
    else if (Name == "ceil")
      R = Unary(llvm::Intrinsic::ceil);
    else if (Name == "round")
      R = Unary(llvm::Intrinsic::roundeven);
    // sin cos tan asin acos atan atan2 exp log pow have .spmd bodies (stdlib/math.spmd).
    else if (Name == "abs")
      R = Float ? Unary(llvm::Intrinsic::fabs)
                : B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, A[0], B.getFalse());
    else if (Name == "min" || Name == "max") {
      bool Min = Name == "min";
      R = Float    ? Binary(Min ? llvm::Intrinsic::minnum : llvm::Intrinsic::maxnum)
          : Signed ? Binary(Min ? llvm::Intrinsic::smin : llvm::Intrinsic::smax)
                   : Binary(Min ? llvm::Intrinsic::umin : llvm::Intrinsic::umax);
    } else if (Name == "clamp" && A.size() == 3) {
      llvm::Value *Lo = Float ? B.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, A[0], A[1])
                        : Signed ? B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, A[0], A[1])
                                 : B.CreateBinaryIntrinsic(llvm::Intrinsic::umax, A[0], A[1]);
      R = Float    ? B.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, Lo, A[2])
          : Signed ? B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, Lo, A[2])
                   : B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, Lo, A[2]);
    } else if ((Name == "any" || Name == "all" || Name == "none") && A.size() == 1) {
      llvm::Value *V = A[0]->getType()->isVectorTy() ? A[0] : splat(A[0]);
      if (Name == "all")
        R = B.CreateAndReduce(B.CreateOr(V, B.CreateNot(M)));
      else {
        R = B.CreateOrReduce(B.CreateAnd(V, M));
        if (Name == "none")
          R = B.CreateNot(R);
      }
    } else if (Name == "popcnt" && A.size() == 1 && A[0]->getType()->isVectorTy() &&
               T0->isBool()) {
      llvm::Value *Bits = B.CreateBitCast(B.CreateAnd(A[0], M), B.getIntNTy(W));
      R = B.CreateZExtOrTrunc(B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, Bits),
                              B.getInt32Ty());
    } else if (Name == "popcnt" && A.size() == 1) {
      R = B.CreateIntCast(Unary(llvm::Intrinsic::ctpop), llvmType(O.result()->Ty), false);
    } else if (Name == "lanemask" && A.empty()) {
      R = B.CreateZExtOrTrunc(B.CreateBitCast(M, B.getIntNTy(W)), llvmType(O.result()->Ty));
    } else if ((Name == "reduce_add" || Name == "reduce_min" || Name == "reduce_max") &&
               A.size() == 1 && A[0]->getType()->isVectorTy()) {
      llvm::Type *ET = A[0]->getType()->getScalarType();
      if (Name == "reduce_add") {
        llvm::Value *Z = llvm::Constant::getNullValue(A[0]->getType());
        llvm::Value *V = ActiveOnly(A[0], Z);
        R = Float ? B.CreateFAddReduce(llvm::ConstantFP::get(ET, 0.0), V) : B.CreateAddReduce(V);
      } else {
        bool Min = Name == "reduce_min";
        llvm::Value *Id;
        if (Float)
          Id = llvm::ConstantFP::getInfinity(ET, !Min);
        else if (Signed)
          Id = Min ? llvm::ConstantInt::get(ET, llvm::APInt::getSignedMaxValue(
                                                    ET->getIntegerBitWidth()))
                   : llvm::ConstantInt::get(ET, llvm::APInt::getSignedMinValue(
                                                    ET->getIntegerBitWidth()));
        else
          Id = Min ? llvm::ConstantInt::get(ET, llvm::APInt::getMaxValue(ET->getIntegerBitWidth()))
                   : llvm::ConstantInt::get(ET, 0);
        llvm::Value *V = ActiveOnly(A[0], splat(Id));
        if (Float)
          R = Min ? B.CreateFPMinReduce(V) : B.CreateFPMaxReduce(V);
        else
          R = Min ? B.CreateIntMinReduce(V, Signed) : B.CreateIntMaxReduce(V, Signed);
      }
    } else if (Name == "extract" && A.size() == 2) {
      R = B.CreateExtractElement(A[0], A[1]);
    } else if (Name == "insert" && A.size() == 3) {
      R = B.CreateInsertElement(A[0], A[2], A[1]);
    } else if (Name == "broadcast" && A.size() == 2) {
      R = splat(B.CreateExtractElement(A[0], A[1]));
    } else if ((Name == "shuffle" || Name == "rotate" || Name == "shift") && A.size() == 2 &&
               A[0]->getType()->isVectorTy()) {
      llvm::Type *VI32 = llvm::FixedVectorType::get(B.getInt32Ty(), W);
      llvm::Value *Idx;
      llvm::Value *Valid = llvm::ConstantInt::getTrue(maskType());
      if (Name == "shuffle") {
        Idx = A[1]->getType()->isVectorTy() ? A[1] : splat(A[1]);
        Idx = B.CreateAnd(B.CreateIntCast(Idx, VI32, true), splat(B.getInt32(W - 1)));
      } else {
        llvm::Value *N = B.CreateIntCast(A[1], B.getInt32Ty(), true);
        Idx = B.CreateAdd(laneIndices32(), splat(N));
        if (Name == "rotate")
          Idx = B.CreateAnd(Idx, splat(B.getInt32(W - 1)));
        else // shift: lanes shifted in from outside the gang read zero
          Valid = B.CreateICmpULT(Idx, splat(B.getInt32(W)));
      }
      R = permute({A[0]}, Idx, Valid);
    } else if (Name == "shuffle" && A.size() == 3 && A[0]->getType()->isVectorTy()) {
      llvm::Type *VI32 = llvm::FixedVectorType::get(B.getInt32Ty(), W);
      llvm::Value *Idx = A[2]->getType()->isVectorTy() ? A[2] : splat(A[2]);
      Idx = B.CreateAnd(B.CreateIntCast(Idx, VI32, true), splat(B.getInt32(2 * W - 1)));
      R = permute({A[0], A[1]}, Idx, llvm::ConstantInt::getTrue(maskType()));
    } else if (llvm::Value *More = moreStdlib(O, Name, A, M)) {
      R = More;
      if (R == NoResult)
        R = nullptr;
    } else {
      unsupported(O, "the standard library function '" + Name + "' with these arguments");
      return;
    }
    if (O.result() && R && R->getType() != llvmType(O.result()->Ty)) {
      llvm::Type *Want = llvmType(O.result()->Ty);
      if (R->getType()->isIntOrIntVectorTy() && Want->isIntOrIntVectorTy())
        R = B.CreateIntCast(R, Want, Signed);
      else if (!R->getType()->isVectorTy() && Want->isVectorTy())
        R = splat(R);
    }
    set(O, R);
  }


  /// Marks a standard library hook that has no result value.
  llvm::Value *NoResult = reinterpret_cast<llvm::Value *>(1);

  llvm::Constant *laneIndices32() {
    std::vector<llvm::Constant *> Lanes;
    for (unsigned I = 0; I < W; ++I)
      Lanes.push_back(B.getInt32(I));
    return llvm::ConstantVector::get(Lanes);
  }

  /// Lane i of the result is lane Idx[i] of the concatenation of `Sources`
  /// (where `Valid` holds; zero elsewhere): spill and gather back.
  llvm::Value *permute(std::vector<llvm::Value *> Sources, llvm::Value *Idx, llvm::Value *Valid) {
    llvm::Type *VT = Sources[0]->getType();
    bool IsBool = VT->getScalarType()->isIntegerTy(1);
    llvm::Type *MemVT = IsBool ? llvm::FixedVectorType::get(B.getInt8Ty(), W) : VT;
    llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
    llvm::Value *Tmp = Entry.CreateAlloca(llvm::ArrayType::get(MemVT, Sources.size()));
    for (size_t I = 0; I < Sources.size(); ++I) {
      llvm::Value *S = IsBool ? B.CreateZExt(Sources[I], MemVT) : Sources[I];
      B.CreateStore(S, B.CreateConstGEP2_32(llvm::ArrayType::get(MemVT, Sources.size()), Tmp, 0, I));
    }
    llvm::Type *Elt = MemVT->getScalarType();
    llvm::Value *Ptrs = B.CreateGEP(Elt, splat(Tmp), Idx);
    llvm::Value *R = B.CreateMaskedGather(MemVT, Ptrs, alignOf(Elt), Valid,
                                          llvm::Constant::getNullValue(MemVT));
    return IsBool ? B.CreateTrunc(R, VT) : R;
  }

  /// Runs `Body(lane)` for each lane set in `Mask`, in lane order, as W
  /// guarded blocks (for operations with no vector form: atomics, memcpy).
  void forEachSetLane(llvm::Value *Mask, const std::function<void(unsigned)> &Body) {
    for (unsigned L = 0; L < W; ++L) {
      auto *Then = llvm::BasicBlock::Create(Ctx, "lane", Fn);
      auto *Next = llvm::BasicBlock::Create(Ctx, "lane.next", Fn);
      B.CreateCondBr(B.CreateExtractElement(Mask, B.getInt32(L)), Then, Next);
      B.SetInsertPoint(Then);
      Body(L);
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
    }
  }

  llvm::Value *lane(llvm::Value *V, unsigned L) {
    return V->getType()->isVectorTy() ? B.CreateExtractElement(V, B.getInt32(L)) : V;
  }

  std::optional<llvm::AtomicRMWInst::BinOp> atomicOp(const std::string &Name, bool Float, bool Signed) {
    using Op = llvm::AtomicRMWInst;
    if (Name == "atomic_add_global")
      return Float ? Op::FAdd : Op::Add;
    if (Name == "atomic_subtract_global")
      return Float ? Op::FSub : Op::Sub;
    if (Name == "atomic_min_global")
      return Signed ? Op::Min : Op::UMin;
    if (Name == "atomic_max_global")
      return Signed ? Op::Max : Op::UMax;
    if (Name == "atomic_and_global")
      return Op::And;
    if (Name == "atomic_or_global")
      return Op::Or;
    if (Name == "atomic_xor_global")
      return Op::Xor;
    if (Name == "atomic_swap_global")
      return Op::Xchg;
    return std::nullopt;
  }

  /// The standard library hooks beyond math and cross-lane moves. Returns
  /// null if `Name` is not one of them, NoResult for void hooks.
  llvm::Value *moreStdlib(ir::Op &O, const std::string &Name, std::vector<llvm::Value *> &A,
                          llvm::Value *M) {
    const Type *T0 = O.Operands.empty() ? nullptr : O.Operands[0]->Ty;
    llvm::Type *ResTy = O.result() ? llvmType(O.result()->Ty) : nullptr;
    auto Bits = [&](llvm::Value *Mask) {
      return B.CreateZExt(B.CreateBitCast(Mask, B.getIntNTy(W)), B.getInt64Ty());
    };
    if ((Name == "intbits" || Name == "floatbits" || Name == "doublebits") && A.size() == 1)
      return B.CreateBitCast(A[0], ResTy);
    if (Name == "packmask" && A.size() == 1)
      return Bits(B.CreateAnd(A[0]->getType()->isVectorTy() ? A[0] : splat(A[0]), M));
    if ((Name == "count_leading_zeros" || Name == "count_trailing_zeros") && A.size() == 1)
      return B.CreateBinaryIntrinsic(Name == "count_leading_zeros" ? llvm::Intrinsic::ctlz
                                                                   : llvm::Intrinsic::cttz,
                                     A[0], B.getFalse());
    if (Name == "reduce_equal" && (A.size() == 1 || A.size() == 2) &&
        A[0]->getType()->isVectorTy()) {
      // Compare every active lane with the first active one.
      llvm::Value *First = B.CreateBinaryIntrinsic(
          llvm::Intrinsic::cttz, B.CreateBitCast(M, B.getIntNTy(W)), B.getTrue());
      llvm::Value *V0 = B.CreateExtractElement(A[0], B.CreateZExtOrTrunc(First, B.getInt32Ty()));
      llvm::Value *Eq = A[0]->getType()->isFPOrFPVectorTy() ? B.CreateFCmpOEQ(A[0], splat(V0))
                                                            : B.CreateICmpEQ(A[0], splat(V0));
      llvm::Value *AllEq = B.CreateAndReduce(B.CreateOr(Eq, B.CreateNot(M)));
      llvm::Value *AnyOn = B.CreateOrReduce(M);
      if (A.size() == 2) {
        auto *Store = llvm::BasicBlock::Create(Ctx, "reduce_equal.store", Fn);
        auto *Done = llvm::BasicBlock::Create(Ctx, "reduce_equal.done", Fn);
        B.CreateCondBr(B.CreateAnd(AllEq, AnyOn), Store, Done);
        B.SetInsertPoint(Store);
        B.CreateStore(V0, A[1]);
        B.CreateBr(Done);
        B.SetInsertPoint(Done);
      }
      return B.CreateAnd(AllEq, AnyOn);
    }
    if (Name == "packed_store_active" && A.size() == 2) {
      B.CreateIntrinsic(llvm::Intrinsic::masked_compressstore, {A[1]->getType()}, {A[1], A[0], M});
      return B.CreateZExtOrTrunc(B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop,
                                                        B.CreateBitCast(M, B.getIntNTy(W))),
                                 B.getInt32Ty());
    }
    if (Name == "packed_load_active" && A.size() == 2) {
      llvm::Type *VT = llvmType(O.Operands[1]->Ty->getPointee(), true);
      llvm::Value *Old = B.CreateLoad(VT, A[1]);
      llvm::Value *L = B.CreateIntrinsic(llvm::Intrinsic::masked_expandload, {VT}, {A[0], M, Old});
      B.CreateStore(L, A[1]);
      return B.CreateZExtOrTrunc(B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop,
                                                        B.CreateBitCast(M, B.getIntNTy(W))),
                                 B.getInt32Ty());
    }
    if ((Name == "aos_to_soa3" || Name == "aos_to_soa4") && (A.size() == 4 || A.size() == 5)) {
      unsigned K = A.size() - 1;
      llvm::Type *VT = llvmType(O.Operands[1]->Ty->getPointee(), true);
      llvm::Type *Elt = VT->getScalarType();
      for (unsigned F = 0; F < K; ++F) {
        llvm::Value *Idx = B.CreateAdd(B.CreateMul(laneIndices32(), splat(B.getInt32(K))),
                                       splat(B.getInt32(F)));
        llvm::Value *Ptrs = B.CreateGEP(Elt, splat(A[0]), Idx);
        B.CreateStore(B.CreateMaskedGather(VT, Ptrs, alignOf(Elt), llvm::ConstantInt::getTrue(maskType())),
                      A[1 + F]);
      }
      return NoResult;
    }
    if ((Name == "soa_to_aos3" || Name == "soa_to_aos4") && (A.size() == 4 || A.size() == 5)) {
      unsigned K = A.size() - 1;
      llvm::Type *Elt = A[0]->getType()->getScalarType();
      for (unsigned F = 0; F < K; ++F) {
        llvm::Value *Idx = B.CreateAdd(B.CreateMul(laneIndices32(), splat(B.getInt32(K))),
                                       splat(B.getInt32(F)));
        llvm::Value *Ptrs = B.CreateGEP(Elt, splat(A[K]), Idx);
        B.CreateMaskedScatter(A[F], Ptrs, alignOf(Elt), llvm::ConstantInt::getTrue(maskType()));
      }
      return NoResult;
    }
    bool Float = T0 && O.Operands.size() > 1 && O.Operands[1]->Ty->isFloatingPoint();
    bool Signed = O.Operands.size() > 1 && O.Operands[1]->Ty->isSignedInteger();
    if (auto AO = atomicOp(Name, Float, Signed); AO && A.size() == 2) {
      if (!T0->isVarying() && !A[1]->getType()->isVectorTy())
        return B.CreateAtomicRMW(*AO, A[0], A[1], llvm::MaybeAlign(),
                                 llvm::AtomicOrdering::SequentiallyConsistent);
      // One atomic per active lane, in lane order; each lane gets its old value.
      llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
      llvm::Value *Slot = Entry.CreateAlloca(ResTy);
      B.CreateStore(llvm::PoisonValue::get(ResTy), Slot);
      forEachSetLane(M, [&](unsigned L) {
        llvm::Value *Old = B.CreateAtomicRMW(*AO, lane(A[0], L), lane(A[1], L), llvm::MaybeAlign(),
                                             llvm::AtomicOrdering::SequentiallyConsistent);
        B.CreateStore(B.CreateInsertElement(B.CreateLoad(ResTy, Slot), Old, B.getInt32(L)), Slot);
      });
      return B.CreateLoad(ResTy, Slot);
    }
    if (Name == "atomic_compare_exchange_global" && A.size() == 3) {
      auto CmpXchg = [&](llvm::Value *P, llvm::Value *Cmp, llvm::Value *New) {
        auto *X = B.CreateAtomicCmpXchg(P, Cmp, New, llvm::MaybeAlign(),
                                        llvm::AtomicOrdering::SequentiallyConsistent,
                                        llvm::AtomicOrdering::SequentiallyConsistent);
        return B.CreateExtractValue(X, 0);
      };
      if (!T0->isVarying() && !A[1]->getType()->isVectorTy())
        return CmpXchg(A[0], A[1], A[2]);
      llvm::IRBuilder<> Entry(AllocaIP, AllocaIP->begin());
      llvm::Value *Slot = Entry.CreateAlloca(ResTy);
      B.CreateStore(llvm::PoisonValue::get(ResTy), Slot);
      forEachSetLane(M, [&](unsigned L) {
        llvm::Value *Old = CmpXchg(lane(A[0], L), lane(A[1], L), lane(A[2], L));
        B.CreateStore(B.CreateInsertElement(B.CreateLoad(ResTy, Slot), Old, B.getInt32(L)), Slot);
      });
      return B.CreateLoad(ResTy, Slot);
    }
    if ((Name == "memcpy" || Name == "memcpy64" || Name == "memmove" || Name == "memset" ||
         Name == "memset64") &&
        A.size() == 3) {
      auto One = [&](llvm::Value *D, llvm::Value *S, llvm::Value *N) {
        if (Name.starts_with("memset"))
          B.CreateMemSet(D, S, N, llvm::MaybeAlign());
        else if (Name == "memmove")
          B.CreateMemMove(D, llvm::MaybeAlign(), S, llvm::MaybeAlign(), N);
        else
          B.CreateMemCpy(D, llvm::MaybeAlign(), S, llvm::MaybeAlign(), N);
      };
      if (!A[0]->getType()->isVectorTy())
        One(A[0], A[1], A[2]);
      else
        forEachSetLane(M, [&](unsigned L) { One(lane(A[0], L), lane(A[1], L), lane(A[2], L)); });
      return NoResult;
    }
    if (Name.starts_with("prefetch_") && A.size() == 1) {
      int Locality = Name == "prefetch_l1" ? 3 : Name == "prefetch_l2" ? 2 : Name == "prefetch_l3" ? 1 : 0;
      auto One = [&](llvm::Value *P) {
        B.CreateIntrinsic(llvm::Intrinsic::prefetch, {B.getPtrTy()},
                          {P, B.getInt32(0), B.getInt32(Locality), B.getInt32(1)});
      };
      if (!A[0]->getType()->isVectorTy())
        One(A[0]);
      else
        forEachSetLane(M, [&](unsigned L) { One(lane(A[0], L)); });
      return NoResult;
    }
    if (Name == "barrier" && A.empty()) {
      // On the CPU a block is one gang: the barrier orders memory within it.
      B.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
      return NoResult;
    }
    return nullptr;
  }

  void ifOp(ir::Op &O) {
    llvm::Value *C = val(O.Operands[0]);
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
  llvm::Function *Fn = nullptr;
  ir::Function *CurIR = nullptr;
  llvm::BasicBlock *AllocaIP = nullptr;
  llvm::Value *LaunchGroup = nullptr; ///< the current function's launch group slot
  std::map<ir::Function *, llvm::Function *> TaskEntries;
  llvm::DenseMap<ir::Value *, llvm::Value *> Values;
  std::vector<LoopBlocks> Loops;
  std::map<ir::Function *, llvm::Function *> Functions;
  std::map<ir::Global *, llvm::GlobalVariable *> Globals;
  std::map<std::pair<StructDecl *, Variability>, llvm::StructType *> Structs;
};

} // namespace

std::unique_ptr<llvm::Module> emitLLVM(ir::Module &M, const TargetInfo &Target,
                                       llvm::TargetMachine &TM, llvm::LLVMContext &Ctx,
                                       DiagnosticEngine &Diags) {
  return Emitter(M, Target, TM, Ctx, Diags).run();
}

} // namespace spmdc
