//===- Recompute.cpp - activation recomputation ------------------------------===//
//
// Korthikanti et al. 2022 (§5): the mapping's `recompute` decides what each
// layer keeps for backward and what it computes again.
//   none       every op keeps what its backward needs (34 s b h + 5 a s^2 b
//              bytes per layer in their setting)
//   selective  the attention core (scores, softmax, dropout, context) is not
//              kept but recomputed before backward: the 5 a s^2 b term goes
//              and one forward of the core is added. A fused attention
//              kernel keeps nothing of size s^2 already: its forward runs
//              again all the same (Megatron-LM re-runs the checkpointed
//              core attention, which keeps its inputs, Q, K and V), and
//              only its softmax statistics go.
//   ops        torchtitan's per-op selective checkpointing (below)
//   dots       JAX's checkpoint_dots_with_no_batch_dims (MaxText's remat
//              policy 'minimal'): the outputs of the weights' products
//              (dot_generals without batch dimensions) are kept, with the
//              layer's input; everything else runs again, the attention
//              core (batched products, or a fused kernel), the norms and
//              the element-wise ops
//   full       only each layer's input is kept (2 s b h); the whole forward
//              of the layer runs again before its backward.
// Selective recomputation recomputes the parts `recompute_modules` names
// (Megatron-LM's recompute_modules; core_attn alone unless written):
//   core_attn       the attention core, as above
//   layernorm       the norms that are modules of their own in Megatron-LM's
//                   Transformer Engine layers: a MoE layer's pre-MLP norm
//                   and MLA's input norm (the others are fused into the next
//                   linear layer, which keeps the norm's output); the linear
//                   layers they feed keep nothing of their input
//   mla_up_proj     MLA's up-projections (the query projection itself
//                   without a query latent) and rotary embedding:
//                   attention keeps no Q, K or V (its softmax statistics
//                   stay)
//   moe_act         the routed experts' activation: the down-projection
//                   keeps nothing of its input
//   mlp             a dense layer's MLP with the norm before it (fused into
//                   its first linear layer): only the norm's input is kept
//   moe             a MoE layer's router, dispatch, experts and combine:
//                   only the router's input is kept
//   shared_experts  the shared experts: only their input is kept
// The first four discard an output once it is consumed and recompute it
// (Megatron-LM's output-discarding checkpoints); the last three keep their
// input. A recomputed op's collectives come with it (partition).
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

#include <algorithm>


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

/// Under `dots`, whether a forward op is recomputed: all but the weights'
/// products (the attention core's products have batch dimensions, and a
/// fused kernel is no product at all).
static bool recomputedUnderDots(const Op &O) {
  return O.Category != OpCategory::Contraction || O.inFusedAttention() ||
         isAttentionProduct(O);
}

/// Under `dots`, whether a weights' product's output is one backward never
/// reads, so JAX keeps nothing of it (a policy names what may be kept; only
/// what backward needs is): the MLP's down-projection, and a parallel
/// block's output projection, whose outputs only join the residual stream
/// (a sequential block's second norm is recomputed from the attention's).
static bool unreadUnderDots(const Op &O, const ModelConfig &M) {
  return O.Kind == OpKind::MlpDown ||
         (O.Kind == OpKind::AttnOut && M.ParallelBlock);
}

/// What a forward op keeps for backward under `ops` and `dots`: both
/// policies keep outputs, so a kept matmul keeps its (kept share of the)
/// output, and the layer keeps its input (ln1's) and, under `ops`, what
/// attention keeps; everything else is recomputed from those.
static void keptByOutputs(Op &O, double RecomputedShare, bool KeepsAttention) {
  if (O.Kind == OpKind::Ln1)
    return;
  if (KeepsAttention &&
      (isAttentionProduct(O) || O.Kind == OpKind::AttnSoftmax ||
       O.Kind == OpKind::AttnDropout))
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

/// Under selective recomputation, whether a layer's forward op O is run
/// again, and what it keeps then (SavedBytes set in place), for the
/// modules the mapping names. Moe: O is in a MoE layer.
static bool selectiveRedo(Op &O, bool Moe, bool Flash,
                          const MappingConfig &Map, const ModelConfig &M) {
  auto Has = [&](RecomputeModule R) { return Map.recomputes(R); };
  bool Redo = false;
  auto Drop = [&](bool Discarded) {
    if (Discarded)
      O.SavedBytes = 0;
  };
  // The attention core: without a fused kernel the s x s tensors go,
  // with one its softmax statistics (kept by the scores).
  if (Has(RecomputeModule::CoreAttn) &&
      hasKindTrait(O.Kind, KindAttentionCore)) {
    Redo = true;
    if (!Flash)
      Drop(O.Kind == OpKind::AttnSoftmax || O.Kind == OpKind::AttnDropout);
    else if (O.Kind == OpKind::AttnScore && O.SavedBytes > 0)
      O.SavedBytes = std::max(0.0, O.SavedBytes - FusedAttentionStatsBytes *
                                                      O.Batch * double(O.M) *
                                                      O.share());
  }
  // A norm of its own, and the linear layers reading its output.
  bool Mla = M.Mla.has_value();
  if (Has(RecomputeModule::Layernorm)) {
    Redo |= (O.Kind == OpKind::Ln1 && Mla) || (O.Kind == OpKind::Ln2 && Moe);
    Drop((Mla && (O.Kind == OpKind::AttnQDown || O.Kind == OpKind::AttnQ ||
                  O.Kind == OpKind::AttnKvDown)) ||
         (Moe && (O.Kind == OpKind::MoeRouter ||
                  O.Kind == OpKind::MoeSharedUp)));
  }
  if (Has(RecomputeModule::MlaUpProj)) {
    // Without a query latent the query projection runs inside the
    // checkpoint too (Megatron-LM's qkv_up_proj_and_rope_apply).
    Redo |= O.Kind == OpKind::AttnQUp || O.Kind == OpKind::AttnKvUp ||
            O.Kind == OpKind::AttnQ || O.Kind == OpKind::AttnRope;
    // Q and K (MLA: as many K heads as Q heads) kept by the scores, V by
    // the context; the scores' softmax statistics stay.
    if (O.Kind == OpKind::AttnScore && O.SavedBytes > 0)
      O.SavedBytes = std::max(0.0, O.SavedBytes - 2 * double(O.M) *
                                                      double(O.K) * O.Batch *
                                                      O.ABytes * O.share());
    Drop(O.Kind == OpKind::AttnContext);
  }
  if (Moe && Has(RecomputeModule::MoeAct)) {
    Redo |= O.Kind == OpKind::MoeExpertAct;
    Drop(O.Kind == OpKind::MoeExpertDown);
  }
  if (!Moe && Has(RecomputeModule::Mlp)) {
    bool Mlp = O.Kind == OpKind::MlpUp || O.Kind == OpKind::MlpAct ||
               O.Kind == OpKind::MlpDown;
    Redo |= Mlp || O.Kind == OpKind::Ln2;
    Drop(Mlp);
  }
  if (Moe && Has(RecomputeModule::Moe)) {
    bool Part = O.Kind == OpKind::MoeRouter || O.Kind == OpKind::MoeTopk ||
                O.Kind == OpKind::MoeDispatch ||
                O.Kind == OpKind::MoeExpertUp ||
                O.Kind == OpKind::MoeUpBias ||
                O.Kind == OpKind::MoeExpertAct ||
                O.Kind == OpKind::MoeExpertDown ||
                O.Kind == OpKind::MoeDownBias ||
                O.Kind == OpKind::MoeSharedUp ||
                O.Kind == OpKind::MoeSharedAct ||
                O.Kind == OpKind::MoeSharedDown ||
                O.Kind == OpKind::MoeCombine;
    Redo |= Part;
    Drop(Part && O.Kind != OpKind::MoeRouter);
  }
  if (Moe && Has(RecomputeModule::SharedExperts)) {
    Redo |= O.Kind == OpKind::MoeSharedUp || O.Kind == OpKind::MoeSharedAct ||
            O.Kind == OpKind::MoeSharedDown;
    Drop(O.Kind == OpKind::MoeSharedAct || O.Kind == OpKind::MoeSharedDown);
  }
  return Redo;
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
      if (S.Mapping.keepsOutputs()) {
        bool Ops = S.Mapping.Recomp == Recompute::Ops;
        double Share = Ops ? recomputedShare(O, S.Model)
                           : double(recomputedUnderDots(O));
        keptByOutputs(O, Share, Ops);
        if (!Ops && unreadUnderDots(O, S.Model))
          O.SavedBytes = 0;
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
      bool Full = S.Mapping.Recomp == Recompute::Full;
      bool Redo = Full || selectiveRedo(O, B.Kind == BlockKind::MoELayer,
                                        Flash, S.Mapping, S.Model);
      if (!Redo)
        continue;
      Op R = O;
      R.Ph = Phase::Recompute;
      R.ModelWork = false;
      R.SavedBytes = 0;
      Again.push_back(R);
      // Full: only the layer's input stays, the first norm's input.
      if (Full && O.Kind != OpKind::Ln1)
        O.SavedBytes = 0;
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
