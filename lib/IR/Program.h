//===- Program.h - the per-device operator program ----------------*- C++ -*-===//
//
// What the passes build and transform, and what the cost analysis reads:
// blocks of operators (the embedding, a transformer layer repeated N times,
// the head, the optimizer step), each operator with its shape, number
// format, FLOPs, bytes read and written in device memory, category, phase,
// and — for collectives — the parallel group and fabric level it crosses.
//
// A repeated layer is one block with a count: costing a 128-layer model is
// not 128 times the work. Op names are static strings, and ops are plain
// data, so a program is cheap to build again for each point of a sweep.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_IR_PROGRAM_H
#define LLMSYS_IR_PROGRAM_H

#include "IR/Scenario.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace ir {

enum class OpCategory : uint8_t {
  Contraction,   ///< GEMM, batched GEMM, GEMV
  Normalization, ///< layernorm, rmsnorm, softmax
  Elementwise,   ///< bias, activation, dropout, residual, rotary
  Memory,        ///< embedding lookup, KV-cache access, optimizer update
  Communication, ///< collectives
  Last = Communication,
};

enum class Phase : uint8_t {
  Forward,
  BackwardData,   ///< gradients with respect to activations
  BackwardWeight, ///< gradients with respect to weights
  Recompute,      ///< forward work repeated for the backward pass
  Optimizer,
  Prefill,
  Decode,
  Last = Decode,
};

/// Work of a training step's backward side: the gradients, and the
/// forward work a recomputation repeats for them.
inline bool backwardSide(Phase P) {
  return P == Phase::BackwardData || P == Phase::BackwardWeight ||
         P == Phase::Recompute;
}

/// ETP: the tensor-parallel split of the experts (MoE parallel folding),
/// which need not be attention's TP.
/// EDP: the devices holding the same experts (MoE parallel folding).
enum class ParallelDim : uint8_t { None, TP, SP, CP, PP, DP, EP, ETP, EDP, Last = EDP };

/// Which dimension of a contraction a parallel split divides.
enum class Axis : uint8_t { None, M, N, K, Batch, Last = Batch };

enum class CollectiveKind : uint8_t {
  None,
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  SendRecv,
  Last = SendRecv,
};

/// What an operator is. Passes test kinds, never names; the name is what
/// dumps and tables print ("attn.qkv", "tp.allreduce").
enum class OpKind : uint8_t {
#define OP_KIND(Id, Name, Category, Traits, Lora) Id,
#include "IR/OpKinds.def"
  NumOpKinds
};

/// What a kind is, beside its category (IR/OpKinds.def, Traits column).
enum KindTrait : uint8_t {
  KindWeight = 1 << 0,            ///< a GEMM over a weight matrix
  KindAttentionProduct = 1 << 1,  ///< a product of attention's core
  KindAttentionGradient = 1 << 2, ///< a backward one of those
  KindAttentionCore = 1 << 3,     ///< what selective recomputation redoes
  KindNormedInput = 1 << 4,       ///< forward input from a norm or activation
  KindStreaming = 1 << 5,         ///< element-wise passes that stream at `memory`
};

namespace detail {
/// Each kind's category (IR/OpKinds.def), inline: builders ask per op.
inline constexpr OpCategory KindCategories[] = {
#define OP_KIND(Id, Name, Category, Traits, Lora) OpCategory::Category,
#include "IR/OpKinds.def"
};
} // namespace detail

/// The category every op of kind K has.
inline OpCategory opCategory(OpKind K) {
  return detail::KindCategories[static_cast<unsigned>(K)];
}
namespace detail {
/// Each kind's traits (IR/OpKinds.def), inline: the cost asks per op.
inline constexpr uint8_t KindTraits[] = {
#define OP_KIND(Id, Name, Category, Traits, Lora) uint8_t(Traits),
#include "IR/OpKinds.def"
};
} // namespace detail

/// Whether kind K has trait T.
inline bool hasKindTrait(OpKind K, KindTrait T) {
  return (detail::KindTraits[static_cast<unsigned>(K)] & T) != 0;
}
/// The LoRA target a linear layer of kind K answers to, if any.
std::optional<LoraTarget> loraTarget(OpKind K);
/// The part of a layer a linear layer of kind K belongs to for a serving
/// mapping's `quantized`, if any.
std::optional<QuantizedPart> quantizedPart(OpKind K);

llvm::StringRef opName(OpKind K);
llvm::StringRef categoryName(OpCategory C);
llvm::StringRef phaseName(Phase P);
llvm::StringRef parallelDimName(ParallelDim D);
llvm::StringRef collectiveName(CollectiveKind K);
llvm::StringRef axisName(Axis A);
llvm::StringRef attentionKernelName(AttentionKernel K);

/// One operator as one device executes it once.
struct Op {
  // (Fields are grouped so that the small ones share words, in two cache
  // lines: programs are copied at every point of a sweep.)
  OpKind Kind = OpKind::None;
  OpCategory Category = OpCategory::Elementwise;
  Phase Ph = Phase::Forward;
  DType Type = DType::BF16;
  /// The dimension tensor parallelism splits (heads, features), and the
  /// one that holds the tokens (split by context parallelism).
  Axis TpAxis = Axis::None;
  Axis TokenAxis = Axis::None;
  /// Collectives: 0 inside a node (scale-up), 1 across nodes.
  uint8_t FabricLevel = 0;
  /// Collectives: may hide behind compute (DP gradients).
  bool Overlappable = false;

  // Contraction shape: Batch independent (M x K) * (K x N) products.
  int64_t M = 0, N = 0, K = 0, Batch = 1;
  /// Bytes per element of A and C, and of B (a weight or an activation):
  /// 0.5 to 8, exact in a float.
  float ABytes = 0, BBytes = 0;

  double Flops = 0;        ///< per execution
  double BytesRead = 0;    ///< device-memory bytes per execution
  double BytesWritten = 0;
  /// Decode only: FLOPs and bytes added per token of context in the KV
  /// cache (attention over the cache), so one program serves every step.
  double FlopsPerContext = 0;
  double BytesPerContext = 0;

  /// Activation bytes this op keeps for the backward pass (training).
  double SavedBytes = 0;
  /// Fraction of the op's FLOPs the kernel performs: a causal fused
  /// attention kernel skips the key blocks after each query block. Scales
  /// the op's compute time, not its FLOP counts (MFU counts the full
  /// product, as Megatron-LM does).
  /// (A float: a fraction, and the window below shares its word.)
  float Executed = 1;
  /// An attention op over part of the context: positive, a sliding window
  /// (the keys a query sees at most); negative, chunks of -Window tokens
  /// (a query sees the earlier keys of its own chunk); 0, the whole
  /// context. (One word for both: an operator fills two cache lines.)
  int32_t Window = 0;
  /// The window or chunk, in tokens (0: none).
  int64_t span() const { return Window < 0 ? -int64_t(Window) : Window; }
  bool chunked() const { return Window < 0; }
  /// The tokens of a cache of Context tokens this op reads (decode): at
  /// most the window; with chunks, the last token's chunk so far.
  double contextRead(double Context) const {
    if (chunked())
      return Context <= 0
                 ? 0
                 : std::fmod(std::max(1.0, Context) - 1, double(span())) + 1;
    return Window && double(Window) < Context ? double(Window) : Context;
  }

  /// Where the op sits with respect to tensor parallelism (Korthikanti et
  /// al. 2022, §4.2): inside the attention or MLP (its work and saved
  /// tensors split over the TP group), or in the sequence region (norms,
  /// dropouts, residuals and the GEMM inputs they feed: replicated over
  /// the TP group unless sequence parallelism splits them).
  bool SequenceRegion = false;
  bool SavedInSequenceRegion = false;
  /// Folded into the op before it (a GEMM epilogue, a fused attention
  /// kernel): no launch and no device-memory round trip of its own.
  OpKind FusedInto = OpKind::None;
  bool fused() const { return FusedInto != OpKind::None; }
  /// The fused attention kernel (FlashAttention) the product runs in, if
  /// any: its tiles run over the sequence, so it is costed at the kernel's
  /// achieved fraction on the device, without GEMM tile, wave or K-loop
  /// quantisation.
  AttentionKernel FusedAttention = AttentionKernel::None;
  bool inFusedAttention() const {
    return FusedAttention != AttentionKernel::None;
  }
  /// Counted in model FLOPs (MFU). False for recomputation and for the
  /// softmax-recompute inside fused attention backward.
  bool ModelWork = true;
  /// A GEMM over a 2:4 structured-sparse weight (serve's sparse_weights):
  /// it runs at the device's sparse rate (the accelerator's `sparsity`
  /// times its dense peak), which the cost applies, so that the operators
  /// do not depend on the hardware.
  bool SparseWeight = false;

  // Collectives.
  CollectiveKind Collective = CollectiveKind::None;
  ParallelDim Group = ParallelDim::None;
  int32_t GroupSize = 1;
  /// Members of the group inside one node (GroupSize when it fits in a
  /// node): a group spanning nodes drives that many network ports per node.
  int32_t GroupPerNode = 1;
  double MessageBytes = 0;  ///< per device

  bool isCollective() const { return Collective != CollectiveKind::None; }
  /// A linear layer's GEMM whose operands carry block scales: the quantize
  /// pass writes a recipe's `block` into its operand bytes (its format's
  /// bytes plus 1/block an element; the operator's two cache lines have no
  /// byte left for a flag). Attention's products keep their own operand
  /// bytes when a recipe narrows them and are never block-scaled.
  bool blockScaled() const {
    return Category == OpCategory::Contraction &&
           double(ABytes) > dtypeBytes(Type) &&
           !hasKindTrait(Kind, KindAttentionProduct);
  }
  /// A routed expert's GEMM (up or down projection of an MoE layer's
  /// experts).
  bool routedExpert() const {
    return Kind == OpKind::MoeExpertUp || Kind == OpKind::MoeExpertDown;
  }
  /// A layer pattern inside one block of layers: the fraction of the
  /// block's layers that run this contraction (GPT-OSS alternates windowed
  /// and full attention, so each of its two sets of attention products
  /// stands for half of the block's). Its counts include it (they are that
  /// fraction of its shape's product); 1 for other ops.
  double share() const {
    if (Category != OpCategory::Contraction || M <= 0 || N <= 0 || K <= 0 ||
        Batch <= 0)
      return 1;
    double Whole = 2.0 * double(M) * double(N) * double(K) * double(Batch);
    return (FlopsPerContext > 0 ? FlopsPerContext : Flops) / Whole;
  }
  llvm::StringRef name() const { return opName(Kind); }
};
static_assert(sizeof(Op) == 128, "an operator fills two cache lines");

enum class BlockKind : uint8_t {
  Embedding,
  DenseLayer,
  MoELayer,
  Head,
  PipelineComm, ///< send/recv between stages, once per micro-batch
  Optimizer,    ///< gradient reduction and the update, once per step
  Last = Optimizer,
};
constexpr size_t NumBlockKinds = static_cast<size_t>(BlockKind::Last) + 1;
llvm::StringRef blockKindName(BlockKind K);

struct Block {
  BlockKind Kind = BlockKind::DenseLayer;
  /// Executions per micro-batch in the whole model (layers of this kind).
  int64_t Repeat = 1;
  /// Parameters one repeat of the block holds on this device.
  double Params = 0;
  /// Of those, the routed experts' (a MoE layer): replicated over the
  /// expert-data-parallel group rather than the data-parallel one.
  double ExpertParams = 0;
  /// Of those, the ones a serving mapping's `quantized` leaves in the
  /// precision (the linear layers of the parts it does not name).
  double WideParams = 0;
  /// Of those, the ones training updates (fine-tuning's adapters: the
  /// `adapt` pass); negative: all of them.
  double Trainable = -1;
  double trainable() const { return Trainable < 0 ? Params : Trainable; }
  /// A block of the model (embedding, layers, head), not the pipeline's
  /// sends or the optimizer.
  bool inModel() const {
    return Kind == BlockKind::Embedding || Kind == BlockKind::DenseLayer ||
           Kind == BlockKind::MoELayer || Kind == BlockKind::Head;
  }
  /// Bytes one repeat keeps of its weights quantized by a recipe that
  /// caches them (every copy, with scales; the `quantize` pass).
  double QuantizedWeightBytes = 0;
  /// Of the weights one repeat keeps, the elements kept only quantized (a
  /// recipe with narrow_params): no copy in the weights' format.
  double NarrowWeights = 0;
  std::vector<Op> Ops;
};

/// One pipeline stage: which blocks it holds.
struct Stage {
  int64_t DenseLayers = 0;
  int64_t MoELayers = 0;
  bool HasEmbedding = false;
  bool HasHead = false;
  /// Training: micro-batches whose activations the stage holds at once
  /// (the schedule pass; 1 before it and for serving).
  double InFlight = 1;
  /// With interleaving, the MoE layers of each of the stage's model
  /// chunks in schedule order (its c-th is the model's chunk c pp + s);
  /// they sum to MoELayers. Empty without interleaving (one chunk).
  llvm::SmallVector<int64_t, 2> MoEChunks;
  /// Holds the blocks the stage before holds (sameBlocks with it): set
  /// with the stages (partition, from its layout; the IR reader, by
  /// markRepeatedStages), so that what depends only on a stage's blocks is
  /// worked out once a run of such stages (the memory, the fullest stage,
  /// the stage times) and the readable dump prints the run as a range.
  /// Never the first stage's; the verifier checks it.
  bool RepeatsPrevious = false;

  /// Repeats of a model block (embedding, layers, head) on this stage; 0
  /// for the pipeline's sends and the optimizer, which are not the model's.
  int64_t holds(BlockKind K) const {
    switch (K) {
    case BlockKind::Embedding: return HasEmbedding ? 1 : 0;
    case BlockKind::DenseLayer: return DenseLayers;
    case BlockKind::MoELayer: return MoELayers;
    case BlockKind::Head: return HasHead ? 1 : 0;
    case BlockKind::PipelineComm:
    case BlockKind::Optimizer: return 0;
    }
    return 0;
  }
  /// Whether two stages hold the same blocks.
  bool sameBlocks(const Stage &O) const {
    return DenseLayers == O.DenseLayers && MoELayers == O.MoELayers &&
           HasEmbedding == O.HasEmbedding && HasHead == O.HasHead &&
           MoEChunks.size() == O.MoEChunks.size() &&
           (MoEChunks.empty() || MoEChunks == O.MoEChunks);
  }
};

/// Sets each stage's RepeatsPrevious, comparing it with the stage before.
void markRepeatedStages(llvm::MutableArrayRef<Stage> Stages);

struct Program;

/// Parameters a stage holds on a device (its layers, and the embedding and
/// head when it has them), with the blocks looked up once for all stages.
class StageParamCounter {
public:
  explicit StageParamCounter(const Program &P);
  double operator()(const Stage &St, bool LayersOnly = false) const {
    double Layers = St.DenseLayers * Dense + St.MoELayers * Moe;
    if (LayersOnly)
      return Layers;
    return Layers + (St.HasEmbedding ? Embedding : 0) + (St.HasHead ? Head : 0);
  }
  /// Of a stage's parameters, the routed experts'.
  double experts(const Stage &St) const { return St.MoELayers * MoeExperts; }
  /// Of a stage's layers' parameters, those a serving mapping's
  /// `quantized` leaves in the precision.
  double wide(const Stage &St) const {
    return St.DenseLayers * DenseWide + St.MoELayers * MoeWide;
  }
  /// Of a stage's parameters, those training updates.
  double trainable(const Stage &St) const {
    return St.DenseLayers * DenseTrainable + St.MoELayers * MoeTrainable +
           (St.HasEmbedding ? EmbeddingTrainable : 0) +
           (St.HasHead ? HeadTrainable : 0);
  }
  /// Whether some parameters are frozen (fine-tuning).
  bool Frozen = false;
  double Dense = 0, Moe = 0, Embedding = 0, Head = 0; ///< per repeat
  double MoeExperts = 0; ///< of Moe, the routed experts' parameters
  double DenseWide = 0, MoeWide = 0; ///< of Dense and Moe, in the precision
  double DenseTrainable = 0, MoeTrainable = 0, EmbeddingTrainable = 0,
         HeadTrainable = 0; ///< per repeat, those training updates

};

/// The pipeline stage holding the most parameters (the first of equals):
/// its parameters on a device and its transformer layers.
struct FullestStage {
  double Params = 0;
  int64_t Layers = 0;
  int64_t DenseLayers = 0, MoELayers = 0; ///< of Layers
  /// Of Params, the routed experts' (MoE layers).
  double ExpertParams = 0;
  /// Of Params, those training updates (all but with fine-tuning).
  double Trainable = 0;
  bool Frozen = false; ///< some parameters do not train
};
FullestStage fullestStage(const Program &P);

/// Micro-batch schedule of a training step, or the step structure of
/// serving.
struct ScheduleInfo {
  ScheduleKind Kind = ScheduleKind::OneFOneB;
  int64_t MicroBatches = 1;   ///< per pipeline per step
  int64_t VirtualStages = 1;
  /// Idle fraction of the ideal step: (p - 1) / (v m) (Narayanan et al.
  /// 2021, §2.2); GPipe and 1F1B share it, interleaving divides it by v.
  double BubbleFraction = 0;
  /// Serving: decode steps after the prefill.
  int64_t DecodeSteps = 0;
};

/// What the passes have made of a program so far: each pass requires some
/// of these, must not find others, and adds its own (passes::PassInfo).
/// Bits of Program::State.
enum ProgramState : unsigned {
  StateExpanded = 1u << 0,    ///< operators of the layers (expand-layers)
  StateFused = 1u << 1,       ///< fused kernels (fuse)
  StateRecomputed = 1u << 2,  ///< recomputation decided (recompute)
  StatePartitioned = 1u << 3, ///< per device, with collectives (partition)
  StateQuantized = 1u << 4,   ///< a recipe's formats and casts (quantize)
  StateScheduled = 1u << 5,   ///< pipeline or serving schedule (schedule)
  StateAdapted = 1u << 6,     ///< fine-tuning's frozen weights (adapt)
};

struct Program {
  ScenarioConfig Scenario;
  int64_t MicroBatch = 1; ///< sequences per micro-batch (serving: batch)
  /// Serving: sequences a decode step advances (the batch times beam
  /// search's beams).
  int64_t DecodeBatch = 1;
  int64_t SeqLen = 0;     ///< tokens per sequence (serving: the prompt)
  std::vector<Block> Blocks;
  std::vector<Stage> Stages; ///< one per pipeline stage after `partition`
  ScheduleInfo Schedule;
  std::vector<std::string> Passes; ///< applied so far, in order
  unsigned State = 0;              ///< ProgramState bits
  bool has(ProgramState S) const { return (State & S) != 0; }
  /// Speculative decoding (serving): the draft model's program, and the
  /// target's program at batch x (k + 1) whose decode phase is the
  /// verification forward. Shared, so copying a program is cheap.
  std::shared_ptr<const Program> Draft, Verify;
  /// Serving with pipelined micro-batches (Schedule.MicroBatches > 1): the
  /// program of one micro-batch of requests, whose stage times pace the
  /// pipeline.
  std::shared_ptr<const Program> PipelineMicro;

  const Block *block(BlockKind K) const;
  Block *block(BlockKind K);
};

/// Totals over a program for one micro-batch (or one serving step),
/// counting repeats.
struct ProgramTotals {
  double ModelFlops = 0;       ///< contraction FLOPs counted in MFU
  double HardwareFlops = 0;    ///< all contraction FLOPs, recompute included
  double AllFlops = 0;         ///< every op's FLOPs
  double BytesMoved = 0;       ///< device-memory bytes, unfused ops
  double CommBytes = 0;        ///< collective message bytes per device
  double SavedBytes = 0;       ///< activations kept for backward
  double WeightParams = 0;     ///< parameters on this device
};
ProgramTotals totals(const Program &P, bool OnlyPhase = false,
                     Phase Which = Phase::Forward);

/// An attention product: the score and context products and their
/// gradients, in a fused attention kernel or not.
bool isAttentionProduct(const Op &O);

/// A linear layer: a contraction with a weight matrix (IR/OpKinds.def's
/// KindWeight; not attention's products, LoRA's adapters or attn.flash).
inline bool hasWeightMatrix(OpKind K) { return hasKindTrait(K, KindWeight); }

/// Bytes a 2:4 structured-sparse weight element takes, stored compressed:
/// half the values, each kept value with a 2-bit index (NVIDIA's sparse
/// tensor-core format).
inline double sparseWeightBytes(double Dense) { return 0.5 * (Dense + 0.25); }

/// The stable text form (llmsys-opt --print-after-all).
void printProgram(const Program &P, llvm::raw_ostream &OS,
                  bool ExpandLayers = false);

/// Checks the invariants every pass keeps: shapes positive, FLOPs and
/// bytes non-negative and finite, contraction FLOPs = 2 M N K Batch, every
/// collective's group a parallel dimension of the mapping, stages covering
/// the layers. Returns a description of the first violation, or "".
std::string verifyProgram(const Program &P);

} // namespace ir
} // namespace llmsys

#endif
