//===- Scenario.h - typed views of mappings, systems, scenarios --*- C++ -*-===//
//
// What the passes and the cost model read, taken once from the resolved spec
// (every value already checked by Sema). Plain data: copying one is cheap,
// so a sweep can vary a field and re-run the passes.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_IR_SCENARIO_H
#define LLMSYS_IR_SCENARIO_H

#include "IR/Enums.def"
#include "IR/Model.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/SMLoc.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace ir {

/// Number formats of tensors.
#define LLMSYS_ENUM_ID(Id, Word) Id,
enum class DType : uint8_t { LLMSYS_DTYPE_WORDS(LLMSYS_ENUM_ID) Last = FP4 };
constexpr int NumDTypes = static_cast<int>(DType::Last) + 1;
DType dtypeFromWord(llvm::StringRef Word);
llvm::StringRef dtypeName(DType T);
/// Bytes of one element (inline: the cost model asks it for every
/// operator).
inline double dtypeBytes(DType T) {
  switch (T) {
  case DType::FP64: return 8;
  case DType::FP32:
  case DType::TF32: return 4;
  case DType::BF16:
  case DType::FP16: return 2;
  case DType::FP8:
  case DType::INT8: return 1;
  case DType::INT4:
  case DType::FP4: return 0.5;
  }
  llvm_unreachable("unknown dtype");
}

/// The other enumerations of IR/Enums.def.
#define LLMSYS_ENUM_TYPE(Type, List)                                           \
  enum class Type : uint8_t { List(LLMSYS_ENUM_ID) };
LLMSYS_ENUM_TYPES(LLMSYS_ENUM_TYPE)
#undef LLMSYS_ENUM_TYPE
#undef LLMSYS_ENUM_ID
#define LLMSYS_ENUM_COUNT(Id, Word) +1
/// The parts of a layer `quantized` names (one bit each in a mask).
constexpr unsigned NumQuantizedParts =
    0 LLMSYS_QUANTIZED_PART_WORDS(LLMSYS_ENUM_COUNT);
/// The parts of a layer `recompute_modules` names (one bit each).
constexpr unsigned NumRecomputeModules =
    0 LLMSYS_RECOMPUTE_MODULE_WORDS(LLMSYS_ENUM_COUNT);
#undef LLMSYS_ENUM_COUNT
static_assert(NumRecomputeModules <= 8, "a mapping keeps them in 8 bits");
constexpr size_t NumLoraTargets = 4;

/// The words of an enumeration of IR/Enums.def, in enumerator order.
template <typename E> llvm::ArrayRef<llvm::StringLiteral> enumWords();
/// The word of a value.
template <typename E> llvm::StringRef enumWord(E V) {
  return enumWords<E>()[static_cast<unsigned>(V)];
}
namespace detail {
/// A word of at most 8 bytes as one integer (its bytes, zero-padded).
inline uint64_t packedWord(llvm::StringRef W) {
  uint64_t X = 0;
  for (size_t I = 0; I < W.size() && I < 8; ++I)
    X |= uint64_t(uint8_t(W[I])) << (8 * I);
  return X;
}
} // namespace detail
/// The value of a word, or nullopt for a word that is not one. (The typed
/// readers ask for a sweep point's formats and modes again and again:
/// short words are compared as integers, not byte by byte.)
template <typename E> std::optional<E> enumFromWord(llvm::StringRef W) {
  llvm::ArrayRef<llvm::StringLiteral> Words = enumWords<E>();
  if (W.size() <= 8) {
    static const std::vector<uint64_t> Packed = [] {
      std::vector<uint64_t> Out;
      for (llvm::StringRef Word : enumWords<E>())
        Out.push_back(detail::packedWord(Word));
      return Out;
    }();
    const uint64_t X = detail::packedWord(W);
    for (unsigned I = 0; I < Words.size(); ++I)
      if (Packed[I] == X && Words[I].size() == W.size())
        return static_cast<E>(I);
    return std::nullopt;
  }
  for (unsigned I = 0; I < Words.size(); ++I)
    if (Words[I] == W)
      return static_cast<E>(I);
  return std::nullopt;
}
/// The value of a word Sema has checked (a reader's: an unknown word is a
/// bug, not a default).
template <typename E> E checkedEnum(llvm::StringRef W) {
  std::optional<E> V = enumFromWord<E>(W);
  assert(V && "a word the schema does not list");
  return V ? *V : E();
}
/// A gated activation: two halves from the up-projection, three MLP
/// matrices (swiglu, geglu).
inline bool gatedActivation(ActivationKind A) {
  return A == ActivationKind::SwiGlu || A == ActivationKind::GeGlu;
}
llvm::StringRef recomputeName(Recompute R);
llvm::StringRef scheduleName(ScheduleKind S);

/// The fused attention kernel (FlashAttention) a mapping runs, if any: the
/// part's own (fusion flash_attention: cuDNN's, FlashAttention-3 on Hopper;
/// efficiency.attention), or FlashAttention-2 as PyTorch's SDPA runs it
/// (flash_attention_2; efficiency.attention_fa2). Its attention products
/// carry it (Op::FusedAttention).
enum class AttentionKernel : uint8_t {
  None,
  Native,
  FlashAttention2,
  Last = FlashAttention2,
};

/// The rows (queries or keys) of one tile of a fused attention kernel's
/// loops (FlashAttention-2's and cuDNN's 128): what a causal mask, a window
/// or chunks skip (passes/Fusion.cpp) and what the per-block cost is
/// counted in (efficiency.attention_overhead, Cost/OpCost.cpp).
constexpr int64_t FusedAttentionBlock = 128;
/// The blocks of FusedAttentionBlock rows that cover Rows rows.
inline double fusedAttentionBlocks(double Rows) {
  return std::ceil(Rows / FusedAttentionBlock);
}

/// Fused kernels a mapping asks for.
struct FusionSet {
  AttentionKernel Attention = AttentionKernel::None;
  bool flashAttention() const { return Attention != AttentionKernel::None; }
  /// Both flash_attention and flash_attention_2 listed (an error).
  bool TwoAttentionKernels = false;
  bool BiasGelu = false;
  bool BiasDropoutAdd = false;
  bool Norm = false; ///< fused layernorm / rmsnorm kernels
  bool Softmax = false;
  bool SwiGLU = false;
  bool Rope = false;
  /// A gated activation's clamp (model glu_clamp) inside the fused
  /// activation's kernel (swiglu).
  bool GluClamp = false;
  /// A serving engine's routed experts fold their activation into the up
  /// GEMM's epilogue (expert_act); without it the activation is a kernel
  /// of its own after the up GEMM.
  bool ExpertAct = false;
  /// The fused-activation word for the model's MLP: swiglu for a gated
  /// one, bias_gelu for a plain one.
  bool activationFused(bool GatedMlp) const {
    return GatedMlp ? SwiGLU : BiasGelu;
  }
};

/// Where each mapping field was written, for diagnostics at the field.
struct MappingLocs {
  llvm::SMRange Dp, Tp, Pp, Cp, CpHeads, CpGradients, CpOverlap, Ep, MicroBatch,
      GlobalBatch, Schedule, VirtualStages, Offload, Gradients, Activations,
      Recipe, TpOverlap, TpOverlapBackward, EpOverlap, EpSms, EpDispatch, DpBucket,
      DpOverlapGather, OffloadLayers, DpCtas, CpCtas, PpCtas,
      ExpertTp, SparseWeights, Quantized, ScaleBlock, Recompute,
      RecomputeModules,
      StageLayers,
      FirstStageLayers, LastStageLayers, Fusion, Decl;
};

/// A low-precision training recipe (a `recipe` entity; docs/cost-model.md,
/// "Low-precision recipes"): the formats of the linear layers' GEMMs per
/// role and what quantizing their operands costs. The `quantize` pass
/// reads it.
struct RecipeConfig {
  std::string Name;
  /// Operand formats: forward (input and weight), input gradient (output
  /// gradient and weight), weight gradient (output gradient and input).
  DType Forward = DType::FP8, InputGradient = DType::FP8,
        WeightGradient = DType::FP8;
  /// Formats of the attention products and of the LM head (unset in the
  /// spec: the mapping's precision).
  DType Attention = DType::BF16, Head = DType::BF16;
  /// Elements per 1-byte scale factor (0: one scale per tensor or row).
  int64_t Block = 0;
  /// Quantized copies written of each tensor (layouts or scale directions
  /// the three GEMMs need).
  int64_t Copies = 1;
  bool AmaxPass = false;    ///< a separate read to find the scale first
  bool CastPerCopy = false; ///< each copy its own pass over the input
  bool WeightCache = true;  ///< weights quantized once per step and kept
  bool SaveNarrow = true;   ///< backward keeps the quantized input
  bool FusedInput = false;  ///< norms and activations write the first copy
  /// Sequence parallelism's all-gather carries the quantized input.
  bool NarrowGather = true;
  /// The backward GEMMs' outputs are rescaled by a pass of their own.
  bool RescaleBackward = false;
  /// The linear layers' weights are kept only quantized (no copy in the
  /// weights' format; memory only).
  bool NarrowParams = false;
  /// With narrow_params: the weights' second copy kept (else made again in
  /// each backward GEMM).
  bool CacheTransposes = true;
  /// How the MLP activation keeps its input for backward.
  ActivationStore StoreActivation = ActivationStore::Wide;
  /// The cast kernels' rate relative to the accelerator's memory-bound
  /// kernels (quant.input, quant.grad, quant.weight, quant.rescale).
  double CastEfficiency = 1;
  /// Bytes per element of one quantized copy in format T, with its scales.
  double copyBytes(DType T) const {
    return dtypeBytes(T) + (Block > 0 ? 1.0 / double(Block) : 0.0);
  }
};

struct MappingConfig {
  int64_t Dp = 1, Tp = 1, Pp = 1, Cp = 1, Ep = 1;
  /// Serving: 2:4 structured-sparse linear weights in the layers.
  bool SparseWeights = false;
  /// Serving: the parts of a layer (QuantizedPart bits) whose linear
  /// layers take `Weights` and `Activations`; the others keep `Precision`.
  /// All of them unless `quantized` is written.
  static constexpr uint8_t AllQuantized = (1u << NumQuantizedParts) - 1;
  uint8_t Quantized = AllQuantized;
  bool QuantizedWritten = false;
  /// A part `quantized` lists twice (the first such; -1: none).
  int8_t QuantizedTwice = -1;
  /// Serving: the elements a scale of the quantized 8-bit GEMMs' operands
  /// covers (scale_block; 0: per-tensor scales).
  int64_t ScaleBlock = 0;
  bool quantizes(QuantizedPart P) const {
    return (Quantized >> static_cast<unsigned>(P)) & 1u;
  }
  /// The experts' tensor-parallel split (default tp) and whether it was
  /// written.
  int64_t ExpertTp = 1;
  bool ExpertTpWritten = false;
  bool SequenceParallel = false;
  int64_t Zero = 0;
  bool DistributedOptimizer = false;
  int64_t MicroBatch = 1;
  int64_t GlobalBatch = 0; ///< 0: one micro-batch per data-parallel rank
  ScheduleKind Schedule = ScheduleKind::OneFOneB;
  int64_t VirtualStages = 1;
  Recompute Recomp = Recompute::None;
  /// With Recomp = Selective, the parts of a layer recomputed
  /// (RecomputeModule bits; `recompute_modules`, core_attn unless
  /// written).
  uint8_t RecomputeModules = 1u << unsigned(RecomputeModule::CoreAttn);
  bool RecomputeModulesWritten = false;
  /// A module `recompute_modules` lists twice (the first such; -1: none).
  int8_t RecomputeModuleTwice = -1;
  /// Whether the recompute policy keeps the outputs of the products it
  /// keeps, not their inputs (`ops`: torchtitan's per-op checkpointing;
  /// `dots`: JAX's checkpoint_dots_with_no_batch_dims).
  bool keepsOutputs() const {
    return Recomp == Recompute::Ops || Recomp == Recompute::Dots;
  }
  bool recomputes(RecomputeModule R) const {
    return Recomp == Recompute::Selective &&
           ((RecomputeModules >> static_cast<unsigned>(R)) & 1u);
  }
  /// The modules recomputed, in the registry's order (none unless
  /// selective).
  llvm::SmallVector<RecomputeModule, NumRecomputeModules>
  recomputedModules() const {
    llvm::SmallVector<RecomputeModule, NumRecomputeModules> Out;
    for (unsigned I = 0; I < NumRecomputeModules; ++I)
      if (recomputes(RecomputeModule(I)))
        Out.push_back(RecomputeModule(I));
    return Out;
  }
  /// Uneven pipeline stages, as written: layers per stage or per model
  /// chunk (`stage_layers`), or the first and last stages' layers (-1:
  /// unset). None of them: an even split. The partition pass lays them out
  /// (passes::chunkLayers).
  std::vector<int64_t> StageLayers;
  int64_t FirstStageLayers = -1, LastStageLayers = -1;
  /// The base format (`precision`): the residual stream, its norms and the
  /// collectives that carry it; weights, GEMM inputs (`activations`) and
  /// the KV cache may be narrower.
  DType Precision = DType::BF16;
  DType Weights = DType::BF16, Activations = DType::BF16, KVCache = DType::BF16;
  /// Format of the accumulated gradients and of their data-parallel
  /// reduction (the optimizer works on fp32 copies of narrower ones).
  DType Gradients = DType::FP32;
  FusionSet Fusion;
  /// A step's kernels replayed from a captured CUDA graph (false: the host
  /// launches each; the accelerator's launch_overhead applies).
  bool CudaGraphs = true;
  /// In-flight batching: the host time each engine step adds, and per
  /// sequence the step runs (seconds).
  double StepOverhead = 0, SequenceOverhead = 0;
  bool TpOverlap = false;
  /// tp_overlap also hides the backward's TP communication (false: the
  /// forward's only, PyTorch's async TP).
  bool TpOverlapBackward = true;
  bool TpOverlapBackwardWritten = false;
  /// The context-parallel exchange (cp > 1): K and V at the query heads a
  /// device holds (repeated before attention) instead of its K/V heads;
  /// the format of the K/V gradients the backward passes on (unset: the
  /// exchange's own); whether it runs beside the attention products
  /// (training). Each `Written` is set where the spec wrote the field.
  bool CpQueryHeads = false;
  std::optional<DType> CpGradients;
  bool CpOverlap = true;
  bool CpHeadsWritten = false, CpOverlapWritten = false;
  /// Expert-parallel all-to-alls run beside another micro-batch's compute
  /// (Megatron-LM's overlap_moe_expert_parallel_comm).
  bool EpOverlap = false;
  /// SMs the overlapped expert-parallel all-to-alls hold (ep_sms).
  int64_t EpSms = 0;
  /// Expert dispatch: each of a token's top-k copies (NCCL all-to-all),
  /// each node and device holding one of its experts once (DeepEP,
  /// HybridEP), or every token to every member (all-gather, the outputs
  /// reduce-scattered back).
  EpDispatch EpDispatchKind = EpDispatch::AllToAll;
  /// Training's routed-expert GEMMs: one kernel for a device's experts,
  /// or one launch per local expert (expert_gemms).
  ExpertGemms ExpertGemmKind = ExpertGemms::Grouped;
  /// Training's routed-expert biases: inside the experts' kernels, or
  /// added by passes of their own after the GEMMs (expert_bias).
  ExpertBias ExpertBiasKind = ExpertBias::Fused;
  /// Where a token's top-k experts lie: drawn at random, or k
  /// consecutive experts (expert_routing).
  ExpertRouting ExpertRoutingKind = ExpertRouting::Random;
  /// Column-parallel layers' input-gradient collective hides behind their
  /// weight-gradient GEMMs.
  bool TpGradOverlap = false;
  bool DpOverlap = false;
  /// Parameters in each data-parallel bucket (0: Megatron-LM's default).
  int64_t DpBucket = 0;
  /// With dp_overlap, the sharded optimizer's parameter all-gather is
  /// overlapped too (dp_overlap_gather; false: exposed after the step),
  /// and whether the spec wrote it.
  bool DpOverlapGather = true;
  bool DpOverlapGatherWritten = false;
  /// Weight-gradient GEMMs accumulate into the gradient buffer; false: a
  /// separate add per weight gradient and micro-batch.
  bool GradAccumulationFusion = true;
  /// Host-memory offload: the weights (serving: streamed over the host
  /// link for every forward) or the optimizer state.
  bool OffloadWeights = false, OffloadOptimizer = false;
  /// Training: each layer's saved activations kept in host memory.
  bool OffloadActivations = false;
  /// Of each stage's transformer layers, how many (its first ones) offload
  /// their activations (offload_layers; 0: all of them).
  int64_t OffloadLayers = 0;
  /// Training: the most CTAs NCCL may run for the data-parallel,
  /// context-parallel and pipeline groups' collectives (dp_ctas, cp_ctas,
  /// pp_ctas; 0: not bounded).
  int64_t DpCtas = 0, CpCtas = 0, PpCtas = 0;
  /// Training only: a low-precision recipe for the linear layers.
  std::optional<RecipeConfig> Recipe;
  /// `activations` was written (not the default): a recipe sets the GEMM
  /// formats instead, and the two may not be combined.
  bool ActivationsWritten = false;
  MappingLocs Locs;

  int64_t devices() const { return Dp * Tp * Pp * Cp; }
  /// A device's routed experts of a model's Experts (the last EP rank may
  /// hold fewer; the most a device holds).
  int64_t expertsPerDevice(int64_t Experts) const {
    return (Experts + Ep - 1) / Ep;
  }
  /// Model chunks a stage runs: the virtual stages of the interleaved
  /// schedule, one otherwise.
  int64_t modelChunks() const {
    return Schedule == ScheduleKind::Interleaved ? VirtualStages : 1;
  }
  /// The devices holding the same weights: the data-parallel replicas and
  /// the context-parallel ranks of each. Gradients are reduced, and ZeRO's
  /// or the distributed optimizer's state sharded, over them (Megatron-LM's
  /// data-parallel group with context parallelism; torchtitan's
  /// dp_shard x cp mesh).
  int64_t weightReplicas() const { return Dp * Cp; }
  /// The devices holding the same experts (the expert-data-parallel
  /// group): a stage's tp x cp x dp devices over the ep x expert_tp grid.
  int64_t expertReplicas() const {
    return std::max<int64_t>(1, Dp * Tp * Cp / std::max<int64_t>(1, Ep * ExpertTp));
  }
  /// Whether the experts are laid out otherwise than inside the
  /// data-parallel group with attention's TP split (MoE parallel folding).
  bool expertsFolded() const { return Ep > 1 || ExpertTp != Tp; }
};

/// Whether model M has part P of a layer (`quantized`): every model has
/// the attention's; a dense layer's MLP needs a dense layer, the router
/// and routed experts a MoE layer, the shared experts some.
bool modelHasPart(const ModelConfig &M, QuantizedPart P);

struct AcceleratorConfig;
/// AcceleratorConfig::runsAs for a format the device lacks: the nearest
/// wider one it has.
DType widerFormat(const AcceleratorConfig &A, DType T);

/// One device, as the cost model reads it.
struct AcceleratorConfig {
  std::string Name;
  double Peak[NumDTypes] = {}; ///< dense FLOP/s per DType (0: not supported)
  double HbmCapacity = 0, HbmBandwidth = 0;
  /// The last-level on-chip cache: capacity and bandwidth (0: none or not
  /// given). Serving steps whose bytes fit in it read at its bandwidth
  /// (docs/cost-model.md, "On-chip memory").
  double L2Capacity = 0, L2Bandwidth = 0;
  /// Access latencies (0: not given): a memory-bound transfer's time is
  /// bytes / bandwidth + latency.
  double HbmLatency = 0, L2Latency = 0;
  /// Energy per byte read or written in device memory: the energy_per_bit
  /// of the memory technology its `hbm` names (0: not given).
  double HbmEnergyPerByte = 0;
  int64_t ComputeUnits = 0;
  double Tdp = 0;
  /// Power drawn in use while idle (0: not given), and the energy per FLOP
  /// above it by format (0: not given), for energy from activity.
  double StaticPower = 0;
  double FlopEnergy[NumDTypes] = {};
  double Price = 0; ///< per device (0: not given)
  // Efficiency knobs (stdlib values carry their sources).
  double ComputeEfficiency = 1, MemoryEfficiency = 1;
  /// Bandwidth fraction of normalisation and element-wise kernels.
  double ElementwiseEfficiency = 1;
  /// Bandwidth fraction of decode attention reading the KV cache.
  double KvCacheEfficiency = 1;
  double KvCacheNarrowEfficiency = 1; ///< an 8- or 4-bit KV cache
  /// A serving engine's MoE expert GEMMs: the fraction of bandwidth at
  /// which they stream the experts' weights, and a fixed time each
  /// (efficiency.expert_memory, expert_overhead).
  double ExpertMemoryEfficiency = 1;
  double ExpertOverhead = 0;
  /// The fraction of the tiled GEMM model's rate those that run at the
  /// 4-bit rate reach (efficiency.expert_fp4).
  double ExpertFp4Efficiency = 1;
  /// Those whose 8-bit operands carry block scales: their rate relative to
  /// per-tensor scaled ones', in place of NarrowBlockEfficiency
  /// (efficiency.expert_block).
  double ExpertBlockEfficiency = 1;
  /// Achieved fraction of the peak of fused attention kernels, forward
  /// and backward (efficiency.attention, attention_backward).
  double AttentionEfficiency = 1;
  double AttentionBackwardEfficiency = 1;
  /// The same for FlashAttention-2 (efficiency.attention_fa2).
  double AttentionFa2Efficiency = 1;
  /// A fused attention kernel's fixed cost per query block (forward) and
  /// per key block (backward), in blocks of its inner loop
  /// (efficiency.attention_overhead, attention_overhead_backward).
  double AttentionOverhead = 0;
  double AttentionOverheadBackward = 0;
  int64_t TileM = 128, TileN = 128, TileK = 32;
  /// A GEMM tile's fixed cost (prologue, pipeline fill, epilogue) in
  /// elements of its K loop.
  double KOverhead = 0;
  /// Efficiency of half-size tiles relative to the full tile (0: the full
  /// tile only).
  double SmallTile = 0;
  /// Speedup of 2:4 structured-sparse GEMMs over the dense peak (1: none).
  double Sparsity = 1;
  /// Achieved fraction of the 8- and 4-bit peaks relative to the 16-bit
  /// one's (compute x narrow).
  double NarrowEfficiency = 1;
  /// Of NarrowEfficiency, the fraction an 8-bit contraction with block
  /// scales keeps (Op::blockScaled).
  double NarrowBlockEfficiency = 1;
  /// The same for the 4-bit peaks.
  double Fp4Efficiency = 1;
  /// The fused attention kernel's 8-bit products, forward and backward:
  /// in place of NarrowEfficiency (efficiency.attention_narrow,
  /// attention_narrow_backward).
  double AttentionNarrowEfficiency = 1;
  double AttentionNarrowBackwardEfficiency = 1;
  /// Share of the key blocks before a sliding window that the kernel's
  /// 8-bit backward visits anyway (efficiency.attention_narrow_window).
  double AttentionNarrowWindow = 0;
  /// Fraction of the short-run compute rate sustained through a long run.
  double Sustained = 1;
  double KernelOverhead = 0;
  /// The same when the host launches each kernel (no CUDA graph).
  double LaunchOverhead = 0;
  double ReservedMemory = 0;
  /// The host link's achieved bandwidth per direction (0: none).
  double HostLinkBandwidth = 0;
  /// The bus bandwidth one NCCL channel (one CTA) reaches over the node's
  /// fabric (channel_bandwidth; 0: not given).
  double ChannelBandwidth = 0;

  /// The peak for a number format; formats without support run at the
  /// nearest wider format's rate (fp8 on an A100 runs as bf16).
  double peak(DType T) const { return Peak[static_cast<int>(runsAs(T))]; }
  /// The format a computation in T runs in (T, or the nearest wider one).
  /// (Inline: the cost model asks it of every operator.)
  DType runsAs(DType T) const {
    return Peak[static_cast<int>(T)] > 0 ? T : widerFormat(*this, T);
  }
  /// peak(T), and NarrowEfficiency (8-bit) or Fp4Efficiency (4-bit) for
  /// narrow formats the device
  /// supports (1 otherwise), from one format look-up; an 8-bit one with
  /// BlockScaled operands (Op::blockScaled) also NarrowBlockEfficiency.
  struct Rate {
    double Peak, FormatEfficiency;
  };
  Rate rate(DType T, bool BlockScaled = false) const {
    DType R = runsAs(T);
    double Efficiency =
        R == DType::FP8 || R == DType::INT8
            ? NarrowEfficiency * (BlockScaled ? NarrowBlockEfficiency : 1.0)
        : R == DType::FP4 || R == DType::INT4 ? Fp4Efficiency
                                              : 1.0;
    return {Peak[static_cast<int>(R)], Efficiency};
  }
};

/// A fabric as the cost model reads it: per device, per direction.
struct NetworkConfig {
  std::string Name;
  double Bandwidth = 0;
  double Latency = 0;
  double Efficiency = 1;
  /// Energy per byte carried (the network's energy_per_bit; 0: not given).
  double EnergyPerByte = 0;
  /// How the fabric connects its devices, and a torus's dimensions.
  Topology Topo = Topology::Switch;
  int64_t Dimensions = 2;
  /// A tapered fat tree: the spine's share of a leaf's bandwidth is
  /// 1 / Oversubscription beyond LeafNodes nodes (0: no taper).
  double Oversubscription = 1;
  int64_t LeafNodes = 0;
  /// A serving engine's all-to-all inside a node on a switch: the
  /// one-sided kernel's fixed time (0: not given, (n - 1) latency steps).
  double AlltoallLatency = 0;
  /// A switch that reduces (`reduction`, NVLink SHARP): the achieved
  /// fraction of Bandwidth of NCCL's all-reduce through it (0: it does
  /// not reduce).
  double ReductionEfficiency = 0;
  /// Its fixed time (negative: not given, two steps of Latency).
  double ReductionLatency = -1;
  bool present() const { return Bandwidth > 0; }
};

struct SystemConfig {
  std::string Name;
  std::string Accelerator;
  AcceleratorConfig Device;
  NetworkConfig ScaleUp;  ///< inside a node
  NetworkConfig ScaleOut; ///< between nodes
  int64_t DevicesPerNode = 1;
  int64_t Nodes = 1;
  double Pue = 1;
  double EnergyPrice = 0; ///< per joule (0: not given)
  double Lifetime = 0;    ///< seconds (0: not given)
  /// The costs of owning (ownership = own; 0: not given): a node's host,
  /// a device's share of the network, the facility per watt of TDP and
  /// the period it is amortised over; or renting: a device-second's price.
  bool Rented = false;
  double Rent = 0;
  double HostPrice = 0, NetworkPrice = 0;
  double FacilityPrice = 0, FacilityLifetime = 0;
  double Utilization = 1; ///< fraction of the time spent on useful work
  bool HasScaleOut = false; ///< a fabric between nodes
  /// The node's host memory bandwidth, shared by its devices (0: not
  /// given).
  double HostMemoryBandwidth = 0;
  llvm::SMRange Decl;
  int64_t devices() const { return DevicesPerNode * Nodes; }
};

/// Speculative decoding of a serve scenario (Leviathan et al. 2023): a
/// draft model proposes K tokens one at a time, the target verifies them
/// in one forward of K + 1 tokens per sequence, and each proposed token is
/// accepted with probability Acceptance.
struct SpeculativeConfig {
  bool Enabled = false;
  ModelConfig Draft;
  int64_t K = 1;
  double Acceptance = 0;
  llvm::SMRange DraftUse; ///< where the scenario names the draft
  /// Expected tokens a verification step yields: the accepted prefix plus
  /// the target's own next token, (1 - a^(K+1)) / (1 - a).
  double tokensPerStep() const;
};

inline llvm::StringRef arrivalName(ArrivalKind K) { return enumWord(K); }
inline llvm::StringRef lengthsName(LengthDistribution D) { return enumWord(D); }

/// Fine-tuning (a train scenario's `finetune`): which parameters train.
/// LoRA (Hu et al. 2021) freezes the base weights and trains a rank-r
/// pair of matrices A (in x r) and B (r x out) beside each targeted linear
/// layer; QLoRA (Dettmers et al. 2023) also stores the frozen base weights
/// in 4-bit NormalFloat with double-quantized block scales and dequantizes
/// them to 16 bits for every GEMM that reads them.
struct FinetuneConfig {
  FinetuneKind Kind = FinetuneKind::Full;
  int64_t Rank = 0;
  bool Targets[NumLoraTargets] = {true, true, true, true};
  /// A row-parallel layer's adapter output back to the sequence shards by
  /// an all-to-all (NeMo's a2a_experimental), not an all-gather.
  bool AllToAll = false;
  llvm::SMRange Loc, RankLoc, AllToAllLoc;
  bool adapters() const { return Kind != FinetuneKind::Full; }
  bool targets(LoraTarget T) const { return Targets[static_cast<int>(T)]; }
  /// Bytes a frozen base weight takes in memory: 4-bit NF4 plus its
  /// double-quantized scales with QLoRA (4 + 0.127 bits a parameter,
  /// Dettmers et al. 2023 §3, "Double Quantization"); 0: the mapping's
  /// `weights` format.
  double baseBytes() const {
    return Kind == FinetuneKind::Qlora ? (4.0 + 0.127) / 8.0 : 0.0;
  }
};
inline llvm::StringRef finetuneName(FinetuneKind K) { return enumWord(K); }

/// Serving under in-flight batching (serve's `traffic`): requests of the
/// scenario's prompt and output, arriving by ArrivalKind, admitted into
/// running engine steps as slots and KV cache allow.
struct TrafficConfig {
  bool Enabled = false;
  int64_t Requests = 0;
  ArrivalKind Arrival = ArrivalKind::Offline;
  int64_t Clients = 0; ///< concurrency
  double Rate = 0;     ///< poisson: requests per second
  int64_t MaxBatch = 256;
  int64_t MaxTokens = 8192;
  /// Prompts read in chunks over several steps (vLLM's chunked prefill,
  /// TensorRT-LLM's context chunking); false: whole in one step.
  bool ChunkedPrefill = false;
  /// A step runs prompts only while there are prompts to run (vLLM's
  /// default scheduler before chunked prefill); false: every step runs the
  /// generating sequences and the prompts admitted beside them.
  bool PrefillFirst = false;
  /// Share of each prompt found in the prefix cache (not computed).
  double PrefixHit = 0;
  double KvFraction = 0.9;
  /// Tokens per block of the paged KV cache (1: exact tokens).
  int64_t KvBlock = 1;
  /// Blocks taken as the context grows, with preemption by recompute
  /// (vLLM); false: the whole request reserved at admission.
  bool OnDemand = false;
  uint64_t Seed = 1;
  /// Request lengths around the scenario's prompt and output (their
  /// means), with these standard deviations (0: fixed).
  LengthDistribution Lengths = LengthDistribution::Normal;
  double PromptStdev = 0, OutputStdev = 0;
  /// Recorded requests (traffic.trace), in file order; null without.
  std::shared_ptr<const std::vector<spec::TraceRequest>> Trace;
  /// Disaggregated serving: the prefill pool's mapping (traffic.prefill);
  /// the scenario's mapping is then the decode pool's.
  bool Disaggregated = false;
  MappingConfig Prefill;
  /// Set by the cost on the pools' runs, not by a spec: each request ends
  /// with its first token (the prefill pool); each prompt arrives in the
  /// cache but its last token (the decode pool: the prefill pool's first
  /// token is its first input).
  bool PrefillOnly = false, Prefilled = false;
  /// For diagnostics: where each is written (invalid when not written).
  llvm::SMRange Use, ArrivalLoc, MaxTokensLoc, ClientsLoc, RateLoc, SeedLoc,
      BatchLoc, LengthsLoc, PrefillLoc;
};

/// A train or serve scenario, typed.
struct ScenarioConfig {
  std::string Name;
  bool Training = true;
  ModelConfig Model;
  MappingConfig Mapping;
  SystemConfig System;
  int64_t SeqLen = 0;      ///< training sequence length; serving: prompt
  int64_t OutputLen = 0;   ///< serving: generated tokens
  int64_t Batch = 0;       ///< serving: concurrent sequences
  /// Serving: retrieved tokens added to each prompt (included in SeqLen).
  int64_t Retrieved = 0;
  llvm::SMRange RetrievedLoc;
  /// Serving: beam search's sequences per request (1: none), and where
  /// the scenario sets them.
  int64_t Beams = 1;
  llvm::SMRange BeamsLoc;
  double Tokens = 0;       ///< training: tokens to train on
  /// Training optimizer, mixed precision with fp32 master weights: Adam
  /// (first and second moments), SGD with momentum, or Muon (the layers'
  /// weight matrices; Adam for the embedding and the head), and where the
  /// scenario sets it.
  OptimizerKind Optimizer = OptimizerKind::Adam;
  llvm::SMRange OptimizerLoc;
  bool sgd() const { return Optimizer == OptimizerKind::Sgd; }
  bool muon() const { return Optimizer == OptimizerKind::Muon; }
  /// Optimizer state per parameter: fp32 master weights plus the moments
  /// (Adam 4 + 4 + 4 bytes, Rajbhandari et al. 2020 K = 12; SGD with
  /// momentum 4 + 4); with Muon, of the parameters it leaves to Adam.
  double optimizerStateBytes() const { return sgd() ? 8 : 12; }
  /// Muon's state per parameter of the matrices it updates: the fp32
  /// master and the fp32 momentum (emerging_optimizers'
  /// OrthogonalizedOptimizer keeps one momentum buffer).
  static constexpr double MuonStateBytes = 8;
  /// Muon's Newton-Schulz iterations (Megatron-LM's muon_num_ns_steps,
  /// default 5; Megatron-Bridge's distributed_muon_with_cosine_annealing).
  static constexpr int MuonSteps = 5;
  /// Serving objectives (0: none): upper limits on time to first token,
  /// time per output token and end-to-end latency; a lower limit on output
  /// tokens per second for the system.
  double SloTtft = 0, SloTpot = 0, SloE2E = 0, SloThroughput = 0;
  SpeculativeConfig Speculative; ///< serving
  TrafficConfig Traffic;         ///< serving
  FinetuneConfig Finetune;       ///< training
  /// A part of the system: the devices written (0: unset), where, and
  /// whether the idle rest is charged in energy and cost.
  int64_t Devices = 0;
  llvm::SMRange DevicesLoc;
  bool ChargeIdle = false;
  /// Devices energy and cost count: the mapping's, or the whole system's
  /// with charge_idle.
  int64_t chargedDevices() const {
    return ChargeIdle ? System.devices() : usedDevices();
  }
  /// The mapping's devices, and a prefill pool's beside them.
  int64_t usedDevices() const {
    return Mapping.devices() +
           (Traffic.Disaggregated ? Traffic.Prefill.devices() : 0);
  }
  llvm::SMRange Decl;
  llvm::SMRange MappingUse; ///< where the scenario names its mapping
  /// Whether a diagnostic at At (in the mapping) wants a note at
  /// MappingUse: there is one, and it is elsewhere.
  bool mappingUseElsewhere(llvm::SMRange At) const {
    return MappingUse.Start.isValid() &&
           MappingUse.Start.getPointer() != At.Start.getPointer();
  }
};

/// Reads a train or serve entity (already checked by Sema).
ScenarioConfig scenarioFromSpec(const spec::Object &Scenario);

/// Serving with pipeline parallelism: whether the batch is split into
/// micro-batches of requests that occupy the stages together (not with
/// speculative decoding or offloaded weights, whose requests pass the
/// stages in turn).
bool pipelinesRequests(const ScenarioConfig &S);
/// The micro-batches a serving batch of Batch requests is split into:
/// pp of them, of ceil(Batch / pp) requests, as many as are not empty
/// (1 without pipelining).
int64_t servingMicroBatches(const ScenarioConfig &S, int64_t Batch);
/// Requests in the fullest of them: ceil(Batch / pp) (Batch without
/// pipelining).
int64_t servingMicroBatchSize(const ScenarioConfig &S, int64_t Batch);
/// The parts of it, for a sweep that changes one part per point.
MappingConfig mappingFromSpec(const spec::Object &Mapping);
/// The format a serving engine's attention products (prefill and decode)
/// run in: the wider of the GEMM inputs' and the KV cache's formats, and
/// at least 8 bits (no engine has 4-bit attention kernels); integer
/// formats are dequantized to `precision` first (docs/cost-model.md,
/// "Number formats").
DType servingAttentionFormat(const MappingConfig &Mapping);
SystemConfig systemFromSpec(const spec::Object &System);
/// Reads an accelerator entity (already checked by Sema).
AcceleratorConfig acceleratorFromSpec(const spec::Object &Accelerator);

} // namespace ir
} // namespace llmsys

#endif
