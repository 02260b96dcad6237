//===- Evaluate.cpp - a scenario from spec to results --------------------------===//

#include "Cost/Evaluate.h"

using llvm::StringRef;

namespace llmsys {
namespace cost {

std::optional<Evaluation> evaluate(const ir::ScenarioConfig &S,
                                   passes::PassContext &Ctx,
                                   bool Detail) {
  // Built in place (one return object): programs and reports are large
  // enough that moving them costs in a sweep.
  std::optional<Evaluation> E(std::in_place);
  if (!evaluateInto(S, Ctx, *E, Detail))
    E.reset();
  return E;
}

bool evaluateInto(const ir::ScenarioConfig &S, passes::PassContext &Ctx,
                  Evaluation &E, bool Detail) {
  if (!passes::buildProgram(S, Ctx, E.Program))
    return false;
  E.Training = S.Training;
  if (S.Training) {
    costTraining(E.Program, Detail, E.Train);
    return true;
  }
  E.Serve = costServing(E.Program, Detail);
  if (!Detail)
    return true;
  // The decode crossover compares the decode step at batches 1 and 2.
  ir::ScenarioConfig One = S, Two = S;
  One.Batch = 1;
  Two.Batch = 2;
  passes::PassContext Quiet;
  std::optional<ir::Program> P1 = passes::buildProgram(One, Quiet);
  std::optional<ir::Program> P2 = passes::buildProgram(Two, Quiet);
  if (P1 && P2)
    setDecodeCrossover(E.Serve, *P1, *P2);
  return true;
}

std::optional<double> Evaluation::figure(llvm::StringRef Name) const {
  if (Training) {
    const TrainingReport &R = Train;
    if (Name == "step_time")
      return R.StepTime;
    if (Name == "throughput")
      return R.TokensPerSecond;
    if (Name == "throughput_per_device")
      return R.Devices > 0 ? R.TokensPerSecond / double(R.Devices) : 0.0;
    if (Name == "mfu")
      return R.Mfu;
    if (Name == "hfu")
      return R.Hfu;
    if (Name == "model_flops_rate")
      return R.ModelFlopsRate;
    if (Name == "hardware_flops_rate")
      return R.HardwareFlopsRate;
    if (Name == "peak_memory")
      return R.Memory.total();
    if (Name == "fits")
      return R.Memory.fits() ? 1.0 : 0.0;
    if (Name == "time_to_train" && R.TimeToTrain > 0)
      return R.TimeToTrain;
    if (Name == "energy" && R.Energy > 0)
      return R.Energy;
    if (Name == "energy_per_token" && R.EnergyPerToken > 0)
      return R.EnergyPerToken;
    if (Name == "cost" && R.Cost > 0)
      return R.Cost;
    if (Name == "cost_per_token" && R.CostPerToken > 0)
      return R.CostPerToken;
    return std::nullopt;
  }
  const ServingReport &R = Serve;
  if (Name == "ttft")
    return R.Ttft;
  if (Name == "tpot" && R.Tpot > 0)
    return R.Tpot;
  if (Name == "e2e")
    return R.E2E;
  if (Name == "throughput")
    return R.Throughput;
  if (Name == "throughput_per_device")
    return R.ThroughputPerDevice;
  if (Name == "prefill_layer_time")
    return R.PrefillLayerTime;
  if (Name == "decode_layer_time" && R.DecodeLayerTime > 0)
    return R.DecodeLayerTime;
  if (Name == "max_batch")
    return double(R.MaxBatch);
  if (Name == "peak_memory")
    return R.Memory.total();
  if (Name == "fits")
    return R.Memory.fits() ? 1.0 : 0.0;
  if (Name == "energy_per_token" && R.EnergyPerToken > 0)
    return R.EnergyPerToken;
  if (Name == "cost_per_token" && R.CostPerToken > 0)
    return R.CostPerToken;
  return std::nullopt;
}

const char *Evaluation::missingReason(StringRef Name) {
  if (Name.startswith("energy"))
    return "energy needs the accelerator's tdp";
  if (Name.startswith("cost"))
    return "cost needs the accelerator's price and the system's lifetime "
           "and energy_price";
  if (Name == "time_to_train")
    return "time to train needs the scenario's tokens";
  if (Name == "tpot" || Name == "decode_layer_time")
    return "the decode needs output > 1";
  return "this version does not compute it";
}

} // namespace cost
} // namespace llmsys
