// Thread and block coarsening: a kernel's program instances or blocks each do the work of several.
//
// Thread coarsening by F rewrites each `foreach (i = b ... e) body` of the
// kernel into a uniform loop over the full steps of F gang-widths, whose body
// holds F copies of `body` at i = s + j*programCount + programIndex (all lanes
// on, as a full foreach chunk runs), followed by the original foreach over what
// is left. The copies are independent, so their loads are in flight together,
// and the loop overhead and the uniform work are shared by F items.
//
// Block coarsening by F wraps the kernel's body in a loop over F virtual
// blocks: in iteration c, blockIndex is blockIndex*F + c and blockCount is
// blockCount*F (taskIndex and taskCount follow), so a launch of B blocks does
// what B*F blocks of the original did. See docs/fusion.md.
#include "ir/Coarsening.h"

#include "frontend/Diagnostics.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/PassRequests.h"
#include "ir/RegionSplice.h"
#include "target/TargetInfo.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace spmdc::ir {

std::optional<CoarsenRequest> parseCoarsenSpec(const std::string &Spec, std::string &Error,
                                               size_t &ErrorAt) {
  CoarsenRequest R;
  R.Spelling = Spec;
  llvm::StringRef S(Spec);
  size_t Colon = S.find(':');
  llvm::StringRef Name = S.substr(0, Colon).trim();
  size_t NameAt = S.size() - S.ltrim().size();
  bool NameOk =
      !Name.empty() && (std::isalpha(static_cast<unsigned char>(Name[0])) || Name[0] == '_');
  for (char C : Name)
    NameOk &= std::isalnum(static_cast<unsigned char>(C)) || C == '_';
  if (!NameOk) {
    Error = "expected a kernel name";
    ErrorAt = NameAt;
    return std::nullopt;
  }
  R.Kernel = Name.str();
  R.KernelCol = static_cast<uint32_t>(NameAt);
  if (Colon == llvm::StringRef::npos) {
    Error = "expected ':' and a coarsening factor after the kernel name";
    ErrorAt = S.size();
    return std::nullopt;
  }
  llvm::StringRef Rest = S.substr(Colon + 1);
  size_t At = Colon + 1 + (Rest.size() - Rest.ltrim().size());
  Rest = Rest.trim();
  if (Rest.consume_front("block")) {
    R.Block = true;
    Rest = Rest.ltrim();
    bool Paren = Rest.consume_front("(");
    if (!Paren && !Rest.consume_front("=")) {
      Error = "expected 'block=F' or 'block(F)'";
      ErrorAt = At;
      return std::nullopt;
    }
    if (Paren && !Rest.consume_back(")")) {
      Error = "expected ')' after the block coarsening factor";
      ErrorAt = S.size();
      return std::nullopt;
    }
    At = std::min(Spec.find_first_not_of(" \t=(", At + 5), Spec.size());
  }
  if (Rest.trim().getAsInteger(10, R.Factor)) {
    Error = "expected a coarsening factor, not '" + Rest.trim().str() + "'";
    ErrorAt = At;
    return std::nullopt;
  }
  R.FactorCol = static_cast<uint32_t>(At);
  return R;
}

namespace {

/// Built-ins that name the launch's blocks or tasks (changed by block coarsening).
bool isBlockBuiltin(BuiltinVar B) {
  switch (B) {
  case BuiltinVar::BlockIndex:
  case BuiltinVar::BlockCount:
  case BuiltinVar::TaskIndex:
  case BuiltinVar::TaskIndex0:
  case BuiltinVar::TaskCount:
  case BuiltinVar::TaskCount0:
    return true;
  default:
    return false;
  }
}

/// Visits every op below `R`, saying whether it lies inside a nested loop.
template <typename Fn> void walk(Region &R, Fn &&Visit, bool InNestedLoop = false) {
  for (auto &P : R.Ops) {
    Visit(*P, InNestedLoop);
    bool Nested = InNestedLoop || P->Code == OpCode::Loop || P->Code == OpCode::Foreach;
    for (auto &Sub : P->Regions)
      walk(*Sub, Visit, Nested);
  }
}

/// Why the `foreach` `F` cannot be thread-coarsened (empty: it can).
std::string unsuitable(Op &F) {
  if (F.Operands.size() != 2 || F.Tiled)
    return "thread coarsening handles one-dimensional 'foreach' loops";
  for (Op *O = F.ParentRegion ? F.ParentRegion->Parent : nullptr; O;
       O = O->ParentRegion ? O->ParentRegion->Parent : nullptr) {
    bool Uniform =
        (O->Code == OpCode::If && !O->Operands[0]->isVarying()) ||
        (O->Code == OpCode::Loop && !O->region(0).Ops.back()->Operands[0]->isVarying());
    if (!Uniform)
      return "this 'foreach' is inside varying control flow";
  }
  std::string Why;
  walk(F.region(0), [&](Op &O, bool InNestedLoop) {
    if (O.Code == OpCode::Return || O.Code == OpCode::Goto ||
        (!InNestedLoop && (O.Code == OpCode::Break || O.Code == OpCode::Continue)))
      if (Why.empty())
        Why = std::string("its body has a '") + opName(O.Code) + "' (line " +
              std::to_string(O.Loc.Line) + ")";
  });
  return Why;
}

class Coarsener {
public:
  Coarsener(Module &M, const TargetInfo &Target, DiagnosticEngine &Diags)
      : M(M), Target(Target), Diags(Diags), B(M) {
    I32 = M.Types.getAtomic(Type::Int32, Variability::Uniform);
    VI32 = M.Types.getAtomic(Type::Int32, Variability::Varying);
    Bool = M.Types.getAtomic(Type::Bool, Variability::Uniform);
  }

  void run(const CoarsenRequest &R) {
    Req = &R;
    Function *K = nullptr;
    for (auto &F : M.Functions)
      if (F->Name == R.Kernel && !F->IsStdlib && (!K || F->Body))
        K = F.get();
    if (!K) {
      report(R.KernelCol, "unknown kernel '" + R.Kernel + "'");
      return;
    }
    if (!K->Body || !(K->flags().Export || K->flags().Task) || !K->Ty->getReturnType()->isVoid()) {
      report(R.KernelCol,
             "kernel '" + R.Kernel + "' is not a void export or task function defined here");
      return;
    }
    if (R.Factor < 1 || R.Factor > 64) {
      report(R.FactorCol,
             "the coarsening factor must be between 1 and 64, not " + std::to_string(R.Factor));
      return;
    }
    if (R.Factor == 1)
      return;
    if (R.Block)
      coarsenBlocks(*K);
    else
      coarsenThreads(*K);
  }

private:
  void report(uint32_t Col, const std::string &Message) {
    if (!Req->FromPragma) {
      Diags.errorNoLoc("--coarsen=" + Req->Spelling + ": " + Message);
      return;
    }
    SourceLoc L = Req->Loc;
    if (Col)
      L.Col = Col;
    Diags.error(L, Message);
  }

  Value *binary(BinaryOp Kind, Value *L, Value *R) {
    bool Compare = Kind == BinaryOp::LT || Kind == BinaryOp::GT;
    Op *O = B.create(OpCode::Binary, Compare ? Bool : I32, {L, R});
    O->BinOp = Kind;
    return O->result();
  }

  Value *builtin(BuiltinVar Which, const Type *Ty) {
    Op *O = B.create(OpCode::Builtin, Ty);
    O->BuiltinId = Which;
    return O->result();
  }

  /// Appends a counted uniform loop `for (c = From; c < To; c += Step)`,
  /// leaving the insertion point in its body; returns the counter's slot.
  Value *openLoop(Value *From, Value *To, Value *Step, Region *&Body) {
    Value *Counter = B.var(I32, "__coarse");
    B.store(Counter, From);
    Op *L = B.create(OpCode::Loop, nullptr);
    Region *Cond = B.addRegion(L);
    Body = B.addRegion(L);
    Region *StepR = B.addRegion(L);
    B.setInsertRegion(Cond);
    B.create(OpCode::Yield, nullptr, {binary(BinaryOp::LT, B.load(Counter), To)});
    B.setInsertRegion(StepR);
    B.store(Counter, binary(BinaryOp::Add, B.load(Counter), Step));
    B.setInsertRegion(Body);
    return Counter;
  }

  //===--------------------------------------------------------------------===//
  // Thread coarsening
  //===--------------------------------------------------------------------===//

  void coarsenThreads(Function &K) {
    std::vector<Op *> Loops;
    walk(*K.Body, [&](Op &O, bool) {
      if (O.Code == OpCode::Foreach)
        Loops.push_back(&O);
    });
    if (Loops.empty()) {
      report(Req->KernelCol, "kernel '" + K.Name + "' has no 'foreach' loop to coarsen");
      return;
    }
    for (Op *F : Loops) {
      std::string Why = unsuitable(*F);
      if (!Why.empty()) {
        Diags.error(F->Loc, "cannot coarsen this loop of '" + K.Name + "' by " +
                                std::to_string(Req->Factor) + ": " + Why);
        return;
      }
    }
    for (Op *F : Loops)
      coarsenForeach(*F, K);
    K.AppliedThreadCoarsening = static_cast<unsigned>(Req->Factor);
  }

  void coarsenForeach(Op &F, Function &K) {
    Region Before; // the new ops, moved in front of F at the end
    B.setInsertRegion(&Before);
    B.setLoc(F.Loc);
    const int64_t Gang = Target.GangWidth, Step = Gang * Req->Factor;
    Value *Begin = F.Operands[0], *End = F.Operands[1];
    // The full steps end at Begin + max(End - Begin, 0) / Step * Step.
    Value *Span = binary(BinaryOp::Sub, End, Begin);
    Value *Zero = B.constInt(0, I32);
    Op *Sel = B.create(OpCode::Select, I32, {binary(BinaryOp::GT, Span, Zero), Span, Zero});
    Value *StepV = B.constInt(Step, I32);
    Value *FullEnd =
        binary(BinaryOp::Add, Begin,
               binary(BinaryOp::Mul, binary(BinaryOp::Div, Sel->result(), StepV), StepV));
    Region *Body = nullptr;
    Value *Counter = openLoop(Begin, FullEnd, StepV, Body);
    Value *Lane = builtin(BuiltinVar::ProgramIndex, VI32);
    Value *IndexSlot = F.IndexVars[0];
    for (int64_t J = 0; J < Req->Factor; ++J) {
      B.setInsertRegion(Body);
      Value *First = binary(BinaryOp::Add, B.load(Counter), B.constInt(J * Gang, I32));
      Op *Wide = B.create(OpCode::Broadcast, VI32, {First});
      Op *Index = B.create(OpCode::Binary, VI32, {Wide->result(), Lane});
      Index->BinOp = BinaryOp::Add;
      Value *Slot = B.var(M.Types.withConst(IndexSlot->Def->VarType, false), IndexSlot->NameHint);
      B.store(Slot, Index->result());
      std::map<const Value *, Value *> Map{{IndexSlot, Slot}};
      cloneRegionInto(F.region(0), *Body, Map, K);
    }
    // What is left (less than Step items) runs as the original foreach.
    F.Operands[0] = FullEnd;
    spliceBefore(F, Before);
  }

  //===--------------------------------------------------------------------===//
  // Block coarsening
  //===--------------------------------------------------------------------===//

  /// Does `F` (or a function it calls) read a block or task built-in?
  /// Returns the first such function's name other than the kernel's own.
  const Function *readsBlockBuiltins(const Function *F, std::set<const Function *> &Seen) {
    if (!F || !F->Body || !Seen.insert(F).second)
      return nullptr;
    const Function *Found = nullptr;
    walk(*F->Body, [&](Op &O, bool) {
      if (Found)
        return;
      if (O.Code == OpCode::Builtin && isBlockBuiltin(O.BuiltinId))
        Found = F;
      else if ((O.Code == OpCode::Call || O.Code == OpCode::Crev) && O.Callee)
        Found = readsBlockBuiltins(O.Callee, Seen);
    });
    return Found;
  }

  void coarsenBlocks(Function &K) {
    std::string Problem;
    SourceLoc Where;
    bool CallsBarrier = false;
    walk(*K.Body, [&](Op &O, bool) {
      if (O.Code == OpCode::Call && O.Callee && O.Callee->IsStdlib && O.Callee->Name == "barrier")
        CallsBarrier = true;
      if (!Problem.empty())
        return;
      if (O.Code == OpCode::Return || O.Code == OpCode::Goto)
        Problem = std::string("its '") + opName(O.Code) + "' would skip the blocks after this one";
      else if (O.Code == OpCode::Builtin &&
               (O.BuiltinId == BuiltinVar::TaskIndex1 || O.BuiltinId == BuiltinVar::TaskIndex2 ||
                O.BuiltinId == BuiltinVar::TaskCount1 || O.BuiltinId == BuiltinVar::TaskCount2))
        Problem = std::string("it reads ") + builtinName(O.BuiltinId) +
                  " (block coarsening handles one-dimensional launches)";
      else if ((O.Code == OpCode::Call || O.Code == OpCode::Crev) && O.Callee) {
        std::set<const Function *> Seen;
        if (const Function *F = readsBlockBuiltins(O.Callee, Seen))
          Problem = "it calls '" + F->Name +
                    "', which reads the block or task built-ins; only the kernel's own are "
                    "coarsened (pass them as arguments)";
      }
      if (!Problem.empty())
        Where = O.Loc;
    });
    if (!Problem.empty()) {
      Diags.error(Where, "cannot coarsen the blocks of '" + K.Name + "' by " +
                             std::to_string(Req->Factor) + ": " + Problem);
      return;
    }
    bool ReadsBlock = false;
    walk(*K.Body, [&](Op &O, bool) {
      ReadsBlock |= O.Code == OpCode::Builtin && isBlockBuiltin(O.BuiltinId);
    });
    if (!ReadsBlock) {
      report(Req->KernelCol, "cannot coarsen the blocks of '" + K.Name + "' by " +
                                 std::to_string(Req->Factor) +
                                 ": it reads no block or task built-in, so every block does "
                                 "the same work and coarsening would repeat it");
      return;
    }
    std::unique_ptr<Region> Old = std::move(K.Body);
    K.Body = std::make_unique<Region>();
    B.setInsertRegion(K.Body.get());
    B.setLoc(K.Loc);
    Value *Factor = B.constInt(Req->Factor, I32);
    Value *Block = builtin(BuiltinVar::BlockIndex, I32),
          *Blocks = builtin(BuiltinVar::BlockCount, I32);
    Value *Gang = builtin(BuiltinVar::GangIndex, I32), *Gangs = builtin(BuiltinVar::GangCount, I32);
    Region *Body = nullptr;
    Value *Counter = openLoop(B.constInt(0, I32), Factor, B.constInt(1, I32), Body);
    Value *VBlock = binary(BinaryOp::Add, binary(BinaryOp::Mul, Block, Factor), B.load(Counter));
    Value *VBlocks = binary(BinaryOp::Mul, Blocks, Factor);
    Value *VTask = binary(BinaryOp::Add, binary(BinaryOp::Mul, VBlock, Gangs), Gang);
    Value *VTasks = binary(BinaryOp::Mul, VBlocks, Gangs);
    std::vector<Op *> Builtins;
    walk(*Old, [&](Op &O, bool) {
      if (O.Code == OpCode::Builtin && isBlockBuiltin(O.BuiltinId))
        Builtins.push_back(&O);
    });
    for (Op *O : Builtins) {
      BuiltinVar W = O->BuiltinId;
      Value *V = W == BuiltinVar::BlockIndex                                   ? VBlock
                 : W == BuiltinVar::BlockCount                                 ? VBlocks
                 : (W == BuiltinVar::TaskIndex || W == BuiltinVar::TaskIndex0) ? VTask
                                                                               : VTasks;
      if (V->Ty != O->result()->Ty) { // taskIndex & co. are unsigned, as in ISPC
        Op *C = B.create(OpCode::Convert, O->result()->Ty, {V});
        C->Cast = CastKind::IntegralCast;
        V = C->result();
      }
      replaceUses(*Old, O->result(), V);
    }
    for (auto &P : Old->Ops) {
      P->ParentRegion = Body;
      Body->Ops.push_back(std::move(P));
    }
    if (CallsBarrier) {
      // The next virtual block may reuse `shared` storage this one still reads.
      for (auto &F : M.Functions)
        if (F->IsStdlib && F->Name == "barrier" && F->Params.empty()) {
          B.setInsertRegion(Body);
          B.create(OpCode::Call, nullptr)->Callee = F.get();
          break;
        }
    }
  }

  Module &M;
  const TargetInfo &Target;
  DiagnosticEngine &Diags;
  Builder B;
  const CoarsenRequest *Req = nullptr;
  const Type *I32, *VI32, *Bool;
};

/// `#pragma coarsen(K : F)`: the text between the parentheses in the --coarsen grammar.
std::optional<CoarsenRequest> readPragma(const Pragma &P, DiagnosticEngine &Diags) {
  uint32_t TextCol = 0;
  std::optional<CoarsenRequest> R =
      readPragmaRequest<CoarsenRequest>(P, "coarsen", Diags, parseCoarsenSpec, TextCol);
  if (!R)
    return R;
  R->KernelCol = TextCol ? TextCol + R->KernelCol : 0;
  R->FactorCol = TextCol ? TextCol + R->FactorCol : 0;
  return R;
}

} // namespace

std::string threadCoarseningObstacle(Function &K) {
  std::string Why;
  walk(*K.Body, [&](Op &O, bool) {
    if (O.Code == OpCode::Foreach && Why.empty())
      Why = unsuitable(O);
  });
  return Why;
}

bool runCoarsening(Module &M, const std::vector<CoarsenRequest> &Requested,
                   const TargetInfo &Target, DiagnosticEngine &Diags) {
  unsigned ErrorsBefore = Diags.errorCount();
  auto Chosen = gatherRequests(
      M, "coarsen", Requested, [&](const Pragma &P) { return readPragma(P, Diags); },
      [](const CoarsenRequest &R) { return std::make_pair(R.Kernel, R.Block); });
  // The launch model's thread coarsening of a vertically fused GPU kernel
  // (ir/FusionLaunchModel.h), where no request names the kernel.
  std::set<std::string> Named;
  for (const CoarsenRequest &R : Chosen)
    if (!R.Block)
      Named.insert(R.Kernel);
  for (auto &F : M.Functions)
    if (F->ModelThreadCoarsening > 1 && !Named.count(F->Name)) {
      CoarsenRequest R;
      R.Kernel = F->Name;
      R.Factor = F->ModelThreadCoarsening;
      R.Spelling = F->Name + ":" + std::to_string(R.Factor) + " (the launch model's choice)";
      R.Loc = F->Loc;
      Chosen.push_back(R);
    }
  Coarsener C(M, Target, Diags);
  // Threads first: a kernel coarsened both ways repeats its coarsened foreach per block.
  for (bool Block : {false, true})
    for (const CoarsenRequest &R : Chosen)
      if (R.Block == Block)
        C.run(R);
  return Diags.errorCount() == ErrorsBefore;
}

} // namespace spmdc::ir
