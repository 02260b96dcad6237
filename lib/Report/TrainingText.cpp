//===- TrainingText.cpp - the text report of a training scenario -------------===//

#include "Report/EnergyText.h"
#include "Report/Format.h"
#include "Report/Report.h"

#include <fmt/format.h>

namespace llmsys {
namespace report {

using namespace ir;

std::string describeSystem(const SystemConfig &S) {
  std::string Out = std::to_string(S.devices()) + " x " + S.Accelerator;
  if (S.Nodes > 1)
    Out += " (" + std::to_string(S.Nodes) + " nodes of " +
           std::to_string(S.DevicesPerNode) + ")";
  return Out;
}

std::string computeFormat(const ir::AcceleratorConfig &A, ir::DType T) {
  ir::DType R = A.runsAs(T);
  if (R == T)
    return dtypeName(T).str();
  return (dtypeName(R) + " for " + dtypeName(T)).str();
}

std::string describePlacement(const ScenarioConfig &S) {
  std::string Out = describeSystem(S.System);
  int64_t Used = S.usedDevices(), Have = S.System.devices();
  if (Used >= Have)
    return Out;
  return fmt::format("{} of {}, {} idle ({})", Used, Out, Have - Used,
                     S.ChargeIdle ? "charged" : "not charged");
}

/// A parameter count as model cards write it: 8.03B, 125M.
static std::string count(double N) {
  if (N >= 1e12)
    return fmt::format("{:.3g}T", N / 1e12);
  if (N >= 1e9)
    return fmt::format("{:.3g}B", N / 1e9);
  if (N >= 1e6)
    return fmt::format("{:.3g}M", N / 1e6);
  if (N >= 1e3)
    return fmt::format("{:.3g}K", N / 1e3);
  return fmt::format("{:.3g}", N);
}

std::string describeParameters(const ModelConfig &M, bool Serving) {
  ParamCount P = countParams(M);
  std::string Out = count(P.Total) + " parameters";
  if (M.Moe)
    Out += " (" + count(P.Active) + " active)";
  if (P.Mtp > 0)
    Out += " + " + count(P.Mtp) + " multi-token prediction" +
           (Serving ? " (not served)" : "");
  return Out;
}

std::string describeMapping(const MappingConfig &M) {
  std::string Out = fmt::format("dp {} tp {} pp {}", M.Dp, M.Tp, M.Pp);
  if (M.Cp > 1)
    Out += fmt::format(" cp {}", M.Cp);
  if (M.Ep > 1)
    Out += fmt::format(" ep {}", M.Ep);
  if (M.SequenceParallel)
    Out += ", sp";
  if (M.Recomp != Recompute::None)
    Out += fmt::format(", {} recompute", recomputeName(M.Recomp).str());
  if (M.RecomputeModulesWritten && M.Recomp == Recompute::Selective) {
    std::string Modules;
    for (RecomputeModule R : M.recomputedModules())
      Modules += (Modules.empty() ? "" : ", ") + enumWord(R).str();
    Out += " (" + Modules + ")";
  }
  if (M.Pp > 1) {
    Out += ", " + scheduleName(M.Schedule).str();
    if (M.VirtualStages > 1)
      Out += fmt::format(" x{}", M.VirtualStages);
  }
  if (M.Zero)
    Out += fmt::format(", zero {}", M.Zero);
  if (M.DistributedOptimizer)
    Out += ", distributed optimizer";
  return Out;
}

static void line(llvm::raw_ostream &OS, llvm::StringRef Label,
                 const std::string &Value) {
  OS << fmt::format("  {:<20}{}\n", Label.str(), Value);
}

void printTrainingText(const Program &P, const cost::TrainingReport &R,
                       llvm::raw_ostream &OS, unsigned TopOps) {
  const ScenarioConfig &S = P.Scenario;
  OS << "train " << S.Name << ": model " << S.Model.Name << " on "
     << describePlacement(S) << ", mapping " << describeMapping(S.Mapping)
     << "; " << describeParameters(S.Model, /*Serving=*/false) << '\n';
  line(OS, "step time",
       fmt::format("{} ({} micro-batches of {} x {} tokens)",
                   duration(R.StepTime), R.MicroBatches, P.MicroBatch,
                   P.SeqLen));
  line(OS, "throughput",
       fmt::format("{} ({} per device)", si(R.TokensPerSecond, "tokens/s"),
                   si(R.TokensPerSecond / R.Devices, "tokens/s")));
  line(OS, "MFU / HFU",
       fmt::format("{} / {} of {} ({})", percent(R.Mfu), percent(R.Hfu),
                   si(S.System.Device.peak(S.Mapping.Activations), "FLOP/s"),
                   computeFormat(S.System.Device, S.Mapping.Activations)));
  line(OS, "FLOP/s per device",
       fmt::format("{} model, {} hardware", si(R.ModelFlopsRate, "FLOP/s"),
                   si(R.HardwareFlopsRate, "FLOP/s")));
  if (S.Tokens > 0) {
    line(OS, "time to train",
         fmt::format("{} for {} ({} device-hours)", duration(R.TimeToTrain),
                     si(S.Tokens, "tokens"), si(R.DeviceHours, "")));
    std::string E = energyText(R.Energy / 3600, R.TdpEnergy / 3600,
                               R.PowerPerDevice, S.System, "Wh");
    if (!E.empty())
      line(OS, "energy", E);
  }
  // The power once: on the run's line when there is one.
  std::string E = energyText(R.EnergyPerToken, R.TdpEnergyPerToken,
                             S.Tokens > 0 ? 0 : R.PowerPerDevice, S.System,
                             "J");
  if (!E.empty())
    line(OS, "energy per token", E);
  if (R.CostPerToken > 0)
    line(OS, "cost",
         fmt::format("{} per million tokens{} ({})",
                     money(R.CostPerToken * 1e6),
                     R.Cost > 0 ? ", " + money(R.Cost) + " to train"
                                : std::string(),
                     costBasis(S.System, R.CostAtTdp)));
  const cost::MemoryBreakdown &Mem = R.Memory;
  line(OS, "memory per device",
       fmt::format("{} of {} (stage {}): {}; largest: {}", si(Mem.total(), "B"),
                   si(Mem.Capacity, "B"), Mem.Stage,
                   Mem.fits() ? "fits" : "DOES NOT FIT", Mem.largest()));
  std::string EmbLogits;
  if (Mem.embeddingAndLogits() > 0)
    EmbLogits = " (embedding and logits " +
                si(Mem.embeddingAndLogits(), "B") + ")";
  std::string Quantized;
  if (Mem.QuantizedWeights > 0)
    Quantized = " (and quantized " + si(Mem.QuantizedWeights, "B") + ")";
  OS << fmt::format("    weights {}{}, gradients {}, optimizer {}, activations "
                    "{}{}, reserved {}\n",
                    si(Mem.Weights, "B"), Quantized, si(Mem.Gradients, "B"),
                    si(Mem.Optimizer, "B"), si(Mem.Activations, "B"),
                    EmbLogits, si(Mem.Reserved, "B"));

  OS << "  step breakdown (slowest stage " << R.SlowestStage << ")\n";
  auto Part = [&](llvm::StringRef Name, double T) {
    OS << fmt::format("    {:<18}{:>10} {:>6}\n", Name.str(), duration(T),
                      percent(T / R.StepTime));
  };
  Part("compute-bound", R.ComputeBound);
  Part("memory-bound", R.MemoryBoundTime);
  for (int K = 0; K < cost::NumCommKinds; ++K)
    if (R.ExposedComm[K] > 0)
      Part(std::string(cost::commKindName(static_cast<cost::CommKind>(K))) +
               " comm (exposed)",
           R.ExposedComm[K]);
  Part("pipeline bubble", R.Bubble);
  Part("optimizer", R.Optimizer);

  if (TopOps >= R.Ops.size())
    OS << fmt::format("  operators (stage {}, per step)\n", R.SlowestStage);
  else
    OS << fmt::format("  operators (stage {}, per step, longest {})\n",
                      R.SlowestStage, TopOps);
  OS << fmt::format("    {:<22}{:<11}{:>8}{:>12}{:>12}{:>9} {:<7}{:>10}{:>7}\n",
                    "name", "phase", "count", "flops", "bytes", "flop/B",
                    "bound", "time", "share");
  for (unsigned I = 0; I < R.Ops.size() && I < TopOps; ++I) {
    const cost::OpRow &O = R.Ops[I];
    OS << fmt::format(
        "    {:<22}{:<11}{:>8}{:>12}{:>12}{:>9} {:<7}{:>10}{:>7}\n", O.Name,
        phaseName(O.Ph).str(), si(O.Count, "", 3), si(O.Flops, "", 3),
        si(O.Bytes, "B", 3), si(O.intensity(), "", 3),
        O.MemoryBound ? "memory" : "compute", duration(O.Time),
        percent(O.Time / R.StepTime));
  }
  OS << "  collectives (per step)\n";
  OS << fmt::format("    {:<24}{:<11}{:<15}{:<7}{:>6}{:>11} {:<9}{:>10}{:>10}\n",
                    "name", "phase", "kind", "group", "level", "bytes",
                    "algorithm", "time", "exposed");
  for (const cost::CollectiveRow &C : R.Collectives)
    OS << fmt::format(
        "    {:<24}{:<11}{:<15}{:<7}{:>6}{:>11} {:<9}{:>10}{:>10}\n", C.Name,
        phaseName(C.Ph).str(), collectiveName(C.Kind).str(),
        parallelDimName(C.Group).str() + "/" + std::to_string(C.GroupSize),
        C.FabricLevel, si(C.Bytes, "B", 3), C.Algorithm, duration(C.Time),
        duration(C.Exposed));
}

} // namespace report
} // namespace llmsys
