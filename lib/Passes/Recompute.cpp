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

#include "Passes/OpBuilder.h"
#include "Passes/Passes.h"


namespace llmsys {
namespace passes {

using namespace ir;

/// Under `ops`, the part of a forward op's work that is recomputed (0:
/// kept), for a layer of model M.
static double recomputedShare(const Op &O, const ModelConfig &M) {
  switch (O.Kind) {
  case OpKind::AttnQkv: // wq, wk, wv: wk is the second
    return double(M.KvHeads) / double(M.Heads + 2 * M.KvHeads);
  case OpKind::AttnOut: // wo, the fourth
    return 1;
  case OpKind::MlpUp: // w1 and w3 (the sixth) when gated; w1 alone is fifth
    return M.GatedMlp ? 0.5 : 0;
  case OpKind::MlpDown: // w2: seventh when gated, sixth without
    return M.GatedMlp ? 0 : 1;
  default:
    break;
  }
  if (O.Category == OpCategory::Contraction || O.inFusedAttention() ||
      O.Kind == OpKind::AttnSoftmax || O.Kind == OpKind::AttnDropout)
    return 0; // other matmuls, and attention (its output is kept)
  if (O.Category == OpCategory::Memory)
    return 0; // MoE dispatch and combine: data movement, kept
  return 1;   // norms and element-wise ops
}

/// What a forward op keeps for backward under `ops`: the policy keeps
/// outputs, so a kept matmul keeps its (kept share of the) output, and the
/// layer keeps its input (ln1's) and what attention keeps; everything else
/// is recomputed from those.
static void keptUnderOps(Op &O, double RecomputedShare) {
  if (O.Kind == OpKind::Ln1 || isAttentionProduct(O) ||
      O.Kind == OpKind::AttnSoftmax || O.Kind == OpKind::AttnDropout)
    return;
  if (O.Category == OpCategory::Contraction && RecomputedShare < 1 &&
      O.Kind != OpKind::MoeRouter) {
    // Its output, M x N x Batch in the activations' format; TP splits it
    // as it splits the output (column-parallel: features; row-parallel:
    // the sequence, with SP).
    O.SavedBytes = double(O.M) * double(O.N) * double(O.Batch) * O.ABytes *
                   (1 - RecomputedShare);
    O.SavedInSequenceRegion = O.TpAxis == Axis::K || O.TpAxis == Axis::None;
    return;
  }
  O.SavedBytes = 0;
}

bool recompute(Program &P, PassContext &Ctx) {
  const ScenarioConfig &S = P.Scenario;
  if (!S.Training || S.Mapping.Recomp == Recompute::None)
    return true;
  bool Flash = S.Mapping.Fusion.flashAttention();
  for (Block &B : P.Blocks) {
    if (B.Kind != BlockKind::DenseLayer && B.Kind != BlockKind::MoELayer)
      continue;
    // At most one recomputation per op.
    std::vector<Op> Again = Ctx.Lists.take(B.Ops.size());
    for (Op &O : B.Ops) {
      if (O.Ph != Phase::Forward)
        continue;
      if (S.Mapping.Recomp == Recompute::Ops) {
        double Share = recomputedShare(O, S.Model);
        keptUnderOps(O, Share);
        if (Share <= 0)
          continue;
        Op R = O;
        R.Ph = Phase::Recompute;
        R.ModelWork = false;
        R.SavedBytes = 0;
        if (Share < 1 && R.Category == OpCategory::Contraction) {
          // The recomputed projection: its share of the output features.
          int64_t N = std::max<int64_t>(1, int64_t(double(R.N) * Share + 0.5));
          reshape(R, R.M, N, R.K, R.Batch);
        }
        Again.push_back(R);
        continue;
      }
      bool Redo = S.Mapping.Recomp == Recompute::Full ||
                  (hasKindTrait(O.Kind, KindAttentionCore) && !Flash);
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
    Ctx.Lists.recycle(std::move(Again));
  }
  return true;
}

} // namespace passes
} // namespace llmsys
