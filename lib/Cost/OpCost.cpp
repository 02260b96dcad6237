//===- OpCost.cpp - one operator's time -------------------------------------===//
//
// Roofline first: t = max(FLOPs / (peak eta_c), bytes / (bandwidth eta_m))
// plus a launch overhead (Williams et al. 2009), with eta_c shape-aware for
// contractions: the accelerator's largest achieved fraction, times tile
// quantization (each of M, N, K rounded up to the tile) and wave
// quantization (the last wave of tiles leaves compute units idle; the best of
// the full tile and its halves, the halves at a stated cost), times
// K / (K + k) for a tile's fixed cost in a K loop of K elements. Validated
// against measured A100 GEMMs (docs/validation.md).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include <algorithm>
#include <cmath>

namespace llmsys {
namespace cost {

using namespace ir;

static int64_t ceilDiv(int64_t V, int64_t By) { return (V + By - 1) / By; }

/// Tile, wave and K-loop efficiency of a GEMM run with TileM x TileN tiles
/// (integer arithmetic: sweeps cost millions of GEMMs).
static double tiledEfficiency(const Op &O, const AcceleratorConfig &A,
                              int64_t TileM, int64_t TileN, double KScale) {
  int64_t M = std::max<int64_t>(1, O.M), N = std::max<int64_t>(1, O.N),
          K = std::max<int64_t>(1, O.K);
  // Kernels pick smaller tiles for thin matrices: down to the 16-row
  // tensor-core fragment (so a decode GEMM with M = 8 is not charged for a
  // 128-row tile).
  int64_t Tm = std::min(std::max<int64_t>(1, TileM), ceilDiv(M, 16) * 16);
  int64_t Tn = std::min(std::max<int64_t>(1, TileN), ceilDiv(N, 16) * 16);
  int64_t Tk = std::max<int64_t>(1, A.TileK);
  int64_t TilesM = ceilDiv(M, Tm), TilesN = ceilDiv(N, Tn);
  double Tile = (double(M) / double(TilesM * Tm)) *
                (double(N) / double(TilesN * Tn)) *
                (double(K) / double(ceilDiv(K, Tk) * Tk));
  double Wave = 1;
  double KLoop = double(K);
  if (A.ComputeUnits > 0) {
    // Tiles in a double: rows x columns x batch can pass 2^63 (an
    // attention product of 2^31 tokens, 2^26 heads), and is exact to 2^53.
    double Units = double(A.ComputeUnits);
    double Tiles = double(TilesM) * double(TilesN) *
                   double(std::max<int64_t>(1, O.Batch));
    // Too few tiles to fill the device: the K loop is split over more
    // thread blocks (split-K), each keeping at least four K tiles.
    if (Tiles < Units) {
      double Split = std::max(
          1.0, std::min(std::floor(Units / Tiles),
                        double(std::max<int64_t>(1, K / (4 * Tk)))));
      Tiles *= Split;
      KLoop /= Split;
    }
    Wave = Tiles / (std::ceil(Tiles / Units) * Units);
  }
  // Each tile pays a fixed cost (loading its first K slices, the epilogue)
  // that a short K loop does not amortise. The cost is a time, k elements
  // of a 16-bit K loop: a format that runs the loop KScale times faster
  // pays KScale k of its own elements.
  double Loop = KLoop / (KLoop + std::max(0.0, A.KOverhead) * KScale);
  return Tile * Wave * Loop;
}

static double computeGemmEfficiency(const Op &O, const AcceleratorConfig &A,
                                    double KScale) {
  int64_t Tm = std::max<int64_t>(1, A.TileM);
  int64_t Tn = std::max<int64_t>(1, A.TileN);
  double Best = tiledEfficiency(O, A, Tm, Tn, KScale);
  // A library picks the tile per shape: halving a side fills more compute
  // units when the full tile leaves a wave mostly empty, at a cost in
  // data reuse (efficiency.small_tile; 0: one tile size only).
  // (A half tile reaches at most small_tile: no need to try when the full
  // tile does as well.)
  if (A.SmallTile > Best)
    for (auto [M, N] : {std::pair{Tm, Tn / 2}, {Tm / 2, Tn}, {Tm / 2, Tn / 2}})
      Best = std::max(Best, A.SmallTile * tiledEfficiency(O, A, M, N, KScale));
  return A.ComputeEfficiency * Best;
}

namespace {
/// What a GEMM's efficiency depends on: its shape and the accelerator's
/// tile, unit and efficiency fields.
struct GemmKey {
  int64_t M, N, K, Batch, TileM, TileN, TileK, Units;
  double KOverhead, SmallTile, Compute, KScale;
  bool operator==(const GemmKey &O) const {
    return M == O.M && N == O.N && K == O.K && Batch == O.Batch &&
           TileM == O.TileM && TileN == O.TileN && TileK == O.TileK &&
           Units == O.Units && KOverhead == O.KOverhead &&
           SmallTile == O.SmallTile && Compute == O.Compute &&
           KScale == O.KScale;
  }
};

/// Two-way set-associative: 512 sets of two (the newest first).
struct GemmMemo {
  static constexpr size_t Sets = 512; // a power of two
  GemmKey Keys[Sets][2];
  double Values[Sets][2];
  bool Used[Sets][2] = {};
};
} // namespace

double gemmEfficiency(const Op &O, const AcceleratorConfig &A, double KScale) {
  // A pure function of the key, asked again and again in a sweep (points'
  // GEMMs share shapes, as a layer's forward and backward ones may):
  // remembered per thread in a two-way set-associative table, so results
  // never depend on it.
  thread_local GemmMemo Memo;
  GemmKey Key{O.M,         O.N,         O.K,          O.Batch,
              A.TileM,     A.TileN,     A.TileK,      A.ComputeUnits,
              A.KOverhead, A.SmallTile, A.ComputeEfficiency, KScale};
  uint64_t H = uint64_t(O.M) * 0x9E3779B97F4A7C15ull;
  H ^= uint64_t(O.N) * 0xC2B2AE3D27D4EB4Full + (H >> 29);
  H ^= uint64_t(O.K) * 0x165667B19E3779F9ull + (H >> 31);
  H ^= uint64_t(O.Batch) * 0x27D4EB2F165667C5ull + (H >> 27);
  size_t Set = (H >> 40) & (GemmMemo::Sets - 1);
  for (int Way = 0; Way < 2; ++Way)
    if (Memo.Used[Set][Way] && Memo.Keys[Set][Way] == Key)
      return Memo.Values[Set][Way];
  double E = computeGemmEfficiency(O, A, KScale);
  Memo.Keys[Set][1] = Memo.Keys[Set][0];
  Memo.Values[Set][1] = Memo.Values[Set][0];
  Memo.Used[Set][1] = Memo.Used[Set][0];
  Memo.Keys[Set][0] = Key;
  Memo.Values[Set][0] = E;
  Memo.Used[Set][0] = true;
  return E;
}

/// The blocks of 128 a fused attention kernel's inner loop visits per
/// block of its outer one, on average: the keys per query block in the
/// forward, the queries per key block in the backward. Each product's
/// inner sequence extent (keys counted per query, or queries per key) is
/// capped by its outer one, the sequence one kernel call holds: with
/// context parallelism each ring step is a call over the local chunk.
/// The causal mask, window or chunks are in `Executed`.
static double attentionBlocks(const Op &O, double Executed) {
  bool InnerK = O.Kind == OpKind::AttnContext ||
                O.Kind == OpKind::AttnScoreDq ||
                O.Kind == OpKind::AttnScoreDk ||
                O.Kind == OpKind::AttnContextDv;
  double Extent = double(std::min(O.M, InnerK ? O.K : O.N));
  return std::max(1e-3,
                  Executed * fusedAttentionBlocks(std::max(1.0, Extent)));
}

/// The fraction of a sliding-window attention product's counted work
/// (window keys per query) that a causal pass visiting every key block
/// up to its own performs: query block i visits i + 1 blocks, (n + 1) / 2
/// on average over the n blocks of the sequence (its longest extent).
static double unwindowedFraction(const Op &O) {
  double Seq = double(std::max({O.M, O.N, O.K, int64_t(1)}));
  double Keys = std::min(Seq, double(O.span()));
  double N = fusedAttentionBlocks(Seq);
  return (N + 1) * FusedAttentionBlock / (2 * Keys);
}

bool sameOpCost(const Op &R, const Op &F) {
  return R.Kind == F.Kind && R.Category == F.Category && R.Type == F.Type &&
         R.M == F.M && R.N == F.N && R.K == F.K && R.Batch == F.Batch &&
         R.ABytes == F.ABytes && R.BBytes == F.BBytes && R.Flops == F.Flops &&
         R.BytesRead == F.BytesRead && R.BytesWritten == F.BytesWritten &&
         R.FlopsPerContext == F.FlopsPerContext &&
         R.BytesPerContext == F.BytesPerContext && R.Executed == F.Executed &&
         R.Window == F.Window && R.FusedInto == F.FusedInto &&
         R.FusedAttention == F.FusedAttention &&
         R.SparseWeight == F.SparseWeight && R.Collective == F.Collective;
}

OpTime opTime(const Op &O, const AcceleratorConfig &A, double Context,
              double Overhead, double Streaming) {
  // (Every field read here but the phase is one sameOpCost compares: a
  // field opTime comes to read goes there too. No phase but backward-data,
  // prefill and decode may change a time: the training cost gives a
  // recomputed op its forward op's time.)
  OpTime T;
  if (O.fused() || O.isCollective())
    return T;
  double Flops = O.Flops + O.FlopsPerContext * Context;
  double Bytes = O.BytesRead + O.BytesWritten + O.BytesPerContext * Context;
  // Decode attention's shape is per token of context (a GEMV over the
  // cache, run by split-K "flash-decoding" kernels): no tile quantisation.
  // The products of a fused attention kernel run at the kernel's own
  // achieved fraction (FlashAttention tiles the sequence; the head
  // dimension is its short inner loop).
  bool Contraction = O.Category == OpCategory::Contraction;
  AcceleratorConfig::Rate R{0, 1};
  if (Flops > 0 || Contraction)
    R = A.rate(O.Type, O.blockScaled());
  // How much faster than the 16-bit rate the format runs its K loop.
  double KScale = 1;
  if (Contraction && R.Peak > 0) {
    double Wide = A.Peak[static_cast<int>(DType::BF16)];
    if (Wide > 0 && R.Peak > Wide)
      KScale = R.Peak / Wide;
  }
  double Efficiency =
      O.FusedAttention == ir::AttentionKernel::FlashAttention2
          ? A.AttentionFa2Efficiency
      : O.inFusedAttention()
          ? (O.Ph == Phase::BackwardData ? A.AttentionBackwardEfficiency
                                         : A.AttentionEfficiency)
      : Contraction && O.FlopsPerContext == 0 ? gemmEfficiency(O, A, KScale)
                                              : A.ComputeEfficiency;
  // 8- and 4-bit tensor cores; the part's own fused attention kernel's
  // 8-bit products at their own fractions, forward and backward
  // (attention_narrow, attention_narrow_backward; attention's products
  // are never block-scaled). FlashAttention-2 keeps `narrow`.
  bool NarrowAttention = false;
  if (Contraction) {
    // (Only the own kernel's products ask which format they run as: the
    // GEMMs, most of a program, take the rate's fraction at once.)
    if (O.FusedAttention == ir::AttentionKernel::Native) {
      const DType Runs = A.runsAs(O.Type);
      NarrowAttention = Runs == DType::FP8 || Runs == DType::INT8;
    }
    Efficiency *= !NarrowAttention ? R.FormatEfficiency
                  : O.Ph == Phase::BackwardData
                      ? A.AttentionNarrowBackwardEfficiency
                      : A.AttentionNarrowEfficiency;
    // A serving engine's grouped expert GEMMs (prefill and decode; training
    // frameworks run other kernels) run kernels of their own: at the 4-bit
    // rate, a fraction of the tiled model's rate (expert_fp4); with block-
    // scaled 8-bit operands (a mapping's scale_block), the engine's
    // block-scaled rate in place of the part's narrow_block (expert_block).
    // Both read off TensorRT-LLM's MoE module timings
    // (tools/calibration/trtllm_moe_module.py --fit-fp4, --block).
    if ((O.Ph == Phase::Prefill || O.Ph == Phase::Decode) &&
        O.routedExpert()) {
      const DType Runs = A.runsAs(O.Type);
      if (Runs == DType::FP4)
        Efficiency *= A.ExpertFp4Efficiency;
      else if (Runs == DType::FP8 && O.blockScaled())
        Efficiency *= A.ExpertBlockEfficiency / A.NarrowBlockEfficiency;
    }
  }
  T.Efficiency = Efficiency;
  double Peak = Flops > 0 ? R.Peak : 0;
  if (O.SparseWeight)
    Peak *= std::max(1.0, A.Sparsity);
  // The part's own kernel's 8-bit backward may visit key blocks a
  // sliding window leaves out (cuDNN 9.22 on Blackwell visits all of a
  // causal pass's): that share of them more.
  double Executed = O.Executed;
  if (NarrowAttention && O.Ph == Phase::BackwardData && O.Window > 0 &&
      A.AttentionNarrowWindow > 0)
    Executed += A.AttentionNarrowWindow *
                std::max(0.0, unwindowedFraction(O) - Executed);
  if (Peak > 0 && Efficiency > 0 && A.Sustained > 0)
    T.Compute = Flops * Executed / (Peak * Efficiency * A.Sustained);
  // A fused attention kernel pays a fixed cost per query block (forward)
  // or key block (backward) beside the v blocks of its inner loop it
  // visits: (v + c) / v of its products' time.
  if (O.inFusedAttention() && T.Compute > 0) {
    double C = O.Ph == Phase::BackwardData ? A.AttentionOverheadBackward
                                           : A.AttentionOverhead;
    if (C > 0) {
      double V = attentionBlocks(O, Executed);
      T.BlockOverhead = T.Compute * C / V;
      T.Compute += T.BlockOverhead;
    }
  }
  // A serving engine's grouped expert GEMMs (prefill and decode; training
  // frameworks run other kernels) stream the experts' weights at their own
  // fraction, and each pays a fixed time of its own.
  const bool ServingExperts =
      (O.Ph == Phase::Prefill || O.Ph == Phase::Decode) && O.routedExpert();
  // Bandwidth: decode attention reading the KV cache (scattered per
  // sequence and head; an 8- or 4-bit cache, the B operand of its
  // products, at a fraction of its own), normalisation and element-wise
  // kernels (but the streaming ones: IR/OpKinds.def), and the rest (GEMM
  // operands, weights, the optimizer) each at its own fraction.
  double Fraction =
      O.BytesPerContext > 0
          ? (Contraction && O.BBytes > 0 && O.BBytes <= 1
                 ? A.KvCacheNarrowEfficiency
                 : A.KvCacheEfficiency)
      : O.Category == OpCategory::Normalization ||
              (O.Category == OpCategory::Elementwise &&
               !hasKindTrait(O.Kind, KindStreaming))
          ? A.ElementwiseEfficiency
      : ServingExperts ? A.ExpertMemoryEfficiency
                       : A.MemoryEfficiency;
  // (A low-precision recipe's cast kernels at a rate of their own.)
  double Bandwidth = A.HbmBandwidth * Fraction * Streaming;
  // A transfer takes at least one access (small ones: mostly the access).
  if (Bytes > 0 && Bandwidth > 0)
    T.Memory = Bytes / Bandwidth + A.HbmLatency;
  T.MemoryBound = T.Memory > T.Compute;
  T.Overhead = Flops > 0 || Bytes > 0 ? Overhead : 0;
  if (ServingExperts && (Flops > 0 || Bytes > 0))
    T.Overhead += A.ExpertOverhead;
  // A layer pattern's attention products: each set stands for its share
  // of the block's layers, each layer one kernel of one of the sets.
  if (T.Overhead > 0 && Contraction &&
      hasKindTrait(O.Kind, KindAttentionProduct)) {
    double Share = O.share();
    if (Share < 1)
      T.Overhead *= Share;
  }
  T.Time = std::max(T.Compute, T.Memory) + T.Overhead;
  return T;
}

} // namespace cost
} // namespace llmsys
