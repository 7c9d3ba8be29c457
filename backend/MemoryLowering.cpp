// Per-op lowering of loads, stores and element addresses: vector, masked, gather, scatter.
#include "backend/LLVMEmitterInternal.h"

namespace spmdc::emitter {

void OpLowering::load(ir::Op &O) {
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
    llvm::Value *L = O.Mask ? static_cast<llvm::Value *>(B.CreateMaskedLoad(MT, First, A, mask(O)))
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
std::string OpLowering::uniformMember(const Type *T) {
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
void OpLowering::uniformMemberThroughVaryingPointer(ir::Op &O, const char *Verb,
                                                    const Type *Pointee) {
  Diags.error(O.Loc, std::string("cannot ") + Verb + " a whole '" + Pointee->toString() +
                         "' through a varying pointer: its member '" + uniformMember(Pointee) +
                         "' is uniform; access the members one by one");
  if (O.result())
    set(O, llvm::PoisonValue::get(llvmType(O.result()->Ty)));
}

/// Per-lane addresses of each lane's own element of the varying scalar
/// objects at `Ptrs` (lane l's element of a `<W x T>` object sits at offset
/// l; on NVPTX a thread's varying object holds only its own lane).
llvm::Value *OpLowering::ownLaneAddr(llvm::Value *Ptrs, const Type *VaryingScalar) {
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
llvm::Value *OpLowering::gatherObject(llvm::Value *Ptrs, const Type *Pointee, llvm::Value *Mask) {
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
bool OpLowering::scatterObject(llvm::Value *Data, llvm::Value *Ptrs, const Type *Pointee,
                               llvm::Value *Mask) {
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
void OpLowering::storeActiveLanes(llvm::Value *Ptr, llvm::Value *Data, const Type *T,
                                  llvm::Value *Mask, bool IsSlot) {
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

/// Runs `Body` when some lane of `Mask` is on (a uniform branch on both
/// targets); directly when the mask is the constant all-on one.
void OpLowering::whenAnyLane(llvm::Value *Mask, const std::function<void()> &Body) {
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

void OpLowering::store(ir::Op &O) {
  ir::Value *Addr = O.Operands[0], *V = O.Operands[1];
  const Type *T = V->Ty;
  // A uniform value into one place under a mask: ISPC stores it when any
  // lane is active (a uniform variable assigned under varying control flow).
  if (!Addr->Ty->isVarying() && !T->isVarying() && O.Mask)
    return whenAnyLane(mask(O), [&] { storeValue(O); });
  storeValue(O);
}

void OpLowering::storeValue(ir::Op &O) {
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
llvm::Value *OpLowering::contiguousAddress(ir::Value *Addr) {
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

/// For `&base[i + u]` with a uniform base, a varying i and a uniform u (a
/// constant, a parameter, ...) added `nsw` (ir/IndexNoWrap.cpp), the uniform
/// part goes into the base, &(base + u)[i]: the lanes of a[i], a[i + 1] and
/// a[i + n] then share i, and LLVM's reassociation, which drops `nsw`, cannot
/// hide the sum from the gathers' lowering. Returns i; `Ptr` is moved along.
ir::Value *OpLowering::peelUniformAddends(ir::Value *Index, llvm::Value *&Ptr,
                                          llvm::Type *EltTy) {
  while (Index->isVarying() && Index->Def && Index->Def->Code == OpCode::Binary &&
         Index->Def->BinOp == BinaryOp::Add && Index->Def->NoSignedWrap) {
    ir::Op &Add = *Index->Def;
    auto uniformPart = [](ir::Value *V) -> ir::Value * {
      if (!V->isVarying())
        return V;
      return V->Def && V->Def->Code == OpCode::Broadcast ? V->Def->Operands[0] : nullptr;
    };
    unsigned Side = uniformPart(Add.Operands[1]) ? 1 : uniformPart(Add.Operands[0]) ? 0 : 2;
    if (Side == 2)
      return Index;
    ir::Value *U = uniformPart(Add.Operands[Side]);
    Ptr = B.CreateGEP(EltTy, Ptr, B.CreateIntCast(val(U), B.getInt64Ty(), true));
    Index = Add.Operands[1 - Side];
  }
  return Index;
}

void OpLowering::elementAddr(ir::Op &O) {
  ir::Value *Base = O.Operands[0], *Index = O.Operands[1];
  llvm::Type *EltTy = llvmType(Base->Ty->getPointee(), true);
  llvm::Value *Ptr = val(Base);
  // (An affine index is left whole: its loads and stores are contiguous.)
  if (!Target.isGPU() && !Base->isVarying() && !Index->AffineBase)
    Index = peelUniformAddends(Index, Ptr, EltTy);
  llvm::Value *Idx = val(Index);
  bool IdxSigned = !Index->Ty->isUnsignedInteger();
  llvm::Type *I64 = Idx->getType()->isVectorTy()
                        ? static_cast<llvm::Type *>(llvm::FixedVectorType::get(B.getInt64Ty(), W))
                        : B.getInt64Ty();
  Idx = B.CreateIntCast(Idx, I64, IdxSigned);
  // A uniform base with a varying index gives one pointer per lane.
  if (Idx->getType()->isVectorTy() && !Ptr->getType()->isVectorTy())
    Ptr = splat(Ptr);
  set(O, B.CreateGEP(EltTy, Ptr, Idx));
}

} // namespace spmdc::emitter
