//===- Json.cpp - the JSON report -------------------------------------------===//
//
// One document {"scenarios": [...]}; every figure in base SI units with the
// unit in its name (docs/report-format.md is the contract).
//
//===----------------------------------------------------------------------===//

#include "Report/Report.h"

#include "llvm/Support/JSON.h"

namespace llmsys {
namespace report {

using namespace ir;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

static Object inputs(const Program &P) {
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  return Object{
      {"model", S.Model.Name},
      {"system", S.System.Name},
      {"accelerator", S.System.Accelerator},
      {"devices", S.System.devices()},
      {"dp", M.Dp}, {"tp", M.Tp}, {"pp", M.Pp}, {"cp", M.Cp}, {"ep", M.Ep},
      {"sp", M.SequenceParallel},
      {"micro_batch", P.MicroBatch},
      {"seq_len", P.SeqLen},
      {"recompute", recomputeName(M.Recomp)},
      {"schedule", scheduleName(M.Schedule)},
      {"virtual_stages", M.VirtualStages},
      {"precision", dtypeName(M.Precision)},
      {"weights", dtypeName(M.Weights)},
      {"activations", dtypeName(M.Activations)},
      {"kv_cache", dtypeName(M.KVCache)},
      {"gradients", dtypeName(M.Gradients)},
      {"offload", M.OffloadWeights     ? "weights"
                  : M.OffloadOptimizer ? "optimizer"
                                       : "none"},
      {"tp_overlap", M.TpOverlap},
      {"tp_grad_overlap", M.TpGradOverlap},
      {"dp_overlap", M.DpOverlap},
      {"grad_accumulation_fusion", M.GradAccumulationFusion},
      {"optimizer", S.Training ? (S.Sgd ? "sgd" : "adam") : "none"},
  };
}

static Array operators(const std::vector<cost::OpRow> &Ops) {
  Array Out;
  for (const cost::OpRow &O : Ops)
    Out.push_back(Object{{"name", O.Name},
                         {"phase", phaseName(O.Ph)},
                         {"category", categoryName(O.Category)},
                         {"count", O.Count},
                         {"flops", O.Flops},
                         {"bytes", O.Bytes},
                         {"intensity_flops_per_byte", O.intensity()},
                         {"bound", O.MemoryBound ? "memory" : "compute"},
                         {"time_s", O.Time}});
  return Out;
}

static Array collectives(const std::vector<cost::CollectiveRow> &Cs) {
  Array Out;
  for (const cost::CollectiveRow &C : Cs)
    Out.push_back(Object{{"name", C.Name},
                         {"phase", phaseName(C.Ph)},
                         {"kind", collectiveName(C.Kind)},
                         {"group", parallelDimName(C.Group)},
                         {"group_size", C.GroupSize},
                         {"fabric_level", C.FabricLevel},
                         {"count", C.Count},
                         {"bytes", C.Bytes},
                         {"algorithm", C.Algorithm},
                         {"time_s", C.Time},
                         {"exposed_s", C.Exposed}});
  return Out;
}

Value trainingJson(const Program &P, const cost::TrainingReport &R) {
  Object Breakdown{{"compute_bound_s", R.ComputeBound},
                   {"memory_bound_s", R.MemoryBoundTime},
                   {"bubble_s", R.Bubble},
                   {"optimizer_s", R.Optimizer}};
  for (int K = 0; K < 5; ++K)
    Breakdown[std::string(cost::commKindName(static_cast<cost::CommKind>(K))) +
              "_comm_exposed_s"] = R.ExposedComm[K];
  const cost::MemoryBreakdown &M = R.Memory;
  return Object{
      {"name", P.Scenario.Name},
      {"kind", "train"},
      {"inputs", inputs(P)},
      {"step_time_s", R.StepTime},
      {"micro_batches", R.MicroBatches},
      {"tokens_per_step", R.TokensPerStep},
      {"tokens_per_s", R.TokensPerSecond},
      {"tokens_per_s_per_device", R.TokensPerSecond / R.Devices},
      {"mfu", R.Mfu},
      {"hfu", R.Hfu},
      {"model_flops_per_s_per_device", R.ModelFlopsRate},
      {"hardware_flops_per_s_per_device", R.HardwareFlopsRate},
      {"time_to_train_s", R.TimeToTrain},
      {"device_hours", R.DeviceHours},
      {"energy_j", R.Energy},
      {"energy_per_token_j", R.EnergyPerToken},
      {"cost_usd", R.Cost},
      {"cost_per_million_tokens_usd", R.CostPerToken * 1e6},
      {"breakdown", std::move(Breakdown)},
      {"pipeline", Object{{"slowest_stage", R.SlowestStage},
                          {"stage_times_s", Array(R.StageTimes)}}},
      {"memory", Object{{"weights_bytes", M.Weights},
                        {"quantized_weights_bytes", M.QuantizedWeights},
                        {"gradients_bytes", M.Gradients},
                        {"optimizer_bytes", M.Optimizer},
                        {"activations_bytes", M.Activations},
                        {"embedding_logits_bytes", M.embeddingAndLogits()},
                        {"in_flight_micro_batches", M.InFlight},
                        {"reserved_bytes", M.Reserved},
                        {"capacity_bytes", M.Capacity},
                        {"stage", M.Stage},
                        {"largest", M.largest()}}},
      {"peak_memory_bytes", M.total()},
      {"fits", M.fits()},
      {"operators", operators(R.Ops)},
      {"collectives", collectives(R.Collectives)},
  };
}

static Object roofline(const cost::PhaseRoofline &R) {
  return Object{{"flops", R.Flops},
                {"bytes", R.Bytes},
                {"time_s", R.Time},
                {"intensity_flops_per_byte", R.intensity()},
                {"bound", R.bound()},
                {"achieved_compute_fraction", R.AchievedFlops},
                {"achieved_bandwidth_fraction", R.AchievedBandwidth}};
}

Value servingJson(const Program &P, const cost::ServingReport &R) {
  Array Slo;
  for (const cost::SloCheck &C : R.Slo)
    Slo.push_back(Object{{"name", C.Name},
                         {"limit", C.Limit},
                         {"value", C.Value},
                         {"lower_limit", C.Lower},
                         {"met", C.Met},
                         {"binding", C.Binding}});
  const cost::ServingMemory &M = R.Memory;
  return Object{
      {"name", P.Scenario.Name},
      {"kind", "serve"},
      {"inputs", inputs(P)},
      {"output_tokens", P.Scenario.OutputLen},
      {"micro_batches", R.MicroBatches},
      {"ttft_s", R.Ttft},
      {"tpot_s", R.Tpot},
      {"e2e_s", R.E2E},
      {"throughput_tokens_per_s", R.Throughput},
      {"throughput_tokens_per_s_per_device", R.ThroughputPerDevice},
      {"prefill_layer_time_s", R.PrefillLayerTime},
      {"decode_layer_time_s", R.DecodeLayerTime},
      {"prefill", roofline(R.Prefill)},
      {"decode", roofline(R.Decode)},
      {"decode_crossover_batch", R.DecodeCrossoverBatch},
      {"speculative",
       R.Speculation.TokensPerStep > 0
           ? llvm::json::Value(Object{
                 {"draft", P.Scenario.Speculative.Draft.Name},
                 {"k", P.Scenario.Speculative.K},
                 {"acceptance", P.Scenario.Speculative.Acceptance},
                 {"tokens_per_step", R.Speculation.TokensPerStep},
                 {"draft_step_s", R.Speculation.DraftStep},
                 {"verify_step_s", R.Speculation.VerifyStep}})
           : llvm::json::Value(nullptr)},
      {"memory", Object{{"weights_bytes", M.Weights},
                        {"kv_cache_bytes", M.KVCache},
                        {"activations_bytes", M.Activations},
                        {"reserved_bytes", M.Reserved},
                        {"capacity_bytes", M.Capacity},
                        {"largest", M.largest()}}},
      {"peak_memory_bytes", M.total()},
      {"fits", M.fits()},
      {"max_batch", R.MaxBatch},
      {"energy_per_token_j", R.EnergyPerToken},
      {"cost_per_million_tokens_usd", R.CostPerToken * 1e6},
      {"slo", std::move(Slo)},
      {"operators", operators(R.Ops)},
      {"collectives", collectives(R.Collectives)},
  };
}

} // namespace report
} // namespace llmsys
