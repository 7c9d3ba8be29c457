// NVPTX: float exp/log (and with fast math pow/sin/cos/tan) calls -> the GPU's math hooks.
//
// The hooks are standard library prototypes without a body, emitted by
// backend/NVPTXMath.cpp; the .spmd kernels they replace stay for x86 (and for
// double). See docs/gpu.md ("Math").
#include "ir/NVPTXMath.h"

#include "ir/IR.h"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace spmdc::ir {

namespace {

class MathSelector {
public:
  MathSelector(Module &M, bool Fast) : M(M), Fast(Fast) {}

  void run() {
    // Functions are added while walking: iterate over the ones there before.
    size_t N = M.Functions.size();
    for (size_t I = 0; I < N; ++I)
      if (M.Functions[I]->Body)
        region(*M.Functions[I]->Body);
  }

private:
  void region(Region &R) {
    for (auto &O : R.Ops) {
      if (O->Code == OpCode::Call && O->Callee && O->Callee->IsStdlib && O->Callee->Body)
        if (Function *Hook = hookFor(*O))
          O->Callee = Hook;
      for (auto &Sub : O->Regions)
        region(*Sub);
    }
  }

  Function *hookFor(const Op &Call) {
    const Function &Lib = *Call.Callee;
    static const std::set<std::string> Default = {"exp", "log"};
    static const std::set<std::string> FastNames = {"exp", "log", "pow", "sin", "cos", "tan"};
    if (!(Fast ? FastNames : Default).count(Lib.Name))
      return nullptr;
    for (const Value *A : Call.Operands)
      if (A->Ty->getKind() != Type::Float)
        return nullptr;
    if (!Call.result() || Call.result()->Ty->getKind() != Type::Float)
      return nullptr;
    std::string Name = std::string("spmd_nvptx_") + (Fast ? "fast_" : "") + Lib.Name;
    Function *&Hook = Hooks[{Name, Lib.Ty}];
    if (!Hook) {
      auto F = std::make_unique<Function>();
      F->Name = Name;
      F->Symbol = Name;
      F->Loc = Lib.Loc;
      F->Ty = Lib.Ty;
      F->IsStdlib = true;
      for (const auto &P : Lib.Params)
        F->Params.push_back(std::make_unique<Value>(P->Ty, nullptr));
      Hook = F.get();
      M.Functions.push_back(std::move(F));
    }
    return Hook;
  }

  Module &M;
  bool Fast;
  std::map<std::pair<std::string, const Type *>, Function *> Hooks;
};

} // namespace

void selectNVPTXMath(Module &M, bool Fast) { MathSelector(M, Fast).run(); }

} // namespace spmdc::ir
