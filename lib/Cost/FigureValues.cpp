//===- FigureValues.cpp - the figures of Figures.def from a report ------------===//
//
// The one place that says which report field a figure is. A figure that
// needs inputs the scenario lacks (a price, a TDP, tokens, a decode) has no
// value rather than a zero.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

namespace llmsys {
namespace cost {

using ir::FigureID;

static std::optional<double> positive(double V) {
  return V > 0 ? std::optional<double>(V) : std::nullopt;
}

std::optional<double> figureValue(const TrainingReport &R, FigureID F) {
  switch (F) {
  case FigureID::StepTime: return R.StepTime;
  case FigureID::TrainThroughput: return R.TokensPerSecond;
  case FigureID::TrainThroughputPerDevice:
    return R.Devices > 0 ? R.TokensPerSecond / double(R.Devices) : 0.0;
  case FigureID::Mfu: return R.Mfu;
  case FigureID::Hfu: return R.Hfu;
  case FigureID::ModelFlopsRate: return R.ModelFlopsRate;
  case FigureID::HardwareFlopsRate: return R.HardwareFlopsRate;
  case FigureID::CommShare: {
    double Comm = 0;
    for (double T : R.ExposedComm)
      Comm += T;
    return R.StepTime > 0 ? Comm / R.StepTime : 0.0;
  }
  case FigureID::TimeToTrain: return positive(R.TimeToTrain);
  case FigureID::TrainEnergy: return positive(R.Energy);
  case FigureID::TrainEnergyPerToken: return positive(R.EnergyPerToken);
  case FigureID::TrainTdpEnergy: return positive(R.TdpEnergy);
  case FigureID::TrainTdpEnergyPerToken: return positive(R.TdpEnergyPerToken);
  case FigureID::TrainPowerPerDevice: return positive(R.PowerPerDevice);
  case FigureID::TrainDataEnergyPerToken: return positive(R.DataEnergyPerToken);
  case FigureID::TrainCost: return positive(R.Cost);
  case FigureID::TrainCostPerToken: return positive(R.CostPerToken);
  case FigureID::TrainPeakMemory: return R.Memory.total();
  case FigureID::TrainFits: return R.Memory.fits() ? 1.0 : 0.0;
  default: return std::nullopt;
  }
}

std::optional<double> figureValue(const ServingReport &R, FigureID F) {
  switch (F) {
  case FigureID::Ttft: return R.Ttft;
  case FigureID::Tpot: return positive(R.Tpot);
  case FigureID::E2E: return R.E2E;
  case FigureID::ServeThroughput: return R.Throughput;
  case FigureID::ServeThroughputPerDevice: return R.ThroughputPerDevice;
  case FigureID::PrefillLayerTime: return R.PrefillLayerTime;
  case FigureID::DecodeLayerTime: return positive(R.DecodeLayerTime);
  case FigureID::MaxBatch: return double(R.MaxBatch);
  case FigureID::ServePeakMemory: return R.Memory.total();
  case FigureID::ServeFits: return R.Memory.fits() ? 1.0 : 0.0;
  case FigureID::ServeEnergyPerToken: return positive(R.EnergyPerToken);
  case FigureID::ServeTdpEnergyPerToken: return positive(R.TdpEnergyPerToken);
  case FigureID::ServePowerPerDevice: return positive(R.PowerPerDevice);
  case FigureID::ServeDataEnergyPerToken: return positive(R.DataEnergyPerToken);
  case FigureID::ServeCostPerToken: return positive(R.CostPerToken);
  default: break;
  }
  // The distribution over requests, with traffic only.
  const TrafficReport &T = R.Traffic;
  if (!T.Simulated)
    return std::nullopt;
  bool Decode = R.Tpot > 0;
  switch (F) {
  case FigureID::RequestThroughput: return T.RequestRate;
  case FigureID::MeanBatch: return T.MeanBatch;
  case FigureID::Goodput:
    return T.Goodput >= 0 ? std::optional<double>(T.Goodput) : std::nullopt;
  case FigureID::TtftP50: return T.Ttft.P50;
  case FigureID::TtftP90: return T.Ttft.P90;
  case FigureID::TtftP99: return T.Ttft.P99;
  case FigureID::TpotP50: return Decode ? std::optional<double>(T.Tpot.P50) : std::nullopt;
  case FigureID::TpotP90: return Decode ? std::optional<double>(T.Tpot.P90) : std::nullopt;
  case FigureID::TpotP99: return Decode ? std::optional<double>(T.Tpot.P99) : std::nullopt;
  case FigureID::E2EP50: return T.E2E.P50;
  case FigureID::E2EP90: return T.E2E.P90;
  case FigureID::E2EP99: return T.E2E.P99;
  default: return std::nullopt;
  }
}

} // namespace cost
} // namespace llmsys
