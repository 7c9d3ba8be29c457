// Loop strength reduction on NVPTX, on counted loops only.
#include "backend/NVPTXLoopStrengthReduce.h"

#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopStrengthReduce.h"

#include <set>

namespace spmdc {

namespace {

using namespace llvm;

/// Runs LSR on the loops whose headers are in `Headers` and leaves the others
/// (LSR changes a loop's instructions, not its blocks, so the headers chosen
/// before it runs still name the loops).
class SelectedLoopStrengthReduce : public PassInfoMixin<SelectedLoopStrengthReduce> {
public:
  explicit SelectedLoopStrengthReduce(std::set<const BasicBlock *> Headers)
      : Headers(std::move(Headers)) {}
  PreservedAnalyses run(Loop &L, LoopAnalysisManager &AM, LoopStandardAnalysisResults &AR,
                        LPMUpdater &U) {
    if (!Headers.count(L.getHeader()))
      return PreservedAnalyses::all();
    return LoopStrengthReducePass().run(L, AM, AR, U);
  }

private:
  std::set<const BasicBlock *> Headers;
};

} // namespace

/// Counted loops (a foreach's chunks, a loop to a bound) are where strength
/// reduction pays: it carries `End - counter` as an induction variable instead
/// of recomputing it, which keeps Black-Scholes' kernel within 32 registers. In
/// a loop that leaves on loaded data it rewrites `base + j` into a 64-bit
/// pointer carried around the loop and reset on every outer iteration (two
/// registers and two instructions more per pointer on sm_90, where `base + j`
/// is two instructions), and a grid-stride loop over rows gets one induction
/// variable per address the inner loop starts from.
PreservedAnalyses NVPTXLoopStrengthReducePass::run(Function &F, FunctionAnalysisManager &AM) {
  LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
  ScalarEvolution &SE = AM.getResult<ScalarEvolutionAnalysis>(F);
  std::set<const BasicBlock *> Counted;
  for (Loop *L : LI.getLoopsInPreorder())
    if (SE.hasLoopInvariantBackedgeTakenCount(L))
      Counted.insert(L->getHeader());
  if (Counted.empty())
    return PreservedAnalyses::all();
  return createFunctionToLoopPassAdaptor(SelectedLoopStrengthReduce(std::move(Counted))).run(F, AM);
}

} // namespace spmdc
