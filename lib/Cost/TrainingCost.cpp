//===- TrainingCost.cpp - a training step ------------------------------------===//
//
// Per pipeline stage and micro-batch: the forward and backward (with
// recomputation) of the blocks the stage holds, each op at its roofline
// time, plus the communication on the critical path: tensor- and
// expert-parallel collectives are exposed (TP ones hide behind GEMMs only
// when the mapping sets tp_overlap, EP ones only with ep_overlap, which
// leaves the forwards and backwards the schedule runs alone unpaired);
// collectives marked overlappable inside a layer (SP input re-gathers,
// ring-attention passes, ZeRO-3 gradient scatters) hide behind that
// layer's compute; stage-boundary send/recv is exposed.
//
// The pipeline: with m micro-batches, the slowest stage's time t_max and
// the stages' times t_s, a step takes m t_max + (sum_s t_s - t_max) / v
// (uniform stages give the bubble (p - 1) / (v m) of Narayanan et al. 2021).
// Then the data-parallel gradient reduction (and parameter gather), exposed
// unless the mapping sets dp_overlap, in which case the reduction hides
// behind the last micro-batch's backward and the parameter all-gather of a
// distributed optimizer behind the first micro-batch's forward; then the
// optimizer update.
//
// MFU counts model FLOPs per step (Megatron's convention, no recompute)
// over the devices' dense peak for the activations' format; HFU counts
// the FLOPs performed (Korthikanti et al. 2022 §6.3).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "Cost/EpOverlap.h"
#include "Cost/Tables.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace llmsys {
namespace cost {

using namespace ir;

namespace {

/// One repeat of a block: its time per micro-batch and what it is made of.
struct BlockTime {
  double Forward = 0, Backward = 0;
  double ComputeBound = 0, MemoryBound = 0;
  double Comm[NumCommKinds] = {}; ///< exposed, by kind
  /// Of the communication that runs beside compute, the share left
  /// exposed: per side (forward, backward), and for the input-gradient
  /// collectives that overlap the weight-gradient GEMMs.
  double HiddenExposed[2] = {0, 0};
  /// What a MoE layer's forward and backward add when the schedule runs
  /// them with no other micro-batch's beside them (ep_overlap's unpaired
  /// ones, see unpairedLayers): the hidden part of their expert-parallel
  /// collectives.
  double Unpaired = 0;
  /// What the offloaded activations' host transfer adds to one repeat
  /// (forward and backward; offload = activations), part of Comm[Host]: a
  /// layer offload_layers leaves on the device does not pay it.
  double Offloaded = 0;
  double GradExposed = 0;
  /// Of the context-parallel ring exchange, the share left exposed per side.
  double RingExposed[2] = {0, 0};
  /// Under ep_overlap, of each of a MoE layer's all-to-alls, the share
  /// its paired forward and backward leave exposed (EpOverlap.h).
  double EpExposed[EpOverlapLayer::NumSlots] = {};
  /// Contraction FLOPs of one repeat: counted in MFU, and performed.
  double ModelFlops = 0, HardwareFlops = 0;
  /// Bytes one repeat moves and FLOPs it computes (for energy; only when
  /// the device has an energy input).
  DataTraffic Data;
};

/// The host transfer a stage's layers would add that offload_layers keeps
/// on the device (one micro-batch): the layers offloadedLayers leaves out.
template <typename TimeOfFn>
double keptOnDevice(const Stage &St, const MappingConfig &M, TimeOfFn TimeOf) {
  if (!M.OffloadActivations || M.OffloadLayers <= 0)
    return 0;
  OffloadedLayers Off = offloadedLayers(St, M);
  return double(St.DenseLayers - Off.Dense) *
             TimeOf(BlockKind::DenseLayer).Offloaded +
         double(St.MoELayers - Off.Moe) * TimeOf(BlockKind::MoELayer).Offloaded;
}

/// A LoRA adapter's own collective: NCCL calls beside the layer's, which
/// tp_overlap's userbuffers do not hide.
bool adapterCollective(const Op &O) {
  return O.Kind == OpKind::LoraAllgather ||
         O.Kind == OpKind::LoraReducescatter ||
         O.Kind == OpKind::LoraAllreduce || O.Kind == OpKind::LoraAlltoall;
}

/// A collective that runs beside its layer's compute: overlappable, or TP
/// with tp_overlap.
bool hideable(const Op &O, const MappingConfig &M) {
  return O.Overlappable ||
         (M.TpOverlap && commKind(O) == CommKind::TP && !adapterCollective(O) &&
          (M.TpOverlapBackward || O.Ph == Phase::Forward));
}

/// A context-parallel exchange that runs beside the attention products of
/// its chunk (cp_overlap); otherwise it is exposed like any collective.
bool ringBesideAttention(const Op &O, const MappingConfig &M) {
  return M.CpOverlap &&
         (O.Kind == OpKind::CpRingKv || O.Kind == OpKind::CpRingKvGrad);
}

/// The input-gradient collective of a column-parallel layer that overlaps
/// the layer's weight-gradient GEMMs (tp_grad_overlap), unless tp_overlap
/// hides the backward's TP communication already.
bool overlapsWeightGradients(const Op &O, const MappingConfig &M) {
  return O.Overlappable && !(M.TpOverlap && M.TpOverlapBackward) &&
         O.Ph == Phase::BackwardData && commKind(O) == CommKind::TP;
}

/// One op's time as blockTime found it, kept for the report's tables.
struct OpTimeRecord {
  double Time = 0;
  bool MemoryBound = false;
  const char *Algorithm = ""; ///< a collective's
};

/// Costs one repeat of a block into T, which must be value-initialised
/// (blockTime adds to it); with Record, also keeps each op's time in
/// Record[op's index] (optimizer-phase ops' are left alone).
void blockTime(const Block &B, const ScenarioConfig &S, BlockTime &T,
               OpTimeRecord *Record = nullptr) {
  const AcceleratorConfig &A = S.System.Device;
  // Activity for energy, when the device has its energy inputs.
  const bool Energy = A.HbmEnergyPerByte > 0 || A.StaticPower > 0;
  double Compute[2] = {0, 0}; // forward, backward compute
  double Hideable[2] = {0, 0};
  double HideableKind[2][NumCommKinds] = {}; // the same, by kind
  // Ring attention (CP): each step's K/V exchange runs beside the
  // attention products of the chunk at hand (Transformer Engine's
  // context-parallel attention), per side; with cp_overlap = false it is
  // exposed like any collective (ringBesideAttention).
  double Ring[2] = {0, 0}, Attention[2] = {0, 0};
  const bool RingAttention = S.Mapping.Cp > 1 && S.Training;
  double Grad = 0, WeightCompute = 0;
  // Under ep_overlap, a MoE layer's parts as the paired schedule places
  // them: its expert-parallel collectives hide there, not beside the
  // side's compute at large.
  const bool EpPaired = S.Training && S.Mapping.EpOverlap &&
                        B.Kind == BlockKind::MoELayer;
  EpOverlapLayer Paired;
  if (EpPaired && S.System.Device.ComputeUnits > 0)
    Paired.Held = double(S.Mapping.EpSms) /
                  double(S.System.Device.ComputeUnits);
  EpOverlapParts Parts;
  // The forward compute ops' times, in order: a recomputation repeats
  // them in their order (the recompute pass), and takes a repeat's time
  // from here (the first match after the last one) instead of costing it
  // again. (On the stack: a layer has a few tens of forward ops.)
  struct ForwardTime {
    const Op *O;
    OpTime T;
  };
  llvm::SmallVector<ForwardTime, 48> Forwards;
  const bool MayRepeat =
      S.Mapping.Recomp != Recompute::None &&
      (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer);
  size_t Repeated = 0; // where the next repeat's search starts
  for (size_t I = 0, E = B.Ops.size(); I < E; ++I) {
    const Op &O = B.Ops[I];
    int Side = backwardSide(O.Ph) ? 1 : 0;
    if (O.Ph == Phase::Optimizer)
      continue;
    if (O.isCollective()) {
      CollectiveTime C =
          collectiveTime(O, S.System, collectiveCtas(O, S.Mapping));
      if (Energy)
        T.Data.addWire(O, 1, C.WireBytes);
      if (Record)
        Record[I] = {C.Time, false, C.Algorithm};
      CommKind K = commKind(O);
      if (ringBesideAttention(O, S.Mapping)) {
        Ring[Side] += C.Time;
        continue;
      }
      if (EpPaired) {
        EpOverlapLayer::Slot Slot = Parts.slotOf(O);
        if (Slot != EpOverlapLayer::NumSlots) {
          Paired.AllToAll[Slot] += C.Time;
          continue;
        }
      }
      if (overlapsWeightGradients(O, S.Mapping)) {
        Grad += C.Time;
        continue;
      }
      if (hideable(O, S.Mapping)) {
        Hideable[Side] += C.Time;
        HideableKind[Side][static_cast<int>(K)] += C.Time;
        continue;
      }
      T.Comm[static_cast<int>(K)] += C.Time;
      (Side ? T.Backward : T.Forward) += C.Time;
      continue;
    }
    if (Energy)
      T.Data.addOnce(O);
    if (O.Category == OpCategory::Contraction) {
      T.HardwareFlops += O.Flops;
      if (O.ModelWork)
        T.ModelFlops += O.Flops;
    }
    const OpTime *Repeat = nullptr;
    if (MayRepeat && O.Ph == Phase::Recompute) {
      for (size_t J = Repeated; J < Forwards.size(); ++J)
        if (sameOpCost(O, *Forwards[J].O)) {
          Repeat = &Forwards[J].T;
          Repeated = J + 1;
          break;
        }
    }
    const OpTime OT =
        Repeat ? *Repeat : mappedOpTime(O, A, S.Mapping);
    if (MayRepeat && O.Ph == Phase::Forward)
      Forwards.push_back({&O, OT});
    if (Record)
      Record[I] = {OT.Time, OT.MemoryBound, ""};
    (OT.MemoryBound ? T.MemoryBound : T.ComputeBound) += OT.Time;
    (Side ? T.Backward : T.Forward) += OT.Time;
    Compute[Side] += OT.Time;
    if (EpPaired)
      Paired.Compute[Side][Parts.partOf(O)] += OT.Time;
    if (O.Ph == Phase::BackwardWeight && O.Category == OpCategory::Contraction)
      WeightCompute += OT.Time;
    if (RingAttention && isAttentionProduct(O))
      Attention[Side] += OT.Time;
  }
  // Offloaded activations: what the layer keeps for backward goes to host
  // memory during its forward and comes back during its backward, over
  // the host link beside the layer's compute; only what outlasts that
  // compute shows.
  if (S.Mapping.OffloadActivations && A.HostLinkBandwidth > 0 &&
      (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer)) {
    double Saved = 0;
    for (const Op &O : B.Ops)
      Saved += O.SavedBytes;
    double Transfer = Saved / A.HostLinkBandwidth;
    for (int Side = 0; Side < 2; ++Side) {
      double Left = std::max(0.0, Transfer - Compute[Side]);
      (Side ? T.Backward : T.Forward) += Left;
      T.Comm[static_cast<int>(CommKind::Host)] += Left;
      T.Offloaded += Left;
    }
  }
  // The ring shows where it outlasts the attention it runs beside; that
  // attention is busy with it (not there to hide other communication).
  for (int Side = 0; Side < 2; ++Side) {
    double Left = std::max(0.0, Ring[Side] - Attention[Side]);
    (Side ? T.Backward : T.Forward) += Left;
    T.Comm[static_cast<int>(CommKind::CP)] += Left;
    Compute[Side] -= std::min(Ring[Side], Attention[Side]);
    T.RingExposed[Side] = Ring[Side] > 0 ? Left / Ring[Side] : 0;
  }
  // The input-gradient collectives hide behind the weight-gradient GEMMs
  // only; what they use of that compute is not there for the rest.
  double GradLeft = std::max(0.0, Grad - WeightCompute);
  T.GradExposed = Grad > 0 ? GradLeft / Grad : 0;
  T.Backward += GradLeft;
  T.Comm[static_cast<int>(CommKind::TP)] += GradLeft;
  Compute[1] -= std::min(Grad, WeightCompute);
  // Compute that other communication runs beside is busy hiding it (as
  // the ring's attention is): not there to hide the paired all-to-alls.
  double Busy[2] = {std::min(Ring[0], Attention[0]),
                    std::min(Ring[1], Attention[1]) +
                        std::min(Grad, WeightCompute)};
  // Other overlappable communication shows only where it outlasts the
  // compute it runs beside.
  for (int Side = 0; Side < 2; ++Side) {
    double Left = std::max(0.0, Hideable[Side] - Compute[Side]);
    Busy[Side] += Hideable[Side] - Left;
    T.HiddenExposed[Side] = Hideable[Side] > 0 ? Left / Hideable[Side] : 0;
    (Side ? T.Backward : T.Forward) += Left;
    // Each kind keeps its share of what is left exposed.
    for (int K = 0; K < NumCommKinds; ++K)
      T.Comm[K] += HideableKind[Side][K] * T.HiddenExposed[Side];
  }
  // The paired forward and backward of a MoE layer: each all-to-all shows
  // what its part leaves exposed (the compute that hid other
  // communication taken out, in proportion, first); a layer pass the
  // schedule runs alone (unpairedLayers) shows them in full.
  const double EpTotal = EpPaired ? Paired.communicationTime() : 0;
  if (EpTotal > 0) {
    using L = EpOverlapLayer;
    for (int Side = 0; Side < 2; ++Side) {
      double *Stream = Paired.Compute[Side];
      double Own = Stream[L::PreDispatch] + Stream[L::Experts] +
                   Stream[L::ExpertsWeight];
      double Keep = Own > 0 ? std::max(0.0, 1 - Busy[Side] / Own) : 0;
      for (int P : {L::PreDispatch, L::Experts, L::ExpertsWeight})
        Stream[P] *= Keep;
    }
    double Exposed[L::NumSlots];
    Paired.exposure(Exposed);
    double Shown = 0;
    for (int Slot = 0; Slot < L::NumSlots; ++Slot) {
      const double Time = Paired.AllToAll[Slot];
      T.EpExposed[Slot] = Time > 0 ? Exposed[Slot] / Time : 0;
      Shown += Exposed[Slot];
    }
    T.Forward += Exposed[L::DispatchForward] + Exposed[L::CombineForward];
    T.Backward += Exposed[L::DispatchBackward] + Exposed[L::CombineBackward];
    T.Comm[static_cast<int>(CommKind::EP)] += Shown;
    T.Unpaired = EpTotal - Shown;
  }
}

/// How a data-parallel mapping's gradients are bucketed (dpBuckets).
struct DpBuckets {
  double Size = 0;    ///< parameters a bucket holds (0: not bucketed)
  double Fullest = 0; ///< the fullest stage's trainable parameters
  double Stage0 = 0;  ///< the first stage's
  double First = 0;   ///< the first stage's first model chunk's
  double Table = 0;   ///< the embedding's table (the first stage's)
  double Chunks = 1;  ///< model chunks a stage holds
  /// The parameters each replica group reduces (the dense ones' DP group,
  /// the experts' EDP group), from its gradients' collective: a gather's
  /// bytes need not say them (a quantized weight cache's copies ride it).
  double Reduced[2] = {0, 0};
};

DpBuckets dpBuckets(const Program &P) {
  const MappingConfig &M = P.Scenario.Mapping;
  DpBuckets B;
  B.Chunks = double(M.modelChunks());
  if (!M.DpOverlap)
    return B;
  B.Size = M.DpBucket > 0 ? double(M.DpBucket)
                          : std::max(40e6, 1e6 * double(M.Dp));
  B.Fullest = fullestStage(P).Trainable;
  const Block *Embedding = P.block(BlockKind::Embedding);
  B.Table = Embedding ? Embedding->trainable() : 0.0;
  // The first stage's first model chunk: the embedding and its share of
  // the stage's layers (the mean chunk's: the layers lie evenly over the
  // chunks but for stage_layers).
  B.Stage0 = M.Pp > 1 ? StageParamCounter(P).trainable(P.Stages.front())
                      : B.Fullest; // (one stage: the fullest)
  B.First = M.Pp > 1 ? B.Table + std::max(0.0, B.Stage0 - B.Table) / B.Chunks
                     : B.Fullest;
  if (const Block *Opt = P.block(BlockKind::Optimizer))
    for (const Op &O : Opt->Ops)
      if (O.isCollective() && O.Collective != CollectiveKind::AllGather)
        B.Reduced[O.Group == ParallelDim::EDP] +=
            O.MessageBytes / dtypeBytes(M.Gradients);
  return B;
}

/// A data-parallel collective of the optimizer block (the fullest stage's
/// gradients or parameters) as its calls take it: one per bucket on the
/// first stage's first chunk and one per other chunk, each waiting the
/// collective's latency steps again (NCCL's cost of a call: its
/// algorithm's steps, whatever the bytes); a later stage, one call per
/// chunk. Every stage's group runs at once: the slowest sets the time.
CollectiveTime dpCollectiveTime(const Op &O, const ScenarioConfig &S,
                                const DpBuckets &B) {
  CollectiveTime C = collectiveTime(O, S.System, collectiveCtas(O, S.Mapping));
  if ((B.Chunks == 1 && B.Size <= 0) || C.Latency <= 0 || C.Time <= 0)
    return C; // (one call)
  const double Moved = C.Time - C.Latency; // the bytes' part
  double Time = Moved + B.Chunks * C.Latency;
  C.Calls = B.Chunks;
  if (B.Size > 0 && B.Fullest > 0) {
    // The group's parameters (dense or expert): its gradients' (a gather
    // of a group that reduces none, its own bytes in the weights' format).
    const double Reduced = B.Reduced[O.Group == ParallelDim::EDP];
    const double Params =
        Reduced > 0 ? Reduced
                    : O.MessageBytes / dtypeBytes(S.Mapping.Weights);
    const double Group = Params / B.Fullest; // the group's share
    const double Calls =
        std::max(1.0, std::ceil(B.First * Group / B.Size)) + (B.Chunks - 1);
    const double First = Moved * (B.Stage0 / B.Fullest) + Calls * C.Latency;
    if (First > Time) {
      Time = First;
      C.Calls = Calls;
    }
  }
  C.Time = Time;
  return C;
}

} // namespace

CollectiveTime trainingCollectiveTime(const Program &P, const Op &O) {
  if (O.Ph == Phase::Optimizer)
    return dpCollectiveTime(O, P.Scenario, dpBuckets(P));
  return collectiveTime(O, P.Scenario.System,
                        collectiveCtas(O, P.Scenario.Mapping));
}

double unpairedLayers(const ScenarioConfig &S, const Stage &St, int64_t Index,
                      int64_t MicroBatches) {
  const MappingConfig &M = S.Mapping;
  if (!S.Training || !M.EpOverlap || St.MoELayers == 0)
    return 0;
  const double Mb = double(MicroBatches), Moe = double(St.MoELayers);
  if (M.Pp <= 1)
    return std::min(1.0, Mb) * Moe;
  const double P = double(M.Pp), R = double(Index);
  if (M.Schedule == ScheduleKind::GPipe)
    return Mb * Moe;
  const int64_t V = M.modelChunks();
  if (V <= 1)
    return std::min(Mb, P - R) * Moe;
  // (The schedule pass has m a multiple of p; a program read as text that
  // says otherwise takes the chunks' mean.)
  const bool ByChunk = St.MoEChunks.size() == size_t(V) &&
                       MicroBatches % std::max<int64_t>(1, M.Pp) == 0;
  // The warm-up forwards in Megatron-LM's order: groups of g = p
  // micro-batches, chunk after chunk (schedules.py get_schedule_table);
  // the cool-down backwards visit the same chunks in reverse.
  const double G = P;
  const double Warmup =
      std::min(Mb * double(V), 2 * (P - R - 1) + double(V - 1) * P + 1);
  const double Round = G * double(V);
  const double Rounds = std::floor(Warmup / Round);
  double Left = Warmup - Rounds * Round, Layers = Rounds * G * Moe;
  for (int64_t C = 0; C < V && Left > 0; ++C) {
    double Chunk = ByChunk ? double(St.MoEChunks[C]) : Moe / double(V);
    Layers += std::min(G, Left) * Chunk;
    Left -= G;
  }
  return Layers;
}

std::optional<std::string> epOverlapHidesNothing(const Program &P) {
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  if (!S.Training || !M.EpOverlap)
    return std::nullopt;
  const int64_t Mb = P.Schedule.MicroBatches;
  // Something is hidden where a stage with MoE layers has a pair for any.
  for (size_t I = 0; I < P.Stages.size(); ++I) {
    const Stage &St = P.Stages[I];
    if (unpairedLayers(S, St, int64_t(I), Mb) < double(Mb) * St.MoELayers)
      return std::nullopt;
  }
  if (M.Pp <= 1)
    return std::string("without pipelining it runs a micro-batch's forward "
                       "beside the previous one's backward, and this step "
                       "has one micro-batch (set global_batch to several "
                       "times dp x micro_batch)");
  if (M.Schedule == ScheduleKind::GPipe)
    return std::string("gpipe runs every micro-batch's forward before the "
                       "first backward, so no forward has a backward beside "
                       "it (use interleaved_1f1b, as Megatron-LM does)");
  return std::string("every stage's warm-up forwards take all the "
                     "micro-batches, so none runs beside a backward (raise "
                     "global_batch for more micro-batches)");
}

TrainingReport costTraining(const Program &P, bool WithTables) {
  TrainingReport R;
  costTraining(P, WithTables, R);
  return R;
}

void costTraining(const Program &P, bool WithTables, TrainingReport &R) {
  {
    // A fresh report, keeping the storage of its vectors.
    std::vector<double> Stages = std::move(R.StageTimes);
    std::vector<OpRow> Ops = std::move(R.Ops);
    std::vector<CollectiveRow> Collectives = std::move(R.Collectives);
    R = TrainingReport();
    Stages.clear();
    Ops.clear();
    Collectives.clear();
    R.StageTimes = std::move(Stages);
    R.Ops = std::move(Ops);
    R.Collectives = std::move(Collectives);
  }
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  const AcceleratorConfig &A = S.System.Device;
  R.Devices = M.devices();
  R.MicroBatches = P.Schedule.MicroBatches;
  double Mb = static_cast<double>(R.MicroBatches);

  // Per block kind (zero for kinds the program lacks). With the tables,
  // each op's time is kept for them (Records from RecordStart[block]).
  std::array<BlockTime, NumBlockKinds> Times{};
  // (Kept by the thread from call to call: a sweep costs many programs.)
  thread_local std::vector<OpTimeRecord> Records;
  thread_local std::vector<size_t> RecordStart;
  RecordStart.assign(P.Blocks.size(), 0);
  if (WithTables) {
    size_t Ops = 0;
    for (size_t I = 0; I < P.Blocks.size(); ++I) {
      RecordStart[I] = Ops;
      Ops += P.Blocks[I].Ops.size();
    }
    Records.resize(Ops);
  }
  for (size_t I = 0; I < P.Blocks.size(); ++I) {
    const Block &B = P.Blocks[I];
    if (B.Kind == BlockKind::Optimizer)
      continue;
    // (One block of each kind, as the verifier requires: its time is
    // added into a fresh entry.)
    blockTime(B, S, Times[static_cast<size_t>(B.Kind)],
              WithTables ? Records.data() + RecordStart[I] : nullptr);
  }

  // Per stage, one micro-batch.
  auto TimeOf = [&](BlockKind K) -> const BlockTime & {
    return Times[static_cast<size_t>(K)];
  };
  auto Total = [](const BlockTime &T) { return T.Forward + T.Backward; };
  double PipeComm = 0;
  if (const Block *C = P.block(BlockKind::PipelineComm))
    PipeComm = C->Repeat * Total(TimeOf(BlockKind::PipelineComm));
  R.StageTimes.reserve(P.Stages.size());
  const double Dense = Total(TimeOf(BlockKind::DenseLayer)),
               Moe = Total(TimeOf(BlockKind::MoELayer)),
               Emb = Total(TimeOf(BlockKind::Embedding)),
               Head = Total(TimeOf(BlockKind::Head)),
               Comm = P.Stages.size() > 1 ? PipeComm : 0;
  const double V = double(M.modelChunks());
  // Under ep_overlap, the forwards and backwards the schedule runs alone
  // (unpairedLayers: the first and last micro-batch without pipelining,
  // a stage's warm-up forwards and cool-down backwards with it) show their
  // expert-parallel collectives in full: each stage's, spread over its
  // micro-batches, add to its time (so a step where nothing pairs costs
  // what it costs without ep_overlap, bubble included).
  const BlockTime &MoeTime = TimeOf(BlockKind::MoELayer);
  const double EdgeTime = MoeTime.Unpaired;
  double Sum = 0, Max = 0, EdgeLayers = 0;
  // A stage's blocks (the stage before's when it repeats them).
  double Blocks = 0;
  for (size_t I = 0; I < P.Stages.size(); ++I) {
    const Stage &St = P.Stages[I];
    if (!St.RepeatsPrevious)
      Blocks = St.DenseLayers * Dense + St.MoELayers * Moe +
               (St.HasEmbedding ? Emb : 0) + (St.HasHead ? Head : 0) + Comm -
               keptOnDevice(St, M, TimeOf);
    double Layers = 0, Stage = Blocks;
    if (EdgeTime > 0) {
      Layers = unpairedLayers(S, St, static_cast<int64_t>(I), R.MicroBatches);
      Stage = Blocks + Layers * EdgeTime / Mb;
    }
    R.StageTimes.push_back(Stage);
    Sum += Stage;
    if (Stage > Max) {
      Max = Stage;
      R.SlowestStage = static_cast<int>(I);
      EdgeLayers = Layers;
    }
  }
  R.Bubble = (Sum - Max) / V;
  double Pipeline = Mb * Max + R.Bubble;

  // Data parallelism and the optimizer, once per step: the gradient
  // reduction (all-reduce, or reduce-scatter with a distributed optimizer)
  // and the updated parameters' all-gather.
  double GradTime = 0, GatherTime = 0, OptTime = 0, HostTransfer = 0;
  // Of GatherTime, the gathers that wait for the step (Muon's layer-wise
  // optimizer gathers after its update): exposed with dp_overlap too.
  double GatherAfterStep = 0;
  // An optimizer offloaded to the host (offload = optimizer): its
  // transfers cross the host link, its update streams the host's memory,
  // shared by the node's devices; neither overlaps the step.
  const double HostMemory =
      S.System.HostMemoryBandwidth / double(std::max<int64_t>(1, S.System.DevicesPerNode));
  auto IsTransfer = [](const Op &O) {
    return O.Kind == OpKind::OffloadGradToHost ||
           O.Kind == OpKind::OffloadParamToDevice;
  };
  // An optimizer op's time: on the device, the host link or the host.
  auto OptimizerOpTime = [&](const Op &O) {
    double Bytes = O.BytesRead + O.BytesWritten;
    auto Streamed = [](double T) {
      OpTime R;
      R.Memory = R.Time = T;
      R.MemoryBound = true;
      return R;
    };
    if (IsTransfer(O) && A.HostLinkBandwidth > 0)
      return Streamed(Bytes / A.HostLinkBandwidth);
    if (O.Kind == OpKind::OffloadHostUpdate && HostMemory > 0)
      return Streamed(Bytes / HostMemory);
    return mappedOpTime(O, A, M);
  };
  // Megatron-LM's gradient buffers in buckets (dp_overlap: overlap_grad_
  // reduce): dp_bucket parameters each (its default max(40M, 1M x dp)),
  // every bucket reduced, and with a distributed optimizer gathered, by a
  // call of its own (param_and_grad_buffer.py); only the first pipeline
  // stage's first model chunk is bucketed, every other chunk is one bucket
  // (distributed_data_parallel.py: bucket_size None on a later stage, for
  // a later chunk, and without overlap_grad_reduce).
  // (With the tables, each op's time is kept for them, as blockTime keeps
  // the other blocks'.)
  const DpBuckets Buckets = dpBuckets(P);
  if (const Block *Opt = P.block(BlockKind::Optimizer)) {
    OpTimeRecord *OptRecords =
        WithTables ? Records.data() + RecordStart[Opt - P.Blocks.data()]
                   : nullptr;
    for (size_t I = 0, E = Opt->Ops.size(); I < E; ++I) {
      const Op &O = Opt->Ops[I];
      if (!O.isCollective()) {
        const OpTime OT = OptimizerOpTime(O);
        (IsTransfer(O) ? HostTransfer : OptTime) += OT.Time;
        if (OptRecords)
          OptRecords[I] = {OT.Time, OT.MemoryBound, ""};
        continue;
      }
      const CollectiveTime C = dpCollectiveTime(O, S, Buckets);
      if (OptRecords)
        OptRecords[I] = {C.Time, false, C.Algorithm};
      if (O.Collective == CollectiveKind::AllGather) {
        GatherTime += C.Time;
        if (!O.Overlappable)
          GatherAfterStep += C.Time;
      } else {
        GradTime += C.Time;
      }
    }
  }
  double DpTime = GradTime + GatherTime;
  double DpExposed = DpTime, GradExposed = GradTime, GatherExposed = GatherTime;
  if (M.DpOverlap) {
    // Each bucket's reduction starts as its gradients are ready during the
    // last micro-batch's backward (Megatron-LM --overlap-grad-reduce); each
    // bucket's parameters are gathered ahead of the layers that use them in
    // the next step's first forward (--overlap-param-gather).
    const Stage &St = P.Stages[R.SlowestStage];
    auto Layers = [&](double BlockTime::*F) {
      return St.DenseLayers * (TimeOf(BlockKind::DenseLayer).*F) +
             St.MoELayers * (TimeOf(BlockKind::MoELayer).*F);
    };
    // Buckets of dp_bucket parameters (Megatron-LM's default max(40M, 1M x
    // dp): distributed_data_parallel.py): the last bucket's reduction
    // starts when backward ends and the first bucket's gather must end
    // before the first layer's forward, so each shows at least one
    // bucket's time. Megatron-LM buckets only the first pipeline stage's
    // first model chunk (a later stage's or chunk's parameters are one
    // bucket, reduced while the first stage's backward drains the
    // pipeline): the bucket is at most that chunk's parameters, its time
    // its share of the collectives', which carry the fullest stage's.
    double Share = 0;
    if (GradTime > 0 || GatherTime > GatherAfterStep) {
      // A bucket holds whole parameters (param_and_grad_buffer.py closes
      // one once it holds the size): the last one reduced and the first
      // one gathered hold the first parameter the model registers, the
      // embedding's table, however small the size asked for.
      const double Last = std::max(std::min(Buckets.Size, Buckets.First),
                                   Buckets.Table);
      Share = Buckets.Fullest > 0 ? std::min(1.0, Last / Buckets.Fullest)
                                  : 1.0;
    }
    const double Gathers = GatherTime - GatherAfterStep;
    GradExposed = std::max(GradTime * Share,
                           GradTime - Layers(&BlockTime::Backward));
    GatherExposed =
        GatherAfterStep + std::max(Gathers * Share,
                                   Gathers - Layers(&BlockTime::Forward));
    DpExposed = GradExposed + GatherExposed;
  }
  R.Optimizer = OptTime;
  R.StepTime = Pipeline + DpExposed + OptTime + HostTransfer;

  // Breakdown of the step on the slowest stage.
  const Stage &St = P.Stages[R.SlowestStage];
  auto Scaled = [&](auto Get) {
    double V = St.DenseLayers * Get(TimeOf(BlockKind::DenseLayer)) +
               St.MoELayers * Get(TimeOf(BlockKind::MoELayer)) +
               (St.HasEmbedding ? Get(TimeOf(BlockKind::Embedding)) : 0) +
               (St.HasHead ? Get(TimeOf(BlockKind::Head)) : 0);
    return V * Mb;
  };
  R.ComputeBound = Scaled([](const BlockTime &T) { return T.ComputeBound; });
  R.MemoryBoundTime = Scaled([](const BlockTime &T) { return T.MemoryBound; });
  for (int K = 0; K < NumCommKinds; ++K)
    R.ExposedComm[K] = Scaled([&](const BlockTime &T) { return T.Comm[K]; });
  R.ExposedComm[static_cast<int>(CommKind::Host)] -=
      Mb * keptOnDevice(St, M, TimeOf);
  if (P.Stages.size() > 1)
    R.ExposedComm[static_cast<int>(CommKind::PP)] += Mb * PipeComm;
  R.ExposedComm[static_cast<int>(CommKind::DP)] += DpExposed;
  R.ExposedComm[static_cast<int>(CommKind::Host)] += HostTransfer;
  R.ExposedComm[static_cast<int>(CommKind::EP)] += EdgeLayers * EdgeTime;

  // Throughput and utilisation.
  // Contraction FLOPs of a micro-batch on one device (ir::totals, from
  // the block times).
  double ModelFlops = 0, HardwareFlops = 0;
  for (const Block &B : P.Blocks) {
    const BlockTime &BT = TimeOf(B.Kind);
    ModelFlops += double(B.Repeat) * BT.ModelFlops;
    HardwareFlops += double(B.Repeat) * BT.HardwareFlops;
  }
  double Replicas = double(M.Tp) * M.Cp * Mb * M.Dp;
  R.ModelFlopsPerStep = ModelFlops * Replicas;
  R.HardwareFlopsPerStep = HardwareFlops * Replicas;
  R.TokensPerStep = double(P.MicroBatch) * P.SeqLen * Mb * M.Dp;
  R.TokensPerSecond = R.TokensPerStep / R.StepTime;
  double Peak = A.peak(M.Activations);
  R.ModelFlopsRate = R.ModelFlopsPerStep / R.StepTime / R.Devices;
  R.HardwareFlopsRate = R.HardwareFlopsPerStep / R.StepTime / R.Devices;
  R.Mfu = Peak > 0 ? R.ModelFlopsRate / Peak : 0;
  R.Hfu = Peak > 0 ? R.HardwareFlopsRate / Peak : 0;
  // Energy and cost count the devices used, or the whole system with
  // charge_idle. Activity (DataEnergy.cpp): a column of pp devices holds
  // every layer once; tp x cp x dp columns; the optimizer on every device.
  double Charged = double(S.chargedDevices());
  double Dynamic = -1;
  if (A.HbmEnergyPerByte > 0 || A.StaticPower > 0) {
    DataTraffic Column, Update;
    for (const Block &B : P.Blocks) {
      if (B.Kind == BlockKind::Optimizer) {
        for (const Op &O : B.Ops)
          Update.add(O, 1, 0, S.System);
        continue;
      }
      if (B.Kind == BlockKind::PipelineComm && P.Stages.size() < 2)
        continue;
      // Activations cross each boundary between the column's pp x v model
      // chunks once per micro-batch and direction.
      double Times = B.Kind == BlockKind::PipelineComm
                         ? double(B.Repeat) * double(P.Stages.size()) - 1
                         : double(B.Repeat);
      Column.add(TimeOf(B.Kind).Data, Times * Mb);
    }
    double Columns = double(M.Tp) * M.Cp * M.Dp;
    double C = Column.energy(S.System), U = Update.energy(S.System);
    bool Missing = (C == 0 && Column.any()) || (U == 0 && Update.any());
    if (!Missing && A.HbmEnergyPerByte > 0)
      R.DataEnergyPerToken =
          (C * Columns + U * double(R.Devices)) / R.TokensPerStep;
    double CA = Column.activityEnergy(S.System);
    double UA = Update.activityEnergy(S.System);
    if (CA >= 0 && UA >= 0)
      Dynamic = (CA * Columns + UA * double(R.Devices)) / R.TokensPerStep;
  }
  RunCharge Charge =
      chargeRun(S.System, Charged, double(R.Devices), 1 / R.TokensPerSecond,
                Dynamic);
  R.EnergyPerToken = Charge.EnergyPerUnit;
  R.TdpEnergyPerToken = Charge.TdpEnergyPerUnit;
  R.PowerPerDevice = Charge.PowerPerDevice;
  R.CostPerToken = Charge.CostPerUnit;
  R.CostAtTdp = Charge.CostAtTdp;
  if (S.Tokens > 0) {
    R.TimeToTrain = S.Tokens / R.TokensPerSecond;
    R.DeviceHours = R.TimeToTrain * Charged / 3600;
    R.Energy = S.Tokens * R.EnergyPerToken;
    R.TdpEnergy = S.Tokens * R.TdpEnergyPerToken;
    R.Cost = S.Tokens * R.CostPerToken;
  }

  R.Memory = trainingMemory(P);
  if (!WithTables)
    return;

  // Tables: the slowest stage's ops over a step.
  OpTables Tables(R.Ops, R.Collectives);
  auto Repeats = [&](const Block &B) -> double {
    switch (B.Kind) {
    case BlockKind::PipelineComm: return P.Stages.size() > 1 ? Mb * B.Repeat : 0;
    case BlockKind::Optimizer: return 1;
    default: return double(St.holds(B.Kind)) * Mb;
    }
  };
  for (size_t BI = 0; BI < P.Blocks.size(); ++BI) {
    const Block &B = P.Blocks[BI];
    double N = Repeats(B);
    if (N == 0)
      continue;
    // The times blockTime and the optimizer's loop above found (blockTime
    // leaves a layer's optimizer-phase ops alone).
    const bool OptimizerBlock = B.Kind == BlockKind::Optimizer;
    const OpTimeRecord *BlockRecords = Records.data() + RecordStart[BI];
    EpOverlapParts Walk;
    for (size_t OI = 0, OE = B.Ops.size(); OI < OE; ++OI) {
      const Op &O = B.Ops[OI];
      const OpTimeRecord *Rec = OptimizerBlock || O.Ph != Phase::Optimizer
                                    ? BlockRecords + OI
                                    : nullptr;
      if (O.isCollective()) {
        CollectiveTime C;
        if (Rec) {
          C.Time = Rec->Time;
          C.Algorithm = Rec->Algorithm;
        } else {
          C = collectiveTime(O, S.System, collectiveCtas(O, M));
        }
        CollectiveRow &Row = Tables.addCollective(O, C, N);
        if (OptimizerBlock) {
          // The step's gradient reduction and parameter gather: exposed in
          // the proportion computed above.
          bool Gather = O.Collective == CollectiveKind::AllGather;
          double Total = Gather ? GatherTime : GradTime;
          double Shown = Gather ? GatherExposed : GradExposed;
          if (Total > 0)
            Row.Exposed += N * C.Time * (Shown / Total);
          continue;
        }
        // Communication beside compute: the share of it the block's time
        // left exposed.
        const BlockTime &BT = TimeOf(B.Kind);
        if (ringBesideAttention(O, M))
          Row.Exposed += N * C.Time * BT.RingExposed[backwardSide(O.Ph)];
        else if (overlapsWeightGradients(O, M))
          Row.Exposed += N * C.Time * BT.GradExposed;
        else if (EpOverlapLayer::Slot Slot = Walk.slotOf(O);
                 Slot != EpOverlapLayer::NumSlots) {
          // Paired (EpOverlap.h): the unpaired chunks' layers (EdgeLayers,
          // above) show their all-to-alls in full.
          double Share = BT.EpExposed[Slot];
          Row.Exposed += C.Time * (N * Share + EdgeLayers * (1 - Share));
        } else if (hideable(O, M))
          Row.Exposed += N * C.Time * BT.HiddenExposed[backwardSide(O.Ph)];
        else
          Row.Exposed += N * C.Time;
        continue;
      }
      if (O.fused())
        continue;
      OpTime OT;
      if (Rec) {
        OT.Time = Rec->Time;
        OT.MemoryBound = Rec->MemoryBound;
      } else {
        OT = mappedOpTime(O, A, M);
      }
      Tables.addOp(O, OT.MemoryBound, N, O.Flops, O.BytesRead + O.BytesWritten,
                   OT.Time);
    }
  }
  sortByTime(R.Ops);
  sortByTime(R.Collectives);
}

} // namespace cost
} // namespace llmsys
