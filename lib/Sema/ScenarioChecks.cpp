//===- ScenarioChecks.cpp - checks of a built scenario
//-----------------------===//

#include "Sema/ScenarioChecks.h"
#include "Sema/Trace.h"

#include "IR/Scenario.h"

#include "llvm/Support/SourceMgr.h"
#include <optional>
#include <string>
#include <tuple>

using namespace llvm;

namespace llmsys {
namespace sema {

using spec::Object;

void checkServeLengths(const Object &Serve, SMRange Name,
                       DiagnosticEngine &Diags) {
  // A serve scenario takes its prompt and output from its workload when it
  // does not write them; a trace gives each request's lengths.
  const Object *W = spec::objectOf(Serve.ifSet(ServeField::Workload));
  std::vector<std::string> Missing;
  bool Trace = Serve.ifSet(ServeField::Traffic, TrafficField::Trace);
  for (auto [Own, OfWorkload, What] :
       {std::tuple{ServeField::Prompt, WorkloadField::Prompt, "prompt"},
        std::tuple{ServeField::Output, WorkloadField::Output, "output"}})
    if (!Trace && !Serve.ifSet(Own) && !(W && W->ifSet(OfWorkload)))
      Missing.push_back(std::string("'") + What + "'");
  if (!Missing.empty())
    Diags.report<DiagID::err_incomplete_entity>(
        Name, "serve", Serve.Name, Missing.size() == 1 ? "" : "s",
        Missing.size() == 1 ? Missing[0] : Missing[0] + ", " + Missing[1]);
}

void checkContextLength(const Object &Sc, SMRange Name,
                        DiagnosticEngine &Diags) {
  bool Train = Sc.Type->Id == StructID::Train;
  const Object *Model = spec::objectOf(Train ? Sc.ifSet(TrainField::Model)
                                             : Sc.ifSet(ServeField::Model));
  std::optional<double> MaxSeq =
      Model ? spec::numberOf(Model->ifSet(ModelField::MaxSeq)) : std::nullopt;
  if (!MaxSeq)
    return;
  // A serve scenario's own lengths, else its workload's.
  const Object *W =
      Train ? nullptr : spec::objectOf(Sc.ifSet(ServeField::Workload));
  auto Get = [&](ServeField Own, WorkloadField OfWorkload) -> double {
    if (std::optional<double> V = spec::numberOf(Sc.ifSet(Own)))
      return *V;
    return W ? spec::numberOf(W->ifSet(OfWorkload), 0) : 0;
  };
  // An encoder reads its input and generates nothing: its context is
  // the prompt. A decoder attends over the prompt and every generated
  // token but the last (which is returned, never read back).
  bool Encoder = spec::wordOf(Model->ifSet(ModelField::Kind)) ==
                 ir::enumWord(ir::ModelKind::Encoder);
  double Context;
  if (Train) {
    Context = spec::numberOf(Sc.ifSet(TrainField::SeqLen), 0);
  } else {
    double Prompt = Get(ServeField::Prompt, WorkloadField::Prompt) +
                    spec::numberOf(Sc.ifSet(ServeField::Retrieved), 0);
    Context = Encoder
                  ? Prompt
                  : Prompt + Get(ServeField::Output, WorkloadField::Output) - 1;
  }
  if (Context > *MaxSeq)
    Diags.report<DiagID::warn_context_exceeds_model>(
        Name,
        Train     ? "seq_len"
        : Encoder ? "prompt"
                  : "a context (prompt + output - 1)",
        spec::formatNumber(Context), Model->Name, spec::formatNumber(*MaxSeq));
}

void checkIdleDevices(const Object &Serve, DiagnosticEngine &Diags) {
  if (Serve.ifSet(ServeField::Devices))
    return;
  const spec::Field *MapUse = Serve.ifSet(ServeField::Mapping);
  const Object *Map = spec::objectOf(MapUse);
  const Object *Sys = spec::objectOf(Serve.ifSet(ServeField::System));
  if (!Map || !Sys)
    return;
  auto DevicesOf = [](const Object &M) {
    double N = 1;
    for (MappingField F : {MappingField::Dp, MappingField::Tp, MappingField::Pp,
                           MappingField::Cp})
      N *= spec::numberOf(M.ifSet(F), 1);
    return N;
  };
  double Used = DevicesOf(*Map);
  // Disaggregated serving: the prefill pool's devices too.
  if (const Object *Pool = spec::objectOf(
          Serve.ifSet(ServeField::Traffic, TrafficField::Prefill)))
    Used += DevicesOf(*Pool);
  double Have =
      spec::numberOf(Sys->ifSet(SystemField::Node, NodeField::Devices), 0) *
      spec::numberOf(Sys->ifSet(SystemField::Nodes), 1);
  if (Used < Have)
    Diags.report<DiagID::warn_idle_devices>(
        MapUse->Loc, spec::formatNumber(Used), spec::formatNumber(Have),
        Sys->Name, spec::formatNumber(Have - Used), spec::formatNumber(Used));
}

void checkLaunches(const Object &Sc, DiagnosticEngine &Diags) {
  bool Train = Sc.Type->Id == StructID::Train;
  const Object *Map = spec::objectOf(Train ? Sc.ifSet(TrainField::Mapping)
                                           : Sc.ifSet(ServeField::Mapping));
  const spec::Field *Graphs =
      Map ? Map->ifWritten(MappingField::CudaGraphs) : nullptr;
  if (!Graphs || Graphs->V.Bool)
    return;
  const Object *Sys = spec::objectOf(Train ? Sc.ifSet(TrainField::System)
                                           : Sc.ifSet(ServeField::System));
  const Object *Acc =
      Sys ? spec::objectOf(Sys->ifSet(SystemField::Node, NodeField::Accelerator))
          : nullptr;
  if (!Acc)
    return;
  auto Eff = [&](EfficiencyField F) {
    return spec::numberOf(Acc->ifSet(AcceleratorField::Efficiency, F), 0);
  };
  double Kernel = Eff(EfficiencyField::KernelOverhead);
  if (Eff(EfficiencyField::LaunchOverhead) == Kernel)
    Diags.report<DiagID::warn_launch_unchanged>(
        Graphs->Loc, Acc->Name, spec::formatNumber(Kernel * 1e6) + " us");
}

/// Of scenario Sc's mapping (train or serve), field F where the spec
/// writes it (null otherwise), and the mapping in Map.
static const spec::Field *writtenMappingField(const Object &Sc,
                                              MappingField F,
                                              const Object *&Map) {
  Map = spec::objectOf(Sc.Type->Id == StructID::Train
                           ? Sc.ifSet(TrainField::Mapping)
                           : Sc.ifSet(ServeField::Mapping));
  return Map ? Map->ifWritten(F) : nullptr;
}

/// The word of an enumerated field, as its enumerator (none: unset).
template <typename Enum>
static std::optional<Enum> enumOf(const spec::Field *F) {
  return ir::enumFromWord<Enum>(spec::wordOf(F));
}

void checkExpertGemms(const Object &Sc, DiagnosticEngine &Diags) {
  if (Sc.Type->Id != StructID::Train)
    return;
  const Object *Map;
  const spec::Field *Gemms =
      writtenMappingField(Sc, MappingField::ExpertGemms, Map);
  if (!Gemms || enumOf<ir::ExpertGemms>(Gemms) != ir::ExpertGemms::PerExpert)
    return;
  const Object *Model = spec::objectOf(Sc.ifSet(TrainField::Model));
  if (Model && !spec::objectOf(Model->ifSet(ModelField::Moe)))
    Diags.report<DiagID::err_expert_gemms_dense>(Gemms->Loc, Sc.Name,
                                                 Model->Name);
}

void checkExpertBias(const Object &Sc, DiagnosticEngine &Diags) {
  if (Sc.Type->Id != StructID::Train)
    return;
  const Object *Map;
  const spec::Field *Bias = writtenMappingField(Sc, MappingField::ExpertBias, Map);
  if (!Bias || enumOf<ir::ExpertBias>(Bias) == ir::ExpertBias::Fused)
    return;
  const Object *Model = spec::objectOf(Sc.ifSet(TrainField::Model));
  if (!Model)
    return;
  const char *Missing =
      !spec::objectOf(Model->ifSet(ModelField::Moe)) ? "no experts (no moe block)"
      : !spec::boolOf(Model->ifSet(ModelField::Bias), false)
          ? "no biases (bias = false)"
          : nullptr;
  if (Missing)
    Diags.report<DiagID::err_expert_bias_unbiased>(
        Bias->Loc, spec::wordOf(Bias), Sc.Name, Model->Name, Missing);
}

void checkExpertRouting(const Object &Sc, DiagnosticEngine &Diags) {
  const bool Train = Sc.Type->Id == StructID::Train;
  const Object *Map;
  const spec::Field *Routing =
      writtenMappingField(Sc, MappingField::ExpertRouting, Map);
  if (!Routing ||
      enumOf<ir::ExpertRouting>(Routing) != ir::ExpertRouting::Consecutive)
    return;
  const Object *Model = spec::objectOf(Train ? Sc.ifSet(TrainField::Model)
                                             : Sc.ifSet(ServeField::Model));
  const char *Missing =
      Model && !spec::objectOf(Model->ifSet(ModelField::Moe))
          ? "a model without experts (no moe block)"
      : spec::integerOf(Map->ifSet(MappingField::Ep), 1) < 2
          ? "no expert parallelism (ep = 1)"
      : enumOf<ir::EpDispatch>(Map->ifSet(MappingField::EpDispatch)) !=
              ir::EpDispatch::Hierarchical
          ? "a dispatch that sends every routed copy (ep_dispatch is not "
            "hierarchical)"
          : nullptr;
  if (Missing)
    Diags.report<DiagID::err_expert_routing_unused>(
        Routing->Loc, Train ? "train" : "serve", Sc.Name, Missing);
}

static const spec::Field *writtenOverhead(const Object *Map, MappingField F) {
  return Map ? Map->ifWritten(F) : nullptr;
}

bool writesStepOverhead(const Object &Serve) {
  const Object *Map = spec::objectOf(Serve.ifSet(ServeField::Mapping));
  return writtenOverhead(Map, MappingField::StepOverhead) ||
         writtenOverhead(Map, MappingField::SequenceOverhead);
}

void checkStepOverheads(const Object &Sc, DiagnosticEngine &Diags) {
  const bool Train = Sc.Type->Id == StructID::Train;
  const Object *Map = spec::objectOf(Train ? Sc.ifSet(TrainField::Mapping)
                                           : Sc.ifSet(ServeField::Mapping));
  if (!Train && Sc.ifSet(ServeField::Traffic))
    return;
  for (auto [F, Name] : {std::pair{MappingField::StepOverhead, "step_overhead"},
                         {MappingField::SequenceOverhead, "sequence_overhead"}})
    if (const spec::Field *X = writtenOverhead(Map, F);
        X && spec::numberOf(X, 0) != 0) {
      if (Train)
        Diags.report<DiagID::err_step_overhead_training>(X->Loc, Name,
                                                         Sc.Name);
      else
        Diags.report<DiagID::err_step_overhead_static>(X->Loc, Name, Sc.Name);
    }
}

/// What a training step has and a serving step has not: a backward pass
/// (recomputation, gradients and their reduction), an optimizer, a global
/// batch of micro-batches and a training pipeline schedule. (ep_overlap is
/// refused by partition, as it depends on ep; tp_overlap serves both: in
/// serving it fuses each reduction into its GEMM, lib/Cost/ServingCost.cpp.)
static const std::tuple<MappingField, const char *, const char *>
    TrainingOnly[] = {
        {MappingField::Recompute, "recompute", "no backward pass"},
        {MappingField::RecomputeModules, "recompute_modules",
         "no backward pass"},
        {MappingField::Zero, "zero", "no optimizer state or gradients"},
        {MappingField::DistributedOptimizer, "distributed_optimizer",
         "no optimizer"},
        {MappingField::Gradients, "gradients", "no gradients"},
        {MappingField::GradAccumulationFusion, "grad_accumulation_fusion",
         "no gradients"},
        {MappingField::DpOverlap, "dp_overlap", "no gradient reduction"},
        {MappingField::DpBucket, "dp_bucket", "no gradient reduction"},
        {MappingField::DpOverlapGather, "dp_overlap_gather",
         "no optimizer step"},
        {MappingField::OffloadLayers, "offload_layers",
         "no activations are kept for a backward pass"},
        {MappingField::DpCtas, "dp_ctas", "no gradient reduction"},
        {MappingField::ExpertGemms, "expert_gemms",
         "a serving engine's expert GEMMs are its own kernels, costed with "
         "efficiency.expert_overhead"},
        {MappingField::ExpertBias, "expert_bias",
         "a serving engine adds the experts' biases inside its MoE "
         "kernels"},
        {MappingField::CpCtas, "cp_ctas",
         "a serving engine's collectives are its own"},
        {MappingField::PpCtas, "pp_ctas",
         "a serving engine's collectives are its own"},
        {MappingField::TpGradOverlap, "tp_grad_overlap", "no backward pass"},
        {MappingField::TpOverlapBackward, "tp_overlap_backward",
         "no backward pass"},
        {MappingField::CpGradients, "cp_gradients", "no backward pass"},
        {MappingField::CpOverlap, "cp_overlap",
         "a prefill's context-parallel exchange is costed on its critical "
         "path"},
        {MappingField::GlobalBatch, "global_batch",
         "the batch is the scenario's or the traffic's"},
        {MappingField::MicroBatch, "micro_batch",
         "the batch is the scenario's or the traffic's"},
        {MappingField::Schedule, "schedule",
         "a pipeline serves its requests as micro-batches, one a stage"}};

const char *trainingOnlyMappingField(StringRef Name) {
  for (auto [F, N, Why] : TrainingOnly)
    if (Name == N)
      return Why;
  return nullptr;
}

void checkTrainingOnlyFields(const Object &Serve, DiagnosticEngine &Diags) {
  const Object *Map = spec::objectOf(Serve.ifSet(ServeField::Mapping));
  const Object *Pool = spec::objectOf(
      Serve.ifSet(ServeField::Traffic, TrafficField::Prefill));
  for (const Object *M : {Map, Pool}) {
    if (!M)
      continue;
    for (auto [F, Name, Why] : TrainingOnly)
      if (const spec::Field *X = M->ifWritten(F))
        Diags.report<DiagID::err_mapping_training_only>(X->Loc, Name,
                                                        Serve.Name, Why);
  }
}

void readRequests(Object &Serve, SourceFiles &Sources, DiagnosticEngine &Diags,
                  spec::Spec &S) {
  const spec::Field *TrafficUse = Serve.ifSet(ServeField::Traffic);
  Object *Traffic = TrafficUse ? TrafficUse->V.Obj : nullptr;
  if (!Traffic)
    return;
  // What was read from the trace is noted on the field itself.
  Traffic->requireType(StructID::Traffic);
  spec::Field &TraceField = Traffic->Fields[size_t(TrafficField::Trace)];
  const spec::Field *Requests = Traffic->ifSet(TrafficField::Requests);
  if (!TraceField.isSet()) {
    if (!Requests)
      Diags.report<DiagID::err_traffic_requests>(TrafficUse->Loc);
    return;
  }
  // What the trace gives cannot be written as well.
  for (auto [F, What] : {std::pair{Serve.ifSet(ServeField::Prompt), "prompt"},
                         {Serve.ifSet(ServeField::Output), "output"},
                         {Traffic->ifSet(TrafficField::PromptStdev), "prompt"},
                         {Traffic->ifSet(TrafficField::OutputStdev), "output"},
                         {Traffic->ifSet(TrafficField::Lengths), "lengths"}})
    if (F && F->isWritten())
      Diags.report<DiagID::err_traffic_trace_field>(F->Loc, What,
                                                    F->Spec->Name);
  const Object *Model = spec::objectOf(Serve.ifSet(ServeField::Model));
  int64_t MaxSeq =
      Model ? spec::integerOf(Model->ifSet(ModelField::MaxSeq), 0) : 0;
  auto Trace = readTrace(
      Sources, Diags, TraceField.V.str(),
      Diags.getSourceMgr().FindBufferContainingLoc(TraceField.Loc.Start),
      TraceField.Loc, MaxSeq, Model ? StringRef(Model->Name) : StringRef());
  if (!Trace)
    return;
  TraceField.Note = S.note({"", Trace});
  const spec::Field *Arrival = Traffic->ifSet(TrafficField::Arrival);
  const bool Recorded =
      spec::wordOf(Traffic->ifSet(TrafficField::Arrival, ArrivalField::Kind)) ==
      ir::enumWord(ir::ArrivalKind::Trace);
  // More requests than rows pass over the trace again; its recorded
  // arrival times do not.
  if (Recorded && Requests && Requests->From == spec::Origin::File &&
      Requests->V.Num > double(Trace->size()))
    Diags.report<DiagID::err_traffic_trace_requests>(
        Requests->Loc, spec::formatNumber(Requests->V.Num), TraceField.V.str(),
        Trace->size());
  if (Recorded && Trace->front().Arrival < 0)
    Diags.report<DiagID::err_traffic_arrival_trace>(Arrival->Loc);
}

} // namespace sema
} // namespace llmsys
