//===- Fusion.cpp - fused kernels chosen by the mapping ----------------------===//
//
// Each fusion of the mapping's `fusion` list changes the program visibly:
//   flash_attention  scores never reach device memory (Dao et al. 2022): the
//                    softmax and dropout fold into one attention kernel that
//                    reads Q, K, V and writes O; nothing of size s^2 is
//                    saved (only the softmax statistics, 4 bytes per row);
//                    backward recomputes the scores (FlashAttention-2: one
//                    extra Q K^T product, not model work). Its products
//                    are costed without GEMM tile quantisation (the
//                    kernel tiles the sequence, not the head dimension),
//                    at efficiency.attention, and a decoder's causal mask
//                    lets the kernel skip about half of them.
//   bias_gelu,       the activation folds into the up-projection's epilogue
//   swiglu           in prefill and decode; in training it is one pass
//                    (a kernel of its own, forward and backward)
//   bias_dropout_add bias, dropout and residual add become one pass
//   layernorm,       a norm becomes one pass (read once, write once)
//   rmsnorm
//   softmax          scale, mask and softmax become one pass
//   rope             rotary embeddings fold into the QKV projection
//   expert_act       a serving engine's routed experts fold their
//                    activation into the up GEMM's epilogue; without it
//                    (beside swiglu or bias_gelu) the up GEMM writes its
//                    output wide and a kernel of its own reads it and
//                    writes the activation in the experts' input format
//
//===----------------------------------------------------------------------===//

#include "Passes/OpBuilder.h"
#include "Passes/Passes.h"

#include <algorithm>
#include <cmath>

namespace llmsys {
namespace passes {

using namespace ir;

static void foldInto(Op &O, OpKind Into) {
  assert(Into != OpKind::None && "folded into no operator");
  O.FusedInto = Into;
}

/// With a causal mask a fused kernel visits, for each of the n query blocks
/// of 128 rows, only the key blocks up to its own: (n + 1) / (2 n) of the
/// products (FlashAttention-2, Dao 2023, §3.1).
static double causalFraction(int64_t SeqLen) {
  double N = fusedAttentionBlocks(double(std::max<int64_t>(1, SeqLen)));
  return (N + 1) / (2 * N);
}

/// With a causal sliding window of W keys, query block i visits the key
/// blocks from the one holding its first row's earliest key to its own:
/// min(i + 1, 1 + ceil((W - 1) / 128)) of them, partly masked. Returned
/// relative to the min(s, W) keys per query that the op counts: a 128-key
/// window runs two blocks of 128 per query, twice its products.
static double windowFraction(int64_t SeqLen, int64_t Window) {
  double N = fusedAttentionBlocks(double(std::max<int64_t>(1, SeqLen)));
  double C = 1 + fusedAttentionBlocks(double(std::max<int64_t>(1, Window) - 1));
  double Blocks = N <= C ? N * (N + 1) / 2 : C * (C + 1) / 2 + (N - C) * C;
  double Keys = double(std::min(std::max<int64_t>(1, SeqLen), Window));
  return Blocks * FusedAttentionBlock / (N * Keys);
}

/// Within causal chunks of C tokens, query block i of a chunk visits the
/// key blocks of its chunk up to its own. Returned, as windowFraction,
/// relative to the keys per query the op counts (chunkedKeys).
static double chunkFraction(int64_t SeqLen, int64_t Chunk) {
  int64_t S = std::max<int64_t>(1, SeqLen), C = std::max<int64_t>(1, Chunk);
  auto Triangle = [](double Blocks) { return Blocks * (Blocks + 1) / 2; };
  double Full = double(S / C), Rest = double(S % C);
  double Pairs = Full * Triangle(fusedAttentionBlocks(double(C))) +
                 Triangle(fusedAttentionBlocks(Rest));
  double N = fusedAttentionBlocks(double(S));
  return Pairs * FusedAttentionBlock / (N * double(chunkedKeys(S, C)));
}

static void flashAttention(Block &B, AttentionKernel Kernel,
                           double StatsBytesPerRow, bool Causal,
                           int64_t SeqLen) {
  double Executed = Causal ? causalFraction(SeqLen) : 1.0;
  std::vector<Op> Added;
  for (Op &O : B.Ops) {
    if (O.Kind == OpKind::AttnScore || O.Kind == OpKind::AttnContext ||
        hasKindTrait(O.Kind, KindAttentionGradient))
      if (O.Ph != Phase::Decode)
        O.Executed = !O.Window || !Causal ? Executed
                     : O.chunked()        ? chunkFraction(SeqLen, O.span())
                                          : windowFraction(SeqLen, O.Window);
    bool Fwd = O.Ph == Phase::Forward || O.Ph == Phase::Prefill ||
               O.Ph == Phase::Recompute;
    if (O.Kind == OpKind::AttnSoftmax || O.Kind == OpKind::AttnDropout) {
      foldInto(O, OpKind::AttnFlash);
      O.SavedBytes = 0;
      continue;
    }
    if (O.Kind == OpKind::AttnScore && Fwd && O.Ph != Phase::Decode) {
      O.FusedAttention = Kernel;
      // Reads Q and K; the scores stay on chip. Keeps the softmax
      // statistics (log-sum-exp per query row, fp32) for backward.
      O.BytesWritten = 0;
      if (O.SavedBytes > 0)
        O.SavedBytes += StatsBytesPerRow * O.Batch * O.M * O.share();
      if (O.Ph == Phase::Forward) {
        Op Again = O;
        Again.Kind = OpKind::AttnFlashRescore;
        Again.Ph = Phase::BackwardData;
        Again.ModelWork = false;
        Again.SavedBytes = 0;
        Again.BytesRead = Again.BytesWritten = 0; // Q and K are on chip
        Added.push_back(Again);
      }
      continue;
    }
    if (O.Kind == OpKind::AttnContext && Fwd && O.Ph != Phase::Decode) {
      O.FusedAttention = Kernel;
      // Reads V and writes O; the probabilities never left the chip.
      double Probabilities = double(O.M) * O.K * O.Batch * O.ABytes * O.share();
      O.BytesRead -= Probabilities;
      continue;
    }
    if (hasKindTrait(O.Kind, KindAttentionGradient)) {
      O.FusedAttention = Kernel;
      // Backward products read and write Q, K, V, O and their gradients,
      // never an s x s matrix.
      double Square = double(O.M) *
                      (O.Kind == OpKind::AttnContextDp ? O.N : O.K) *
                      O.Batch * O.ABytes * O.share();
      if (O.Kind == OpKind::AttnContextDp)
        O.BytesWritten -= Square;
      else
        O.BytesRead -= Square;
    }
  }
  // The rescore runs before the other backward products of the layer.
  for (Op &A : Added) {
    auto It = B.Ops.begin();
    while (It != B.Ops.end() && It->Kind != OpKind::AttnContextDp)
      ++It;
    B.Ops.insert(It, A);
  }
}

bool fuse(Program &P, PassContext &) {
  // (The flags tested per op, copied: the ops written below could alias
  // the scenario's fields for all the compiler knows.)
  const FusionSet F = P.Scenario.Mapping.Fusion;
  const ModelConfig &M = P.Scenario.Model;
  const bool GatedMlp = M.GatedMlp;
  // The MLP activation's unfused and one-pass counts (Passes/OpBuilder.h).
  const PointwiseModel Traits = pointwiseModel(M, /*Dropout=*/false);
  // The routed experts' activation without the bias add where the up
  // projection's bias is a pass of its own (expand-layers built it so).
  PointwiseModel ExpertTraits = Traits;
  ExpertTraits.Bias = Traits.Bias && !upBiasApart(M, P.Scenario.Mapping);
  // A serving engine's routed experts without expert_act: the up GEMM
  // writes its output in the wide format (the mapping's precision) and the
  // activation is a kernel of its own that reads it and writes the down
  // GEMM's input (TensorRT-LLM's CUTLASS MoE, doActivation after FC1).
  const bool ActFused = F.activationFused(GatedMlp);
  const bool ExpertActKernel = ActFused && !F.ExpertAct && Traits.Routed &&
                               !(ExpertTraits.GluClamp && !F.GluClamp);
  const double Wide = dtypeBytes(P.Scenario.Mapping.Precision);
  for (Block &B : P.Blocks) {
    if (F.flashAttention() &&
        (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer))
      flashAttention(B, F.Attention, FusedAttentionStatsBytes, !M.Encoder,
                     P.SeqLen);
    // The routed up GEMMs of a serving step write their output wide (the
    // element's bytes, the activations', kept for the activation's kernel).
    double ExpertUpBytes = 0;
    if (ExpertActKernel && B.Kind == BlockKind::MoELayer)
      for (Op &O : B.Ops)
        if (O.Kind == OpKind::MoeExpertUp &&
            (O.Ph == Phase::Prefill || O.Ph == Phase::Decode) &&
            O.ABytes > 0) {
          O.BytesWritten *= Wide / O.ABytes;
          ExpertUpBytes = O.ABytes;
        }
    for (Op &O : B.Ops) {
      if (O.fused())
        continue;
      // Element-wise ops that become one pass, forward and backward: from
      // the unfused passes of expand-layers (residual: read 4, write 3
      // values; norm: 3 and 2; softmax: 4 and 3; the MLP activation,
      // IR/OpKinds.def) to one read of each input
      // and one write. A backward op reads what its forward read and wrote,
      // and writes what it read. Norm weights are read once either way.
      bool Backward = O.Ph == Phase::BackwardData;
      auto OnePass = [&](double R, double W, double Rf, double Wf,
                         double Fixed) {
        double ReadScale = Backward ? (Rf + Wf) / (R + W) : Rf / R;
        double WriteScale = Backward ? Rf / R : Wf / W;
        O.BytesRead = (O.BytesRead - Fixed) * ReadScale + Fixed;
        O.BytesWritten *= WriteScale;
      };
      if (F.BiasDropoutAdd &&
          (O.Kind == OpKind::AttnResidual || O.Kind == OpKind::MlpResidual)) {
        OnePass(4, 3, 2, 1, 0);
        continue;
      }
      if (F.Norm &&
          (O.Kind == OpKind::Ln1 || O.Kind == OpKind::Ln2 ||
           O.Kind == OpKind::FinalNorm || O.Kind == OpKind::AttnQkNorm)) {
        // (The query and key norms' scales: head_dim values each.)
        double Width = O.Kind == OpKind::AttnQkNorm ? 2.0 * double(M.HeadDim)
                                                    : double(M.Hidden);
        double Weights =
            normScaleBytes(M, Width, dtypeBytes(P.Scenario.Mapping.Weights));
        OnePass(3, 2, 1, 1, Backward ? 0 : Weights);
        continue;
      }
      if (F.Softmax && O.Kind == OpKind::AttnSoftmax) {
        OnePass(4, 3, 1, 1, 0);
        continue;
      }
      if (ActFused &&
          (O.Kind == OpKind::MlpAct || O.Kind == OpKind::MoeExpertAct ||
           O.Kind == OpKind::MoeSharedAct)) {
        // A gated activation's clamp (model glu_clamp) is inside the
        // kernel with `glu_clamp`; without it the clamp's passes stay
        // beside the kernel (Passes/OpBuilder.h clampRead), and the
        // activation cannot run in a GEMM's epilogue.
        const PointwiseModel &Act =
            O.Kind == OpKind::MoeExpertAct ? ExpertTraits : Traits;
        const bool ClampOutside = Act.GluClamp && !F.GluClamp;
        const bool Serving = O.Ph == Phase::Prefill || O.Ph == Phase::Decode;
        // Serving engines run the activation in the up GEMM's epilogue,
        // a routed expert's only with expert_act (else the kernel above).
        // Training frameworks run it as one element-wise kernel of its own
        // (Megatron-LM's bias_swiglu_impl and bias_gelu_impl, torch.compile's
        // fused point-wise kernel), forward and backward: it reads the up
        // GEMM's output (a gated unit's two halves) and writes its own.
        if (Serving && ExpertActKernel && O.Kind == OpKind::MoeExpertAct) {
          // A kernel of its own: one pass reading the up GEMM's wide
          // output (a gated unit's two halves) and writing one value in
          // the experts' input format, the bytes a value of the unfused
          // counts has (TensorRT-LLM's doActivation, which quantizes for
          // the down GEMM as it writes).
          OnePass(Act.activationRead(), Act.activationWritten(),
                  Act.fusedActivationRead() *
                      (ExpertUpBytes > 0 ? Wide / ExpertUpBytes : 1),
                  1, 0);
          continue;
        }
        if (Serving && !ClampOutside) {
          foldInto(O, O.Kind == OpKind::MlpAct         ? OpKind::MlpUp
                      : O.Kind == OpKind::MoeSharedAct ? OpKind::MoeSharedUp
                                                       : OpKind::MoeExpertUp);
          continue;
        }
        OnePass(Act.activationRead(), Act.activationWritten(),
                Act.fusedActivationRead() +
                    (ClampOutside ? Act.clampRead() : 0),
                1 + (ClampOutside ? Act.clampWritten() : 0), 0);
        continue;
      }
      if (F.Rope && O.Kind == OpKind::AttnRope &&
          (O.Ph == Phase::Forward || O.Ph == Phase::Prefill ||
           O.Ph == Phase::Decode || O.Ph == Phase::Recompute)) {
        // (After the query and key norms, into their kernel: TensorRT-LLM's
        // and vLLM's fused qk-norm and rope.)
        foldInto(O, M.Mla      ? OpKind::AttnKvDown
                    : M.QkNorm ? OpKind::AttnQkNorm
                               : OpKind::AttnQkv);
        continue;
      }
    }
  }
  return true;
}

} // namespace passes
} // namespace llmsys
