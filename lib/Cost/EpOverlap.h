//===- EpOverlap.h - a MoE layer's forward beside another's backward -----===//
//
// Under ep_overlap, Megatron-LM runs one micro-batch's forward of a MoE
// layer beside another micro-batch's backward of the same layer, on two
// streams, so that each expert-parallel all-to-all of one runs beside a
// named part of the other's compute
// (megatron/core/models/common/model_chunk_schedule_plan.py,
// TransformerLayerSchedulePlan.run, with --delay-wgrad-compute as its MoE
// guide asks):
//
//   comm stream: combine bwd    | dispatch fwd, dispatch bwd  | combine fwd
//   comp stream: pre-dispatch   | experts bwd (data), experts | pre-dispatch
//                fwd            | bwd (weight), experts fwd   | bwd
//
// Each of the three parts ends where both streams are done (the next part
// needs what both computed). Pre-dispatch is the attention, the norms, the
// router, the shared experts and the tokens' permutation; "experts" the
// routed experts between the two all-to-alls; a combine node also runs the
// unpermutation and the residual add after (before, in backward) its
// all-to-all, on the communication stream.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_COST_EPOVERLAP_H
#define LLMSYS_COST_EPOVERLAP_H

#include "IR/Program.h"

namespace llmsys {
namespace cost {

/// The parts of one MoE layer (one forward and one backward of it) that
/// the paired schedule places, in seconds.
struct EpOverlapLayer {
  enum Part {
    /// Compute stream: the attention, the norms, the router, the shared
    /// experts and the permutation (before the dispatch in forward, after
    /// it in backward).
    PreDispatch,
    /// Compute stream: the routed experts, between the two all-to-alls
    /// (their input gradients, in backward).
    Experts,
    /// Compute stream: the routed experts' weight gradients.
    ExpertsWeight,
    /// Communication stream: the combine node's own compute.
    CombineNode,
    NumParts
  };
  /// The all-to-alls (with expert_tp, the expert group's gathers and
  /// reduce-scatters go with them).
  enum Slot {
    DispatchForward,
    DispatchBackward,
    CombineForward,
    CombineBackward,
    NumSlots
  };
  /// Compute per part, forward [0] and backward [1].
  double Compute[2][NumParts] = {};
  /// The all-to-alls' times.
  double AllToAll[NumSlots] = {};
  /// The share of the device's SMs the all-to-alls' kernels hold while
  /// they run (ep_sms / compute_units): compute beside them runs at
  /// 1 - it.
  double Held = 0;

  /// The all-to-alls' time, all four.
  double communicationTime() const;
  /// Their compute, all of it.
  double computeTime() const;
  /// What each all-to-all leaves exposed when a forward runs beside a
  /// backward: part 1's excess over its compute falls to the backward's
  /// combine, part 3's to the forward's, part 2's to the two dispatches
  /// by their times. Their sum takes the pair from computeTime to at most
  /// computeTime + communicationTime (the streams share the device:
  /// compute never hides compute).
  void exposure(double (&Exposed)[NumSlots]) const;
};

/// Walks a MoE layer block's ops in order and says which part or slot
/// each belongs to.
class EpOverlapParts {
public:
  /// The part of the compute op O.
  EpOverlapLayer::Part partOf(const ir::Op &O);
  /// The slot of the overlapped expert-parallel collective O, or NumSlots
  /// for another collective; moves the walk past it.
  EpOverlapLayer::Slot slotOf(const ir::Op &O);

private:
  /// The all-to-alls the walk has passed.
  bool Passed[EpOverlapLayer::NumSlots] = {};
  /// The last op was a routed expert's weight-gradient GEMM (a
  /// grad.accumulate after it belongs with it).
  bool AfterExpertWeight = false;
};

} // namespace cost
} // namespace llmsys

#endif
