//===- Model.cpp - a typed view of a model entity ---------------------------===//

#include "IR/Model.h"
#include "IR/Scenario.h"

#include "llvm/Support/ErrorHandling.h"
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace ir {

StringRef attentionName(AttentionKind K) {
  switch (K) {
  case AttentionKind::MHA:
    return "mha";
  case AttentionKind::GQA:
    return "gqa";
  case AttentionKind::MQA:
    return "mqa";
  case AttentionKind::MLA:
    return "mla";
  }
  llvm_unreachable("unknown attention kind");
}

AttentionKind ModelConfig::attention() const {
  if (Mla)
    return AttentionKind::MLA;
  if (KvHeads == Heads)
    return AttentionKind::MHA;
  if (KvHeads == 1)
    return AttentionKind::MQA;
  return AttentionKind::GQA;
}

int64_t ModelConfig::windowedLayers(int64_t First, int64_t Count) const {
  if (!localSpan())
    return 0;
  if (!FullAttentionEvery)
    return Count;
  // Layer i (0-based) is full when (i + 1) is a multiple of n.
  auto FullUpTo = [&](int64_t End) { return End / FullAttentionEvery; };
  return Count - (FullUpTo(First + Count) - FullUpTo(First));
}

/// Of j = 1 .. J, how many have First + j Step a multiple of Period (all
/// positive but First).
static int64_t stepsOnMultiples(int64_t First, int64_t Step, int64_t Period,
                                int64_t J) {
  // j Step = -First (mod Period): solvable when gcd(Step, Period) divides
  // the right side; then j = J0 (mod Period / gcd).
  int64_t G = std::gcd(Step, Period);
  int64_t Rhs = ((-First) % Period + Period) % Period;
  if (Rhs % G)
    return 0;
  int64_t Mod = Period / G, A = (Step / G) % Mod, B = Rhs / G;
  // The inverse of A modulo Mod (extended Euclid; A and Mod coprime).
  int64_t R0 = Mod, R1 = A, T0 = 0, T1 = 1;
  while (R1) {
    int64_t Q = R0 / R1;
    std::tie(R0, R1) = std::make_pair(R1, R0 - Q * R1);
    std::tie(T0, T1) = std::make_pair(T1, T0 - Q * T1);
  }
  int64_t Inverse = ((T0 % Mod) + Mod) % Mod;
  int64_t J0 = Mod == 1 ? 0 : (B % Mod) * Inverse % Mod;
  if (J0 == 0)
    J0 = Mod;
  return J >= J0 ? (J - J0) / Mod + 1 : 0;
}

int64_t ModelConfig::windowedLayersOf(bool MoeKind) const {
  int64_t All = windowedLayers(0, Layers);
  if (!Moe || !localSpan())
    return MoeKind ? 0 : All;
  int64_t MoeCount = moeLayers();
  // MoE layers sit at DenseLayers + j Every (1-based); the full ones among
  // them are those at multiples of full_attention_every.
  int64_t FullMoe = FullAttentionEvery
                        ? stepsOnMultiples(Moe->DenseLayers, Moe->Every,
                                           FullAttentionEvery, MoeCount)
                        : 0;
  int64_t WindowedMoe = MoeCount - FullMoe;
  return MoeKind ? WindowedMoe : All - WindowedMoe;
}

int64_t chunkedKeys(int64_t Seq, int64_t Chunk) {
  if (Seq <= 0 || Chunk <= 0 || Seq <= Chunk)
    return std::max<int64_t>(1, Seq);
  double Full = double(Seq / Chunk), Rest = double(Seq % Chunk);
  double Products = Full * double(Chunk) * double(Chunk) + Rest * Rest;
  return std::max<int64_t>(1, int64_t(std::llround(Products / double(Seq))));
}

ModelConfig modelFromSpec(const spec::Object &M) {
  using spec::boolOf;
  using spec::integerOf;
  using spec::numberOf;
  using spec::wordOf;
  using F = ModelField;
  auto Int = [&](F Field) { return integerOf(M.ifSet(Field), 0); };
  ModelConfig C;
  // An inline refinement (`model = gpt3 { max_seq = 4096 }`) is named after
  // what it refines.
  C.Name = M.IsAnonymous && M.Parent ? M.Parent->Name + " (refined)" : M.Name;
  C.Encoder =
      checkedEnum<ModelKind>(wordOf(M.ifSet(F::Kind))) == ModelKind::Encoder;
  C.Layers = Int(F::Layers);
  C.Hidden = Int(F::Hidden);
  C.Heads = Int(F::Heads);
  C.KvHeads = Int(F::KvHeads);
  C.HeadDim = Int(F::HeadDim);
  C.Ffn = Int(F::Ffn);
  C.Vocab = Int(F::Vocab);
  C.MaxSeq = Int(F::MaxSeq);
  ActivationKind Act =
      checkedEnum<ActivationKind>(wordOf(M.ifSet(F::Activation)));
  C.SwiGlu = Act == ActivationKind::SwiGlu;
  C.GatedMlp = gatedActivation(Act);
  C.RmsNorm =
      checkedEnum<NormKind>(wordOf(M.ifSet(F::Norm))) == NormKind::RmsNorm;
  C.LearnedPositions =
      checkedEnum<PositionalKind>(wordOf(M.ifSet(F::Positional))) ==
      PositionalKind::Learned;
  C.TiedEmbeddings = boolOf(M.ifSet(F::TiedEmbeddings), C.TiedEmbeddings);
  C.Bias = boolOf(M.ifSet(F::Bias), C.Bias);
  C.QkvBias = boolOf(M.ifSet(F::QkvBias), C.QkvBias);
  C.QkNorm = boolOf(M.ifSet(F::QkNorm), C.QkNorm);
  ParallelBlock PB =
      checkedEnum<ParallelBlock>(wordOf(M.ifSet(F::ParallelBlock)));
  C.ParallelBlock = PB != ParallelBlock::None;
  C.SharedNorm = PB == ParallelBlock::SharedNorm;
  C.SlidingWindow = Int(F::SlidingWindow);
  C.AttentionChunk = Int(F::AttentionChunk);
  C.FullAttentionEvery = Int(F::FullAttentionEvery);
  C.MtpLayers = Int(F::MtpLayers);
  C.Dropout = numberOf(M.ifSet(F::Dropout), 0);
  C.GluClamp = numberOf(M.ifSet(F::GluClamp), 0);
  if (spec::objectOf(M.ifSet(F::Moe))) {
    auto Moe = [&](MoeField Field) { return M.ifSet(F::Moe, Field); };
    MoEConfig E;
    E.Experts = integerOf(Moe(MoeField::Experts), 0);
    E.TopK = integerOf(Moe(MoeField::TopK), 0);
    E.SharedExperts = integerOf(Moe(MoeField::SharedExperts), 0);
    E.ExpertFfn = integerOf(Moe(MoeField::ExpertFfn), 0);
    E.DenseLayers = integerOf(Moe(MoeField::DenseLayers), 0);
    E.Every = std::max<int64_t>(1, integerOf(Moe(MoeField::Every), 1));
    E.CapacityFactor = numberOf(Moe(MoeField::CapacityFactor), 1);
    E.Groups = std::max<int64_t>(1, integerOf(Moe(MoeField::Groups), 1));
    E.GroupTopK = std::clamp<int64_t>(
        integerOf(Moe(MoeField::GroupTopK), E.Groups), 1, E.Groups);
    C.Moe = E;
  }
  if (spec::objectOf(M.ifSet(F::Mla))) {
    auto Mla = [&](MlaField Field) {
      return integerOf(M.ifSet(F::Mla, Field), 0);
    };
    MLAConfig L;
    L.QLoraRank = Mla(MlaField::QLoraRank);
    L.KvLoraRank = Mla(MlaField::KvLoraRank);
    L.QkNopeHeadDim = Mla(MlaField::QkNopeHeadDim);
    L.QkRopeHeadDim = Mla(MlaField::QkRopeHeadDim);
    L.VHeadDim = Mla(MlaField::VHeadDim);
    C.Mla = L;
  }
  C.ReferenceParams = numberOf(M.ifSet(F::ReferenceParams));
  C.ReferenceActiveParams = numberOf(M.ifSet(F::ReferenceActiveParams));
  C.ReferenceTolerance = numberOf(M.ifSet(F::ReferenceTolerance));
  return C;
}

/// One norm layer: a scale, plus a shift for LayerNorm with biases.
/// A norm's scale (and shift, with biases, but for RMSNorm) over Width
/// values (the hidden size unless said).
static double normParams(const ModelConfig &M, double Width) {
  return M.RmsNorm || !M.Bias ? Width : 2.0 * Width;
}
static double normParams(const ModelConfig &M) {
  return normParams(M, double(M.Hidden));
}

/// One MLP of width F: up (and gate) and down projections, with biases.
static double mlpParams(const ModelConfig &M, double F) {
  double H = static_cast<double>(M.Hidden);
  double Weights = (M.GatedMlp ? 3.0 : 2.0) * H * F;
  double Biases = M.Bias ? (M.GatedMlp ? 2.0 * F : F) + H : 0;
  return Weights + Biases;
}

static double attentionParams(const ModelConfig &M) {
  double H = static_cast<double>(M.Hidden);
  double A = static_cast<double>(M.Heads);
  if (M.Mla) {
    // DeepSeek-V2 §2.1: queries through a low-rank latent (with its norm)
    // or directly; keys and values through the cached latent c_KV (with its
    // norm) plus a shared rotary key; per-head up-projections; output.
    const MLAConfig &L = *M.Mla;
    double QkHead = static_cast<double>(L.QkNopeHeadDim + L.QkRopeHeadDim);
    double Q = L.QLoraRank
                   ? H * L.QLoraRank + L.QLoraRank + L.QLoraRank * A * QkHead
                   : H * A * QkHead;
    double KV = H * (L.KvLoraRank + L.QkRopeHeadDim) + L.KvLoraRank +
                L.KvLoraRank * A * (L.QkNopeHeadDim + L.VHeadDim);
    double O = A * L.VHeadDim * H;
    return Q + KV + O;
  }
  double QDim = A * M.HeadDim;
  double KvDim = static_cast<double>(M.KvHeads) * M.HeadDim;
  double Weights = H * QDim + 2 * H * KvDim + QDim * H;
  double Biases = (M.QkvBias ? QDim + 2 * KvDim : 0) + (M.Bias ? H : 0);
  // The query and key norms: one scale (and shift) over head_dim each,
  // shared by the heads (Qwen3's q_norm and k_norm).
  double QkNorms = M.QkNorm ? 2 * normParams(M, double(M.HeadDim)) : 0;
  return Weights + Biases + QkNorms;
}

ParamCount countParams(const ModelConfig &M) {
  ParamCount P;
  double H = static_cast<double>(M.Hidden);
  P.Embedding = static_cast<double>(M.Vocab) * H;
  P.Positions = M.LearnedPositions ? static_cast<double>(M.MaxSeq) * H : 0;
  // BERT: two token types (segment A/B) and a pooler dense layer.
  P.EncoderExtras = M.Encoder ? 2 * H + H * H + H : 0;
  P.AttentionPerLayer = attentionParams(M);
  P.AttentionOutPerLayer =
      static_cast<double>(M.Heads) *
          (M.Mla ? M.Mla->VHeadDim : M.HeadDim) * H +
      (!M.Mla && M.Bias ? H : 0);
  P.DenseMlpPerLayer = mlpParams(M, static_cast<double>(M.Ffn));
  P.NormsPerLayer = (M.SharedNorm ? 1 : 2) * normParams(M);
  P.FinalNorm = normParams(M);
  P.LMHead = M.TiedEmbeddings ? 0 : P.Embedding;
  if (M.Moe) {
    const MoEConfig &E = *M.Moe;
    double Expert = mlpParams(M, static_cast<double>(E.ExpertFfn));
    double Router = H * E.Experts;
    P.MoePerLayer = Router + (E.Experts + E.SharedExperts) * Expert;
    P.RouterPerLayer = Router;
    P.SharedExpertsPerLayer = E.SharedExperts * Expert;
    P.MoeActivePerLayer = Router + (E.TopK + E.SharedExperts) * Expert;
  }
  double Common =
      P.Embedding + P.Positions + P.EncoderExtras + P.FinalNorm + P.LMHead;
  double PerLayerCommon = P.AttentionPerLayer + P.NormsPerLayer;
  double Dense = static_cast<double>(M.denseLayers());
  double Moe = static_cast<double>(M.moeLayers());
  P.Total = Common + M.Layers * PerLayerCommon + Dense * P.DenseMlpPerLayer +
            Moe * P.MoePerLayer;
  P.Active = Common + M.Layers * PerLayerCommon + Dense * P.DenseMlpPerLayer +
             Moe * P.MoeActivePerLayer;
  // A multi-token-prediction module (DeepSeek-V3 §2.2; the HF checkpoint's
  // enorm, hnorm, eh_proj, shared_head.norm and one decoder layer): the
  // embedding and head are the main model's.
  P.MtpPerModule = 2 * H * H + 3 * normParams(M) + PerLayerCommon +
                   (M.lastLayerMoe() ? P.MoePerLayer : P.DenseMlpPerLayer);
  P.Mtp = double(M.MtpLayers) * P.MtpPerModule;
  return P;
}

ReferenceCheck checkReference(double Computed, double Reference,
                              std::optional<double> Tolerance) {
  ReferenceCheck R;
  R.RelativeError = (Computed - Reference) / Reference;
  // The figure as written with an M/B/T-style multiplier (engineering
  // notation: 70e9 is "70B", 2.7e9 "2.7B", 1558e6 "1.558B"); its last digit
  // is significant, so "2.7B" is 2.65B to 2.75B.
  int Exp3 = static_cast<int>(std::floor(std::log10(std::fabs(Reference)) / 3)) * 3;
  double Mantissa = Reference / std::pow(10.0, Exp3);
  std::string Text = fmt::format("{:.9f}", Mantissa);
  while (!Text.empty() && Text.back() == '0')
    Text.pop_back();
  size_t Dot = Text.find('.');
  int Decimals = Dot == std::string::npos ? 0
                                          : static_cast<int>(Text.size() - Dot - 1);
  R.SignificantDigits =
      static_cast<unsigned>(std::to_string(static_cast<long long>(Mantissa)).size()) +
      static_cast<unsigned>(Decimals);
  double HalfUnit = 0.5 * std::pow(10.0, Exp3 - Decimals);
  R.Tolerance = Tolerance ? *Tolerance
                          : std::max(0.005, HalfUnit / std::fabs(Reference));
  R.Within = std::fabs(R.RelativeError) <= R.Tolerance + 1e-12;
  return R;
}

ExpertLoad expertLoad(double Tokens, const MoEConfig &E) {
  double P = 1.0 - std::pow(1.0 - double(E.TopK) / E.Experts, Tokens);
  double Active = std::min<double>(E.Experts, std::max(1.0, E.Experts * P));
  ExpertLoad L;
  L.Experts = static_cast<int64_t>(std::ceil(Active - 1e-9));
  L.TokensPerExpert = static_cast<int64_t>(
      std::ceil(Tokens * E.TopK * E.CapacityFactor / L.Experts - 1e-9));
  return L;
}

double kvElementsPerTokenPerLayer(const ModelConfig &M) {
  if (M.Mla) // DeepSeek-V2 §2.1.3: only the latent and the rotary key.
    return static_cast<double>(M.Mla->KvLoraRank + M.Mla->QkRopeHeadDim);
  return 2.0 * M.KvHeads * M.HeadDim;
}

} // namespace ir
} // namespace llmsys
