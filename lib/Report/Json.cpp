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

static Array recomputeModules(const MappingConfig &M) {
  Array Out;
  for (RecomputeModule R : M.recomputedModules())
    Out.push_back(enumWord(R));
  return Out;
}

static Object inputs(const Program &P) {
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  return Object{
      {"model", S.Model.Name},
      {"system", S.System.Name},
      {"accelerator", S.System.Accelerator},
      {"parameters", countParams(S.Model).Total},
      {"active_parameters", countParams(S.Model).Active},
      {"mtp_parameters", countParams(S.Model).Mtp},
      {"beams", S.Beams},
      {"devices", S.System.devices()},
      {"devices_used", S.usedDevices()},
      {"idle_devices", std::max<int64_t>(0, S.System.devices() - S.usedDevices())},
      {"charge_idle", S.ChargeIdle},
      {"dp", M.Dp}, {"tp", M.Tp}, {"pp", M.Pp}, {"cp", M.Cp}, {"ep", M.Ep},
      {"sp", M.SequenceParallel},
      {"micro_batch", P.MicroBatch},
      {"seq_len", P.SeqLen},
      {"recompute", recomputeName(M.Recomp)},
      {"recompute_modules", recomputeModules(M)},
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
      {"optimizer", S.Training ? enumWord(S.Optimizer) : "none"},
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

/// The figures of a scenario kind (Figures.def) under their keys; a figure
/// the result lacks is null.
template <typename ReportT>
static void addFigures(Object &O, bool Training, const ReportT &R) {
  for (const ir::FigureInfo &F : ir::figures()) {
    if (F.Training != Training)
      continue;
    std::optional<double> V = cost::figureValue(R, F.Id);
    if (!V)
      O[F.Key] = nullptr;
    else if (F.Type == ir::FigureType::Bool)
      O[F.Key] = *V != 0;
    else if (F.Type == ir::FigureType::Count)
      O[F.Key] = int64_t(*V);
    else
      O[F.Key] = *V;
  }
}

/// Transformer layers on each pipeline stage.
static Array stageLayers(const Program &P) {
  Array Out;
  for (const ir::Stage &St : P.Stages)
    Out.push_back(St.DenseLayers + St.MoELayers);
  return Out;
}

Value trainingJson(const Program &P, const cost::TrainingReport &R) {
  Object Breakdown{{"compute_bound_s", R.ComputeBound},
                   {"memory_bound_s", R.MemoryBoundTime},
                   {"bubble_s", R.Bubble},
                   {"optimizer_s", R.Optimizer}};
  for (int K = 0; K < cost::NumCommKinds; ++K)
    Breakdown[std::string(cost::commKindName(static_cast<cost::CommKind>(K))) +
              "_comm_exposed_s"] = R.ExposedComm[K];
  const cost::MemoryBreakdown &M = R.Memory;
  Object O{
      {"name", P.Scenario.Name},
      {"kind", "train"},
      {"inputs", inputs(P)},
      {"micro_batches", R.MicroBatches},
      {"tokens_per_step", R.TokensPerStep},
      {"device_hours", R.DeviceHours},
      {"breakdown", std::move(Breakdown)},
      {"pipeline", Object{{"slowest_stage", R.SlowestStage},
                          {"stage_layers", stageLayers(P)},
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
      {"operators", operators(R.Ops)},
      {"collectives", collectives(R.Collectives)},
  };
  addFigures(O, /*Training=*/true, R);
  return O;
}

static Object roofline(const cost::PhaseRoofline &R) {
  return Object{{"flops", R.Flops},
                {"bytes", R.Bytes},
                {"time_s", R.Time},
                {"intensity_flops_per_byte", R.intensity()},
                {"bound", R.bound()},
                {"achieved_compute_fraction", R.AchievedFlops},
                {"achieved_bandwidth_fraction", R.AchievedBandwidth},
                {"on_chip", R.OnChip}};
}

/// In-flight batching's run (null without `traffic`); the latency
/// percentiles are figures.
static Value trafficJson(const ScenarioConfig &S, const cost::TrafficReport &T) {
  if (!T.Simulated)
    return nullptr;
  const TrafficConfig &C = S.Traffic;
  return Object{{"requests", T.Requests},
                {"arrival", arrivalName(C.Arrival)},
                {"max_batch", C.MaxBatch},
                {"max_tokens", C.MaxTokens},
                {"steps", T.Steps},
                {"lengths", C.Trace ? "trace"
                            : C.PromptStdev > 0 || C.OutputStdev > 0
                                ? lengthsName(C.Lengths)
                                : "fixed"},
                {"mean_prompt_tokens", T.MeanPrompt},
                {"mean_output_tokens", T.MeanOutput},
                {"duration_s", T.Duration},
                {"host_time_s", T.HostTime},
                {"peak_batch", T.PeakBatch},
                {"kv_cache_tokens", T.KvTokens},
                {"peak_kv_cache_tokens", T.PeakKvTokens},
                {"kv_block_tokens", C.KvBlock},
                {"admission", C.OnDemand ? "on_demand" : "reserve"},
                {"preemptions", T.Preemptions},
                {"prefill_engines", T.PrefillEngines},
                {"kv_transfer_mean_s", T.MeanKvTransfer},
                {"ttft_mean_s", T.Ttft.Mean},
                {"tpot_mean_s", T.Tpot.Mean},
                {"e2e_mean_s", T.E2E.Mean}};
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
  Object O{
      {"name", P.Scenario.Name},
      {"kind", "serve"},
      {"inputs", inputs(P)},
      {"output_tokens", P.Scenario.OutputLen},
      {"micro_batches", R.MicroBatches},
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
      {"traffic", trafficJson(P.Scenario, R.Traffic)},
      {"slo", std::move(Slo)},
      {"operators", operators(R.Ops)},
      {"collectives", collectives(R.Collectives)},
  };
  addFigures(O, /*Training=*/false, R);
  return O;
}

} // namespace report
} // namespace llmsys
