//===- BuildProgram.cpp - a scenario's programs ------------------------===//

#include "Driver/BuildProgram.h"

namespace llmsys {
namespace driver {

/// Every pass of the registry, in order, into a new program (no cache:
/// the sub-programs differ from the point's own).
static std::optional<ir::Program> runDefault(const ir::ScenarioConfig &S,
                                             passes::PassContext &Ctx) {
  return passes::runPasses(S, passes::defaultPipeline(), Ctx);
}

bool buildProgram(const ir::ScenarioConfig &Scenario, passes::PassContext &Ctx,
                  ir::Program &P) {
  if (!passes::runDefaultPipeline(Scenario, Ctx, P))
    return false;
  // A pipelined serving batch: the program of one micro-batch of requests
  // (the last may hold fewer; the fullest paces the stages). In-flight
  // batching forms its micro-batches itself (lib/Cost/Traffic.cpp).
  if (!Scenario.Training && !Scenario.Traffic.Enabled &&
      P.Schedule.MicroBatches > 1) {
    ir::ScenarioConfig Micro = Scenario;
    Micro.Batch = ir::servingMicroBatchSize(Scenario, Scenario.Batch);
    std::optional<ir::Program> Mp = runDefault(Micro, Ctx);
    if (!Mp)
      return false;
    P.PipelineMicro = std::make_shared<const ir::Program>(std::move(*Mp));
  }
  const ir::SpeculativeConfig &Spec = Scenario.Speculative;
  // Speculation needs decode steps (output > 1).
  if (Scenario.Training || !Spec.Enabled || Scenario.OutputLen <= 1)
    return true;
  // The draft proposes tokens the target verifies: both generate, over one
  // vocabulary.
  bool Fits = true;
  for (const ir::ModelConfig *M : {&Scenario.Model, &Spec.Draft})
    if (M->Encoder) {
      if (Ctx.Diags)
        Ctx.Diags->report<DiagID::err_speculative_encoder>(Spec.DraftUse,
                                                           M->Name);
      Fits = false;
    }
  if (Spec.Draft.Vocab != Scenario.Model.Vocab) {
    if (Ctx.Diags)
      Ctx.Diags->report<DiagID::err_draft_vocab>(
          Spec.DraftUse, Spec.Draft.Name, Spec.Draft.Vocab, Scenario.Model.Name,
          Scenario.Model.Vocab);
    Fits = false;
  }
  if (!Fits)
    return false;
  // The draft runs on the same devices with the same mapping (a dense
  // draft of an expert-parallel target without expert parallelism); the
  // verification is the target's decode of k + 1 tokens per sequence (the
  // costs read its per-context bytes per sequence).
  ir::ScenarioConfig Draft = Scenario;
  Draft.Model = Spec.Draft;
  Draft.Speculative = {};
  if (!Spec.Draft.Moe) {
    // (Nor how expert parallelism would move its tokens.)
    Draft.Mapping.Ep = 1;
    Draft.Mapping.EpDispatchKind = ir::EpDispatch::AllToAll;
  }
  // Of the parts `quantized` names, the draft quantizes those it has (a
  // dense draft of a MoE target whose experts alone are quantized runs in
  // the precision); what the spec wrote was checked against the target.
  for (unsigned I = 0; I < ir::NumQuantizedParts; ++I)
    if (!ir::modelHasPart(Spec.Draft, ir::QuantizedPart(I)))
      Draft.Mapping.Quantized &= uint8_t(~(1u << I));
  Draft.Mapping.QuantizedWritten = false;
  ir::ScenarioConfig Verify = Scenario;
  Verify.Speculative = {};
  Verify.Batch = Scenario.Batch * (Spec.K + 1);
  std::optional<ir::Program> D = runDefault(Draft, Ctx);
  if (!D && Ctx.Diags)
    Ctx.Diags->report<DiagID::note_speculative_draft>(
        Spec.DraftUse, Spec.Draft.Name, Scenario.Name);
  std::optional<ir::Program> V = D ? runDefault(Verify, Ctx) : std::nullopt;
  if (!D || !V)
    return false;
  P.Draft = std::make_shared<const ir::Program>(std::move(*D));
  P.Verify = std::make_shared<const ir::Program>(std::move(*V));
  return true;
}

std::optional<ir::Program> buildProgram(const ir::ScenarioConfig &Scenario,
                                        passes::PassContext &Ctx) {
  // Built in place: a program is large enough that moving it costs.
  std::optional<ir::Program> P(std::in_place);
  if (!buildProgram(Scenario, Ctx, *P))
    P.reset();
  return P;
}

ir::ScenarioConfig prefillPool(const ir::ScenarioConfig &S) {
  ir::ScenarioConfig Pool = S;
  Pool.Mapping = S.Traffic.Prefill;
  Pool.Traffic.Disaggregated = false;
  Pool.Devices = 0;
  Pool.MappingUse = S.Traffic.PrefillLoc;
  return Pool;
}

} // namespace driver
} // namespace llmsys
