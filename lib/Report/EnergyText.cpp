//===- EnergyText.cpp - the words for a run's energy and cost ---------------===//

#include "Report/EnergyText.h"
#include "Report/Format.h"

#include <fmt/format.h>

namespace llmsys {
namespace report {

std::string energyText(double Activity, double AtTdp, double Power,
                       const ir::SystemConfig &Sys, const char *Unit,
                       llvm::StringRef Why) {
  std::string Pue =
      Sys.Pue != 1 ? fmt::format(" x PUE {:g}", Sys.Pue) : std::string();
  if (Activity > 0) {
    std::string Also;
    if (Power > 0)
      Also = si(Power, "W") + " per device";
    if (AtTdp > 0)
      Also += (Also.empty() ? "" : "; ") +
              fmt::format("{} at TDP{}", si(AtTdp, Unit), Pue);
    return fmt::format("{} from activity{}", si(Activity, Unit),
                       Also.empty() ? std::string() : " (" + Also + ")");
  }
  if (AtTdp > 0)
    return fmt::format("{} at TDP{} (an upper bound: {})", si(AtTdp, Unit),
                       Pue,
                       Why.empty() ? "static_power, flop_energy or an "
                                     "energy_per_bit for activity is missing"
                                   : Why.str());
  return "";
}

std::string costBasis(const ir::SystemConfig &Sys, bool ElectricityAtTdp) {
  std::string Basis;
  if (Sys.Rented) {
    Basis = fmt::format("rented at {} per device-hour", money(Sys.Rent * 3600));
  } else {
    std::string What = "devices";
    if (Sys.HostPrice > 0 && Sys.NetworkPrice > 0)
      What += ", hosts and network";
    else if (Sys.HostPrice > 0)
      What += " and hosts";
    else if (Sys.NetworkPrice > 0)
      What += " and network";
    Basis = fmt::format("owned: {} over {}", What, duration(Sys.Lifetime));
    if (Sys.FacilityPrice > 0)
      Basis += fmt::format(", facility over {}", duration(Sys.FacilityLifetime));
    Basis += fmt::format(", electricity at {:.3g} USD/kWh{}",
                         Sys.EnergyPrice * 3.6e6,
                         ElectricityAtTdp ? " at TDP" : "");
  }
  if (Sys.Utilization < 1)
    Basis += fmt::format(", {} utilized", percent(Sys.Utilization, 0));
  return Basis;
}

} // namespace report
} // namespace llmsys
