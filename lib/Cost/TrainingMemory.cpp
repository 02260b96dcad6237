//===- TrainingMemory.cpp - memory per device in training ----------------------===//
//
// Per stage (the report keeps the stage that needs the most):
//   weights     parameters on the device x the weights' bytes (/dp with
//               ZeRO-3)
//   gradients   in the mapping's `gradients` format (fp32 main gradients
//               by default, Megatron-LM), /dp with ZeRO-2 and above
//   optimizer   Adam's fp32 master weights, first and second moments: 12
//               bytes a parameter (Rajbhandari et al. 2020 §3.1, K = 12;
//               SGD with momentum: 8),
//               /dp with ZeRO-1 and above or the distributed optimizer
//   activations what each layer keeps for backward (after `recompute` and
//               `partition`: Korthikanti et al. 2022) times the layers of
//               the stage and the micro-batches in flight on it (1F1B: p - s
//               on stage s, at most m; interleaving: x (1 + (p-1)/(p v))),
//               plus the embedding (first stage) and the logits (last)
//   quantized weights  the weight copies a low-precision recipe caches
//               (the `quantize` pass sizes them per block)
//   reserved    the accelerator's reserved_memory (runtime, workspaces)
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include <algorithm>

namespace llmsys {
namespace cost {

using namespace ir;

const char *
largestPart(std::initializer_list<std::pair<const char *, double>> Parts) {
  const std::pair<const char *, double> *Most = Parts.begin();
  for (const auto &P : Parts)
    if (P.second > Most->second)
      Most = &P;
  return Most->first;
}

const char *MemoryBreakdown::largest() const {
  return largestPart({{"weights", Weights},
                      {"quantized weights", QuantizedWeights},
                      {"gradients", Gradients},
                      {"optimizer state", Optimizer},
                      {"activations", Activations},
                      {"reserved", Reserved}});
}

static double savedPerRepeat(const Block *B) {
  double Saved = 0;
  if (B)
    for (const Op &O : B->Ops)
      Saved += O.SavedBytes;
  return Saved;
}

MemoryBreakdown trainingMemory(const Program &P) {
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  const AcceleratorConfig &A = S.System.Device;
  const Block *Emb = P.block(BlockKind::Embedding);
  const Block *Dense = P.block(BlockKind::DenseLayer);
  const Block *Moe = P.block(BlockKind::MoELayer);
  const Block *Head = P.block(BlockKind::Head);
  // ZeRO and the distributed optimizer shard over every device holding
  // the same weights (data and context parallelism); a MoE layer's routed
  // experts over the devices holding the same experts (MoE parallel
  // folding: the expert-data-parallel group).
  double D = static_cast<double>(M.weightReplicas());
  double Ed = static_cast<double>(M.expertReplicas());
  int64_t Pp = static_cast<int64_t>(P.Stages.size());

  // What one repeat of each block keeps for backward (the same on every
  // stage).
  const double SavedDense = savedPerRepeat(Dense), SavedMoe = savedPerRepeat(Moe),
               SavedEmb = savedPerRepeat(Emb), SavedHead = savedPerRepeat(Head);

  StageParamCounter StageParams(P);

  MemoryBreakdown Best;
  for (int64_t I = 0; I < Pp; ++I) {
    const Stage &St = P.Stages[I];
    // Micro-batches in flight never grow from one stage to the next, so a
    // stage holding what the one before it holds needs no more memory.
    if (St.RepeatsPrevious)
      continue;
    double LayerParams = StageParams(St, /*LayersOnly=*/true);
    double Params = StageParams(St);
    double Experts = StageParams.experts(St);
    // Of `Of` parameters (Experts of them the routed experts'), those a
    // device keeps when its groups shard them (Held: of the stage's).
    auto HeldOf = [&](bool Sharded, double Of) {
      if (!Sharded)
        return Of;
      return Ed == D ? Of / D : (Of - Experts) / D + Experts / Ed;
    };
    auto Held = [&](bool Sharded) { return HeldOf(Sharded, Params); };
    // Fine-tuning: only the adapters have gradients and optimizer state
    // (sharded over the data-parallel group); the frozen weights take the
    // mapping's format, or QLoRA's 4-bit one.
    double Trained = StageParams.trainable(St);
    auto HeldTrained = [&](bool Sharded) {
      if (!StageParams.Frozen)
        return Held(Sharded);
      return Sharded ? Trained / D : Trained;
    };
    MemoryBreakdown B;
    B.Stage = static_cast<int>(I);
    B.Capacity = A.HbmCapacity;
    B.Reserved = A.ReservedMemory;
    double Base = S.Finetune.baseBytes();
    if (StageParams.Frozen && Base > 0) {
      // QLoRA quantizes the layers' linear weights; the embedding, the
      // head and the adapters stay in the weights' format (the adapters
      // are the layers' only trained parameters).
      double Share = Held(M.Zero >= 3) / std::max(Params, 1.0);
      B.Weights = Share * ((LayerParams - Trained) * Base +
                           (Params - LayerParams + Trained) *
                               dtypeBytes(M.Weights));
    } else {
      B.Weights = Held(M.Zero >= 3) * dtypeBytes(M.Weights);
    }
    double Narrow = 0; // weight elements kept only quantized
    for (const Block &Blk : P.Blocks) {
      B.QuantizedWeights += double(St.holds(Blk.Kind)) * Blk.QuantizedWeightBytes;
      Narrow += double(St.holds(Blk.Kind)) * Blk.NarrowWeights;
    }
    B.Weights = std::max(0.0, B.Weights - Narrow * dtypeBytes(M.Weights));
    B.Gradients = HeldTrained(M.Zero >= 2) * dtypeBytes(M.Gradients);
    // Offloaded, the optimizer state lives in host memory.
    const bool ShardedState = M.Zero >= 1 || M.DistributedOptimizer;
    B.Optimizer = M.OffloadOptimizer
                      ? 0
                      : HeldTrained(ShardedState) *
                            P.Scenario.optimizerStateBytes();
    if (P.Scenario.muon() && !M.OffloadOptimizer) {
      // Muon's matrices (the layers) keep its 8 bytes, not Adam's 12.
      B.Optimizer -= HeldOf(ShardedState, LayerParams) *
                     (P.Scenario.optimizerStateBytes() -
                      ScenarioConfig::MuonStateBytes);
    }
    // Micro-batches in flight on stage I (the schedule pass).
    double InFlight = St.InFlight;
    double PerMicroBatch = St.DenseLayers * SavedDense +
                           St.MoELayers * SavedMoe +
                           (St.HasEmbedding ? SavedEmb : 0) +
                           (St.HasHead ? SavedHead : 0);
    B.Activations = PerMicroBatch * InFlight;
    B.LayerActivations =
        (St.DenseLayers * SavedDense + St.MoELayers * SavedMoe) * InFlight;
    if (M.OffloadActivations && (St.DenseLayers + St.MoELayers) > 0) {
      // The offloaded layers' saved tensors live in host memory; the
      // device holds two layers' of them (the one computing and the one in
      // transfer) beside what the layers offload_layers leaves keep.
      OffloadedLayers Off = offloadedLayers(St, M);
      double Layer = std::max(Off.Dense ? SavedDense : 0.0,
                              Off.Moe ? SavedMoe : 0.0);
      B.Activations -= B.LayerActivations;
      B.LayerActivations =
          (M.OffloadLayers > 0 ? double(std::min<int64_t>(2, Off.total()))
                               : 2) *
              Layer +
          (double(St.DenseLayers - Off.Dense) * SavedDense +
           double(St.MoELayers - Off.Moe) * SavedMoe) *
              InFlight;
      B.Activations += B.LayerActivations;
    }
    B.InFlight = InFlight;
    B.LayerStateShare = Params > 0 ? LayerParams / Params : 1;
    if (I == 0 || B.total() > Best.total())
      Best = B;
  }
  return Best;
}

} // namespace cost
} // namespace llmsys
