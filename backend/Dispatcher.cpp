// The dispatching module of a multi-target build: one C entry per export function that calls
// the variant for the best ISA this CPU runs, as ISPC's multi-target objects do.
//
// The CPU's features come from libgcc's (and compiler-rt's) __cpu_model, filled in by
// __cpu_indicator_init: the same data as __builtin_cpu_supports, including the operating
// system's support for the wide registers. The choice is made once, on the first call of any
// entry, and each entry caches its function pointer (relaxed atomics: every thread computes
// the same value).
#include "backend/Dispatcher.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <algorithm>

namespace spmdc {

namespace {

constexpr const char *Triple = "x86_64-unknown-linux-gnu";

/// 1, 2, 3 for sse4, avx2, avx512skx: a CPU that runs one level runs every lower one.
int isaLevel(const std::string &ISA) {
  if (ISA == "sse4")
    return 1;
  if (ISA == "avx2")
    return 2;
  return 3;
}

/// The __cpu_model.__cpu_features[0] bits of the features an ISA needs.
uint32_t featureMask(int Level) {
  std::vector<llvm::StringRef> Names = {"sse4.2"};
  if (Level >= 2)
    Names.insert(Names.end(), {"avx", "avx2", "fma"});
  if (Level >= 3)
    Names.insert(Names.end(), {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd"});
  // All of these are among the first 32 features, the word __cpu_model holds.
  return llvm::X86::getCpuSupportsMask(Names)[0];
}

class DispatchBuilder {
public:
  DispatchBuilder(llvm::Module &M) : M(M), Ctx(M.getContext()), B(Ctx) {}

  /// `i32 __spmdc_dispatch_level()`: the widest ISA level this CPU runs, capped by SPMDC_ISA.
  llvm::Function *levelFunction() {
    auto *Cache = new llvm::GlobalVariable(M, B.getInt32Ty(), false,
                                           llvm::GlobalValue::InternalLinkage, B.getInt32(-1),
                                           "__spmdc_dispatch_level.cache");
    auto *F = llvm::Function::Create(llvm::FunctionType::get(B.getInt32Ty(), false),
                                     llvm::GlobalValue::InternalLinkage, "__spmdc_dispatch_level",
                                     M);
    auto *Entry = llvm::BasicBlock::Create(Ctx, "entry", F);
    auto *Compute = llvm::BasicBlock::Create(Ctx, "compute", F);
    auto *Cap = llvm::BasicBlock::Create(Ctx, "cap", F);
    auto *Done = llvm::BasicBlock::Create(Ctx, "done", F);
    B.SetInsertPoint(Entry);
    llvm::Value *Cached = relaxedLoad(B.getInt32Ty(), Cache);
    B.CreateCondBr(B.CreateICmpSGE(Cached, B.getInt32(0)), Done, Compute);

    B.SetInsertPoint(Compute);
    B.CreateCall(M.getOrInsertFunction("__cpu_indicator_init", B.getInt32Ty()));
    auto *ModelTy = llvm::StructType::get(
        Ctx, {B.getInt32Ty(), B.getInt32Ty(), B.getInt32Ty(), llvm::ArrayType::get(B.getInt32Ty(), 1)});
    llvm::Constant *Model = M.getOrInsertGlobal("__cpu_model", ModelTy);
    llvm::Value *Features =
        B.CreateLoad(B.getInt32Ty(), B.CreateConstInBoundsGEP2_32(ModelTy, Model, 0, 3));
    llvm::Value *Level = B.getInt32(0);
    for (int L = 1; L <= 3; ++L) {
      uint32_t Mask = featureMask(L);
      llvm::Value *Has = B.CreateICmpEQ(B.CreateAnd(Features, Mask), B.getInt32(Mask));
      Level = B.CreateSelect(Has, B.getInt32(L), Level);
    }
    llvm::Value *Env = B.CreateCall(
        M.getOrInsertFunction("getenv", B.getPtrTy(), B.getPtrTy()),
        {B.CreateGlobalString("SPMDC_ISA", "__spmdc_dispatch.env")});
    B.CreateCondBr(B.CreateIsNull(Env), Done, Cap);

    B.SetInsertPoint(Cap);
    llvm::FunctionCallee Strcmp =
        M.getOrInsertFunction("strcmp", B.getInt32Ty(), B.getPtrTy(), B.getPtrTy());
    llvm::Value *Capped = Level;
    for (auto [Name, L] : {std::pair{"avx2", 2}, std::pair{"sse4", 1}}) {
      llvm::Value *Same =
          B.CreateICmpEQ(B.CreateCall(Strcmp, {Env, B.CreateGlobalString(Name)}), B.getInt32(0));
      llvm::Value *Lower = B.CreateICmpSLT(B.getInt32(L), Capped);
      Capped = B.CreateSelect(B.CreateAnd(Same, Lower), B.getInt32(L), Capped);
    }
    B.CreateBr(Done);

    B.SetInsertPoint(Done);
    llvm::PHINode *Result = B.CreatePHI(B.getInt32Ty(), 3);
    Result->addIncoming(Cached, Entry);
    Result->addIncoming(Level, Compute);
    Result->addIncoming(Capped, Cap);
    relaxedStore(Result, Cache);
    B.CreateRet(Result);
    return F;
  }

  /// `void __spmdc_dispatch_unsupported()`: says so on stderr and aborts.
  llvm::Function *unsupportedFunction() {
    auto *F = llvm::Function::Create(llvm::FunctionType::get(B.getVoidTy(), false),
                                     llvm::GlobalValue::InternalLinkage,
                                     "__spmdc_dispatch_unsupported", M);
    F->setDoesNotReturn();
    B.SetInsertPoint(llvm::BasicBlock::Create(Ctx, "entry", F));
    std::string Message =
        "spmdc: this CPU runs none of the targets this program was compiled for\n";
    B.CreateCall(M.getOrInsertFunction("write", B.getInt64Ty(), B.getInt32Ty(), B.getPtrTy(),
                                       B.getInt64Ty()),
                 {B.getInt32(2), B.CreateGlobalString(Message), B.getInt64(Message.size())});
    B.CreateCall(M.getOrInsertFunction("abort", B.getVoidTy()));
    B.CreateUnreachable();
    return F;
  }

  /// The entry `Name` calling the best of `Variants` (widest first).
  void entry(llvm::Function &Model, const std::string &Name,
             const std::vector<std::pair<int, std::string>> &Variants, llvm::Function *Level,
             llvm::Function *Unsupported) {
    llvm::FunctionType *FT = Model.getFunctionType();
    auto *F = llvm::Function::Create(FT, llvm::GlobalValue::ExternalLinkage, Name, M);
    llvm::AttributeList Attrs = Model.getAttributes();
    for (unsigned I = 0; I < FT->getNumParams(); ++I)
      F->addParamAttrs(I, llvm::AttrBuilder(Ctx, Attrs.getParamAttrs(I)));
    F->addRetAttrs(llvm::AttrBuilder(Ctx, Attrs.getRetAttrs()));
    auto *Slot = new llvm::GlobalVariable(M, B.getPtrTy(), false,
                                          llvm::GlobalValue::InternalLinkage,
                                          llvm::ConstantPointerNull::get(B.getPtrTy()),
                                          "__spmdc_dispatch." + Name);
    auto *Entry = llvm::BasicBlock::Create(Ctx, "entry", F);
    auto *Resolve = llvm::BasicBlock::Create(Ctx, "resolve", F);
    auto *Call = llvm::BasicBlock::Create(Ctx, "call", F);
    B.SetInsertPoint(Entry);
    llvm::Value *Cached = relaxedLoad(B.getPtrTy(), Slot);
    B.CreateCondBr(B.CreateIsNull(Cached), Resolve, Call);

    B.SetInsertPoint(Resolve);
    llvm::Value *L = B.CreateCall(Level);
    llvm::Value *Chosen = Unsupported;
    // Narrowest first, so that the widest runnable one is selected last.
    for (auto It = Variants.rbegin(); It != Variants.rend(); ++It) {
      llvm::Function *V = M.getFunction(Name + It->second);
      if (!V)
        V = llvm::Function::Create(FT, llvm::GlobalValue::ExternalLinkage, Name + It->second, M);
      Chosen = B.CreateSelect(B.CreateICmpSGE(L, B.getInt32(It->first)), V, Chosen);
    }
    relaxedStore(Chosen, Slot);
    B.CreateBr(Call);

    B.SetInsertPoint(Call);
    llvm::PHINode *Target = B.CreatePHI(B.getPtrTy(), 2);
    Target->addIncoming(Cached, Entry);
    Target->addIncoming(Chosen, Resolve);
    std::vector<llvm::Value *> Args;
    for (llvm::Argument &A : F->args())
      Args.push_back(&A);
    llvm::CallInst *Result = B.CreateCall(FT, Target, Args);
    Result->setTailCall();
    if (FT->getReturnType()->isVoidTy())
      B.CreateRetVoid();
    else
      B.CreateRet(Result);
  }

private:
  /// The caches are read and written by any thread: relaxed atomics (every thread computes
  /// the same value, so the order does not matter, only that no access tears).
  llvm::Value *relaxedLoad(llvm::Type *T, llvm::Value *Ptr) {
    llvm::LoadInst *L = B.CreateLoad(T, Ptr);
    L->setAtomic(llvm::AtomicOrdering::Monotonic);
    L->setAlignment(M.getDataLayout().getABITypeAlign(T));
    return L;
  }

  void relaxedStore(llvm::Value *V, llvm::Value *Ptr) {
    llvm::StoreInst *S = B.CreateStore(V, Ptr);
    S->setAtomic(llvm::AtomicOrdering::Monotonic);
    S->setAlignment(M.getDataLayout().getABITypeAlign(V->getType()));
  }

  llvm::Module &M;
  llvm::LLVMContext &Ctx;
  llvm::IRBuilder<> B;
};

} // namespace

std::unique_ptr<llvm::TargetMachine> createDispatchTargetMachine() {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  llvm::Triple TT(Triple);
  std::string Error;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(TT, Error);
  if (!T)
    return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(T->createTargetMachine(
      TT, "x86-64", "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Default));
}

std::unique_ptr<llvm::Module> buildDispatchModule(llvm::LLVMContext &Ctx,
                                                  const std::vector<llvm::Function *> &Exports,
                                                  const std::string &FirstSuffix,
                                                  const std::vector<DispatchVariant> &Variants,
                                                  llvm::TargetMachine &TM) {
  auto M = std::make_unique<llvm::Module>("dispatch", Ctx);
  M->setTargetTriple(llvm::Triple(Triple));
  M->setDataLayout(TM.createDataLayout());
  std::vector<std::pair<int, std::string>> Levels;
  for (const DispatchVariant &V : Variants)
    Levels.push_back({isaLevel(V.ISA), V.Suffix});
  std::sort(Levels.begin(), Levels.end(), [](auto &A, auto &B) { return A.first > B.first; });
  DispatchBuilder Builder(*M);
  if (Exports.empty())
    return M;
  llvm::Function *Level = Builder.levelFunction();
  llvm::Function *Unsupported = Builder.unsupportedFunction();
  for (llvm::Function *E : Exports) {
    std::string Name = E->getName().str();
    Name.resize(Name.size() - FirstSuffix.size());
    Builder.entry(*E, Name, Levels, Level, Unsupported);
  }
  return M;
}

} // namespace spmdc
