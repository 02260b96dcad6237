//===- Schedule.cpp - pipeline schedules and serving steps --------------------===//
//
// Training: micro-batches per pipeline per step m = global_batch / (dp b);
// the schedule's bubble is (p - 1) / m of the ideal step for GPipe and 1F1B
// and (p - 1) / (v m) with v interleaved chunks (Narayanan et al. 2021,
// §2.2). The first stage holds m micro-batches' activations with GPipe,
// min(p, m) with 1F1B, and min(p, m) (1 + (p - 1) / (p v)) with interleaving
// (Korthikanti et al. 2022, §4.2.3). Interleaving needs m to be a multiple
// of p (Megatron-LM).
// Serving: a prefill of the prompt, then output - 1 decode steps.
//
//===----------------------------------------------------------------------===//

#include "Passes/Passes.h"

#include <algorithm>

namespace llmsys {
namespace passes {

using namespace ir;

/// Reports ID at R (when reporting) and fails the pass.
template <DiagID ID, typename... Args>
static bool fail(PassContext &Ctx, llvm::SMRange R, const Args &...A) {
  if (Ctx.Diags)
    Ctx.Diags->report<ID>(R, A...);
  return false;
}

/// In-flight batching (`traffic`): what the step simulation needs and
/// what it cannot model; each field written must be one the arrival uses.
static bool checkTraffic(const ScenarioConfig &S, PassContext &Ctx) {
  const TrafficConfig &T = S.Traffic;
  const MappingConfig &M = S.Mapping;
  std::string Arrival = arrivalName(T.Arrival).str();
  if (T.BatchLoc.isValid())
    return fail<DiagID::err_traffic_batch>(Ctx, T.BatchLoc);
  if (M.Pp > 1 && T.Disaggregated)
    return fail<DiagID::err_traffic_unsupported>(
        Ctx, M.Locs.Pp, "pipeline parallelism beside a prefill pool");
  if (S.Beams > 1)
    return fail<DiagID::err_traffic_unsupported>(Ctx, S.BeamsLoc,
                                                 "beam search");
  if (S.Retrieved > 0 && T.Trace)
    return fail<DiagID::err_traffic_unsupported>(
        Ctx, S.RetrievedLoc,
        "retrieved tokens beside a trace (add them to the trace's prompts)");
  if (S.Speculative.Enabled)
    return fail<DiagID::err_traffic_unsupported>(Ctx, S.Speculative.DraftUse,
                                                 "speculative decoding");
  if (M.OffloadWeights)
    return fail<DiagID::err_traffic_unsupported>(Ctx, M.Locs.Offload,
                                                 "offloaded weights");
  if (T.Disaggregated && T.Prefill.Pp > 1)
    return fail<DiagID::err_traffic_unsupported>(
        Ctx, T.Prefill.Locs.Pp.isValid() ? T.Prefill.Locs.Pp : T.PrefillLoc,
        "pipeline parallelism beside a prefill pool");
  if (T.Disaggregated && T.Arrival == ArrivalKind::Concurrency)
    return fail<DiagID::err_traffic_unsupported>(
        Ctx, T.PrefillLoc,
        "a prefill pool beside clients in a closed loop (arrival = "
        "concurrency); use offline, poisson or trace arrivals");
  if (T.Arrival == ArrivalKind::Concurrency && T.Clients <= 0)
    return fail<DiagID::err_traffic_arrival_needs>(Ctx, T.ArrivalLoc, Arrival,
                                                   "clients");
  if (T.Arrival == ArrivalKind::Poisson && !(T.Rate > 0))
    return fail<DiagID::err_traffic_arrival_needs>(Ctx, T.ArrivalLoc, Arrival,
                                                   "rate");
  if (T.ClientsLoc.isValid() && T.Arrival != ArrivalKind::Concurrency)
    return fail<DiagID::err_traffic_arrival_field>(
        Ctx, T.ClientsLoc, "clients", arrivalName(ArrivalKind::Concurrency),
        Arrival);
  if (T.RateLoc.isValid() && T.Arrival != ArrivalKind::Poisson)
    return fail<DiagID::err_traffic_arrival_field>(
        Ctx, T.RateLoc, "rate", arrivalName(ArrivalKind::Poisson), Arrival);
  bool Spread = (T.PromptStdev > 0 || T.OutputStdev > 0) && !T.Trace;
  if (T.SeedLoc.isValid() && T.Arrival != ArrivalKind::Poisson && !Spread)
    return fail<DiagID::err_traffic_seed>(Ctx, T.SeedLoc, Arrival);
  if (T.LengthsLoc.isValid() && !Spread)
    return fail<DiagID::err_traffic_lengths>(Ctx, T.LengthsLoc);
  if (double(S.SeqLen) * (1 - T.PrefixHit) > double(T.MaxTokens) &&
      T.PromptStdev == 0 && !T.ChunkedPrefill && !T.Trace)
    return fail<DiagID::err_traffic_prompt>(Ctx, T.MaxTokensLoc, S.SeqLen,
                                            T.MaxTokens);
  return true;
}

bool schedule(Program &P, PassContext &Ctx) {
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  ScheduleInfo &Sc = P.Schedule;
  Sc.Kind = M.Schedule;
  Sc.VirtualStages = M.VirtualStages;
  if (M.VirtualStages > 1 && M.Schedule != ScheduleKind::Interleaved)
    return fail<DiagID::err_mapping_virtual>(Ctx, M.Locs.VirtualStages, 
                M.VirtualStages);
  if (!S.Training) {
    // A pipeline serves the batch as micro-batches of requests, one per
    // stage, so that its stages work on different requests at once
    // (TensorRT-LLM's session splits the batch into pp micro-batches by
    // default; vLLM runs one virtual engine per stage). Speculative
    // decoding and offloaded weights are costed without: a request passes
    // the stages in turn.
    if (S.Beams > 1 && S.Speculative.Enabled)
      return fail<DiagID::err_beams_speculative>(Ctx, S.BeamsLoc);
    Sc.MicroBatches = servingMicroBatches(S, S.Batch);
    Sc.DecodeSteps = std::max<int64_t>(0, S.OutputLen - 1);
    return !S.Traffic.Enabled || checkTraffic(S, Ctx);
  }
  int64_t Pp = M.Pp;
  if (M.GlobalBatch) {
    Sc.MicroBatches = M.GlobalBatch / (M.Dp * M.MicroBatch);
  } else {
    if (Pp > 1)
      return fail<DiagID::err_mapping_global_batch>(Ctx, M.Locs.Decl);
    Sc.MicroBatches = 1;
  }
  int64_t Mb = Sc.MicroBatches;
  if (M.Schedule == ScheduleKind::Interleaved && Pp > 1 && Mb % Pp != 0)
    return fail<DiagID::err_mapping_divisible>(Ctx, M.Locs.GlobalBatch, 
                "micro-batches per pipeline", Mb, "pp", Pp);
  double V = double(M.modelChunks());
  Sc.BubbleFraction = double(Pp - 1) / (V * Mb);
  // Micro-batches whose activations each stage holds at once: GPipe runs
  // every forward first; 1F1B starts p - i forwards on stage i before its
  // first backward (Narayanan et al. 2021, §2.2), interleaving holds
  // (1 + (p - 1) / (p v)) times as many (Korthikanti et al. 2022, §4.2.3).
  // Under ep_overlap with pipelining, one more warm-up forward (a model
  // chunk: 1 / v of a micro-batch with interleaving) so that each
  // combined step's forward and backward are independent (Megatron-LM
  // schedules.py get_pp_rank_microbatches); without pipelining the
  // combined step frees a layer of one micro-batch as it fills one of the
  // next, and holds one.
  const double Extra =
      M.EpOverlap && Pp > 1 && M.Schedule != ScheduleKind::GPipe ? 1 / V : 0;
  int64_t I = 0;
  for (Stage &St : P.Stages) {
    St.InFlight = M.Schedule == ScheduleKind::GPipe
                      ? double(Mb)
                      : double(std::min<int64_t>(Pp - I, Mb));
    if (M.Schedule == ScheduleKind::Interleaved && Pp > 1)
      St.InFlight *= 1 + double(Pp - 1) / (Pp * V);
    if (Pp - I < Mb) // (a warm-up of every micro-batch has no more)
      St.InFlight =
          std::max(St.InFlight, std::min(double(Mb), St.InFlight + Extra));
    ++I;
  }
  return true;
}

} // namespace passes
} // namespace llmsys
