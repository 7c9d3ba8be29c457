// Private to the LLVM emitter: state shared by LLVMEmitter.cpp and *Lowering.cpp; OpLowering.
#pragma once

#include "backend/DebugInfo.h"
#include "backend/LaneOps.h"
#include "backend/WarpFrames.h"
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "ir/IR.h"
#include "target/TargetInfo.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace spmdc::emitter {

using ir::OpCode;

/// The module being emitted: its LLVM objects, the IR-to-LLVM maps, the type mapping.
struct ModuleState {
  ModuleState(ir::Module &M, const TargetInfo &Target, llvm::TargetMachine &TM,
              llvm::LLVMContext &Ctx, DiagnosticEngine &Diags);

  /// A task's own parameters after the declared ones: taskIndex0..2, taskCount0..2, then
  /// ISPC's threadIndex and threadCount.
  static constexpr unsigned TaskIndexParams = 8;

  // Types and module-wide objects (LLVMEmitter.cpp).
  llvm::Type *scalarType(const Type *T, bool InMemory);
  llvm::Type *llvmType(const Type *T, bool InMemory = false);
  llvm::StructType *structType(const Type *T);
  bool isPerLaneGlobal(const ir::Global &G) const;
  llvm::FunctionCallee runtimeFn(const char *Name, llvm::Type *Ret,
                                 std::vector<llvm::Type *> Params);
  llvm::GlobalVariable *taskContext();
  llvm::Type *maskType() { return Lanes->varying(B.getInt1Ty()); }
  llvm::Align alignOf(llvm::Type *T) { return Mod->getDataLayout().getABITypeAlign(T); }

  ir::Module &IRM;
  const TargetInfo &Target;
  llvm::LLVMContext &Ctx;
  DiagnosticEngine &Diags;
  unsigned W;
  /// Optimizing (not -O0): the C entry of an export function inlines its body.
  bool Optimizing;
  std::unique_ptr<llvm::Module> Mod;
  llvm::IRBuilder<> B;
  std::unique_ptr<LaneOps> Lanes;
  WarpFrameLayout WarpFrames;
  std::map<std::string, llvm::Value *> CStrings; ///< print/assert texts on NVPTX
  std::unique_ptr<DebugInfoEmitter> Debug; ///< null without -g
  llvm::GlobalVariable *WarpFramesGV = nullptr;
  std::map<ir::Function *, llvm::Function *> TaskEntries;
  std::map<ir::Function *, llvm::Function *> Functions;
  std::map<ir::Global *, llvm::GlobalVariable *> Globals;
  std::map<std::pair<StructDecl *, Variability>, llvm::StructType *> Structs;
  /// Structs without members: their one filler byte is no member.
  std::set<llvm::StructType *> EmptyStructs;
};

/// Lowers the body of one function at a time, op by op, into the module of `State`.
class OpLowering {
public:
  explicit OpLowering(ModuleState &State);

  void defineFunction(ir::Function &F);

private:
  struct LoopBlocks {
    llvm::BasicBlock *Continue, *Exit;
  };

  // OpLowering.cpp
  void region(ir::Region &R);
  llvm::Value *val(ir::Value *V);
  llvm::Value *mask(ir::Op &O);
  void set(ir::Op &O, llvm::Value *V);
  bool unsupported(ir::Op &O, const std::string &What);
  llvm::Value *fromMemory(llvm::Value *V, const Type *T);
  llvm::Value *toMemory(llvm::Value *V, const Type *T);
  void op(ir::Op &O);
  llvm::BasicBlock *labelBlock(int64_t Id);
  static bool containsOp(ir::Region &R, OpCode Code);
  void emitReturn(llvm::Value *V);
  void ifOp(ir::Op &O);
  void loop(ir::Op &O);
  llvm::Value *sreg(llvm::Intrinsic::ID Id);
  llvm::Value *warpRegion();
  llvm::Value *warpSlot(uint64_t Offset);
  void warpSync();
  llvm::Value *splat(llvm::Value *V) { return Lanes->splat(V); }
  bool isWarpSlotAddress(ir::Value *Addr) const { return WarpFrames.SlotAddresses.count(Addr); }

  // ArithmeticLowering.cpp
  void unary(ir::Op &O);
  void binary(ir::Op &O);
  void convert(ir::Op &O);
  llvm::Value *broadcast(llvm::Value *V, const Type *From, const Type *To);

  // MemoryLowering.cpp
  void load(ir::Op &O);
  std::string uniformMember(const Type *T);
  void uniformMemberThroughVaryingPointer(ir::Op &O, const char *Verb, const Type *Pointee);
  llvm::Value *ownLaneAddr(llvm::Value *Ptrs, const Type *VaryingScalar);
  llvm::Value *gatherObject(llvm::Value *Ptrs, const Type *Pointee, llvm::Value *Mask);
  bool scatterObject(llvm::Value *Data, llvm::Value *Ptrs, const Type *Pointee, llvm::Value *Mask);
  void storeActiveLanes(llvm::Value *Ptr, llvm::Value *Data, const Type *T, llvm::Value *Mask,
                        bool IsSlot);
  void whenAnyLane(llvm::Value *Mask, const std::function<void()> &Body);
  void store(ir::Op &O);
  void storeValue(ir::Op &O);
  llvm::Value *contiguousAddress(ir::Value *Addr);
  void elementAddr(ir::Op &O);
  ir::Value *peelUniformAddends(ir::Value *Index, llvm::Value *&Ptr, llvm::Type *EltTy);

  // CallLowering.cpp
  void call(ir::Op &O);
  void callVaryingPointer(ir::Op &O, llvm::FunctionType *FT);
  void stdlibCall(ir::Op &O);

  // TaskLowering.cpp
  void builtin(ir::Op &O);
  llvm::Value *gangBuiltin(BuiltinVar Which);
  llvm::Value *gpuTaskBuiltin(BuiltinVar Which);
  llvm::Value *taskBuiltin(BuiltinVar Which);
  void emitSync();
  llvm::Function *taskEntry(ir::Function &Task, llvm::StructType *ArgsTy);
  void launch(ir::Op &O);
  /// ISPC's task function: `fn(data, threadIndex, threadCount, taskIndex, taskCount, i0, i1,
  /// i2, c0, c1, c2)`, called by the task system's ISPCLaunch; this entry unpacks the
  /// argument block and calls the task with every lane on.
  /// The indices follow data, thread index/count and task index/count.
  static constexpr unsigned TaskEntryIndexOffset = 5;

  // PrintLowering.cpp
  void print(ir::Op &O);
  llvm::FunctionCallee vprintf();
  llvm::Value *cString(const std::string &Text);
  std::pair<std::string, llvm::Value *> printfScalar(const Type *T, llvm::Value *X);
  static std::string escapePrintf(const std::string &Text);
  void inOneLane(llvm::Value *Lane, const std::function<void()> &Body);
  void callVprintf(const std::string &Format, const std::vector<llvm::Value *> &Args);
  llvm::Value *firstLane(llvm::Value *Bits);
  struct PrintfCalls;
  void emitPrintfCalls(const PrintfCalls &P);
  void printGPU(ir::Op &O);
  void assertGPU(ir::Op &O);
  void assertOp(ir::Op &O);

  // The module's state and type mapping, under the names the lowering uses.
  ModuleState &State;
  ir::Module &IRM;
  const TargetInfo &Target;
  llvm::LLVMContext &Ctx;
  DiagnosticEngine &Diags;
  const unsigned W;
  std::unique_ptr<llvm::Module> &Mod;
  llvm::IRBuilder<> &B;
  std::unique_ptr<LaneOps> &Lanes;
  WarpFrameLayout &WarpFrames;
  std::map<std::string, llvm::Value *> &CStrings;
  llvm::GlobalVariable *&WarpFramesGV;
  std::map<ir::Function *, llvm::Function *> &TaskEntries;
  std::map<ir::Function *, llvm::Function *> &Functions;
  std::map<ir::Global *, llvm::GlobalVariable *> &Globals;
  static constexpr unsigned TaskIndexParams = ModuleState::TaskIndexParams;
  llvm::Type *scalarType(const Type *T, bool InMemory) { return State.scalarType(T, InMemory); }
  llvm::Type *llvmType(const Type *T, bool InMemory = false) { return State.llvmType(T, InMemory); }
  llvm::Type *maskType() { return State.maskType(); }
  llvm::Align alignOf(llvm::Type *T) { return State.alignOf(T); }
  bool isPerLaneGlobal(const ir::Global &G) const { return State.isPerLaneGlobal(G); }
  llvm::FunctionCallee runtimeFn(const char *Name, llvm::Type *Ret,
                                 std::vector<llvm::Type *> Params) {
    return State.runtimeFn(Name, Ret, std::move(Params));
  }
  llvm::GlobalVariable *taskContext() { return State.taskContext(); }

  // The function being lowered.
  llvm::Function *Fn = nullptr;
  ir::Function *CurIR = nullptr;
  llvm::DISubprogram *CurSubprogram = nullptr; ///< -g: CurIR's, null for the library's
  llvm::BasicBlock *AllocaIP = nullptr;
  llvm::Value *WarpRegion = nullptr;  ///< this warp's frames in the current function (NVPTX)
  llvm::Value *LaunchGroup = nullptr; ///< the current function's launch group slot
  llvm::DenseMap<ir::Value *, llvm::Value *> Values;
  std::vector<LoopBlocks> Loops;
  std::map<int64_t, llvm::BasicBlock *> LabelBlocks; ///< the current function's labels
  /// Where in the SIMT ifs and loops around the current op the lowering is (innermost
  /// last): which SIMT ifs take an opaque condition (ifOp).
  enum class SimtScope { IfArm, LoopCondition, LoopBody };
  std::vector<SimtScope> SimtScopes;
};

} // namespace spmdc::emitter
