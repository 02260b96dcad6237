//===- Recompute.cpp - activation recomputation ------------------------------===//
//
// Korthikanti et al. 2022 (§5): the mapping's `recompute` decides what each
// layer keeps for backward and what it computes again.
//   none       every op keeps what its backward needs (34 s b h + 5 a s^2 b
//              bytes per layer in their setting)
//   selective  the attention core (scores, softmax, dropout, context) is not
//              kept but recomputed before backward: the 5 a s^2 b term goes
//              and one forward of the core is added. With FlashAttention the
//              core keeps nothing of size s^2 already, so nothing changes.
//   full       only each layer's input is kept (2 s b h); the whole forward
//              of the layer runs again before its backward.
// Recomputed work is in the `recompute` phase and is not model work (it
// counts in HFU, not in MFU).
//
// Note on Korthikanti et al.'s selective-recompute HFU formula
// 72 B s L h^2 (1 + s/3h + V/12Lh): one extra forward of the attention core
// is 4 b s^2 h per layer, which gives (1 + 2s/9h + ...); the paper's s/3h
// counts 12 b s^2 h. The passes count the work performed (docs/passes.md).
//
//===----------------------------------------------------------------------===//

#include "Passes/Passes.h"


namespace llmsys {
namespace passes {

using namespace ir;

static bool isAttentionCore(const Op &O) {
  return O.Kind == OpKind::AttnScore || O.Kind == OpKind::AttnSoftmax ||
         O.Kind == OpKind::AttnDropout || O.Kind == OpKind::AttnContext;
}

bool recompute(Program &P, PassContext &) {
  const ScenarioConfig &S = P.Scenario;
  if (!S.Training || S.Mapping.Recomp == Recompute::None)
    return true;
  bool Flash = S.Mapping.Fusion.FlashAttention;
  for (Block &B : P.Blocks) {
    if (B.Kind != BlockKind::DenseLayer && B.Kind != BlockKind::MoELayer)
      continue;
    std::vector<Op> Again;
    for (Op &O : B.Ops) {
      if (O.Ph != Phase::Forward)
        continue;
      bool Redo = S.Mapping.Recomp == Recompute::Full ||
                  (isAttentionCore(O) && !Flash);
      if (!Redo)
        continue;
      Op R = O;
      R.Ph = Phase::Recompute;
      R.ModelWork = false;
      R.SavedBytes = 0;
      Again.push_back(R);
      if (S.Mapping.Recomp == Recompute::Full) {
        // Only the layer's input stays: the first norm's input.
        if (O.Kind != OpKind::Ln1)
          O.SavedBytes = 0;
      } else if (O.Kind == OpKind::AttnSoftmax ||
                 O.Kind == OpKind::AttnDropout) {
        // The s x s tensors; Q, K (kept by the scores) and V (kept by the
        // context) are what the recomputation starts from.
        O.SavedBytes = 0;
      }
    }
    // The recomputation runs before the layer's backward ops.
    auto FirstBackward = B.Ops.begin();
    while (FirstBackward != B.Ops.end() && FirstBackward->Ph == Phase::Forward)
      ++FirstBackward;
    B.Ops.insert(FirstBackward, Again.begin(), Again.end());
  }
  return true;
}

} // namespace passes
} // namespace llmsys
