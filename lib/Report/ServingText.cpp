//===- ServingText.cpp - the text report of a serving scenario
//---------------===//

#include "Report/EnergyText.h"
#include "Report/Format.h"
#include "Report/Report.h"

#include "llvm/ADT/STLExtras.h"
#include <fmt/format.h>

namespace llmsys {
namespace report {

using namespace ir;

static void line(llvm::raw_ostream &OS, llvm::StringRef Label,
                 const std::string &Value) {
  OS << fmt::format("  {:<20}{}\n", Label.str(), Value);
}

static std::string roofline(const cost::PhaseRoofline &R) {
  return fmt::format("{} FLOP/B, {}-bound, {} of peak compute, {} of "
                     "{}bandwidth",
                     si(R.intensity(), "", 3), R.bound(),
                     percent(R.AchievedFlops), percent(R.AchievedBandwidth),
                     R.OnChip ? "on-chip (L2) " : "");
}

void printServingText(const Program &P, const cost::ServingReport &R,
                      llvm::raw_ostream &OS, unsigned TopOps) {
  const ScenarioConfig &S = P.Scenario;
  OS << "serve " << S.Name << ": model " << S.Model.Name << " on "
     << describePlacement(S) << ", mapping " << describeMapping(S.Mapping)
     << "; " << describeParameters(S.Model, /*Serving=*/true) << '\n';
  const cost::TrafficReport &T = R.Traffic;
  std::string Formats = fmt::format(
      "weights {}, activations {}, KV cache {}",
      dtypeName(S.Mapping.Weights).str(), dtypeName(S.Mapping.Activations).str(),
      dtypeName(S.Mapping.KVCache).str());
  if (T.Simulated) {
    const TrafficConfig &C = S.Traffic;
    std::string Arrival =
        C.Arrival == ArrivalKind::Trace
            ? std::string("at the trace's times")
        : C.Arrival == ArrivalKind::Poisson
            ? "poisson at " + si(C.Rate, "requests/s")
        : C.Arrival == ArrivalKind::Concurrency
            ? fmt::format("{} concurrent clients", C.Clients)
            : std::string("offline (all at once)");
    std::string Shape =
        C.Trace ? std::string("lengths from the trace, means ")
        : C.PromptStdev > 0 || C.OutputStdev > 0
            ? lengthsName(C.Lengths).str() + " lengths, "
            : "";
    line(OS, "requests",
         fmt::format("{}, {}prompt {}, output {}, {}; {}", T.Requests, Shape,
                     C.PromptStdev > 0
                         ? fmt::format("{} tokens (stdev {}, drawn mean {})",
                                       P.SeqLen, si(C.PromptStdev, "", 3),
                                       si(T.MeanPrompt, "", 4))
                         : fmt::format("{} tokens", P.SeqLen),
                     C.OutputStdev > 0
                         ? fmt::format("{} tokens (stdev {}, drawn mean {})",
                                       S.OutputLen, si(C.OutputStdev, "", 3),
                                       si(T.MeanOutput, "", 4))
                         : fmt::format("{} tokens", S.OutputLen),
                     Arrival, Formats));
    std::string Blocks =
        C.KvBlock > 1 ? fmt::format(" in blocks of {}", C.KvBlock) : "";
    std::string Demand =
        C.OnDemand ? fmt::format(" taken on demand ({} preempted)",
                                 T.Preemptions)
                   : "";
    line(OS, "in-flight batching",
         fmt::format("max batch {}, max tokens {} a step; KV cache {} tokens "
                     "a replica{}{}, peak {} reserved; {} steps",
                     C.MaxBatch, C.MaxTokens, T.KvTokens, Blocks, Demand,
                     percent(T.KvTokens > 0 ? T.PeakKvTokens / double(T.KvTokens) : 0),
                     T.Steps) +
             (T.HostTime > 0
                  ? fmt::format("; the engine's host {} between them ({} "
                                "a step + {} a sequence)",
                                duration(T.HostTime),
                                duration(S.Mapping.StepOverhead),
                                duration(S.Mapping.SequenceOverhead))
                  : ""));
    if (C.Disaggregated)
      line(OS, "prefill pool",
           fmt::format("{} engine{} of tp {}{} (the mapping above "
                       "decodes); a prompt's KV cache reaches the decode "
                       "pool in {} on average",
                       T.PrefillEngines, T.PrefillEngines == 1 ? "" : "s",
                       C.Prefill.Tp,
                       C.Prefill.Cp > 1 ? fmt::format(" cp {}", C.Prefill.Cp)
                                        : "",
                       duration(T.MeanKvTransfer)));
    line(OS, "served",
         fmt::format("{} over {}; batch {} on average, {} at most",
                     si(T.RequestRate, "requests/s"), duration(T.Duration),
                     fmt::format("{:.3g}", T.MeanBatch), T.PeakBatch));
    auto Dist = [&](const char *Label, const cost::Percentiles &D) {
      line(OS, Label,
           fmt::format("mean {}, p50 {}, p90 {}, p99 {}", duration(D.Mean),
                       duration(D.P50), duration(D.P90), duration(D.P99)));
    };
    Dist("time to first token", T.Ttft);
    if (S.OutputLen > 1)
      Dist("time per token", T.Tpot);
    Dist("end to end", T.E2E);
    if (T.Goodput >= 0)
      line(OS, "goodput",
           T.Goodput > 0
               ? fmt::format("{} with every p99 within its SLO (poisson)",
                             si(T.Goodput, "requests/s"))
               : std::string("none: the p99s miss the SLOs at any rate"));
  } else {
    line(OS, "requests",
         fmt::format("batch {}{}, prompt {} tokens{}, output {} tokens; {}",
                     P.MicroBatch,
                     S.Beams > 1 ? fmt::format(" x {} beams", S.Beams) : "",
                     P.SeqLen,
                     S.Retrieved > 0
                         ? fmt::format(" ({} of them retrieved)", S.Retrieved)
                         : "",
                     S.OutputLen, Formats));
  }
  if (R.MicroBatches > 1)
    line(OS, "pipeline",
         fmt::format("{} stages, the batch in {} micro-batches of up to {} "
                     "requests",
                     S.Mapping.Pp, R.MicroBatches, R.MicroBatchSize));
  if (!T.Simulated)
    line(OS, "time to first token", duration(R.Ttft));
  if (S.OutputLen > 1 && !T.Simulated)
    line(OS, "time per token",
         fmt::format("{} (first step {}, last {})", duration(R.Tpot),
                     duration(R.TpotFirst), duration(R.TpotLast)));
  if (R.Speculation.TokensPerStep > 0)
    line(OS, "speculative",
         fmt::format("draft {}, k {}, acceptance {:.3g}: {:.3g} tokens per "
                     "verification; draft step {}, verification {} (mean "
                     "context)",
                     S.Speculative.Draft.Name, S.Speculative.K,
                     S.Speculative.Acceptance, R.Speculation.TokensPerStep,
                     duration(R.Speculation.DraftStep),
                     duration(R.Speculation.VerifyStep)));
  if (!T.Simulated)
    line(OS, "end to end", duration(R.E2E));
  std::string Engines = fmt::format(
      "{} {} of {} device{}", R.Replicas, R.Replicas == 1 ? "replica" : "replicas",
      R.DevicesPerReplica, R.DevicesPerReplica == 1 ? "" : "s");
  if (S.Traffic.Disaggregated) {
    const ir::MappingConfig &Pool = S.Traffic.Prefill;
    Engines = fmt::format("{} decoding, {} prefill engine{} of {} device{}",
                          Engines, Pool.Dp, Pool.Dp == 1 ? "" : "s",
                          Pool.Tp * Pool.Cp, Pool.Tp * Pool.Cp == 1 ? "" : "s");
  }
  line(OS, "throughput",
       fmt::format("{} ({} per device, {})", si(R.Throughput, "tokens/s"),
                   si(R.ThroughputPerDevice, "tokens/s"), Engines));
  std::string E = energyText(
      R.EnergyPerToken, R.TdpEnergyPerToken, R.PowerPerDevice, S.System, "J",
      S.Speculative.Enabled
          ? "energy from activity is not computed for speculative decoding"
          : "");
  if (!E.empty())
    line(OS, "energy per token", E);
  if (R.CostPerToken > 0)
    line(OS, "cost",
         fmt::format("{} per million output tokens ({})",
                     money(R.CostPerToken * 1e6),
                     costBasis(S.System, R.CostAtTdp)));
  line(OS, "prefill", roofline(R.Prefill));
  if (S.OutputLen > 1) {
    line(OS, "decode", roofline(R.Decode));
    if (R.DecodeCrossoverBatch > 0)
      line(OS, "decode crossover",
           fmt::format("compute-bound from a batch of about {}",
                       si(R.DecodeCrossoverBatch, "", 3)));
    else
      line(OS, "decode crossover", "memory-bound at every batch");
  }
  const cost::ServingMemory &M = R.Memory;
  line(OS, "memory per device",
       fmt::format("{} of {}: {}; largest: {}; max batch {}",
                   si(M.total(), "B"), si(M.Capacity, "B"),
                   M.fits() ? "fits" : "DOES NOT FIT", M.largest(),
                   R.MaxBatch));
  OS << fmt::format(
      "    weights {}, KV cache {}, activations {}, reserved {}\n",
      si(M.Weights, "B"), si(M.KVCache, "B"), si(M.Activations, "B"),
      si(M.Reserved, "B"));
  for (const cost::SloCheck &C : R.Slo) {
    auto Show = [&](double V) {
      return C.Name == "throughput" ? si(V, "tokens/s") : duration(V);
    };
    line(OS, "slo " + C.Name,
         fmt::format("{} {} {}: {} (bound by {})", Show(C.Value),
                     C.Lower ? ">=" : "<=", Show(C.Limit),
                     C.Met ? "met" : "MISSED", C.Binding));
  }
  std::string Of = R.MicroBatches > 1
                       ? fmt::format(", of one micro-batch of {} requests",
                                     R.MicroBatchSize)
                       : std::string();
  if (TopOps >= R.Ops.size())
    OS << "  operators (prefill, and one decode step at the mean context" << Of
       << ")\n";
  else
    OS << fmt::format("  operators (prefill, and one decode step at the mean "
                      "context{}; longest {})\n",
                      Of, TopOps);
  OS << fmt::format("    {:<22}{:<11}{:>8}{:>12}{:>12}{:>9} {:<7}{:>10}\n",
                    "name", "phase", "count", "flops", "bytes", "flop/B",
                    "bound", "time");
  for (unsigned I = 0; I < R.Ops.size() && I < TopOps; ++I) {
    const cost::OpRow &O = R.Ops[I];
    OS << fmt::format("    {:<22}{:<11}{:>8}{:>12}{:>12}{:>9} {:<7}{:>10}\n",
                      O.Name, phaseName(O.Ph).str(), si(O.Count, "", 3),
                      si(O.Flops, "", 3), si(O.Bytes, "B", 3),
                      si(O.intensity(), "", 3),
                      O.MemoryBound ? "memory" : "compute", duration(O.Time));
  }
  if (!R.Collectives.empty()) {
    // The exposed column only where some of a collective runs inside a GEMM
    // (tp_overlap); elsewhere every collective is exposed in full.
    bool Hidden = llvm::any_of(R.Collectives, [](const cost::CollectiveRow &C) {
      return C.Exposed < C.Time * (1 - 1e-9);
    });
    auto Exposed = [&](const std::string &V) {
      return Hidden ? fmt::format("{:>10}", V) : std::string();
    };
    OS << "  collectives (prefill, and one decode step)\n";
    OS << fmt::format("    {:<24}{:<11}{:<15}{:<7}{:>6}{:>11} {:<9}{:>10}{}\n",
                      "name", "phase", "kind", "group", "level", "bytes",
                      "algorithm", "time", Exposed("exposed"));
    for (const cost::CollectiveRow &C : R.Collectives)
      OS << fmt::format(
          "    {:<24}{:<11}{:<15}{:<7}{:>6}{:>11} {:<9}{:>10}{}\n", C.Name,
          phaseName(C.Ph).str(), collectiveName(C.Kind).str(),
          parallelDimName(C.Group).str() + "/" + std::to_string(C.GroupSize),
          C.FabricLevel, si(C.Bytes, "B", 3), C.Algorithm, duration(C.Time),
          Exposed(duration(C.Exposed)));
  }
}

} // namespace report
} // namespace llmsys
