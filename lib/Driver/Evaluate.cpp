//===- Evaluate.cpp - a scenario from spec to results --------------------------===//

#include "Driver/Evaluate.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

using llvm::StringRef;

namespace llmsys {
namespace driver {

using namespace cost;

/// A number format the device lacks runs at a wider one's rate
/// (AcceleratorConfig::runsAs): said once per scenario evaluated in full,
/// at the field that chose it.
static void warnFormatFallbacks(const ir::ScenarioConfig &S,
                                const ir::Program &P,
                                DiagnosticEngine &Diags,
                                const char *Whose = "the mapping's",
                                bool Fp32Too = true) {
  const ir::AcceleratorConfig &A = S.System.Device;
  // The program's own FP32 arithmetic (the loss, the optimizer's update):
  // a part without an FP32 rate runs it at the next wider format's, FP64,
  // which on some parts is a sliver of the FP32 units' rate. (A part with
  // neither, a sketch with only its tensor peaks, charges that work its
  // memory traffic alone, without a word.)
  ir::DType Fp32 = ir::DType::FP32;
  if (Fp32Too && A.runsAs(Fp32) != Fp32 && S.System.Decl.Start.isValid())
    for (const ir::Block &B : P.Blocks)
      if (llvm::any_of(B.Ops, [&](const ir::Op &O) {
            return O.Type == Fp32 && O.Flops > 0;
          })) {
        Diags.report<DiagID::warn_fp32_fallback>(
            S.System.Decl, A.Name, ir::dtypeName(A.runsAs(Fp32)),
            fmt::format("{:.4g} TFLOP/s", A.peak(Fp32) / 1e12));
        break;
      }
  auto Warn = [&](const std::string &Which, ir::DType T, llvm::SMRange At) {
    ir::DType R = A.runsAs(T);
    if (R == T)
      return;
    Diags.report<DiagID::warn_format_fallback>(
        At, Which, ir::dtypeName(T), A.Name, ir::dtypeName(T),
        ir::dtypeName(R), fmt::format("{:.4g} TFLOP/s", A.peak(T) / 1e12));
  };
  const ir::MappingConfig &M = S.Mapping;
  if (!M.Recipe) {
    Warn(Whose, M.Activations, M.Locs.Activations);
    ir::DType Attn = ir::servingAttentionFormat(M);
    if (!S.Training && Attn != M.Activations &&
        A.runsAs(Attn) != A.runsAs(M.Activations))
      Warn("the attention's", Attn, M.Locs.Activations);
    return;
  }
  // A recipe's formats, each role once.
  ir::DType Seen[3];
  int N = 0;
  for (ir::DType T : {M.Recipe->Forward, M.Recipe->InputGradient,
                      M.Recipe->WeightGradient}) {
    if (std::find(Seen, Seen + N, T) != Seen + N)
      continue;
    Seen[N++] = T;
    Warn("recipe '" + M.Recipe->Name + "'", T, M.Locs.Recipe);
  }
}

/// Energy from activity above TDP x time: inputs that describe a device
/// drawing more than its board power (docs/cost-model.md, "Energy and
/// cost").
static void warnPowerAboveTdp(const ir::ScenarioConfig &S,
                              const Evaluation &E, DiagnosticEngine &Diags) {
  double Power = S.Training ? E.Train.PowerPerDevice : E.Serve.PowerPerDevice;
  double Tdp = S.System.Device.Tdp;
  if (Tdp > 0 && Power > Tdp * (1 + 1e-9))
    Diags.report<DiagID::warn_power_above_tdp>(S.Decl, S.System.Name, Power,
                                                S.System.Device.Name, Tdp);
}

std::optional<Evaluation> evaluate(const ir::ScenarioConfig &S,
                                   passes::PassContext &Ctx,
                                   bool Detail) {
  // Built in place (one return object): programs and reports are large
  // enough that moving them costs in a sweep.
  std::optional<Evaluation> E(std::in_place);
  if (!evaluateInto(S, Ctx, *E, Detail))
    E.reset();
  else if (Detail && Ctx.Diags) {
    warnFormatFallbacks(S, E->Program, *Ctx.Diags);
    // A prefill pool's formats, on the same part (its FP32 work is the
    // decode's: said once, above).
    if (S.Traffic.Disaggregated)
      warnFormatFallbacks(prefillPool(S), E->Program, *Ctx.Diags,
                          "the prefill pool's", /*Fp32Too=*/false);
    warnPowerAboveTdp(S, *E, *Ctx.Diags);
    // ep_overlap with no forward beside a backward.
    if (std::optional<std::string> Why =
            cost::epOverlapHidesNothing(E->Program)) {
      auto D = Ctx.Diags->report<DiagID::warn_ep_overlap_unpaired>(
          S.Mapping.Locs.EpOverlap, *Why);
      if (S.mappingUseElsewhere(S.Mapping.Locs.EpOverlap))
        D.note<DiagID::note_scenario_uses>(S.MappingUse, S.Name);
    }
  }
  return E;
}

/// The last check before any figure is shown: each is finite and not
/// negative. One that is not comes from an input the model does not cover
/// (or a bug): an error, never a report.
bool checkFigures(const ir::ScenarioConfig &S, const Evaluation &E,
                  passes::PassContext &Ctx) {
  for (const ir::FigureInfo &F : ir::figures()) {
    if (F.Training != S.Training)
      continue;
    std::optional<double> V = E.figure(F.Id);
    if (!V || (std::isfinite(*V) && *V >= 0))
      continue;
    if (Ctx.Diags)
      Ctx.Diags->report<DiagID::err_figure_out_of_model>(
          S.Decl, S.Name, F.Name, fmt::format("{}", *V));
    return false;
  }
  return true;
}

static bool costScenario(const ir::ScenarioConfig &S,
                         passes::PassContext &Ctx, Evaluation &E,
                         bool Detail);

bool evaluateInto(const ir::ScenarioConfig &S, passes::PassContext &Ctx,
                  Evaluation &E, bool Detail) {
  return costScenario(S, Ctx, E, Detail) && checkFigures(S, E, Ctx);
}

static bool costScenario(const ir::ScenarioConfig &S,
                         passes::PassContext &Ctx, Evaluation &E,
                         bool Detail) {
  if (!driver::buildProgram(S, Ctx, E.Program))
    return false;
  E.Training = S.Training;
  if (S.Training) {
    costTraining(E.Program, Detail, E.Train);
    return true;
  }
  E.Serve = costServing(E.Program, Detail);
  // The goodput's runs start from the report before simulation (a
  // simulation rewrites its memory): kept when there is one.
  std::optional<cost::ServingReport> Static;
  if (S.Traffic.Enabled && (S.SloTtft || S.SloTpot || S.SloE2E))
    Static = E.Serve;
  if (S.Traffic.Disaggregated) {
    // The prefill pool: the scenario on the pool's mapping (its engines'
    // memory and steps), the scenario's own mapping decoding. (Built
    // apart from the sweep's prefix cache, whose key is the decode
    // mapping's.)
    ir::ScenarioConfig Pool = prefillPool(S);
    passes::PassContext PoolCtx = Ctx;
    PoolCtx.Prefix = nullptr;
    ir::Program Prefill;
    if (!driver::buildProgram(Pool, PoolCtx, Prefill))
      return false;
    cost::ServingReport PrefillReport = costServing(Prefill, false);
    BatchPrograms PrefillPrograms(Pool, Ctx.Verify);
    BatchPrograms Programs(S, Ctx.Verify);
    cost::ServingReport PoolReport = PrefillReport;
    if (!simulateDisaggregated(Prefill, PrefillPrograms.callback(), PoolReport,
                               E.Program, Programs.callback(), E.Serve,
                               Ctx.Diags))
      return false;
    if (Static)
      setGoodput(Prefill, PrefillPrograms.callback(), PrefillReport,
                 E.Program, Programs.callback(), E.Serve, *Static);
  } else if (S.Traffic.Enabled) {
    // The engine's steps priced by the scenario's decode step at other
    // batches (built once each, quietly: the scenario's own build has
    // diagnosed what would fail).
    BatchPrograms Programs(S, Ctx.Verify);
    if (!simulateTraffic(E.Program, Programs.callback(), E.Serve, Ctx.Diags))
      return false;
    if (Static)
      setGoodput(E.Program, Programs.callback(), E.Serve, *Static);
  }
  if (!Detail)
    return true;
  // The decode crossover compares the decode step at batches 1 and 2.
  ir::ScenarioConfig One = S, Two = S;
  One.Batch = 1;
  Two.Batch = 2;
  passes::PassContext Quiet;
  std::optional<ir::Program> P1 = driver::buildProgram(One, Quiet);
  std::optional<ir::Program> P2 = driver::buildProgram(Two, Quiet);
  if (P1 && P2)
    setDecodeCrossover(E.Serve, *P1, *P2);
  return true;
}

const ir::Program *BatchPrograms::at(int64_t Batch) {
  std::optional<ir::Program> &P = Built[Batch];
  if (!P) {
    ir::ScenarioConfig At = S;
    At.Batch = Batch;
    P = driver::buildProgram(At, Quiet);
  }
  return P ? &*P : nullptr;
}

std::optional<double> Evaluation::figure(ir::FigureID F) const {
  return Training ? figureValue(Train, F) : figureValue(Serve, F);
}

std::optional<double> Evaluation::figure(StringRef Name) const {
  const ir::FigureInfo *F = ir::findFigure(Training, Name);
  return F ? figure(F->Id) : std::nullopt;
}

} // namespace driver
} // namespace llmsys
