//===- ExpandLayers.cpp - scenario to operators ------------------------------===//
//
// Builds the operators of one training micro-batch (forward, backward with
// data- and weight-gradient GEMMs, the optimizer step) or of one serving
// request batch (prefill of the prompt, one decode step against a KV cache
// whose length is a parameter of the op), for the whole model on one device:
// `partition` splits it afterwards.
//
// FLOPs are those of the matrix products as Megatron-LM counts them
// (Narayanan et al. 2021 §5.1; Korthikanti et al. 2022 App. A): attention
// scores over the whole s x s matrix, 2 FLOPs per multiply-add. Saved
// activations follow Korthikanti et al. 2022 §4.1 op by op, so that a layer
// keeps 34 s b h + 5 a s^2 b bytes with 16-bit activations, dropout and
// f = 4h; other shapes and formats follow from the same accounting.
//
//===----------------------------------------------------------------------===//

#include "Passes/OpBuilder.h"
#include "Passes/Passes.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace llmsys {
namespace passes {

using namespace ir;

namespace {

/// Room asked of the pool for a list of a layer's operators (its forward
/// and backward), and of a smaller block's (embedding, head, optimizer):
/// what most programs' blocks hold after the passes, partition's
/// collectives included (the validation cases' at most 99 and 29); a list
/// that needs more grows, and the pool keeps it.
constexpr size_t LayerRoom = 128, SmallBlockRoom = 32;

class LayerBuilder {
public:
  LayerBuilder(const ScenarioConfig &S, Phase Fwd, int64_t Sequences,
               int64_t SeqLen)
      : S(S), M(S.Model), Fwd(Fwd), B(Sequences), Seq(SeqLen),
        T(Sequences * SeqLen), Act(S.Mapping.Activations),
        AB(dtypeBytes(S.Mapping.Activations)),
        PB(dtypeBytes(S.Mapping.Precision)), WB(dtypeBytes(S.Mapping.Weights)),
        Training(Fwd == Phase::Forward), Dropout(Training && M.Dropout > 0),
        PM(pointwiseModel(M, Dropout)),
        AttnT(Training ? Act : servingAttentionFormat(S.Mapping)),
        AttnB(dtypeBytes(AttnT)) {}

  /// Of the layers the ops being built stand for, the fraction that attend
  /// within the sliding window (a layer pattern: the rest attend over the
  /// whole context).
  double WindowedShare = 0;

  void norm(std::vector<Op> &Ops, OpKind Name) {
    double Elements = double(T) * M.Hidden;
    // Unfused (framework ops): statistics, normalise, scale and shift read
    // the input three times and write twice; `fuse` makes it one pass.
    // The residual stream it reads is in the base format (`precision`),
    // even when GEMM inputs are narrower.
    Op O = pointwise(Name, Fwd, Act, PB, Elements, PM);
    O.BytesRead += normScaleBytes(M, double(M.Hidden), WB);
    O.SequenceRegion = true;
    O.SavedInSequenceRegion = true;
    if (Training)
      O.SavedBytes = Elements * PB; // its input
    Ops.push_back(O);
  }

  /// The formats of a linear layer of kind Name and of the tensors inside
  /// its part: the mapping's weights and activations, or its precision
  /// for a part a serving mapping's `quantized` leaves out.
  struct Formats {
    DType Act;
    double AB, WB;
  };
  Formats formats(OpKind Name) const {
    std::optional<QuantizedPart> Part = quantizedPart(Name);
    if (Part && !S.Mapping.quantizes(*Part))
      return {S.Mapping.Precision, PB, PB};
    // Block-scaled 8-bit GEMMs (serving's scale_block): the activations'
    // scales in their bytes, as the quantize pass writes a recipe's block
    // (ir::Op::blockScaled).
    if (S.Mapping.ScaleBlock > 0 && dtypeBytes(Act) == 1)
      return {Act, AB + 1.0 / double(S.Mapping.ScaleBlock), WB};
    return {Act, AB, WB};
  }

  /// A weight GEMM on the token stream: Out features from In features.
  /// Tensor parallelism splits its output features (column-parallel), its
  /// input features (row-parallel), or neither (replicated).
  Op linear(OpKind Name, int64_t Rows, int64_t In, int64_t Out,
            bool InputInSequenceRegion, Axis Tp = Axis::N) {
    Formats F = formats(Name);
    Op O = gemm(Name, Fwd, F.Act, F.AB, F.WB, Rows, Out, In);
    O.SavedInSequenceRegion = InputInSequenceRegion;
    O.TpAxis = Tp;
    O.TokenAxis = Axis::M;
    O.SequenceRegion = Tp == Axis::None;
    if (Training)
      O.SavedBytes = double(Rows) * In * AB; // its input
    return O;
  }

  /// Bias, dropout and residual add after a projection back to h.
  void residual(std::vector<Op> &Ops, OpKind Name) {
    double Elements = double(T) * M.Hidden;
    // Unfused: bias add, dropout and residual add are three passes over
    // memory (read 4, write 3 values); `fuse` makes them one.
    Op O = pointwise(Name, Fwd, Act, PB, Elements, PM);
    O.SequenceRegion = true;
    O.SavedInSequenceRegion = true;
    if (Dropout)
      O.SavedBytes = Elements; // 1-byte mask
    Ops.push_back(O);
  }

  void attention(std::vector<Op> &Ops) {
    int64_t A = M.Heads, G = M.KvHeads, D = M.HeadDim, H = M.Hidden;
    int64_t QkDim = D, VDim = D;
    if (M.Mla) {
      // DeepSeek-V2 §2.1: low-rank query and joint KV compression, then
      // per-head up-projections; rotary parts decoupled.
      const MLAConfig &L = *M.Mla;
      QkDim = L.QkNopeHeadDim + L.QkRopeHeadDim;
      VDim = L.VHeadDim;
      G = A;
      if (L.QLoraRank) {
        // The down-projections are small and replicated over the TP group.
        Ops.push_back(linear(OpKind::AttnQDown, T, H, L.QLoraRank, true, Axis::None));
        Ops.push_back(linear(OpKind::AttnQUp, T, L.QLoraRank, A * QkDim, false));
        Ops.back().SavedInSequenceRegion = false;
      } else {
        Ops.push_back(linear(OpKind::AttnQ, T, H, A * QkDim, true));
      }
      Ops.push_back(linear(OpKind::AttnKvDown, T, H, L.KvLoraRank + L.QkRopeHeadDim,
                           true, Axis::None));
      Ops.push_back(
          linear(OpKind::AttnKvUp, T, L.KvLoraRank, A * (L.QkNopeHeadDim + VDim),
                 false));
    } else {
      Ops.push_back(linear(OpKind::AttnQkv, T, H, (A + 2 * G) * D, true));
      if (M.QkNorm) {
        // Each query and key head normalised over its D values (Qwen3's
        // q_norm and k_norm), in the projections' output format, with one
        // scale vector (and shift) of D each; it keeps its input.
        double Elements = double(T) * (A + G) * D;
        Formats F = formats(OpKind::AttnQkv);
        Op N = pointwise(OpKind::AttnQkNorm, Fwd, F.Act, F.AB, Elements, PM);
        N.BytesRead += normScaleBytes(M, 2 * double(D), WB);
        if (Training)
          N.SavedBytes = Elements * F.AB;
        Ops.push_back(N);
      }
    }
    if (!M.LearnedPositions && !M.Encoder) {
      double Elements = double(T) * (A + G) * (M.Mla ? M.Mla->QkRopeHeadDim : D);
      Formats F = formats(OpKind::AttnQkv); // rotates the projections' output
      Ops.push_back(pointwise(OpKind::AttnRope, Fwd, F.Act, F.AB, Elements, PM));
    }

    // The products over the keys: for the layers that attend within the
    // window, and for those that attend over the whole context.
    if (WindowedShare > 0) {
      if (M.AttentionChunk)
        attentionCore(Ops, A, G, QkDim, VDim,
                      chunkedKeys(Seq, M.AttentionChunk), -M.AttentionChunk,
                      WindowedShare);
      else
        attentionCore(Ops, A, G, QkDim, VDim, std::min(Seq, M.SlidingWindow),
                      M.SlidingWindow, WindowedShare);
    }
    if (WindowedShare < 1)
      attentionCore(Ops, A, G, QkDim, VDim, Seq, 0, 1 - WindowedShare);
    Ops.push_back(linear(OpKind::AttnOut, T, A * VDim, H, false, Axis::K));
  }

  /// The attention products of Share of the layers, each query over Keys
  /// keys (Window: the sliding window, minus the chunk, 0 for neither).
  void attentionCore(std::vector<Op> &Ops, int64_t A, int64_t G, int64_t QkDim,
                     int64_t VDim, int64_t Keys, int64_t Window, double Share) {
    size_t First = Ops.size();
    // Scores: Q K^T per head; K (and V) shared by a / g query heads.
    double Scores = double(B) * A * Seq * Keys;
    Op Score = gemm(OpKind::AttnScore, Fwd, AttnT, AttnB, AttnB, Seq, Keys,
                    QkDim, B * A);
    Score.TpAxis = Axis::Batch;
    Score.TokenAxis = Axis::M;
    Score.BytesRead =
        (double(T) * A * QkDim + double(B) * Keys * G * QkDim) * AttnB;
    if (Training)
      Score.SavedBytes =
          (double(T) * A * QkDim + double(T) * G * QkDim) * AttnB;
    Ops.push_back(Score);

    // Unfused scale, mask and softmax: read 4, write 3 values per score.
    Op Softmax = pointwise(OpKind::AttnSoftmax, Fwd, AttnT, AttnB, Scores, PM);
    if (Training)
      Softmax.SavedBytes = Scores * AttnB; // its output
    Ops.push_back(Softmax);
    if (Dropout) {
      Op Drop = pointwise(OpKind::AttnDropout, Fwd, AttnT, AttnB, Scores, PM);
      Drop.SavedBytes = Scores * (1 + AttnB); // mask and output
      Ops.push_back(Drop);
    }
    Op Context = gemm(OpKind::AttnContext, Fwd, AttnT, AttnB, AttnB, Seq, VDim,
                      Keys, B * A);
    Context.TpAxis = Axis::Batch;
    Context.TokenAxis = Axis::M;
    Context.BytesRead = (Scores + double(B) * Keys * G * VDim) * AttnB;
    if (Training)
      Context.SavedBytes = double(T) * G * VDim * AttnB; // V
    Ops.push_back(Context);
    for (size_t I = First; I < Ops.size(); ++I) {
      // (A window or chunk past 2^31 tokens is wider than any sequence
      // llmsys runs.)
      Ops[I].Window = int32_t(
          std::clamp<int64_t>(Window, -std::numeric_limits<int32_t>::max(),
                              std::numeric_limits<int32_t>::max()));
      applyShare(Ops[I], Share);
    }
  }

  void mlp(std::vector<Op> &Ops, int64_t Ffn) {
    int64_t H = M.Hidden;
    int64_t Up = M.GatedMlp ? 2 * Ffn : Ffn;
    Op UpProj = linear(OpKind::MlpUp, T, H, Up, true);
    if (M.SharedNorm)
      UpProj.SavedBytes = 0; // ln1's output, which attention saves
    Ops.push_back(UpProj);
    double Elements = double(T) * Ffn;
    Formats F = formats(OpKind::MlpUp);
    Op Act_ = pointwise(OpKind::MlpAct, Fwd, F.Act, F.AB, Elements, PM);
    if (Training)
      Act_.SavedBytes = double(T) * Up * AB; // its input
    Ops.push_back(Act_);
    Ops.push_back(linear(OpKind::MlpDown, T, Ffn, H, false, Axis::K));
  }

  /// A routed expert GEMM's bias added by passes of its own over its
  /// output, Rows x Width values in training's activation format
  /// (Passes/OpBuilder.h expertBiasTraffic): the op's A and C bytes are
  /// that format's, its B bytes those of the bias as added. The down
  /// projection's is weighted by the routing probabilities, FP32 where
  /// DeepEP or HybridEP dispatch (ep_dispatch = hierarchical: Megatron-LM's
  /// MoEFlexTokenDispatcher casts them), else in the router's format, the
  /// activations' (moe_router_dtype unset). What the passes keep for
  /// backward is a bias row and a probability per token: nothing counted.
  Op expertBias(OpKind Kind, double Rows, int64_t Width) {
    double Sum = Kind == OpKind::MoeDownBias &&
                         S.Mapping.EpDispatchKind == EpDispatch::Hierarchical
                     ? std::max(AB, dtypeBytes(DType::FP32))
                     : AB;
    PointwiseCounts Per = expertBiasTraffic(Kind, AB, Sum, false);
    double Elements = Rows * double(Width);
    Op O = pointwise(Kind, Fwd, Act, 1, Elements,
                     traffic(Per.Read, Per.Written));
    O.Flops = Elements * Per.Flops;
    O.ABytes = float(AB);
    O.BBytes = float(Sum);
    return O;
  }

  void moe(std::vector<Op> &Ops) {
    const MoEConfig &E = *M.Moe;
    int64_t H = M.Hidden;
    Ops.push_back(linear(OpKind::MoeRouter, T, H, E.Experts, true, Axis::None));
    Ops.push_back(
        pointwise(OpKind::MoeTopk, Fwd, Act, AB, double(T) * E.Experts, PM));
    double Routed = double(T) * E.TopK;
    // The routed tokens travel in the experts' input format.
    Formats X = formats(OpKind::MoeExpertUp);
    Op Dispatch =
        pointwise(OpKind::MoeDispatch, Fwd, X.Act, X.AB, Routed * H, PM);
    Ops.back().SequenceRegion = true;
    Dispatch.SequenceRegion = true;
    Ops.push_back(Dispatch);
    // Experts a batch of tokens reaches, and tokens per expert (with the
    // capacity factor's padding).
    ExpertLoad Load = expertLoad(double(T), E);
    int64_t Experts = Load.Experts, PerExpert = Load.TokensPerExpert;
    int64_t Up = M.GatedMlp ? 2 * E.ExpertFfn : E.ExpertFfn;
    Op ExpertUp = gemm(OpKind::MoeExpertUp, Fwd, X.Act, X.AB, X.WB, PerExpert,
                       Up, H, Experts);
    // The experts' biases added apart (expert_bias), over the GEMMs'
    // outputs, which are in training's activation format whatever the
    // recipe.
    const ExpertBias BiasKind =
        Training && M.Bias ? S.Mapping.ExpertBiasKind : ExpertBias::Fused;
    PointwiseModel ActModel = PM;
    ActModel.Bias = PM.Bias && !upBiasApart(M, S.Mapping);
    Op ExpertAct = pointwise(OpKind::MoeExpertAct, Fwd, X.Act, X.AB,
                             double(PerExpert) * Experts * E.ExpertFfn,
                             ActModel);
    Op ExpertDown = gemm(OpKind::MoeExpertDown, Fwd, X.Act, X.AB, X.WB,
                         PerExpert, H, E.ExpertFfn, Experts);
    ExpertUp.TpAxis = Axis::N;
    ExpertDown.TpAxis = Axis::K;
    ExpertUp.TokenAxis = ExpertDown.TokenAxis = Axis::M;
    if (Training) {
      ExpertUp.SavedBytes = double(PerExpert) * Experts * H * AB;
      ExpertAct.SavedBytes = double(PerExpert) * Experts * Up * AB;
      ExpertDown.SavedBytes = double(PerExpert) * Experts * E.ExpertFfn * AB;
    }
    Ops.push_back(ExpertUp);
    if (BiasKind == ExpertBias::Unfused)
      Ops.push_back(expertBias(OpKind::MoeUpBias, double(PerExpert) * Experts,
                               Up));
    Ops.push_back(ExpertAct);
    Ops.push_back(ExpertDown);
    if (BiasKind != ExpertBias::Fused)
      Ops.push_back(expertBias(OpKind::MoeDownBias,
                               double(PerExpert) * Experts, H));
    if (E.SharedExperts) {
      Formats Sh = formats(OpKind::MoeSharedUp);
      Op SharedUp = gemm(OpKind::MoeSharedUp, Fwd, Sh.Act, Sh.AB, Sh.WB, T, Up,
                         H, E.SharedExperts);
      Op SharedAct = pointwise(OpKind::MoeSharedAct, Fwd, Sh.Act, Sh.AB,
                               double(T) * E.SharedExperts * E.ExpertFfn, PM);
      Op SharedDown = gemm(OpKind::MoeSharedDown, Fwd, Sh.Act, Sh.AB, Sh.WB, T,
                           H, E.ExpertFfn, E.SharedExperts);
      SharedUp.TpAxis = Axis::N;
      SharedDown.TpAxis = Axis::K;
      SharedUp.TokenAxis = SharedDown.TokenAxis = Axis::M;
      if (Training) {
        SharedUp.SavedBytes = double(T) * H * AB;
        SharedAct.SavedBytes = double(T) * E.SharedExperts * Up * AB;
        SharedDown.SavedBytes = double(T) * E.SharedExperts * E.ExpertFfn * AB;
      }
      Ops.push_back(SharedUp);
      Ops.push_back(SharedAct);
      Ops.push_back(SharedDown);
    }
    Ops.push_back(
        pointwise(OpKind::MoeCombine, Fwd, X.Act, X.AB, Routed * H, PM));
    Ops.back().BytesWritten = double(T) * H * X.AB;
    Ops.back().SequenceRegion = true;
  }

  /// Appends the forward ops of one layer.
  void layer(bool Moe, std::vector<Op> &Ops) {
    norm(Ops, OpKind::Ln1);
    attention(Ops);
    residual(Ops, OpKind::AttnResidual);
    // A parallel block's MLP reads the layer's input too: through ln1's
    // output (shared_norm), or a norm of its own of the same input. Its
    // attention and MLP outputs each take their bias (and dropout) and
    // are added to the stream, as a sequential block's.
    if (!M.SharedNorm) {
      norm(Ops, OpKind::Ln2);
      // (two_norms: its input is the layer's, which ln1 keeps.)
      if (M.ParallelBlock)
        Ops.back().SavedBytes = 0;
    }
    if (Moe)
      moe(Ops);
    else
      mlp(Ops, M.Ffn);
    residual(Ops, OpKind::MlpResidual);
  }

  const ScenarioConfig &S;
  const ModelConfig &M;
  Phase Fwd;
  int64_t B, Seq, T;
  DType Act;
  double AB, PB, WB;
  bool Training, Dropout;
  /// The model's traits the pointwise counts read (IR/OpKinds.def).
  PointwiseModel PM;
  /// The attention products' format: training's activations (the recipe
  /// pass narrows or widens them), a serving engine's attention kernels'.
  DType AttnT;
  double AttnB;
};

/// Of a block of Count layers of one kind (the model's dense or MoE
/// layers, then any multi-token-prediction layers after the last), the
/// fraction that attend within the sliding window. Each layer of the block
/// is costed as their mean: a pipeline stage holding an odd part of a
/// GPT-OSS block is off by at most half a layer's attention products.
double windowedShare(const ModelConfig &M, bool Moe, int64_t Count) {
  if (!Count)
    return 0;
  int64_t Own = Moe ? M.moeLayers() : M.denseLayers();
  int64_t Extra = std::max<int64_t>(0, Count - Own);
  double Windowed = double(M.windowedLayersOf(Moe)) +
                    double(M.windowedLayers(M.Layers, Extra));
  return Windowed / double(Count);
}

/// Appends the backward ops of the forward op list Ops, in reverse order:
/// each weight GEMM gets a data-gradient and a weight-gradient GEMM, each
/// attention product two data-gradient products, other ops one backward
/// op.
void appendBackward(std::vector<Op> &Ops) {
  size_t Forward = Ops.size();
  // Room for every backward op first: the forward ops read below stay put.
  Ops.reserve(3 * Forward);
  for (size_t I = Forward; I-- > 0;) {
    const Op &F = Ops[I];
    if (F.Category == OpCategory::Contraction) {
      double AB = F.ABytes, BB = F.BBytes;
      bool IsAttention = F.Kind == OpKind::AttnScore ||
                         F.Kind == OpKind::AttnContext;
      if (IsAttention) {
        // Score S = Q K^T: dQ = dS K, dK = dS^T Q. Context O = P V:
        // dP = dO V^T, dV = P^T dO. Heads split over TP (the batch); the
        // queries are the tokens context parallelism splits.
        bool Score = F.Kind == OpKind::AttnScore;
        // Forward score: M = queries, N = keys, K = head dim; forward
        // context: M = queries, N = head dim, K = keys.
        Op A = gemm(Score ? OpKind::AttnScoreDq : OpKind::AttnContextDp,
                    Phase::BackwardData, F.Type, AB, AB, F.M, F.K, F.N,
                    F.Batch);
        Op B = Score ? gemm(OpKind::AttnScoreDk, Phase::BackwardData, F.Type, AB,
                            AB, F.N, F.K, F.M, F.Batch)
                     : gemm(OpKind::AttnContextDv, Phase::BackwardData, F.Type, AB,
                            AB, F.K, F.N, F.M, F.Batch);
        A.TpAxis = B.TpAxis = Axis::Batch;
        A.TokenAxis = Axis::M;
        B.TokenAxis = Axis::K;
        A.SequenceRegion = B.SequenceRegion = F.SequenceRegion;
        A.Window = B.Window = F.Window;
        applyShare(A, F.share());
        applyShare(B, F.share());
        Ops.push_back(A);
        Ops.push_back(B);
        continue;
      }
      // dX[M x K] = dY[M x N] W^T; dW[K x N] = X^T[K x M] dY[M x N].
      Op DX = gemm(F.Kind, Phase::BackwardData, F.Type, AB, BB, F.M, F.K, F.N,
                   F.Batch);
      Op DW = gemm(F.Kind, Phase::BackwardWeight, F.Type, AB, AB, F.K, F.N,
                   F.M, F.Batch);
      DW.BytesWritten = double(F.K) * F.N * F.Batch * BB;
      DX.TokenAxis = Axis::M;
      DW.TokenAxis = Axis::K;
      DX.TpAxis = F.TpAxis == Axis::N ? Axis::K
                  : F.TpAxis == Axis::K ? Axis::N
                                        : Axis::None;
      DW.TpAxis = F.TpAxis == Axis::N ? Axis::N
                  : F.TpAxis == Axis::K ? Axis::M
                                        : Axis::None;
      DX.SequenceRegion = DW.SequenceRegion = F.SequenceRegion;
      Ops.push_back(DX);
      Ops.push_back(DW);
      continue;
    }
    Op Bwd = F;
    Bwd.Ph = F.Category == OpCategory::Memory ? Phase::BackwardWeight
                                              : Phase::BackwardData;
    Bwd.Flops = 2 * F.Flops;
    Bwd.BytesRead = F.BytesRead + F.BytesWritten; // gradient and saved input
    Bwd.BytesWritten = F.BytesRead;
    if (F.Kind == OpKind::MoeUpBias || F.Kind == OpKind::MoeDownBias) {
      // Counted pass by pass (Passes/OpBuilder.h), over the forward's
      // elements.
      PointwiseCounts Fw =
          expertBiasTraffic(F.Kind, F.ABytes, F.BBytes, false);
      PointwiseCounts Bw =
          expertBiasTraffic(F.Kind, F.ABytes, F.BBytes, true);
      double Elements = F.BytesRead / Fw.Read;
      Bwd.Ph = Phase::BackwardData;
      Bwd.Flops = Elements * Bw.Flops;
      Bwd.BytesRead = Elements * Bw.Read;
      Bwd.BytesWritten = Elements * Bw.Written;
    }
    Bwd.SavedBytes = 0;
    Ops.push_back(Bwd);
  }
  for (size_t I = Forward; I < Ops.size(); ++I)
    Ops[I].SavedBytes = 0;
}

/// Memory traffic of a mixed-precision optimizer step per parameter, as
/// Megatron-LM runs it: one pass over the parameters for each of
/// (megatron/optimizer/optimizer.py, Float16OptimizerWithFloat16Params.step;
/// distributed.py, zero_grad_buffer)
///  - gradients narrower than fp32 copied to fp32 main gradients (read g,
///    write 4);
///  - with fp16, whose dynamic loss scaling needs it: unscale and check for
///    inf/nan (read 4, write 4);
///  - the gradient norm for clipping (read 4); the clipping scale itself
///    runs only when the norm exceeds the threshold and is not counted;
///  - the update: read the state and the gradient, write the state (Adam
///    16 read, 12 written; SGD with momentum 12 and 8);
///  - the working weights from the fp32 master (read 4, write w);
/// and, a kernel of its own over the whole gradient buffer (the optimizer
/// shards the rest with ZeRO or the distributed optimizer, not this):
///  - the gradient buffer zeroed for the next step (write g).
struct OptimizerTraffic {
  double Read = 0, Written = 0;
  double Zeroed = 0;
};

/// With Muon, of its matrices (State 8, the momentum SGD's passes), plus
/// Nesterov's look-ahead (read the gradient and the momentum, write the
/// update: 8 and 4), the update cast to the bf16 operand of the
/// Newton-Schulz GEMMs (read 4, write 2) and the orthogonalized update
/// read back into the step (2); the GEMMs themselves are ops of their own
/// (the partition pass's muon.newton_schulz).
OptimizerTraffic optimizerTraffic(const ScenarioConfig &S, bool Muon = false) {
  const MappingConfig &M = S.Mapping;
  double G = dtypeBytes(M.Gradients), W = dtypeBytes(M.Weights);
  double State = Muon ? ScenarioConfig::MuonStateBytes : S.optimizerStateBytes();
  OptimizerTraffic T;
  if (G < 4) {
    T.Read += G;
    T.Written += 4;
  }
  if (M.Precision == DType::FP16) {
    T.Read += 4;
    T.Written += 4;
  }
  T.Read += 4;                 // gradient norm
  T.Read += State + 4;         // update
  T.Written += State;
  T.Read += 4;                 // working weights
  T.Written += W;
  if (Muon) {
    T.Read += 8 + 4 + 2;       // look-ahead, bf16 operand, the step's input
    T.Written += 4 + 2;
  }
  T.Zeroed = G;
  return T;
}

} // namespace

bool expandLayers(Program &P, PassContext &Ctx) {
  const ScenarioConfig &S = P.Scenario;
  const ModelConfig &M = S.Model;
  ParamCount Params = countParams(M);
  // The traits the embedding, head, optimizer and cache ops' counts read.
  const PointwiseModel Model = pointwiseModel(M, /*Dropout=*/false);
  // A block of Count identical layers (dense or MoE), without its ops.
  auto LayerBlock = [&](BlockKind Kind, int64_t Count, bool Moe) {
    Block L;
    // (Room for a layer's forward and, later, its backward.)
    L.Ops = Ctx.Lists.take(LayerRoom);
    L.Kind = Kind;
    L.Repeat = Count;
    L.Params = Params.AttentionPerLayer + Params.NormsPerLayer +
               (Moe ? Params.MoePerLayer : Params.DenseMlpPerLayer);
    // The parts a serving mapping's `quantized` leaves in the precision.
    const MappingConfig &Map = S.Mapping;
    auto Wide = [&](QuantizedPart Part, double N) {
      if (!Map.quantizes(Part))
        L.WideParams += N;
    };
    Wide(QuantizedPart::AttentionIn,
         Params.AttentionPerLayer - Params.AttentionOutPerLayer);
    Wide(QuantizedPart::AttentionOut, Params.AttentionOutPerLayer);
    if (Moe) {
      Wide(QuantizedPart::Router, Params.RouterPerLayer);
      Wide(QuantizedPart::SharedExperts, Params.SharedExpertsPerLayer);
      Wide(QuantizedPart::Experts, Params.MoePerLayer - Params.RouterPerLayer -
                                       Params.SharedExpertsPerLayer);
    } else {
      Wide(QuantizedPart::Mlp, Params.DenseMlpPerLayer);
    }
    return L;
  };
  double AB = dtypeBytes(S.Mapping.Activations);
  double WB = dtypeBytes(S.Mapping.Weights);
  DType Act = S.Mapping.Activations;
  // Serving quantizes the layers' linear weights only: the embedding table
  // and the LM head stay in the base precision (ModelOpt's default
  // configs disable "*lm_head*"; vLLM's and TensorRT-LLM's quantization
  // methods cover the layers' linear modules, not the vocabulary ones).
  // Training's head runs in its recipe's `head` format (Quantize.cpp).
  DType VocabType = S.Training ? Act : S.Mapping.Precision;
  double VocabAB = S.Training ? AB : dtypeBytes(VocabType);
  double VocabWB = S.Training ? WB : dtypeBytes(VocabType);

  // The embedding's ops of a phase, appended to Ops.
  auto EmbeddingOps = [&](std::vector<Op> &Ops, Phase Ph, int64_t Tokens,
                          bool Dropout) {
    double Elements = double(Tokens) * M.Hidden;
    Op Lookup = pointwise(OpKind::EmbedLookup, Ph, Act, AB, Elements, Model);
    Lookup.BytesRead = Elements * VocabWB;
    Lookup.SequenceRegion = true;
    Ops.push_back(Lookup);
    if (M.LearnedPositions || Dropout) {
      Op Pos = pointwise(OpKind::EmbedPositions, Ph, Act, AB, Elements, Model);
      Pos.SequenceRegion = Pos.SavedInSequenceRegion = true;
      if (Dropout)
        Pos.SavedBytes = Elements; // dropout mask
      Ops.push_back(Pos);
    }
  };
  auto Embedding = [&](Phase Ph, int64_t Tokens, bool Dropout) {
    Block Emb;
    Emb.Ops = Ctx.Lists.take(SmallBlockRoom);
    Emb.Kind = BlockKind::Embedding;
    Emb.Params = Params.Embedding + Params.Positions + Params.EncoderExtras;
    EmbeddingOps(Emb.Ops, Ph, Tokens, Dropout);
    return Emb;
  };
  // The head's ops of a phase (its norm, the LM head, with Loss the loss),
  // appended to Ops.
  auto HeadOps = [&](std::vector<Op> &Ops, LayerBuilder &LB, Phase Ph,
                     int64_t Rows, bool Loss) {
    LB.norm(Ops, OpKind::FinalNorm);
    // The head projects Rows positions (every position in training and
    // prefill of encoders; decoders' serving needs the last position only
    // in prefill, which Rows says).
    Op Logits = gemm(OpKind::LmHead, Ph, VocabType, VocabAB, VocabWB, Rows,
                     M.Vocab, M.Hidden);
    Logits.SavedInSequenceRegion = true;
    Logits.TpAxis = Axis::N; // the vocabulary (Megatron's parallel head)
    Logits.TokenAxis = Axis::M;
    if (Loss) {
      Logits.SavedBytes = double(Rows) * M.Hidden * VocabAB;
      Ops.push_back(Logits);
      // Cross-entropy in fp32 over the vocabulary (Megatron-LM); the fp32
      // logits are kept for backward (Korthikanti et al. 2022 §4.3).
      Op CE = pointwise(OpKind::LossCrossEntropy, Ph, DType::FP32, 4,
                        double(Rows) * M.Vocab, Model);
      CE.SavedBytes = double(Rows) * M.Vocab * 4;
      Ops.push_back(CE);
    } else {
      Ops.push_back(Logits);
    }
  };
  auto Head = [&](LayerBuilder &LB, Phase Ph, int64_t Rows, bool Loss) {
    Block Hd;
    Hd.Ops = Ctx.Lists.take(SmallBlockRoom);
    Hd.Kind = BlockKind::Head;
    Hd.Params = Params.FinalNorm + Params.LMHead;
    HeadOps(Hd.Ops, LB, Ph, Rows, Loss);
    return Hd;
  };

  if (S.Training) {
    P.MicroBatch = S.Mapping.MicroBatch;
    P.SeqLen = S.SeqLen;
    int64_t T = P.MicroBatch * P.SeqLen;
    LayerBuilder LB(S, Phase::Forward, P.MicroBatch, P.SeqLen);

    P.Blocks.reserve(6); // embedding, layers, head, pipeline, optimizer
    Block Emb = Embedding(Phase::Forward, T, LB.Dropout);
    appendBackward(Emb.Ops);
    P.Blocks.push_back(std::move(Emb));

    auto AddLayers = [&](BlockKind Kind, int64_t Count, bool Moe) {
      if (!Count)
        return;
      Block L = LayerBlock(Kind, Count, Moe);
      LB.WindowedShare = windowedShare(M, Moe, Count);
      LB.layer(Moe, L.Ops);
      appendBackward(L.Ops);
      P.Blocks.push_back(std::move(L));
    };
    // A multi-token-prediction module's layer is one more of the kind of
    // the model's last; partition puts it on the last stage.
    const int64_t Mtp = M.MtpLayers;
    AddLayers(BlockKind::DenseLayer, M.denseLayers() + (M.lastLayerMoe() ? 0 : Mtp),
              false);
    AddLayers(BlockKind::MoELayer, M.moeLayers() + (M.lastLayerMoe() ? Mtp : 0),
              true);

    Block Hd = Head(LB, Phase::Forward, T, true);
    // The rest of each module (DeepSeek-V3 §2.2): the norms of the hidden
    // state and of the embedding of the token k ahead, their projection
    // from 2h to h, and, after its layer, the head's norm, the shared LM
    // head and the loss again (partition adds the last stage's copy of the
    // embedding when there is a pipeline).
    for (int64_t K = 0; K < Mtp; ++K) {
      LB.norm(Hd.Ops, OpKind::MtpNorm);
      LB.norm(Hd.Ops, OpKind::MtpNorm);
      Hd.Ops.push_back(LB.linear(OpKind::MtpProj, T, 2 * M.Hidden, M.Hidden,
                                 true, Axis::None));
      HeadOps(Hd.Ops, LB, Phase::Forward, T, true);
      Hd.Params += Params.MtpPerModule - Params.AttentionPerLayer -
                   Params.NormsPerLayer -
                   (M.lastLayerMoe() ? Params.MoePerLayer : Params.DenseMlpPerLayer);
    }
    appendBackward(Hd.Ops);
    P.Blocks.push_back(std::move(Hd));

    Block Opt;
    Opt.Ops = Ctx.Lists.take(SmallBlockRoom);
    Opt.Kind = BlockKind::Optimizer;
    Opt.Params = 0;
    // Muon updates the layers' weight matrices and leaves the embedding,
    // the positions and the head to Adam (Megatron-LM's
    // get_megatron_muon_optimizer: the parameters that are neither 1-D nor
    // the embedding or output layer); the layers' norms and biases, under
    // 0.1% of a layer, are counted with the matrices. Its Newton-Schulz
    // GEMMs are per device: the partition pass adds them.
    const double MuonParams =
        S.muon() ? Params.Total - (Params.Embedding + Params.Positions +
                                   Params.EncoderExtras + Params.FinalNorm +
                                   Params.LMHead)
                 : 0.0;
    OptimizerTraffic Traffic = optimizerTraffic(S);
    // FLOPs per parameter: Adam about 12 (moments, bias correction,
    // square root, division), SGD with momentum about 4.
    PointwiseModel State = traffic(Traffic.Read, Traffic.Written);
    State.Sgd = S.sgd();
    Op Update = pointwise(S.Mapping.OffloadOptimizer ? OpKind::OffloadHostUpdate
                                                     : OpKind::OptimizerUpdate,
                          Phase::Optimizer, DType::FP32, 1,
                          Params.Total - MuonParams, State);
    if (S.Mapping.OffloadOptimizer) {
      // ZeRO-Offload / Megatron-LM --optimizer-cpu-offload: the reduced
      // gradients go to host memory, the host runs the update over the
      // state it keeps (the same passes, at the host's memory bandwidth),
      // and the updated parameters come back in the weights' format.
      double G = dtypeBytes(S.Mapping.Gradients);
      Opt.Ops.push_back(pointwise(OpKind::OffloadGradToHost, Phase::Optimizer,
                                  S.Mapping.Gradients, G, Params.Total, Model));
      Opt.Ops.push_back(Update);
      Opt.Ops.push_back(pointwise(OpKind::OffloadParamToDevice,
                                  Phase::Optimizer, S.Mapping.Weights, WB,
                                  Params.Total, Model));
    } else {
      Opt.Ops.push_back(Update);
    }
    if (MuonParams > 0) {
      // Muon's element-wise work is momentum SGD's (about 4 FLOPs a
      // parameter) and its passes above.
      OptimizerTraffic Muon = optimizerTraffic(S, /*Muon=*/true);
      PointwiseModel MuonState = traffic(Muon.Read, Muon.Written);
      MuonState.Sgd = true;
      Opt.Ops.push_back(pointwise(OpKind::OptimizerUpdate, Phase::Optimizer,
                                  DType::FP32, 1, MuonParams, MuonState));
    }
    Opt.Ops.push_back(pointwise(OpKind::GradZero, Phase::Optimizer,
                                S.Mapping.Gradients, 1, Params.Total,
                                traffic(0, Traffic.Zeroed)));
    P.Blocks.push_back(std::move(Opt));
    return true;
  }

  // Serving: the prefill of a batch of prompts, then one decode step of one
  // token per sequence against a cache of `context` tokens.
  P.MicroBatch = S.Batch;
  // Beam search decodes Beams sequences a request, each over the shared
  // prompt and its own tokens.
  P.DecodeBatch = S.Batch * std::max<int64_t>(1, S.Beams);
  const int64_t Seqs = P.DecodeBatch;
  P.SeqLen = S.SeqLen;
  int64_t Prompt = P.MicroBatch * P.SeqLen;
  double KVB = dtypeBytes(S.Mapping.KVCache);
  double KvPerToken = kvElementsPerTokenPerLayer(M);

  LayerBuilder Pre(S, Phase::Prefill, P.MicroBatch, P.SeqLen);
  LayerBuilder Dec(S, Phase::Decode, Seqs, 1);

  Block Emb = Embedding(Phase::Prefill, Prompt, false);
  EmbeddingOps(Emb.Ops, Phase::Decode, Seqs, false);
  P.Blocks.push_back(std::move(Emb));

  auto AddLayers = [&](BlockKind Kind, int64_t Count, bool Moe) {
    if (!Count)
      return;
    Block L = LayerBlock(Kind, Count, Moe);
    Pre.WindowedShare = Dec.WindowedShare = windowedShare(M, Moe, Count);
    Pre.layer(Moe, L.Ops);
    // A decoder keeps the prompt's keys and values for its decode steps;
    // an encoder generates nothing and keeps none.
    if (!M.Encoder) {
      Op Write = pointwise(OpKind::KvWrite, Phase::Prefill, S.Mapping.KVCache,
                           KVB, double(Prompt) * KvPerToken, Model);
      L.Ops.push_back(Write);
    }

    // Decode: the layer for one token per sequence; attention reads the
    // cache, so its cost is per token of context.
    std::vector<Op> D = Ctx.Lists.take(LayerRoom);
    Dec.layer(Moe, D);
    for (Op &O : D) {
      OpKind Name = O.Kind;
      if (Name == OpKind::AttnScore || Name == OpKind::AttnContext) {
        int64_t A = M.Heads;
        double Share = O.share();
        int32_t Window = O.Window;
        bool Score = Name == OpKind::AttnScore;
        // Per token of context, per sequence: the product over that token's
        // key (or value) for every head, and reading it from the cache.
        int64_t Dim;
        if (M.Mla) // absorbed form: attention runs on the latent
          Dim = Score ? M.Mla->KvLoraRank + M.Mla->QkRopeHeadDim
                      : M.Mla->KvLoraRank;
        else
          Dim = M.HeadDim;
        O = gemm(O.Kind, Phase::Decode, Dec.AttnT, Dec.AttnB, KVB, 1, 1, Dim,
                 Seqs * A);
        if (!Score)
          O = gemm(O.Kind, Phase::Decode, Dec.AttnT, Dec.AttnB, KVB, 1, Dim, 1,
                   Seqs * A);
        O.TpAxis = Axis::Batch;
        O.FlopsPerContext = O.Flops;
        O.Flops = 0;
        O.BytesRead = 0;
        O.BytesWritten = 0;
        double CachePerToken =
            M.Mla ? (Score ? KvPerToken : 0)
                  : KvPerToken / 2; // K for scores, V for the context
        O.BytesPerContext = Seqs * CachePerToken * KVB;
        O.Window = Window;
        applyShare(O, Share);
      } else if (Name == OpKind::AttnSoftmax) {
        O.FlopsPerContext = O.Flops;
        O.BytesPerContext = O.BytesRead + O.BytesWritten;
        O.Flops = O.BytesRead = O.BytesWritten = 0;
      }
      L.Ops.push_back(O);
    }
    Op Append = pointwise(OpKind::KvAppend, Phase::Decode, S.Mapping.KVCache,
                          KVB, double(Seqs) * KvPerToken, Model);
    L.Ops.push_back(Append);
    Ctx.Lists.recycle(std::move(D));
    P.Blocks.push_back(std::move(L));
  };
  AddLayers(BlockKind::DenseLayer, M.denseLayers(), false);
  AddLayers(BlockKind::MoELayer, M.moeLayers(), true);
  // 2:4 structured-sparse weights: each linear layer's weight read
  // compressed (half its values, each with a 2-bit index) and multiplied
  // at the part's sparse rate (the cost's: lib/Cost/OpCost.cpp).
  if (S.Mapping.SparseWeights)
    for (Block &B : P.Blocks)
      if (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer)
        for (Op &O : B.Ops)
          if (hasWeightMatrix(O.Kind)) { // a contraction (OpKinds.def)
            double Elements = double(O.K) * double(O.N) * double(O.Batch);
            O.BytesRead += Elements * (sparseWeightBytes(O.BBytes) - O.BBytes);
            O.SparseWeight = true;
          }

  // Prefill of a decoder projects the last position of each prompt to
  // produce the first token; an encoder's output is every position.
  Block Hd = Head(Pre, Phase::Prefill, M.Encoder ? Prompt : P.MicroBatch, false);
  if (!M.Encoder)
    HeadOps(Hd.Ops, Dec, Phase::Decode, Seqs, false);
  P.Blocks.push_back(std::move(Hd));
  return true;
}

} // namespace passes
} // namespace llmsys
