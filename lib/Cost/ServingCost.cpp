//===- ServingCost.cpp - prefill, decode, KV cache, SLOs ----------------------===//
//
// A request batch is served as the prefill of its prompts (a forward of
// batch x prompt tokens, compute-bound at useful sizes) and then output - 1
// decode steps, each a forward of one token per sequence that reads every
// weight and the KV cache of the current context (memory-bound at small
// batch). Each op is timed by the roofline of OpCost.cpp, decode attention
// by its per-context FLOPs and bytes; tensor-parallel all-reduces are on the
// critical path (small and latency-dominated in decode). With pipeline
// parallelism a request passes every stage in turn, so its latency is the
// sum of the stages plus the sends between them; the batch is split into
// micro-batches of requests (one per stage: the `schedule` pass) that keep
// the stages busy together. With m micro-batches, stage times t_s of one
// micro-batch and their sum T: the prefill of the batch ends after
// T + (m - 1) max t_s, and a decode step moves every sequence by one token
// every max(m max t_s, T) (the slowest stage's turn, or one micro-batch's
// trip through all stages when there are fewer micro-batches than stages).
//
// TTFT is the prefill; TPOT the mean decode step over the generation
// (Simpson's rule over the context, which the step time follows piecewise
// linearly); e2e = TTFT + (output - 1) TPOT; throughput = replicas x batch
// x output / e2e.
//
// Offloaded weights (mapping offload = weights) cross the host link for
// every forward, layer by layer ahead of use: a forward lasts at least that
// transfer, and the device holds two layers of them.
//
// Memory per device: weights of the fullest stage, the KV cache of batch x
// (prompt + output) tokens (split over TP when the KV heads are, replicated
// otherwise; the MLA latent is not split), the largest prefill
// activation twice over (input and output), and the reserved memory; the
// largest batch that fits follows from the per-sequence terms.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "Cost/Tables.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace llmsys {
namespace cost {

using namespace ir;

const char *PhaseRoofline::bound() const {
  if (HostTime > 0 && HostTime >= Time)
    return "host link";
  if (CommTime > ComputeTime && CommTime > MemoryTime)
    return "interconnect";
  return MemoryTime > ComputeTime ? "memory bandwidth" : "compute";
}

const char *ServingMemory::largest() const {
  return largestPart({{"weights", Weights},
                      {"KV cache", KVCache},
                      {"activations", Activations},
                      {"reserved", Reserved}});
}

namespace {

/// A tensor-parallel reduction that tp_overlap fuses into the row-parallel
/// GEMM before it: serving's use of tp_overlap (training's, beside the
/// layer's compute, is TrainingCost.cpp's).
bool fusedWithGemm(const Op &O, const MappingConfig &M) {
  return M.TpOverlap && commKind(O) == CommKind::TP &&
         (O.Collective == CollectiveKind::AllReduce ||
          O.Collective == CollectiveKind::ReduceScatter);
}

/// Executions of a block's ops in a phase: over the whole model, or on one
/// pipeline stage (its layers, the embedding on the first, the head on the
/// last, and the send to the next stage).
double executions(const Block &B, const Program &P, const Stage *St) {
  if (!St)
    return B.Kind == BlockKind::PipelineComm
               ? double(std::max<int64_t>(0, P.Scenario.Mapping.Pp - 1))
               : double(B.Repeat);
  if (B.Kind == BlockKind::PipelineComm)
    return St->HasHead ? 0 : 1;
  return double(St->holds(B.Kind));
}

/// A phase's time and roofline terms over the whole model (or one stage,
/// St) at a context, on the given system (the program's own, or one
/// `require` scaled). PerSequence scales the per-context bytes: the
/// verification forward of speculative decoding reads each sequence's
/// cache once for its k + 1 tokens.
PhaseRoofline phaseOn(const Program &P, const SystemConfig &Sys,
                      const AcceleratorConfig &A, Phase Ph, double Context,
                      OpTables *Tables, double PerSequence, const Stage *St) {
  PhaseRoofline R;
  const ScenarioConfig &S = P.Scenario;
  for (const Block &B : P.Blocks) {
    double N = executions(B, P, St);
    if (N == 0)
      continue;
    // The time of the op just before, when it is a row-parallel GEMM whose
    // output the next collective reduces (0 otherwise).
    double RowParallel = 0;
    for (const Op &Original : B.Ops) {
      if (Original.Ph != Ph)
        continue;
      if (Original.isCollective()) {
        CollectiveTime C = servingCollectiveTime(Original, Sys, S.Mapping);
        // tp_overlap: the reduction runs inside the GEMM that produces it
        // (TensorRT-LLM's gemm_allreduce_plugin: each output tile reduced
        // as it is written), so only what outlasts the GEMM shows.
        double Exposed = C.Time;
        if (fusedWithGemm(Original, S.Mapping))
          Exposed = std::max(0.0, C.Time - RowParallel);
        RowParallel = 0;
        R.CommTime += N * Exposed;
        R.Time += N * Exposed;
        if (Tables)
          Tables->addCollective(Original, C, N).Exposed += N * Exposed;
        continue;
      }
      if (Original.fused())
        continue;
      RowParallel = 0;
      // (A copy only for the verification forward's per-sequence reads.)
      const Op *U = &Original;
      Op Scaled;
      if (PerSequence != 1) {
        Scaled = Original;
        Scaled.BytesPerContext *= PerSequence;
        U = &Scaled;
      }
      const Op &O = *U;
      // A windowed layer's attention reads at most its window of the cache.
      double Ctx = O.contextRead(Context);
      OpTime T = opTime(O, A, Ctx, kernelOverhead(A, S.Mapping, Ph));
      double Flops = O.Flops + O.FlopsPerContext * Ctx;
      double Bytes = O.BytesRead + O.BytesWritten + O.BytesPerContext * Ctx;
      R.Flops += N * Flops;
      R.Bytes += N * Bytes;
      R.Time += N * T.Time;
      if (O.Category == OpCategory::Contraction && O.TpAxis == Axis::K)
        RowParallel = T.Time;
      (T.MemoryBound ? R.MemoryTime : R.ComputeTime) += N * T.Time;
      if (Tables)
        Tables->addOp(O, T.MemoryBound, N, Flops, Bytes, T.Time);
    }
  }
  double Peak = A.peak(S.Mapping.Activations);
  if (R.Time > 0) {
    R.AchievedFlops = Peak > 0 ? R.Flops / R.Time / Peak : 0;
    R.AchievedBandwidth =
        A.HbmBandwidth > 0 ? R.Bytes / R.Time / A.HbmBandwidth : 0;
  }
  return R;
}

/// Bytes per weight of a layer's quantized parts and of the parts
/// `quantized` leaves in the precision (2:4-compressed when sparse).
std::pair<double, double> layerWeightFormats(const MappingConfig &M) {
  auto Stored = [&](DType T) {
    return M.SparseWeights ? sparseWeightBytes(dtypeBytes(T)) : dtypeBytes(T);
  };
  return {Stored(M.Weights), Stored(M.Precision)};
}

/// A stage's weights on a device: the layers' parts in their formats, the
/// embedding and the head in the base precision (ExpandLayers.cpp).
double stageWeightBytes(const StageParamCounter &C, const MappingConfig &M,
                        const Stage &St) {
  auto [Narrow, Wide] = layerWeightFormats(M);
  double Layers = C(St, /*LayersOnly=*/true), Kept = C.wide(St);
  return (Layers - Kept) * Narrow + Kept * Wide +
         (C(St) - Layers) * dtypeBytes(M.Precision);
}

/// The most a stage of program P (its parameters counted by C) holds of
/// weights on a device.
double fullestWeightBytes(const Program &P, const StageParamCounter &C) {
  double Most = 0;
  for (const Stage &St : P.Stages)
    Most = std::max(Most, stageWeightBytes(C, P.Scenario.Mapping, St));
  return Most;
}

/// Whether a step of the phase keeps its bytes on chip: a serving step
/// repeats every step, so when everything it reads and writes (the
/// device's weights, the KV cache at the context, the activations) fits in
/// the last-level cache and the cache is faster than device memory, the
/// steps after the first find it there and memory-bound work reads at the
/// cache's bandwidth. The weights alone decide most cases without a pass
/// over the operators.
bool residentOnChip(const Program &P, const SystemConfig &Sys, Phase Ph,
                    double Context, double PerSequence, const Stage *St) {
  const AcceleratorConfig &A = Sys.Device;
  if (A.L2Capacity <= 0 || A.L2Bandwidth <= A.HbmBandwidth)
    return false;
  double Weights = 0;
  for (const Block &B : P.Blocks)
    Weights += executions(B, P, St) > 0 ? B.Params : 0;
  if (Weights * dtypeBytes(P.Scenario.Mapping.Weights) > A.L2Capacity)
    return false;
  PhaseRoofline R =
      phaseOn(P, Sys, A, Ph, Context, nullptr, PerSequence, St);
  return R.Bytes <= A.L2Capacity;
}

/// The device as a phase's step sees it: its memory the on-chip one when
/// the step is resident there (residentOnChip).
AcceleratorConfig stepDevice(const Program &P, const SystemConfig &Sys,
                             Phase Ph, double Context, double PerSequence,
                             const Stage *St, bool &OnChip) {
  AcceleratorConfig A = Sys.Device;
  OnChip = residentOnChip(P, Sys, Ph, Context, PerSequence, St);
  if (OnChip) {
    A.HbmBandwidth = Sys.Device.L2Bandwidth;
    A.HbmLatency = Sys.Device.L2Latency;
  }
  return A;
}

PhaseRoofline phaseCost(const Program &P, const SystemConfig &Sys, Phase Ph,
                        double Context, OpTables *Tables = nullptr,
                        double PerSequence = 1, const Stage *St = nullptr) {
  bool OnChip = false;
  AcceleratorConfig A =
      stepDevice(P, Sys, Ph, Context, PerSequence, St, OnChip);
  PhaseRoofline R = phaseOn(P, Sys, A, Ph, Context, Tables, PerSequence, St);
  R.OnChip = OnChip;
  return R;
}

/// One transformer layer of a phase (the first layer block), with its
/// collectives.
double layerTime(const Program &P, Phase Ph, double Context) {
  Program One;
  One.Scenario = P.Scenario;
  for (const Block &B : P.Blocks)
    if (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer) {
      Block L = B;
      L.Repeat = 1;
      One.Blocks.push_back(L);
      break;
    }
  return phaseCost(One, P.Scenario.System, Ph, Context).Time;
}

/// A pipelined batch: the sum and the largest of the stages' times for one
/// micro-batch (program Micro) in a phase at a context.
std::pair<double, double> stageTimes(const Program &Micro,
                                     const SystemConfig &Sys, Phase Ph,
                                     double Context) {
  double Sum = 0, Max = 0, T = 0;
  for (size_t I = 0; I < Micro.Stages.size(); ++I) {
    const Stage &St = Micro.Stages[I];
    // (Stages holding what the one before holds take its time.)
    if (I == 0 || !St.RepeatsPrevious)
      T = phaseCost(Micro, Sys, Ph, Context, nullptr, 1, &St).Time;
    Sum += T;
    Max = std::max(Max, T);
  }
  return {Sum, Max};
}

/// KV-cache bytes per token of context on a device of the fullest stage.
double kvBytesPerToken(const Program &P, double Layers) {
  const ModelConfig &Mo = P.Scenario.Model;
  const MappingConfig &M = P.Scenario.Mapping;
  double KvSplit = Mo.Mla ? 1.0 : double(std::min<int64_t>(M.Tp, Mo.KvHeads));
  return kvElementsPerTokenPerLayer(Mo) * Layers * dtypeBytes(M.KVCache) /
         KvSplit;
}

} // namespace

/// The mean of Time(c) over the contexts c = First .. Last when Time
/// follows the context piecewise linearly between the first tokens of
/// chunks of Chunk tokens (c = k Chunk + 1), where it falls back: Simpson's
/// rule on each piece, weighted by its tokens. Past 64 pieces, the whole
/// chunks between the two end pieces go in groups, each costed as the mean
/// of its first and last chunks (the linear part's mean is theirs; the
/// part that repeats with each chunk is the same in all).
double chunkedTpot(double First, double Last, double Chunk,
                   const std::function<double(double)> &Time) {
  auto Simpson = [&](double A, double B) {
    return (Time(A) + 4 * Time((A + B) / 2) + Time(B)) / 6;
  };
  // Piece k holds the contexts k Chunk + 1 .. (k + 1) Chunk.
  double K0 = std::floor((First - 1) / Chunk),
         K1 = std::floor((Last - 1) / Chunk);
  auto From = [&](double K) { return std::max(First, K * Chunk + 1); };
  auto To = [&](double K) { return std::min(Last, (K + 1) * Chunk); };
  double Sum = 0, Tokens = 0;
  auto Add = [&](double A, double B, double Weight) {
    Sum += Weight * Simpson(A, B);
    Tokens += Weight;
  };
  constexpr double MaxPieces = 64;
  if (K1 - K0 + 1 <= MaxPieces) {
    for (double K = K0; K <= K1; ++K)
      Add(From(K), To(K), To(K) - From(K) + 1);
    return Sum / Tokens;
  }
  Add(From(K0), To(K0), To(K0) - From(K0) + 1);
  Add(From(K1), To(K1), To(K1) - From(K1) + 1);
  double Whole = K1 - K0 - 1, Groups = MaxPieces - 2;
  for (double G = 0; G < Groups; ++G) {
    double A = K0 + 1 + std::floor(Whole * G / Groups);
    double B = K0 + 1 + std::floor(Whole * (G + 1) / Groups);
    if (B <= A)
      continue;
    // Its first and last chunks: their mean's linear part is the group's.
    Sum += (B - A) * Chunk *
           (Simpson(From(A), To(A)) + Simpson(From(B - 1), To(B - 1))) / 2;
    Tokens += (B - A) * Chunk;
  }
  return Sum / Tokens;
}

ServingReport costServing(const Program &P, bool WithTables) {
  ServingReport R;
  const ScenarioConfig &S = P.Scenario;
  const SystemConfig &Sys = S.System;
  const MappingConfig &M = S.Mapping;
  const AcceleratorConfig &A = Sys.Device;
  R.DevicesPerReplica = M.Tp * M.Pp * M.Cp;
  R.Replicas = M.Dp;
  double Batch = double(P.MicroBatch);
  double Prompt = double(P.SeqLen);
  double Output = double(S.OutputLen);
  const SpeculativeConfig &Spec = S.Speculative;
  bool Speculating = Spec.Enabled && P.Draft && P.Verify;
  double K = double(Spec.K);

  // Weights offloaded to host memory cross the host link for every
  // forward, layer by layer ahead of their use: a forward takes at least
  // that transfer.
  // With pipeline stages a request passes them in turn, each streaming its
  // own layers over its own link: the stages' transfers add up.
  const FullestStage Fullest = fullestStage(P);
  double MostLayers = double(Fullest.Layers);
  const StageParamCounter StageParams(P);
  auto StageWeightBytes = [&](const Stage &St) {
    return stageWeightBytes(StageParams, M, St);
  };
  double HostTime = 0;
  if (M.OffloadWeights && A.HostLinkBandwidth > 0)
    for (const Stage &St : P.Stages)
      HostTime += StageWeightBytes(St) / A.HostLinkBandwidth;
  auto Streamed = [&](PhaseRoofline R) {
    R.HostTime = HostTime;
    if (HostTime > R.Time && R.Time > 0) {
      R.AchievedFlops *= R.Time / HostTime;
      R.AchievedBandwidth *= R.Time / HostTime;
    }
    R.Time = std::max(R.Time, HostTime);
    return R;
  };

  OpTables Store(R.Ops, R.Collectives);
  OpTables *Tables = WithTables ? &Store : nullptr;
  // Micro-batches of requests in the pipeline (`schedule`): what a device
  // runs, and so the phases' roofline positions and the tables, is one
  // micro-batch's work.
  const Program *Micro = P.PipelineMicro.get();
  double Parts = double(P.Schedule.MicroBatches);
  const Program &Runs = Micro ? *Micro : P;
  R.Prefill = Streamed(phaseCost(Runs, Sys, Phase::Prefill, 0, Tables));
  R.Ttft = R.Prefill.Time;
  R.MicroBatches = P.Schedule.MicroBatches;
  R.MicroBatchSize = Runs.MicroBatch;
  if (Micro) {
    auto [Sum, Max] = stageTimes(*Micro, Sys, Phase::Prefill, 0);
    R.Ttft = Sum + (Parts - 1) * Max;
  }
  // With speculation the draft must also read the prompt into its cache.
  if (Speculating)
    R.Ttft += phaseCost(*P.Draft, Sys, Phase::Prefill, 0).Time;
  // Per output token at a context: one decode step, or a speculation
  // round (k draft steps and the verification forward) over the tokens it
  // yields on average.
  auto DraftStep = [&](double Ctx) {
    return phaseCost(*P.Draft, Sys, Phase::Decode, Ctx).Time;
  };
  auto VerifyStep = [&](double Ctx) {
    return std::max(HostTime, phaseCost(*P.Verify, Sys, Phase::Decode, Ctx,
                                        nullptr, 1 / (K + 1))
                                  .Time);
  };
  auto TokenTime = [&](double Ctx) {
    if (Micro) {
      auto [Sum, Max] = stageTimes(*Micro, Sys, Phase::Decode, Ctx);
      return std::max(Parts * Max, Sum);
    }
    if (!Speculating)
      return std::max(HostTime, phaseCost(P, Sys, Phase::Decode, Ctx).Time);
    return (K * DraftStep(Ctx) + VerifyStep(Ctx)) / Spec.tokensPerStep();
  };
  double FirstCtx = Prompt + 1, LastCtx = Prompt + std::max(1.0, Output - 1);
  double MidCtx = (FirstCtx + LastCtx) / 2;
  if (Output > 1) {
    // The decode step at the middle context, with the tables: the
    // verification forward when speculating.
    R.Decode = Streamed(
        Speculating ? phaseCost(*P.Verify, Sys, Phase::Decode, MidCtx, Tables,
                                1 / (K + 1))
                    : phaseCost(Runs, Sys, Phase::Decode, MidCtx, Tables));
    double DraftMid = Speculating ? DraftStep(MidCtx) : 0;
    double Mid = Micro         ? TokenTime(MidCtx)
                 : Speculating ? (K * DraftMid + R.Decode.Time) /
                                     Spec.tokensPerStep()
                               : R.Decode.Time;
    // The mean over the contexts of the generation (Simpson's rule: the
    // step time follows the context piecewise linearly).
    R.TpotFirst = TokenTime(FirstCtx);
    R.TpotLast = TokenTime(LastCtx);
    R.Tpot = (R.TpotFirst + 4 * Mid + R.TpotLast) / 6;
    // Chunked attention reads only the current chunk of the cache: the
    // step time falls back at each chunk's first token, so Simpson's rule
    // runs piece by piece between those (chunkedTpot).
    if (int64_t Chunk = S.Model.AttentionChunk;
        Chunk > 0 && std::floor((FirstCtx - 1) / double(Chunk)) !=
                         std::floor((LastCtx - 1) / double(Chunk)))
      R.Tpot = chunkedTpot(FirstCtx, LastCtx, double(Chunk), TokenTime);
    if (Speculating) {
      R.Speculation.TokensPerStep = Spec.tokensPerStep();
      R.Speculation.DraftStep = DraftMid;
      R.Speculation.VerifyStep = R.Decode.Time;
    }
  }
  R.E2E = R.Ttft + std::max(0.0, Output - 1) * R.Tpot;
  R.Throughput = R.E2E > 0 ? R.Replicas * Batch * Output / R.E2E : 0;
  R.ThroughputPerDevice =
      R.Throughput / double(R.Replicas * R.DevicesPerReplica);
  // Activity: the prefill once and the decode steps at the middle
  // context, on each of a replica's tp x cp device columns (a column of
  // pp devices holds every layer once), per output token (DataEnergy.cpp).
  // Speculative decoding's draft and verification steps are not counted.
  double Dynamic = -1;
  if ((Sys.Device.HbmEnergyPerByte > 0 || Sys.Device.StaticPower > 0) &&
      !Speculating) {
    // Pipelined, each micro-batch runs its own program (and reads the
    // weights again).
    DataTraffic T;
    for (const Block &B : Runs.Blocks) {
      double N = executions(B, Runs, nullptr) * (Micro ? Parts : 1.0);
      for (const Op &O : B.Ops)
        if (O.Ph == Phase::Prefill)
          T.add(O, N, 0, Sys);
        else if (O.Ph == Phase::Decode && Output > 1)
          T.add(O, N * (Output - 1), MidCtx, Sys);
    }
    double PerToken = double(S.Mapping.Tp) * double(S.Mapping.Cp) /
                      (double(Batch) * Output);
    if (Sys.Device.HbmEnergyPerByte > 0)
      R.DataEnergyPerToken = T.energy(Sys) * PerToken;
    double E = T.activityEnergy(Sys);
    if (E >= 0)
      Dynamic = E * PerToken;
  }
  chargeServing(R, S, Sys, Dynamic);
  R.PrefillLayerTime = layerTime(P, Phase::Prefill, 0);
  R.DecodeLayerTime = Output > 1 ? layerTime(P, Phase::Decode, LastCtx) : 0;

  // Memory of the fullest stage (and the draft's, which lives beside it).
  // Offloaded weights keep two layers on the device: the one in use and
  // the next arriving.
  // The stage that holds the most.
  double Weights = fullestWeightBytes(P, StageParams);
  if (M.OffloadWeights) {
    auto [Narrow, Wide] = layerWeightFormats(M);
    double Layer = 0;
    for (const Block &B : P.Blocks)
      if (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer)
        Layer = std::max(Layer, (B.Params - B.WideParams) * Narrow +
                                    B.WideParams * Wide);
    Weights = std::min(Weights, 2 * Layer);
  }
  // A request's cache: its prompt once, shared by beam search's beams,
  // and each beam's generated tokens.
  double Beams = double(std::max<int64_t>(1, S.Beams));
  double KvPerSequence =
      S.Model.Encoder
          ? 0
          : (Prompt + Beams * Output) * kvBytesPerToken(P, MostLayers);
  if (Speculating) {
    const FullestStage Draft = fullestStage(*P.Draft);
    double DraftLayers = double(Draft.Layers);
    Weights += fullestWeightBytes(*P.Draft, StageParamCounter(*P.Draft));
    KvPerSequence +=
        (Prompt + Output + K) * kvBytesPerToken(*P.Draft, DraftLayers);
  }
  double Largest = 0;
  for (const Block &B : P.Blocks)
    for (const Op &O : B.Ops)
      if (O.Ph == Phase::Prefill && !O.fused() && !O.isCollective())
        Largest = std::max(Largest, O.BytesWritten);
  double ActPerSequence = 2 * Largest / std::max(1.0, Batch);
  // Pipelined, a stage holds one micro-batch (batch / pp of the requests)
  // at a time.
  double ActShare = pipelinesRequests(S) ? 1.0 / double(M.Pp) : 1.0;
  R.Memory.Capacity = A.HbmCapacity;
  R.Memory.Reserved = A.ReservedMemory;
  R.Memory.Weights = Weights;
  R.Memory.KVCache = Batch * KvPerSequence;
  // A pipelined stage holds one micro-batch's activations at a time.
  R.Memory.Activations =
      (Micro ? double(Micro->MicroBatch) : Batch) * ActPerSequence;
  double Free = A.HbmCapacity - R.Memory.Weights - R.Memory.Reserved;
  R.MaxBatch = Free > 0 ? int64_t(std::floor(
                              Free / (KvPerSequence + ActShare * ActPerSequence)))
                        : 0;

  checkSlos(R, S);
  sortByTime(R.Ops);
  return R;
}

void chargeServing(ServingReport &R, const ScenarioConfig &S,
                   const SystemConfig &Sys, double DynamicPerToken) {
  if (R.Throughput <= 0)
    return;
  // A token costs its replica's FLOPs and bytes, and all charged
  // devices' static power for 1 / throughput (a prefill pool's devices
  // among those used).
  RunCharge C =
      chargeRun(Sys, double(S.chargedDevices()), double(S.usedDevices()),
                1 / R.Throughput, DynamicPerToken);
  R.EnergyPerToken = C.EnergyPerUnit;
  R.TdpEnergyPerToken = C.TdpEnergyPerUnit;
  R.PowerPerDevice = C.PowerPerDevice;
  R.CostPerToken = C.CostPerUnit;
  R.CostAtTdp = C.CostAtTdp;
}

void checkSlos(ServingReport &R, const ScenarioConfig &S) {
  // What binds each limit; with traffic the limits apply to the 99th
  // percentiles of the requests served.
  R.Slo.clear();
  bool Traffic = R.Traffic.Simulated;
  double Ttft = Traffic ? R.Traffic.Ttft.P99 : R.Ttft;
  double Tpot = Traffic ? R.Traffic.Tpot.P99 : R.Tpot;
  double E2E = Traffic ? R.Traffic.E2E.P99 : R.E2E;
  double Output = double(S.OutputLen);
  auto Check = [&](const char *Name, double Limit, double Value, bool Lower,
                   const PhaseRoofline &Phase) {
    if (Limit <= 0)
      return;
    SloCheck C;
    C.Name = Name;
    C.Limit = Limit;
    C.Value = Value;
    C.Lower = Lower;
    C.Met = Lower ? Value >= Limit : Value <= Limit;
    C.Binding = Phase.bound();
    R.Slo.push_back(C);
  };
  Check("ttft", S.SloTtft, Ttft, false, R.Prefill);
  Check("tpot", S.SloTpot, Tpot, false, R.Decode);
  Check("e2e", S.SloE2E, E2E, false,
        R.Ttft > (Output - 1) * R.Tpot ? R.Prefill : R.Decode);
  Check("throughput", S.SloThroughput, R.Throughput, true, R.Decode);
}

double decodeStepTime(const Program &P, double Context,
                      const SystemConfig *Sys) {
  return phaseCost(P, Sys ? *Sys : P.Scenario.System, Phase::Decode, Context)
      .Time;
}

StepEnergy decodeStepEnergy(const Program &P, double Context,
                            const SystemConfig *Sys) {
  const SystemConfig &On = Sys ? *Sys : P.Scenario.System;
  StepEnergy E;
  if (On.Device.HbmEnergyPerByte <= 0 && On.Device.StaticPower <= 0)
    return E;
  DataTraffic T;
  for (const Block &B : P.Blocks) {
    double N = executions(B, P, nullptr);
    for (const Op &O : B.Ops)
      if (O.Ph == Phase::Decode)
        T.add(O, N, Context, On);
  }
  double Columns =
      double(P.Scenario.Mapping.Tp) * double(P.Scenario.Mapping.Cp);
  E.Data = T.energy(On) * Columns;
  double A = T.activityEnergy(On);
  E.Activity = A >= 0 ? A * Columns : -1;
  return E;
}

/// The activity of the ops that Keep selects, over a replica's tp x cp
/// columns (-1: an input missing).
template <typename KeepFn>
static double columnActivity(const Program &P, const SystemConfig &On,
                             Phase Ph, KeepFn Keep) {
  DataTraffic T;
  for (const Block &B : P.Blocks) {
    double N = executions(B, P, nullptr);
    for (const Op &O : B.Ops)
      if (O.Ph == Ph && Keep(O))
        T.add(O, N, 0, On);
  }
  double A = T.activityEnergy(On);
  return A < 0 ? -1
               : A * double(P.Scenario.Mapping.Tp) *
                     double(P.Scenario.Mapping.Cp);
}

double decodeHeadActivity(const Program &P, const SystemConfig *Sys) {
  return columnActivity(
      P, Sys ? *Sys : P.Scenario.System, Phase::Decode, [](const Op &O) {
        return O.Kind == OpKind::LmHead || O.Kind == OpKind::TpAllgatherLogits;
      });
}

double prefillAttentionActivity(const Program &P, const SystemConfig *Sys) {
  return columnActivity(P, Sys ? *Sys : P.Scenario.System, Phase::Prefill,
                        [](const Op &O) {
                          return !O.isCollective() &&
                                 (isAttentionProduct(O) ||
                                  O.Kind == OpKind::AttnSoftmax);
                        });
}

double decodeHeadTime(const Program &P, const SystemConfig *Sys) {
  // On the device decodeStepTime's step sees.
  bool OnChip = false;
  const SystemConfig &On = Sys ? *Sys : P.Scenario.System;
  AcceleratorConfig A =
      stepDevice(P, On, Phase::Decode, 0, 1, nullptr, OnChip);
  double T = 0;
  for (const Block &B : P.Blocks) {
    double N = executions(B, P, nullptr);
    for (const Op &O : B.Ops) {
      if (O.Ph != Phase::Decode || O.fused())
        continue;
      if (O.Kind == OpKind::LmHead)
        T += N * mappedOpTime(O, A, P.Scenario.Mapping).Time;
      else if (O.Kind == OpKind::TpAllgatherLogits) // the head's rows
        T += N * servingCollectiveTime(O, On, P.Scenario.Mapping).Time;
    }
  }
  return T;
}

AttentionParts prefillAttentionTime(const Program &P,
                                    const SystemConfig *Sys) {
  const AcceleratorConfig &A = (Sys ? *Sys : P.Scenario.System).Device;
  AttentionParts T;
  for (const Block &B : P.Blocks) {
    double N = executions(B, P, nullptr);
    for (const Op &O : B.Ops)
      if (O.Ph == Phase::Prefill && !O.fused() && !O.isCollective() &&
          (isAttentionProduct(O) || O.Kind == OpKind::AttnSoftmax)) {
        OpTime Cost = mappedOpTime(O, A, P.Scenario.Mapping);
        // The per-block cost, where the compute binds (it is part of it).
        double Linear = Cost.MemoryBound ? 0 : Cost.BlockOverhead;
        T.Quadratic += N * (Cost.Time - Linear);
        T.Linear += N * Linear;
      }
  }
  return T;
}

double kvCacheBytesPerTokenOfModel(const Program &P) {
  const ModelConfig &Mo = P.Scenario.Model;
  if (Mo.Encoder)
    return 0;
  return kvElementsPerTokenPerLayer(Mo) * double(Mo.Layers) *
         dtypeBytes(P.Scenario.Mapping.KVCache);
}

double kvCacheBytesPerToken(const Program &P) {
  if (P.Scenario.Model.Encoder)
    return 0;
  return kvBytesPerToken(P, double(fullestStage(P).Layers));
}

void setDecodeCrossover(ServingReport &R, const Program &AtBatch1,
                        const Program &AtBatch2) {
  // Decode FLOPs and bytes are linear in the batch: find where the
  // intensity reaches the accelerator's balance point (peak / bandwidth).
  const ScenarioConfig &S = AtBatch1.Scenario;
  const AcceleratorConfig &A = S.System.Device;
  double Ctx = double(AtBatch1.SeqLen) + 1;
  PhaseRoofline One = phaseCost(AtBatch1, S.System, Phase::Decode, Ctx);
  PhaseRoofline Two = phaseCost(AtBatch2, S.System, Phase::Decode, Ctx);
  double F1 = Two.Flops - One.Flops, F0 = One.Flops - F1;
  double B1 = Two.Bytes - One.Bytes, B0 = One.Bytes - B1;
  DType Act = S.Mapping.Activations;
  AcceleratorConfig::Rate Rt = A.rate(Act);
  double Balance = Rt.Peak * A.ComputeEfficiency * Rt.FormatEfficiency *
                   A.Sustained /
                   (A.HbmBandwidth * A.MemoryEfficiency);
  double Denominator = F1 - Balance * B1;
  if (Denominator <= 0)
    return; // never compute-bound: attention over the cache keeps pace
  R.DecodeCrossoverBatch = std::max(1.0, (Balance * B0 - F0) / Denominator);
  // Pipelined, a device decodes micro-batches of batch / pp requests.
  if (pipelinesRequests(S))
    R.DecodeCrossoverBatch *= double(S.Mapping.Pp);
}

} // namespace cost
} // namespace llmsys
