// Per-op lowering of `print` and `assert`: the x86 runtime's calls, the CUDA driver's vprintf.
#include "backend/LLVMEmitterInternal.h"

#include <cctype>

namespace spmdc::emitter {

/// `print`: spmdc_print(format, types, width, mask, args) from the runtime.
void OpLowering::print(ir::Op &O) {
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
          T->isVarying() ? static_cast<llvm::Type *>(llvm::FixedVectorType::get(B.getInt32Ty(), W))
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
    B.CreateStore(Slots[I], B.CreateConstGEP2_32(
                                llvm::ArrayType::get(B.getPtrTy(), Slots.size() + 1), Args, 0, I));
  llvm::Value *Bits = Lanes->bits(mask(O));
  B.CreateCall(
      runtimeFn("spmdc_print", B.getVoidTy(),
                {B.getPtrTy(), B.getPtrTy(), B.getInt32Ty(), B.getInt64Ty(), B.getPtrTy()}),
      {B.CreateGlobalString(O.Text), B.CreateGlobalString(Types), B.getInt32(W), Bits, Args});
}

// print and assert on NVPTX: the driver's vprintf, once per warp
/// `int vprintf(const char *format, void *args)`: the CUDA driver's printf;
/// `args` is a buffer of the promoted arguments, each at its natural alignment.
llvm::FunctionCallee OpLowering::vprintf() {
  return runtimeFn("vprintf", B.getInt32Ty(), {B.getPtrTy(), B.getPtrTy()});
}

/// A constant C string, one global per distinct text.
llvm::Value *OpLowering::cString(const std::string &Text) {
  auto It = CStrings.find(Text);
  if (It != CStrings.end())
    return It->second;
  return CStrings[Text] = B.CreateGlobalString(Text, ".str");
}

/// The printf conversion and the promoted value of one lane's (or a
/// uniform) value of type T, as the x86 runtime prints it (runtime/Print.cpp).
std::pair<std::string, llvm::Value *> OpLowering::printfScalar(const Type *T, llvm::Value *X) {
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

std::string OpLowering::escapePrintf(const std::string &Text) {
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
void OpLowering::inOneLane(llvm::Value *Lane, const std::function<void()> &Body) {
  auto *Then = llvm::BasicBlock::Create(Ctx, "one.lane", Fn);
  auto *Join = llvm::BasicBlock::Create(Ctx, "one.lane.join", Fn);
  B.CreateCondBr(B.CreateICmpEQ(Lanes->laneIndex(), Lane), Then, Join);
  B.SetInsertPoint(Then);
  Body();
  B.CreateBr(Join);
  B.SetInsertPoint(Join);
}

/// vprintf(Format, Args) with the arguments in a buffer in local memory.
void OpLowering::callVprintf(const std::string &Format, const std::vector<llvm::Value *> &Args) {
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
llvm::Value *OpLowering::firstLane(llvm::Value *Bits) {
  llvm::Value *First = B.CreateTrunc(
      B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, Bits, B.getFalse()), B.getInt32Ty());
  return B.CreateSelect(B.CreateICmpEQ(Bits, B.getInt64(0)), B.getInt32(0), First);
}

/// The vprintf calls of one print: the driver's printf takes at most 32
/// arguments besides the format, so a long output is several calls, made in
/// order by the same thread.
struct OpLowering::PrintfCalls {
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

void OpLowering::emitPrintfCalls(const PrintfCalls &P) {
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
void OpLowering::printGPU(ir::Op &O) {
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
void OpLowering::assertGPU(ir::Op &O) {
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
    P.text(File + ":" + std::to_string(O.Loc.Line) + ": assertion failed: " + O.Text + " (lanes ");
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
void OpLowering::assertOp(ir::Op &O) {
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

} // namespace spmdc::emitter
