//===- Cost.h - what running a program costs ----------------------*- C++ -*-===//
//
// The cost analysis reads an operator program (lib/Passes) and the
// scenario's hardware (lib/IR/Scenario.h). docs/cost-model.md describes the
// model; every constant is a field of an accelerator, a network or a
// mapping, with a default in the schema and a sourced value in stdlib/.
//
//   OpCost.cpp          one operator: roofline with shape-aware GEMM
//                       efficiency
//   CollectiveCost.cpp  one collective: alpha-beta per fabric level
//   TrainingCost.cpp    a training step: stages, pipeline, overlap, MFU
//   TrainingMemory.cpp  memory per device in training
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_COST_COST_H
#define LLMSYS_COST_COST_H

#include "Basic/Diagnostics.h"
#include "IR/Figures.h"
#include "IR/Program.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llmsys {
namespace cost {

/// The name of the largest of a breakdown's parts (the first on ties).
const char *
largestPart(std::initializer_list<std::pair<const char *, double>> Parts);

struct OpTime {
  double Compute = 0;    ///< at the achievable compute rate
  double Memory = 0;     ///< at the achievable bandwidth
  double Overhead = 0;   ///< kernel launch
  double Time = 0;       ///< max(compute, memory) + overhead
  double Efficiency = 0; ///< achieved fraction of the compute peak (GEMMs)
  /// Of Compute, a fused attention kernel's fixed cost per block
  /// (efficiency.attention_overhead): linear in the sequence where the
  /// products grow with its square.
  double BlockOverhead = 0;
  bool MemoryBound = false;
};

/// The fixed time of each kernel of a phase a mapping runs: the
/// accelerator's kernel_overhead when its steps are replayed from CUDA
/// graphs, its launch_overhead when the host launches every kernel, except
/// in a serving prefill (one long forward whose launches the host keeps
/// ahead of; docs/cost-model.md, "Kernel launches").
/// (The same for a forward op and its recomputation: the training cost
/// relies on it, see sameOpCost.)
inline double kernelOverhead(const ir::AcceleratorConfig &A,
                             const ir::MappingConfig &M, ir::Phase Ph) {
  return M.CudaGraphs || Ph == ir::Phase::Prefill ? A.KernelOverhead
                                                  : A.LaunchOverhead;
}

/// A stage's transformer layers whose saved tensors go to host memory
/// (offload = activations): all of them, or offload_layers' first ones,
/// dense layers taken before MoE ones (a model's first_dense layers
/// precede its MoE layers). The training cost and memory both read it.
struct OffloadedLayers {
  int64_t Dense = 0, Moe = 0;
  int64_t total() const { return Dense + Moe; }
};
inline OffloadedLayers offloadedLayers(const ir::Stage &St,
                                       const ir::MappingConfig &M) {
  if (!M.OffloadActivations)
    return {};
  int64_t N = M.OffloadLayers > 0 ? M.OffloadLayers
                                  : St.DenseLayers + St.MoELayers;
  int64_t Dense = std::min(St.DenseLayers, N);
  return {Dense, std::min(St.MoELayers, N - Dense)};
}

/// The mean of Time(c) over the contexts c = First .. Last of a static
/// batch's generation when the step time follows the context piecewise
/// linearly between the first tokens of chunks of Chunk tokens (chunked
/// attention, where it falls back): Simpson's rule piece by piece
/// (ServingCost.cpp).
double chunkedTpot(double First, double Last, double Chunk,
                   const std::function<double(double)> &Time);

/// The rate of a cast kernel of the mapping's low-precision recipe (the
/// operators the quantize pass adds) relative to the accelerator's
/// memory-bound kernels: the recipe's cast_efficiency; 1 for every other
/// op. (The same for a forward op and its recomputation.)
inline double castEfficiency(const ir::MappingConfig &M, const ir::Op &O) {
  if (!M.Recipe)
    return 1;
  switch (O.Kind) {
  case ir::OpKind::QuantInput:
  case ir::OpKind::QuantGrad:
  case ir::OpKind::QuantWeight:
  case ir::OpKind::QuantRescale:
  case ir::OpKind::QuantActivation:
    return M.Recipe->CastEfficiency;
  default:
    return 1;
  }
}

/// One execution of a compute op; Context is the KV length for decode ops;
/// Overhead the fixed time of its kernel (kernelOverhead of the scenario's
/// mapping); Streaming the fraction of the accelerator's memory-bound rate
/// its kernel reaches (castEfficiency of the scenario's mapping).
OpTime opTime(const ir::Op &O, const ir::AcceleratorConfig &A, double Context,
              double Overhead, double Streaming = 1);

/// The kernels an op's execution launches: a routed-expert GEMM run
/// per_expert (expert_gemms) one for each of the device's experts (its
/// batch), any other op one.
inline double launches(const ir::Op &O, const ir::MappingConfig &M) {
  return M.ExpertGemmKind == ir::ExpertGemms::PerExpert && O.routedExpert()
             ? double(std::max<int64_t>(1, O.Batch))
             : 1.0;
}

/// One execution of an op (no KV context) as the scenario's mapping runs
/// it: its kernels' fixed time (kernelOverhead) and its recipe's casts'
/// rate (castEfficiency).
inline OpTime mappedOpTime(const ir::Op &O, const ir::AcceleratorConfig &A,
                           const ir::MappingConfig &M) {
  return opTime(O, A, 0, kernelOverhead(A, M, O.Ph) * launches(O, M),
                castEfficiency(M, O));
}

/// Whether two ops cost the same but for their phases (opTime reads no
/// field that this leaves out; it also compares ABytes and Window): a
/// recomputed op takes its forward op's time (TrainingCost.cpp).
bool sameOpCost(const ir::Op &A, const ir::Op &B);

/// The shape-aware GEMM efficiency: the accelerator's largest achieved
/// fraction times tile quantization (M, N, K rounded up to the tile) and
/// wave quantization (tiles spread over the compute units), and a tile's
/// fixed cost over its K loop; KScale is how many times faster than the
/// 16-bit rate the op's format runs (the fixed cost is a time).
double gemmEfficiency(const ir::Op &O, const ir::AcceleratorConfig &A,
                      double KScale = 1);

struct CollectiveTime {
  double Time = 0;
  /// The bandwidth a device's bytes move at: the achieved bus bandwidth of
  /// the ring and tree forms, a port's of the one-shot and one-sided ones,
  /// the switch's reducing bandwidth of nvls.
  double Bandwidth = 0;
  const char *Algorithm = "";
  /// The bytes a device sends over its links in that form (the data
  /// movement's energy): a ring all-reduce's 2 (n-1)/n of the message
  /// (the tree's counted alike), the one-shot's (n-1) messages, nvls's
  /// (n+1)/n; (n-1)/n for the other collectives, a send's message.
  double WireBytes = 0;
  /// Of Time, the part the algorithm's steps wait whatever the message's
  /// size (the alpha terms above): what each further call of a collective
  /// issued in pieces adds (trainingCollectiveTime).
  double Latency = 0;
  /// The NCCL calls Time holds: a training step's data-parallel
  /// collective is issued per gradient bucket (trainingCollectiveTime).
  double Calls = 1;
};
/// Ctas: the most CTAs (channels) NCCL may run for the op's group
/// (collectiveCtas; 0: not bounded).
CollectiveTime collectiveTime(const ir::Op &O, const ir::SystemConfig &S,
                              int64_t Ctas = 0);

/// The CTA bound a training mapping puts on a collective's group (dp_ctas,
/// cp_ctas, pp_ctas; 0: none). A serving step's collectives are the
/// engine's, unbounded.
inline int64_t collectiveCtas(const ir::Op &O, const ir::MappingConfig &M) {
  switch (O.Group) {
  case ir::ParallelDim::DP: return M.DpCtas;
  case ir::ParallelDim::CP: return M.CpCtas;
  case ir::ParallelDim::PP: return M.PpCtas;
  default: return 0;
  }
}

/// A collective of a training program as the training cost takes it: an
/// optimizer-phase data-parallel collective in the calls its gradient
/// buckets make (Megatron-LM's buckets under dp_overlap, one call per
/// model chunk otherwise; TrainingCost.cpp), any other with the mapping's
/// CTA bound.
CollectiveTime trainingCollectiveTime(const ir::Program &P, const ir::Op &O);

/// A collective of a serving step: its transfer and, as a kernel, the
/// fixed time each kernel of the step pays (kernelOverhead; none for an
/// empty one). Training collectives run on their own streams beside the
/// compute kernels and keep their transfer alone.
inline CollectiveTime servingCollectiveTime(const ir::Op &O,
                                            const ir::SystemConfig &S,
                                            const ir::MappingConfig &M) {
  CollectiveTime C = collectiveTime(O, S);
  if (C.Time > 0)
    C.Time += kernelOverhead(S.Device, M, O.Ph);
  return C;
}

/// Where a collective's time is accounted.
/// Host: activations offloaded over the host link (offload = activations).
enum class CommKind { TP, CP, PP, DP, EP, Host, Last = Host };
constexpr int NumCommKinds = static_cast<int>(CommKind::Last) + 1;
const char *commKindName(CommKind K);
CommKind commKind(const ir::Op &O);

/// Under ep_overlap, how many MoE layer passes of stage St (the Index-th)
/// run their forward with no backward beside it (and as many backwards
/// with no forward): their expert-parallel collectives show in full.
/// Megatron-LM pairs a forward with another micro-batch's backward layer
/// by layer in the steady state of its schedules
/// (megatron/core/pipeline_parallel/combined_1f1b.py): without pipelining
/// the first forward and the last backward run alone; with the interleaved
/// schedule, a stage's warm-up forwards (2 (p - r - 1) + (v - 1) p model
/// chunks, one more under ep_overlap: schedules.py
/// get_pp_rank_microbatches, with microbatch_group_size_per_vp_stage at
/// its default p), in groups of p micro-batches chunk after chunk, and the
/// cool-down backwards, the same chunks in reverse. Plain 1F1B (which
/// Megatron-LM does not combine) is taken the same way, with its
/// p - r - 1 warm-up forwards and the one more; gpipe pairs nothing. At
/// most every pass of the step; 0 without ep_overlap.
double unpairedLayers(const ir::ScenarioConfig &S, const ir::Stage &St,
                      int64_t Index, int64_t MicroBatches);

/// Why ep_overlap hides nothing in a training program (no stage with MoE
/// layers has a forward beside a backward), or none where it hides some.
std::optional<std::string> epOverlapHidesNothing(const ir::Program &P);

/// A row of the per-operator table (ops of one name and phase, on the
/// slowest stage, over a step).
struct OpRow {
  llvm::StringRef Name; ///< the op kind's (OpKinds.def), static
  size_t Order = 0; ///< first appearance in the program (orders ties)
  ir::Phase Ph = ir::Phase::Forward;
  ir::OpCategory Category = ir::OpCategory::Elementwise;
  double Count = 0; ///< executions per step on the device
  double Flops = 0, Bytes = 0; ///< per step
  double Time = 0;             ///< per step
  bool MemoryBound = false;
  double intensity() const { return Bytes > 0 ? Flops / Bytes : 0; }
};

struct CollectiveRow {
  llvm::StringRef Name; ///< the op kind's (OpKinds.def), static
  size_t Order = 0; ///< first appearance in the program (orders ties)
  ir::Phase Ph = ir::Phase::Forward;
  ir::CollectiveKind Kind = ir::CollectiveKind::None;
  ir::ParallelDim Group = ir::ParallelDim::None;
  int64_t GroupSize = 0;
  int FabricLevel = 0;
  double Count = 0;
  double Bytes = 0;   ///< per step
  double Time = 0;    ///< per step
  double Exposed = 0; ///< per step, on the critical path
  const char *Algorithm = "";
};

struct MemoryBreakdown {
  double Weights = 0, Gradients = 0, Optimizer = 0, Activations = 0;
  /// The part of Activations that the transformer layers keep (without the
  /// embedding's and the head's), as Korthikanti et al. 2022 count it.
  double LayerActivations = 0;
  /// The rest of Activations: what the embedding (first stage) and the
  /// head and loss (last stage: the fp32 logits) keep.
  double embeddingAndLogits() const { return Activations - LayerActivations; }
  double InFlight = 0; ///< micro-batches whose activations the stage holds
  /// The fraction of the stage's parameters in its transformer layers
  /// (Korthikanti et al.'s Figure 1 counts only those).
  double LayerStateShare = 1;
  double Reserved = 0;
  /// Weights a low-precision recipe keeps quantized (its weight cache:
  /// every copy with its scales).
  double QuantizedWeights = 0;
  double total() const {
    return Weights + QuantizedWeights + Gradients + Optimizer + Activations +
           Reserved;
  }
  double Capacity = 0;
  int Stage = 0; ///< the stage with the most memory
  bool fits() const { return total() <= Capacity; }
  /// The name of the largest term.
  const char *largest() const;
};

struct TrainingReport {
  int64_t Devices = 0;
  int64_t MicroBatches = 0;
  double StepTime = 0;
  double TokensPerStep = 0;
  double TokensPerSecond = 0;
  double Mfu = 0, Hfu = 0;
  double ModelFlopsPerStep = 0, HardwareFlopsPerStep = 0;
  double ModelFlopsRate = 0, HardwareFlopsRate = 0; ///< per device
  double TimeToTrain = 0;  ///< the scenario's tokens
  double DeviceHours = 0;
  /// Energy from activity (0: its inputs missing; EnergyCost.cpp), to
  /// train the tokens and per trained token, and the TDP bound of each.
  double Energy = 0, EnergyPerToken = 0;
  double TdpEnergy = 0, TdpEnergyPerToken = 0;
  double PowerPerDevice = 0; ///< from activity (0: not computable)
  bool CostAtTdp = false;    ///< cost's electricity at TDP
  /// J per trained token of moving data (0: an energy_per_bit missing).
  double DataEnergyPerToken = 0;
  double Cost = 0;         ///< to train the tokens (0: not computable)
  double CostPerToken = 0; ///< per trained token (0: not computable)
  // Breakdown of the step (sums to StepTime).
  double ComputeBound = 0, MemoryBoundTime = 0, Bubble = 0, Optimizer = 0;
  double ExposedComm[NumCommKinds] = {}; ///< by CommKind
  /// Per micro-batch, forward + backward (with the stage's unpaired
  /// ep_overlap chunks spread over the micro-batches: unpairedLayers).
  std::vector<double> StageTimes;
  int SlowestStage = 0;
  MemoryBreakdown Memory;
  std::vector<OpRow> Ops;
  std::vector<CollectiveRow> Collectives;
};

/// Tables: also fill the per-operator and per-collective tables (a sweep,
/// which reads figures only, leaves them out).
TrainingReport costTraining(const ir::Program &P, bool Tables = true);
/// The same into R, which may hold an earlier report (a sweep thread costs
/// point after point into one, reusing its storage).
void costTraining(const ir::Program &P, bool Tables, TrainingReport &R);

/// Where a serving phase sits on the roofline.
/// What a device does that costs energy beyond its static power
/// (DataEnergy.cpp): bytes moved in device memory and on the wire inside
/// a node and across nodes, and FLOPs by the format they run in.
struct DataTraffic {
  double Memory = 0, ScaleUp = 0, ScaleOut = 0;
  double Flops[ir::NumDTypes] = {};
  /// Those of GEMMs over 2:4-sparse weights, counted dense: the sparse
  /// tensor cores perform 1/sparsity of their multiplies.
  double SparseFlops[ir::NumDTypes] = {};
  /// An operator executed Times times at a context (decode); a
  /// collective's wire bytes those of the form it runs on Sys.
  void add(const ir::Op &O, double Times, double Context,
           const ir::SystemConfig &Sys);
  /// Whether a compute or memory op moves device memory: not one fused
  /// into another's kernel, nor an offloaded optimizer's pass over host
  /// memory and the host link (whose energy is not counted).
  static bool movesDeviceMemory(const ir::Op &O) {
    return !O.fused() && O.Kind != ir::OpKind::OffloadGradToHost &&
           O.Kind != ir::OpKind::OffloadHostUpdate &&
           O.Kind != ir::OpKind::OffloadParamToDevice;
  }
  /// A compute or memory op executed once with no context (a training
  /// step's): add(O, 1, 0, Sys) without the context's terms.
  void addOnce(const ir::Op &O) {
    assert(!O.isCollective() && "a collective's bytes are on the wire");
    if (!movesDeviceMemory(O))
      return;
    Memory += O.BytesRead + O.BytesWritten;
    if (O.Flops > 0)
      (O.SparseWeight ? SparseFlops : Flops)[static_cast<int>(O.Type)] +=
          O.Flops * O.Executed;
  }
  /// A collective executed Times times whose form sends WireBytes (its
  /// CollectiveTime's, where the caller has it).
  void addWire(const ir::Op &O, double Times, double WireBytes) {
    (O.FabricLevel > 0 ? ScaleOut : ScaleUp) += Times * WireBytes;
  }
  /// Another's activity, Times times.
  void add(const DataTraffic &D, double Times);
  bool any() const { return Memory > 0 || ScaleUp > 0 || ScaleOut > 0; }
  /// The energy of the bytes on a system, 0 when an energy_per_bit it
  /// needs is missing.
  double energy(const ir::SystemConfig &Sys) const;
  /// The energy of the FLOPs on a device, each at the flop_energy of the
  /// format it runs in; -1 when one of those is missing.
  double computeEnergy(const ir::AcceleratorConfig &A) const;
  /// Bytes and FLOPs together; -1 when either is not computable.
  double activityEnergy(const ir::SystemConfig &Sys) const;
};

/// Energy and cost per unit of a run's output (a trained or generated
/// token; EnergyCost.cpp). 0: not computable from the inputs given.
struct RunCharge {
  double EnergyPerUnit = 0;    ///< from activity, at the wall
  double TdpEnergyPerUnit = 0; ///< devices x TDP x PUE x time
  double PowerPerDevice = 0;   ///< from activity, a working device
  double CostPerUnit = 0;
  bool CostAtTdp = false; ///< electricity at TDP: no activity inputs
};
/// Charged devices for SecondsPerUnit each, Working of them doing
/// DynamicPerUnit joules of FLOPs and data movement (-1: not computable)
/// and the rest idle at their static power. PowerPerDevice is a working
/// device's.
RunCharge chargeRun(const ir::SystemConfig &Sys, double Charged,
                    double Working, double SecondsPerUnit,
                    double DynamicPerUnit);

struct PhaseRoofline {
  double Flops = 0, Bytes = 0, Time = 0;
  double ComputeTime = 0, MemoryTime = 0, CommTime = 0; ///< sums over ops
  double HostTime = 0; ///< offloaded weights over the host link
  double intensity() const { return Bytes > 0 ? Flops / Bytes : 0; }
  /// "host link" when streaming offloaded weights sets the time, else
  /// "compute", "memory bandwidth" or "interconnect": the largest term.
  const char *bound() const;
  double AchievedFlops = 0;     ///< fraction of the compute peak
  double AchievedBandwidth = 0; ///< fraction of memory bandwidth
  /// The step's bytes fit in the last-level cache and are read there
  /// (AchievedBandwidth is then a fraction of the cache's bandwidth).
  bool OnChip = false;
};

struct ServingMemory {
  double Weights = 0, KVCache = 0, Activations = 0, Reserved = 0;
  double Capacity = 0;
  double total() const { return Weights + KVCache + Activations + Reserved; }
  bool fits() const { return total() <= Capacity; }
  const char *largest() const;
};

struct SloCheck {
  std::string Name;  ///< ttft, tpot, e2e, throughput
  bool Lower = false; ///< the limit is a floor (throughput)
  double Limit = 0, Value = 0;
  bool Met = false;
  std::string Binding; ///< the resource that sets the value
};

/// A latency's distribution over the requests served.
struct Percentiles {
  double Mean = 0, P50 = 0, P90 = 0, P99 = 0;
};

/// Serving under in-flight batching (the scenario's `traffic`): what the
/// step simulation of one replica found (lib/Cost/Traffic.cpp).
struct TrafficReport {
  bool Simulated = false;
  int64_t Requests = 0;  ///< over all replicas
  int64_t Steps = 0;     ///< engine steps of one replica
  double SequenceSteps = 0; ///< their sequences, summed over the steps
  /// The steps do not depend on their times (all requests at once, one
  /// lane, one rank): the run lasts the sum of the steps' times, and a
  /// time added to each step, or to each sequence of a step, lengthens it
  /// by that time times Steps, or SequenceSteps.
  bool StepsFixed = false;
  /// What the engine's host time between steps (step_overhead,
  /// sequence_overhead) added to the run: each step's, over the stages
  /// with pipeline lanes (exact with one lane).
  double HostTime = 0;
  double Duration = 0;   ///< first arrival to last completion
  double RequestRate = 0; ///< completed requests per second, all replicas
  double MeanBatch = 0;  ///< sequences in a step, weighted by step time
  int64_t PeakBatch = 0;
  int64_t KvTokens = 0;  ///< the KV cache's capacity, tokens per replica
  double PeakKvTokens = 0; ///< the most reserved at once
  int64_t Preemptions = 0; ///< on-demand admission: requests preempted
  double MeanPrompt = 0, MeanOutput = 0; ///< over the requests drawn
  Percentiles Ttft, Tpot, E2E;
  /// Disaggregated serving: the prefill pool's engines (0: none), and the
  /// mean time a prompt's KV cache takes to reach the decode pool.
  int64_t PrefillEngines = 0;
  double MeanKvTransfer = 0;
  /// The simulated engine's energy over the run: moving data, and all
  /// its steps' activity (-1: an input missing); static power apart.
  double DataEnergy = 0, Activity = -1;
  /// Requests per second at which the SLOs' p99s still hold (setGoodput);
  /// -1: not computed (no latency SLO).
  double Goodput = -1;
};

struct ServingReport {
  int64_t DevicesPerReplica = 1, Replicas = 1;
  /// Pipelined micro-batches of requests and their size (1 and the batch
  /// without pipeline parallelism).
  int64_t MicroBatches = 1, MicroBatchSize = 0;
  double Ttft = 0, Tpot = 0, E2E = 0;
  double Throughput = 0, ThroughputPerDevice = 0;
  double PrefillLayerTime = 0, DecodeLayerTime = 0;
  double TpotFirst = 0, TpotLast = 0; ///< first and last decode step
  PhaseRoofline Prefill, Decode;       ///< decode at the mean context
  double DecodeCrossoverBatch = 0;     ///< 0: the decode stays memory-bound
  ServingMemory Memory;
  int64_t MaxBatch = 0;
  /// J per output token from activity (0: its inputs missing), and the
  /// TDP bound.
  double EnergyPerToken = 0, TdpEnergyPerToken = 0;
  double PowerPerDevice = 0; ///< from activity (0: not computable)
  bool CostAtTdp = false;    ///< cost's electricity at TDP
  /// J per output token of moving data (0: an energy_per_bit missing).
  double DataEnergyPerToken = 0;
  double CostPerToken = 0;   ///< per output token (0: not computable)
  /// Speculative decoding at the mean context (all 0 without it).
  struct {
    double TokensPerStep = 0; ///< expected tokens per verification
    double DraftStep = 0;     ///< one draft decode step
    double VerifyStep = 0;    ///< the target's forward of k + 1 tokens
  } Speculation;
  TrafficReport Traffic; ///< in-flight batching (Simulated) or none
  std::vector<SloCheck> Slo;
  std::vector<OpRow> Ops; ///< prefill, and one decode step at the mean context
  std::vector<CollectiveRow> Collectives;
};

/// The cost of serving: the prefill of the batch's prompts, then output - 1
/// decode steps against a growing KV cache. Crossover needs programs of
/// the scenario at batches 1 and 2 (built by the caller).
ServingReport costServing(const ir::Program &P, bool Tables = true);
/// The SLO rows of R's figures (with traffic, the 99th percentiles).
void checkSlos(ServingReport &R, const ir::ScenarioConfig &S);
/// Energy and cost per output token from R's throughput: the devices the
/// mapping uses, or the whole system with charge_idle.
void chargeServing(ServingReport &R, const ir::ScenarioConfig &S,
                   const ir::SystemConfig &Sys, double DynamicPerToken);

/// Pieces of a serving step, whole model (one replica): a decode step of
/// P's batch with each sequence at Context; the prefill's attention
/// products (scores, softmax, context) of P's batch; the KV cache per
/// token of context on a device of the fullest stage.
/// (Sys: the system to cost them on; null: the program's own. `require`
/// scales it.)
double decodeStepTime(const ir::Program &P, double Context,
                      const ir::SystemConfig *Sys = nullptr);
/// The energy a replica's devices spend in that step: moving data (0: an
/// energy_per_bit missing), and all their activity, FLOPs included (-1:
/// an input missing; DataEnergy.cpp).
struct StepEnergy {
  double Data = 0, Activity = -1;
};
StepEnergy decodeStepEnergy(const ir::Program &P, double Context,
                            const ir::SystemConfig *Sys = nullptr);
/// The activity of a decode step's LM head, and of the prefill's
/// attention products (a sequence's prompt per micro-batch sequence), on
/// a replica's devices (-1: an input missing).
double decodeHeadActivity(const ir::Program &P,
                          const ir::SystemConfig *Sys = nullptr);
double prefillAttentionActivity(const ir::Program &P,
                                const ir::SystemConfig *Sys = nullptr);
/// The prefill's attention products' time (a sequence's prompt per
/// micro-batch sequence): the fused kernels' fixed cost per block where
/// the compute binds, which grows with the prompt's length (Linear), and
/// the rest (Quadratic: the products, which grow with its square, with
/// their launches and any memory-bound time); in-flight batching scales
/// each to a chunk of another prompt.
struct AttentionParts {
  double Quadratic = 0;
  double Linear = 0;
};
AttentionParts prefillAttentionTime(const ir::Program &P,
                                    const ir::SystemConfig *Sys = nullptr);
/// The LM head's share of decodeStepTime (its GEMM over the vocabulary and,
/// at TP >= 2, the gather of its logits): a step of prompt tokens needs
/// logits at the prompts' last tokens only.
double decodeHeadTime(const ir::Program &P,
                      const ir::SystemConfig *Sys = nullptr);
double kvCacheBytesPerToken(const ir::Program &P);

/// In-flight batching (the scenario's `traffic`): simulates one replica's
/// engine steps and sets R's latencies, throughput, memory and Traffic.
/// AtBatch returns the scenario's program at another batch (memoized by
/// the caller), whose decode step prices a step of that many tokens.
/// False after a diagnosed failure (a request the KV cache cannot hold).
using ProgramAtBatch = std::function<const ir::Program *(int64_t Batch)>;
/// (Traffic: the requests to run instead of the scenario's own. Times:
/// each request of the simulated replica, in arrival order.)
struct RequestTimes {
  double Arrival = 0, FirstToken = 0, Done = 0;
  int64_t Prompt = 0, Output = 0;
};
bool simulateTraffic(const ir::Program &P, const ProgramAtBatch &AtBatch,
                     ServingReport &R, DiagnosticEngine *Diags,
                     const ir::SystemConfig *Sys = nullptr,
                     const ir::TrafficConfig *Traffic = nullptr,
                     std::vector<RequestTimes> *Times = nullptr);

/// Disaggregated serving (traffic.prefill): the prefill pool's engines
/// read the prompts (Prefill, its program at other batches AtPrefill,
/// its report RP for its memory), each prompt's KV cache crosses the
/// fabric between the pools, and the scenario's engines (Decode) generate
/// the rest. Sets R as simulateTraffic does; false after a diagnosed
/// failure.
bool simulateDisaggregated(const ir::Program &Prefill,
                           const ProgramAtBatch &AtPrefill,
                           ServingReport &RP, const ir::Program &Decode,
                           const ProgramAtBatch &AtDecode, ServingReport &R,
                           DiagnosticEngine *Diags,
                           const ir::TrafficConfig *Traffic = nullptr,
                           const ir::SystemConfig *Sys = nullptr);
/// The KV cache of one token of context, all layers of the model (what
/// a prompt's cache weighs when it moves between devices).
double kvCacheBytesPerTokenOfModel(const ir::Program &P);

/// The goodput of a scenario with traffic and latency SLOs: the highest
/// Poisson arrival rate (its requests, lengths and seed otherwise) at
/// which the 99th percentiles meet every TTFT, TPOT and e2e limit, to 1%;
/// 0 when they miss even far below capacity. Sets R.Traffic.Goodput.
/// (Static: the scenario's report before simulation, each trial's start.)
void setGoodput(const ir::Program &P, const ProgramAtBatch &AtBatch,
                ServingReport &R, const ServingReport &Static);
/// The same for disaggregated serving, both pools run at each rate.
void setGoodput(const ir::Program &Prefill, const ProgramAtBatch &AtPrefill,
                const ServingReport &RP, const ir::Program &Decode,
                const ProgramAtBatch &AtDecode, ServingReport &R,
                const ServingReport &Static);

/// A figure of Figures.def in base units (booleans as 0 or 1), or nullopt
/// when the result lacks it (FigureInfo::Needs says why). A figure of the
/// other scenario kind has none.
std::optional<double> figureValue(const TrainingReport &R, ir::FigureID F);
std::optional<double> figureValue(const ServingReport &R, ir::FigureID F);
void setDecodeCrossover(ServingReport &R, const ir::Program &AtBatch1,
                        const ir::Program &AtBatch2);

/// Memory per device of the stage that needs the most.
MemoryBreakdown trainingMemory(const ir::Program &P);

} // namespace cost
} // namespace llmsys

#endif
