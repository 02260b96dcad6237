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
// sum of the stages plus the sends between them.
//
// TTFT is the prefill; TPOT the mean decode step over the generation
// (Simpson's rule over the context, which the step time follows piecewise
// linearly); e2e = TTFT + (output - 1) TPOT; throughput = replicas x batch
// x output / e2e.
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
#include <map>

namespace llmsys {
namespace cost {

using namespace ir;

const char *PhaseRoofline::bound() const {
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

/// A phase's time and roofline terms over the whole model at a context.
PhaseRoofline phaseCost(const Program &P, Phase Ph, double Context,
                        OpTables *Tables = nullptr) {
  PhaseRoofline R;
  const ScenarioConfig &S = P.Scenario;
  const AcceleratorConfig &A = S.System.Device;
  for (const Block &B : P.Blocks) {
    double N = B.Kind == BlockKind::PipelineComm
                   ? double(std::max<int64_t>(0, S.Mapping.Pp - 1))
                   : double(B.Repeat);
    if (N == 0)
      continue;
    for (const Op &O : B.Ops) {
      if (O.Ph != Ph)
        continue;
      if (O.isCollective()) {
        CollectiveTime C = collectiveTime(O, S.System);
        R.CommTime += N * C.Time;
        R.Time += N * C.Time;
        if (Tables)
          Tables->addCollective(O, C, N).Exposed += N * C.Time;
        continue;
      }
      if (O.Fused)
        continue;
      double Ctx = P.ContextCap ? std::min<double>(Context, P.ContextCap)
                                : Context;
      OpTime T = opTime(O, A, Ctx);
      double Flops = O.Flops + O.FlopsPerContext * Ctx;
      double Bytes = O.BytesRead + O.BytesWritten + O.BytesPerContext * Ctx;
      R.Flops += N * Flops;
      R.Bytes += N * Bytes;
      R.Time += N * T.Time;
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

/// One transformer layer of a phase (the first layer block), with its
/// collectives.
double layerTime(const Program &P, Phase Ph, double Context) {
  Program One;
  One.Scenario = P.Scenario;
  One.ContextCap = P.ContextCap;
  for (const Block &B : P.Blocks)
    if (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer) {
      Block L = B;
      L.Repeat = 1;
      One.Blocks.push_back(L);
      break;
    }
  return phaseCost(One, Ph, Context).Time;
}

double decodeSteps(const Program &P, double From, double To,
                   double &First, double &Last) {
  First = phaseCost(P, Phase::Decode, From).Time;
  Last = phaseCost(P, Phase::Decode, To).Time;
  double Mid = phaseCost(P, Phase::Decode, (From + To) / 2).Time;
  return (First + 4 * Mid + Last) / 6;
}

} // namespace

ServingReport costServing(const Program &P) {
  ServingReport R;
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  const AcceleratorConfig &A = S.System.Device;
  R.Scenario = S.Name;
  R.DevicesPerReplica = M.Tp * M.Pp * M.Cp;
  R.Replicas = M.Dp;
  double Batch = double(P.MicroBatch);
  double Prompt = double(P.SeqLen);
  double Output = double(S.OutputLen);

  OpTables Tables(R.Ops, R.Collectives);
  R.Prefill = phaseCost(P, Phase::Prefill, 0, &Tables);
  R.Ttft = R.Prefill.Time;
  double FirstCtx = Prompt + 1, LastCtx = Prompt + std::max(1.0, Output - 1);
  if (Output > 1) {
    R.Tpot = decodeSteps(P, FirstCtx, LastCtx, R.TpotFirst, R.TpotLast);
    R.Decode = phaseCost(P, Phase::Decode, (FirstCtx + LastCtx) / 2, &Tables);
  }
  R.E2E = R.Ttft + std::max(0.0, Output - 1) * R.Tpot;
  R.Throughput = R.E2E > 0 ? R.Replicas * Batch * Output / R.E2E : 0;
  R.ThroughputPerDevice =
      R.Throughput / double(R.Replicas * R.DevicesPerReplica);
  if (R.ThroughputPerDevice > 0) {
    R.EnergyPerToken = S.System.wallPower() / R.ThroughputPerDevice;
    R.CostPerToken = S.System.costRate() / R.ThroughputPerDevice;
  }
  R.PrefillLayerTime = layerTime(P, Phase::Prefill, 0);
  R.DecodeLayerTime = Output > 1 ? layerTime(P, Phase::Decode, LastCtx) : 0;

  // Memory of the fullest stage.
  const ModelConfig &Mo = S.Model;
  double MostParams = 0, MostLayers = 0;
  for (const Stage &St : P.Stages) {
    double Params = P.stageParams(St);
    if (Params > MostParams) {
      MostParams = Params;
      MostLayers = double(St.DenseLayers + St.MoELayers);
    }
  }
  double KvSplit = Mo.Mla ? 1.0 : double(std::min<int64_t>(M.Tp, Mo.KvHeads));
  double KvPerSequence = (Prompt + Output) * kvElementsPerTokenPerLayer(Mo) *
                         MostLayers * dtypeBytes(M.KVCache) / KvSplit;
  double Largest = 0;
  for (const Block &B : P.Blocks)
    for (const Op &O : B.Ops)
      if (O.Ph == Phase::Prefill && !O.Fused && !O.isCollective())
        Largest = std::max(Largest, O.BytesWritten);
  double ActPerSequence = 2 * Largest / std::max(1.0, Batch);
  R.Memory.Capacity = A.HbmCapacity;
  R.Memory.Reserved = A.ReservedMemory;
  R.Memory.Weights = MostParams * dtypeBytes(M.Weights);
  R.Memory.KVCache = Batch * KvPerSequence;
  R.Memory.Activations = Batch * ActPerSequence;
  double Free = A.HbmCapacity - R.Memory.Weights - R.Memory.Reserved;
  R.MaxBatch = Free > 0 ? int64_t(std::floor(Free / (KvPerSequence + ActPerSequence)))
                        : 0;

  // Service-level objectives and what binds each.
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
  Check("ttft", S.SloTtft, R.Ttft, false, R.Prefill);
  Check("tpot", S.SloTpot, R.Tpot, false, R.Decode);
  Check("e2e", S.SloE2E, R.E2E, false,
        R.Ttft > (Output - 1) * R.Tpot ? R.Prefill : R.Decode);
  Check("throughput", S.SloThroughput, R.Throughput, true, R.Decode);
  sortByTime(R.Ops);
  return R;
}

void setDecodeCrossover(ServingReport &R, const Program &AtBatch1,
                        const Program &AtBatch2) {
  // Decode FLOPs and bytes are linear in the batch: find where the
  // intensity reaches the accelerator's balance point (peak / bandwidth).
  const ScenarioConfig &S = AtBatch1.Scenario;
  const AcceleratorConfig &A = S.System.Device;
  double Ctx = double(AtBatch1.SeqLen) + 1;
  PhaseRoofline One = phaseCost(AtBatch1, Phase::Decode, Ctx);
  PhaseRoofline Two = phaseCost(AtBatch2, Phase::Decode, Ctx);
  double F1 = Two.Flops - One.Flops, F0 = One.Flops - F1;
  double B1 = Two.Bytes - One.Bytes, B0 = One.Bytes - B1;
  DType Act = S.Mapping.Activations;
  double Balance = A.peak(Act) * A.ComputeEfficiency *
                   A.formatEfficiency(Act) * A.Sustained /
                   (A.HbmBandwidth * A.MemoryEfficiency);
  double Denominator = F1 - Balance * B1;
  if (Denominator <= 0)
    return; // never compute-bound: attention over the cache keeps pace
  R.DecodeCrossoverBatch = std::max(1.0, (Balance * B0 - F0) / Denominator);
}

} // namespace cost
} // namespace llmsys
