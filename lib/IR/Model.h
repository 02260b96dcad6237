//===- Model.h - a typed view of a model entity -------------------*- C++ -*-===//
//
// The passes and the cost model read models through this struct rather than
// through field names. Parameter counts follow the per-layer accounting of
// Megatron-LM's theoretical_memory_usage.py (attention with GQA, gated MLPs,
// MoE with all experts for memory and top-k for compute), extended to MLA
// (DeepSeek-V2/V3) and to biases, norms and learned position embeddings.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_IR_MODEL_H
#define LLMSYS_IR_MODEL_H

#include "IR/Spec.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llmsys {
namespace ir {

enum class AttentionKind { MHA, GQA, MQA, MLA };
llvm::StringRef attentionName(AttentionKind K);

struct MoEConfig {
  int64_t Experts = 0;
  int64_t TopK = 0;
  int64_t SharedExperts = 0;
  int64_t ExpertFfn = 0;
  int64_t DenseLayers = 0; ///< Dense layers before the first MoE layer.
  /// After them, layers n, 2n, ... (1-based) are MoE, the others dense.
  int64_t Every = 1;
  double CapacityFactor = 1;
  /// The router's groups of consecutive experts, and how many of them a
  /// token's experts may come from (node-limited routing).
  int64_t Groups = 1, GroupTopK = 1;
  /// Whether a token's experts are confined to some of the groups.
  bool groupLimited() const { return Groups > 1 && GroupTopK < Groups; }
};

struct MLAConfig {
  int64_t QLoraRank = 0; ///< 0: queries are not compressed.
  int64_t KvLoraRank = 0;
  int64_t QkNopeHeadDim = 0;
  int64_t QkRopeHeadDim = 0;
  int64_t VHeadDim = 0;
};

struct ModelConfig {
  std::string Name;
  bool Encoder = false;
  int64_t Layers = 0, Hidden = 0, Heads = 0, KvHeads = 0, HeadDim = 0;
  int64_t Ffn = 0, Vocab = 0, MaxSeq = 0;
  bool GatedMlp = false; ///< swiglu, geglu: three MLP matrices
  bool SwiGlu = false;   ///< the activation is swiglu
  bool RmsNorm = false;
  bool LearnedPositions = false;
  bool TiedEmbeddings = false;
  bool Bias = true;
  bool QkvBias = true;
  /// Each query and key head normalised over head_dim (qk_norm).
  bool QkNorm = false;
  /// Attention and MLP side by side, both reading the layer's input
  /// (parallel_block); SharedNorm: one norm feeds both.
  bool ParallelBlock = false;
  bool SharedNorm = false;
  int64_t SlidingWindow = 0; ///< 0: full attention
  /// Attention within fixed chunks of this many tokens (0: none; not with
  /// a sliding window).
  int64_t AttentionChunk = 0;
  /// The tokens a local (windowed or chunked) layer's attention spans: the
  /// window or the chunk (0: every layer attends over the whole context).
  int64_t localSpan() const {
    return SlidingWindow ? SlidingWindow : AttentionChunk;
  }
  /// With a window or chunks: layers n, 2n, ... attend over the whole
  /// context (0: none does).
  int64_t FullAttentionEvery = 0;
  /// Multi-token-prediction modules (training only).
  int64_t MtpLayers = 0;
  double Dropout = 0;
  /// A gated activation's clamp (glu_clamp; 0: none).
  double GluClamp = 0;
  std::optional<MoEConfig> Moe;
  std::optional<MLAConfig> Mla;
  std::optional<double> ReferenceParams, ReferenceActiveParams;
  /// The band the computed counts may differ from the references by
  /// (unset: what the written figures' digits imply).
  std::optional<double> ReferenceTolerance;

  AttentionKind attention() const;
  /// Tokens reach routed experts (a moe block with top_k above 0).
  bool routed() const { return Moe && Moe->TopK > 0; }
  /// Of the first N layers, the MoE ones (the dense_layers first, then
  /// every n-th).
  int64_t moeLayersBefore(int64_t N) const {
    return Moe && N > Moe->DenseLayers ? (N - Moe->DenseLayers) / Moe->Every
                                       : 0;
  }
  int64_t moeLayers() const { return moeLayersBefore(Layers); }
  int64_t denseLayers() const { return Layers - moeLayers(); }
  /// Whether the model's last layer (and so a multi-token-prediction
  /// module's) is a MoE layer.
  bool lastLayerMoe() const {
    return moeLayersBefore(Layers) > moeLayersBefore(Layers - 1);
  }
  /// Of the layers of one kind (MoE or dense), those that attend within
  /// the sliding window.
  int64_t windowedLayersOf(bool MoeKind) const;
  /// Of the Count layers from layer First (0-based), those that attend
  /// within the sliding window or their chunk.
  int64_t windowedLayers(int64_t First, int64_t Count) const;
};

/// Keys per query, on average, of causal attention within chunks of Chunk
/// tokens over a sequence of Seq: (full chunks x Chunk^2 + rest^2) / Seq
/// products counted, rounded to a whole key (Seq itself when one chunk
/// holds the sequence).
int64_t chunkedKeys(int64_t Seq, int64_t Chunk);

/// Reads a model entity (already checked by Sema).
ModelConfig modelFromSpec(const spec::Object &M);

/// Parameters by part; Total counts every expert, Active the experts a token
/// goes through (top_k routed plus shared).
struct ParamCount {
  double Embedding = 0;     ///< token embedding (V h)
  double Positions = 0;     ///< learned position embeddings
  /// Encoders (BERT): token-type embeddings and the pooler (Devlin et al.
  /// 2019; HF BertModel).
  double EncoderExtras = 0;
  double AttentionPerLayer = 0;
  double AttentionOutPerLayer = 0; ///< of those, the output projection's
  double DenseMlpPerLayer = 0;
  double MoePerLayer = 0;       ///< router + every expert + shared experts
  double MoeActivePerLayer = 0; ///< router + top_k + shared experts
  double RouterPerLayer = 0;        ///< of MoePerLayer, the router's
  double SharedExpertsPerLayer = 0; ///< of MoePerLayer, the shared experts'
  double NormsPerLayer = 0;
  double FinalNorm = 0;
  double LMHead = 0;        ///< 0 when tied to the embedding
  double Total = 0;
  double Active = 0;
  /// The multi-token-prediction modules (in neither total: published
  /// counts leave them out, as DeepSeek-V3's 671B does its 14B module).
  double MtpPerModule = 0; ///< projection, its norms and one layer
  double Mtp = 0;          ///< all of them
};
ParamCount countParams(const ModelConfig &M);

/// How a computed count compares with a published one. Published figures
/// are often rounded ("2.7B"): the tolerance is 0.5% or half a unit in the
/// last digit of the figure as written with M/B/T, whichever is larger.
struct ReferenceCheck {
  double RelativeError = 0; ///< (computed - reference) / reference
  double Tolerance = 0.005;
  unsigned SignificantDigits = 0;
  bool Within = false;
};
/// Tolerance: the band written (`reference_tolerance`), else the one the
/// reference's digits imply.
ReferenceCheck checkReference(double Computed, double Reference,
                              std::optional<double> Tolerance = std::nullopt);

/// K and V (or the MLA latent) bytes per token per layer, in elements.
double kvElementsPerTokenPerLayer(const ModelConfig &M);

/// The routed experts' work for Tokens tokens: the experts they reach
/// (the expected number of distinct experts tokens choosing top_k of
/// `experts` touch) and the tokens each of those processes (with the
/// capacity factor's padding).
struct ExpertLoad {
  int64_t Experts = 1, TokensPerExpert = 0;
};
ExpertLoad expertLoad(double Tokens, const MoEConfig &E);

} // namespace ir
} // namespace llmsys

#endif
