//===- EnergyText.h - the words for a run's energy and cost -----*- C++ -*-===//
//
// Training and serving text reports say what their energy and cost
// figures count, in the same words.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_ENERGYTEXT_H
#define LLMSYS_REPORT_ENERGYTEXT_H

#include "IR/Scenario.h"
#include <string>

namespace llmsys {
namespace report {

/// "2.10 J from activity (412 W per device; 3.18 J at TDP x PUE 1.2)",
/// or the TDP bound alone when the activity's inputs are missing; "" when
/// neither is computable. Unit: "J" per token, "Wh" for a whole run;
/// Power 0 leaves the power out.
/// Why says why the activity is missing ("" for a missing input).
std::string energyText(double Activity, double AtTdp, double Power,
                       const ir::SystemConfig &Sys, const char *Unit,
                       llvm::StringRef Why = "");

/// What a cost counts: "rented at 2.00 USD per device-hour" or "owned:
/// devices, hosts and network over 5 years, facility over 15 years,
/// electricity at 0.0806 USD/kWh", and the utilization when below 1.
std::string costBasis(const ir::SystemConfig &Sys, bool ElectricityAtTdp);

} // namespace report
} // namespace llmsys

#endif
