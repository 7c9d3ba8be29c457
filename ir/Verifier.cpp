// Checks that SPMD IR is well formed, before and after the divergence transform.
#include "ir/Verifier.h"

#include "ir/IR.h"

#include "llvm/ADT/DenseSet.h"

namespace spmdc::ir {

namespace {

class Verifier {
public:
  Verifier(Module &M, bool AfterTransform) : M(M), After(AfterTransform) {}

  std::vector<std::string> run() {
    for (auto &F : M.Functions) {
      if (!F->Body)
        continue;
      Fn = F.get();
      Defined.clear();
      for (auto &P : F->Params)
        Defined.insert(P.get());
      region(*F->Body, 0);
    }
    return std::move(Problems);
  }

private:
  void problem(const Op &O, const std::string &What) {
    std::string Where = Fn->Symbol;
    if (O.Loc.isValid())
      Where += " (" + *O.Loc.File + ":" + std::to_string(O.Loc.Line) + ")";
    Problems.push_back(Where + ": '" + opName(O.Code) + "': " + What);
  }

  /// Values defined in a region die with it: uses must be in it or nested.
  void region(Region &R, unsigned LoopDepth) {
    std::vector<Value *> Local;
    for (auto &O : R.Ops) {
      op(*O, LoopDepth);
      if (Value *V = O->result()) {
        Defined.insert(V);
        Local.push_back(V);
      }
    }
    for (Value *V : Local)
      Defined.erase(V);
  }

  void use(const Op &O, Value *V) {
    if (!V)
      problem(O, "null operand");
    else if (!Defined.contains(V))
      problem(O, "uses a value not defined in an enclosing region before it");
  }

  void op(Op &O, unsigned LoopDepth) {
    for (Value *V : O.Operands)
      use(O, V);
    for (Value *V : O.LaunchCounts)
      use(O, V);
    for (Value *V : O.IndexVars)
      use(O, V);
    if (O.Mask)
      use(O, O.Mask);
    if (!llvm::is_contained(O.Operands, nullptr)) // use() reported it; types() reads them
      types(O);
    if (After)
      transformed(O);
    unsigned Inner =
        LoopDepth + (O.Code == OpCode::Loop || O.Code == OpCode::Foreach ||
                     O.Code == OpCode::ForeachActive || O.Code == OpCode::ForeachUnique);
    if ((O.Code == OpCode::Break || O.Code == OpCode::Continue) && LoopDepth == 0)
      problem(O, "outside any loop");
    for (auto &Sub : O.Regions) {
      if (Sub->Parent != &O)
        problem(O, "region's parent link is wrong");
      region(*Sub, Inner);
    }
    if (O.Code == OpCode::Loop) {
      if (O.Regions.size() != 3)
        problem(O, "needs cond, body and step regions");
      else if (O.Regions[0]->Ops.empty() || O.Regions[0]->Ops.back()->Code != OpCode::Yield)
        problem(O, "cond region must end in 'yield'");
    }
  }

  bool sameUpToConst(const Type *A, const Type *B) {
    return M.Types.withConst(A, false) == M.Types.withConst(B, false);
  }

  void types(Op &O) {
    auto Need = [&](size_t N) {
      if (O.Operands.size() < N) {
        problem(O, "needs " + std::to_string(N) + " operands");
        return false;
      }
      return true;
    };
    switch (O.Code) {
    case OpCode::Store:
      if (!Need(2))
        return;
      if (!O.Operands[0]->Ty->isPointer())
        problem(O, "address is not a pointer");
      else if (!sameUpToConst(loadedType(M.Types, O.Operands[0]->Ty), O.Operands[1]->Ty))
        problem(O, "stores '" + O.Operands[1]->Ty->toString() + "' through '" +
                       O.Operands[0]->Ty->toString() + "'");
      return;
    case OpCode::Load:
      if (Need(1) && !O.Operands[0]->Ty->isPointer())
        problem(O, "address is not a pointer");
      return;
    case OpCode::Binary:
      if (Need(2) && !sameUpToConst(O.Operands[0]->Ty, O.Operands[1]->Ty) &&
          !O.Operands[0]->Ty->isPointer())
        problem(O, "operands differ: '" + O.Operands[0]->Ty->toString() + "' and '" +
                       O.Operands[1]->Ty->toString() + "'");
      return;
    case OpCode::If:
    case OpCode::Yield:
      if (Need(1) && !O.Operands[0]->Ty->isBool())
        problem(O, "condition is not bool");
      return;
    case OpCode::Broadcast:
      if (Need(1) && !O.Operands[0]->Ty->isUniform())
        problem(O, "broadcasts a value that is not uniform");
      return;
    case OpCode::Extract:
      if (Need(2) && !O.Operands[0]->isVarying())
        problem(O, "extracts a lane of a value that is not varying");
      return;
    case OpCode::ForeachUnique:
      if (Need(1) && !O.Operands[0]->isVarying())
        problem(O, "iterates over a value that is not varying");
      return;
    case OpCode::PartialBarrier:
      // PTX has 16 named barriers; the count is whole warps of one block.
      if (O.Imm < 0 || O.Imm > 15)
        problem(O, "barrier id " + std::to_string(O.Imm) + " is not in 0..15");
      if (O.BarrierThreads < 32 || O.BarrierThreads > 1024 || O.BarrierThreads % 32)
        problem(O, "barrier thread count " + std::to_string(O.BarrierThreads) +
                       " is not a multiple of 32 in 32..1024");
      if (!O.Operands.empty() || O.result())
        problem(O, "takes no operands and has no result");
      return;
    default:
      return;
    }
  }

  /// What the divergence transform guarantees to the back ends.
  void transformed(Op &O) {
    switch (O.Code) {
    case OpCode::If:
    case OpCode::Yield:
      // (NVPTX keeps the varying branches ir/SimtBranches.cpp chose as real branches.)
      if (!O.Operands.empty() && O.Operands[0]->isVarying() && !O.Simt)
        problem(O, "varying condition left after the divergence transform");
      return;
    case OpCode::Foreach:
    case OpCode::ForeachActive:
    case OpCode::ForeachUnique:
    case OpCode::Everywhere:
    case OpCode::Unmasked:
    case OpCode::Crev:
      problem(O, "left after the divergence transform");
      return;
    // (A store without a mask writes every lane: the transform's own slots.)
    case OpCode::Call:
    case OpCode::Print:
    case OpCode::Assert:
      if (!O.Mask)
        problem(O, "has no mask after the divergence transform");
      return;
    default:
      return;
    }
  }

  Module &M;
  bool After;
  Function *Fn = nullptr;
  llvm::DenseSet<Value *> Defined;
  std::vector<std::string> Problems;
};

} // namespace

std::vector<std::string> verifyModule(Module &M, bool AfterDivergenceTransform) {
  return Verifier(M, AfterDivergenceTransform).run();
}

} // namespace spmdc::ir
