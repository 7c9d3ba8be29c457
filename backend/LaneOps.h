// How a gang's lanes map onto a target: vector lanes (x86) or the threads of a warp (NVPTX).
//
// The LLVM emitter asks this interface for everything that crosses or spans
// lanes, so the rest of the emitter is the same for both targets. On x86 a
// varying value is one `<W x T>` vector and a mask `<W x i1>`; on NVPTX each
// thread holds its lane's `T` and its lane's `i1`, and cross-lane operations
// are warp votes and shuffles over the full warp (the divergence transform
// keeps the warp converged, so the full mask is always right).
#pragma once

#include "llvm/IR/IRBuilder.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spmdc {

enum class ReduceKind { Add, Min, Max };

class LaneOps {
public:
  LaneOps(llvm::IRBuilder<> &B, unsigned Width) : B(B), W(Width) {}
  virtual ~LaneOps() = default;

  unsigned width() const { return W; }

  /// The register type of a varying value whose lanes have type `Scalar`.
  virtual llvm::Type *varying(llvm::Type *Scalar) = 0;
  /// The same uniform value in every lane.
  virtual llvm::Value *splat(llvm::Value *Uniform) = 0;
  /// programIndex as a varying i32.
  virtual llvm::Value *laneIndex() = 0;
  /// A varying i64 holding each lane's index (for address arithmetic).
  virtual llvm::Value *laneIndex64() = 0;

  /// Votes over a mask (varying i1): some lane / every lane set.
  virtual llvm::Value *any(llvm::Value *Mask) = 0;
  virtual llvm::Value *all(llvm::Value *Mask) = 0;
  /// The mask as a uniform i64, lane i in bit i.
  virtual llvm::Value *bits(llvm::Value *Mask) = 0;

  /// Lane `Lane` (a uniform i32) of the varying `V`, as a uniform value.
  virtual llvm::Value *extract(llvm::Value *V, llvm::Value *Lane) = 0;
  /// `V` with lane `Lane` replaced by the uniform `X`.
  virtual llvm::Value *insert(llvm::Value *V, llvm::Value *Lane, llvm::Value *X) = 0;
  /// Lane i of the result is lane Idx[i] (a varying i32) of the concatenation
  /// of `Sources` where `Valid` holds, zero elsewhere.
  virtual llvm::Value *permute(const std::vector<llvm::Value *> &Sources, llvm::Value *Idx,
                               llvm::Value *Valid) = 0;
  /// Add/min/max over the lanes set in `Mask` (identity if none).
  virtual llvm::Value *reduce(ReduceKind K, llvm::Value *V, llvm::Value *Mask, bool Float,
                              bool Signed) = 0;

  /// Loads through a pointer per lane on the active lanes (`Ty` is the
  /// varying result type).
  virtual llvm::Value *gather(llvm::Type *Ty, llvm::Value *Ptrs, llvm::Align A,
                              llvm::Value *Mask) = 0;
  virtual void scatter(llvm::Value *V, llvm::Value *Ptrs, llvm::Align A, llvm::Value *Mask) = 0;
  /// Writes the active lanes of the varying `V` to the varying object at `Ptr`.
  virtual void maskedStore(llvm::Value *V, llvm::Value *Ptr, llvm::Align A, llvm::Value *Mask) = 0;

  /// Gives lane L's value of a varying operand (inside perLane).
  using LaneValue = std::function<llvm::Value *(llvm::Value *Varying)>;
  /// Runs `Body` for every active lane: on x86 lane after lane in order, on
  /// NVPTX in each active thread for its own lane. `Body` returns the lane's
  /// result (a uniform value of `ResultScalar`) or null; the results form the
  /// returned varying value (null when `ResultScalar` is null).
  virtual llvm::Value *perLane(llvm::Value *Mask, llvm::Type *ResultScalar,
                               const std::function<llvm::Value *(const LaneValue &)> &Body) = 0;
  /// Runs `Body` once for the whole gang (NVPTX: in the first active thread)
  /// and returns its result, uniform in every lane (or null).
  virtual llvm::Value *once(llvm::Value *Mask, const std::function<llvm::Value *()> &Body) = 0;

  /// A barrier over `Threads` threads of the block on named barrier `Id`
  /// (horizontal fusion's per-side barrier()). On the CPU a block is one gang,
  /// so it only orders memory.
  virtual void partialBarrier(unsigned Id, unsigned Threads) = 0;

protected:
  llvm::Function *function() { return B.GetInsertBlock()->getParent(); }
  /// An alloca in the entry block, outside any loop.
  llvm::Value *entryAlloca(llvm::Type *T);
  /// The neutral element of a reduction.
  static llvm::Value *identity(ReduceKind K, llvm::Type *Elt, bool Float, bool Signed);

  llvm::IRBuilder<> &B;
  unsigned W;
};

/// `ISA` is the target's ("sse4", "avx2", "avx512skx"): it picks the register permutes.
std::unique_ptr<LaneOps> createX86LaneOps(llvm::IRBuilder<> &B, unsigned Width,
                                          const std::string &ISA);
std::unique_ptr<LaneOps> createNVPTXLaneOps(llvm::IRBuilder<> &B);

} // namespace spmdc
