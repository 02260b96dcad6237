//===- EpOverlap.cpp - a MoE layer's forward beside another's backward ---===//

#include "Cost/EpOverlap.h"
#include "Cost/Cost.h"

#include <algorithm>

namespace llmsys {
namespace cost {

using namespace ir;
using L = EpOverlapLayer;

/// The combine node's own compute: the unpermutation after the combine
/// all-to-all and the residual add (submodule_combine_forward), and their
/// gradients before it.
static bool combineNodeOp(const Op &O) {
  return O.Kind == OpKind::MoeCombine || O.Kind == OpKind::MlpResidual;
}

/// Ops of the routed experts wherever a pass put them (a recomputation
/// runs the experts' activation inside the experts' backward).
static bool expertOp(const Op &O) {
  return O.routedExpert() || O.Kind == OpKind::MoeExpertAct ||
         O.Kind == OpKind::MoeUpBias || O.Kind == OpKind::MoeDownBias ||
         O.Kind == OpKind::MoeSort || O.Kind == OpKind::MoeUnsort;
}

L::Part EpOverlapParts::partOf(const Op &O) {
  const bool Accumulates =
      AfterExpertWeight && O.Kind == OpKind::GradAccumulate;
  AfterExpertWeight = O.Ph == Phase::BackwardWeight && O.routedExpert();
  if (O.Ph == Phase::Recompute)
    return expertOp(O) ? L::Experts : L::PreDispatch;
  if (!backwardSide(O.Ph)) {
    if (Passed[L::CombineForward])
      return combineNodeOp(O) ? L::CombineNode : L::PreDispatch;
    return Passed[L::DispatchForward] ? L::Experts : L::PreDispatch;
  }
  const bool Weight = O.Ph == Phase::BackwardWeight;
  if (!Passed[L::CombineBackward])
    return combineNodeOp(O) ? L::CombineNode : L::PreDispatch;
  if (!Passed[L::DispatchBackward])
    return Weight ? L::ExpertsWeight : L::Experts;
  // After the dispatch's gradient: the experts' delayed weight gradients
  // (backward_dw) and their accumulation, then the pre-dispatch part's
  // backward.
  return Weight && (O.routedExpert() || Accumulates) ? L::ExpertsWeight
                                                     : L::PreDispatch;
}

/// The slot of an all-to-all kind, or NumSlots for another op.
static L::Slot allToAllSlot(OpKind K) {
  switch (K) {
  case OpKind::EpDispatch: return L::DispatchForward;
  case OpKind::EpCombine: return L::CombineForward;
  case OpKind::EpCombineGrad: return L::CombineBackward;
  case OpKind::EpDispatchGrad: return L::DispatchBackward;
  default: return L::NumSlots;
  }
}

L::Slot EpOverlapParts::slotOf(const Op &O) {
  AfterExpertWeight = false;
  // (A recomputation's all-to-alls are not overlapped: partition.)
  if (!O.Overlappable || commKind(O) != CommKind::EP ||
      O.Ph == Phase::Recompute)
    return L::NumSlots;
  if (L::Slot S = allToAllSlot(O.Kind); S != L::NumSlots) {
    Passed[S] = true;
    return S;
  }
  // The expert_tp group's gather goes with the dispatch and its
  // reduce-scatter with the combine (and the other way in backward); they
  // do not move the walk.
  const bool Gather = O.Collective == CollectiveKind::AllGather;
  if (!backwardSide(O.Ph))
    return Gather ? L::DispatchForward : L::CombineForward;
  return Gather ? L::CombineBackward : L::DispatchBackward;
}

double L::communicationTime() const {
  double T = 0;
  for (double C : AllToAll)
    T += C;
  return T;
}

double L::computeTime() const {
  double T = 0;
  for (int Side = 0; Side < 2; ++Side)
    for (int P = 0; P < NumParts; ++P)
      T += Compute[Side][P];
  return T;
}

/// A part: communication C on the comm stream beside compute W on the
/// compute stream, and the comm stream's own compute K (a combine node's,
/// before or after its all-to-all). The communication holds a share H of
/// the SMs while it runs: compute beside it runs at 1 - H, so where the
/// compute outlasts what the reduced device does in C it finishes H C
/// late; the comm stream's compute shares the device with W. What the part
/// takes beyond K + W.
static double partExposed(double C, double W, double K, double H) {
  return std::max(K + C, K + W + H * C) - (K + W);
}

void L::exposure(double (&Exposed)[NumSlots]) const {
  // The first part: the forward's pre-dispatch beside the backward's
  // combine node.
  Exposed[CombineBackward] =
      partExposed(AllToAll[CombineBackward], Compute[0][PreDispatch],
                  Compute[1][CombineNode], Held);
  // The second, from its start: the forward's dispatch, then the
  // backward's (which waits for the experts' input gradients); the
  // experts' backward, their weight gradients, then their forward (which
  // waits for the forward's dispatch). The held SMs slow the experts for
  // as long as both all-to-alls run.
  const double Data = Compute[1][Experts],
               Backward = Data + Compute[1][ExpertsWeight],
               Work = Backward + Compute[0][Experts];
  const double DispatchF = AllToAll[DispatchForward],
               DispatchB = AllToAll[DispatchBackward];
  const double ForwardExperts =
      std::max(Backward, DispatchF) + Compute[0][Experts];
  const double BackwardDispatch = std::max(DispatchF, Data) + DispatchB;
  const double Second =
      std::max({ForwardExperts, BackwardDispatch,
                Work + partExposed(DispatchF + DispatchB, Work, 0, Held)});
  const double Dispatches = DispatchF + DispatchB;
  const double Excess = Second - Work;
  Exposed[DispatchForward] =
      Dispatches > 0 ? Excess * DispatchF / Dispatches : 0;
  Exposed[DispatchBackward] =
      Dispatches > 0 ? Excess * DispatchB / Dispatches : 0;
  // The third: the forward's combine node beside the backward's
  // pre-dispatch part.
  Exposed[CombineForward] =
      partExposed(AllToAll[CombineForward], Compute[1][PreDispatch],
                  Compute[0][CombineNode], Held);
}

} // namespace cost
} // namespace llmsys
