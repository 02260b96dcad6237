//===- EnergyCost.cpp - energy and cost of a run per unit of its output -----===//
//
// Energy from activity: every charged device draws its static power for
// the whole run, and its FLOPs and the bytes it moves cost their energy
// on top (DataEnergy.cpp); the facility's PUE scales both to the wall.
// Devices x TDP x PUE x time is kept as an upper bound.
//
// Cost: owning pays the devices, their hosts and their share of the
// network, amortised over the system's lifetime, the facility built for
// their TDP, amortised over its own, and electricity at its price;
// renting pays a price per device-hour. Both pay for the time the system
// is not doing this work (utilization), and an owned system's idle
// devices draw their static power then (docs/cost-model.md, "Energy and
// cost").
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

namespace llmsys {
namespace cost {

using namespace ir;

RunCharge chargeRun(const SystemConfig &Sys, double Charged, double Working,
                    double SecondsPerUnit, double DynamicPerUnit) {
  RunCharge C;
  if (!(SecondsPerUnit > 0) || !(Charged > 0) || !(Working > 0))
    return C;
  const AcceleratorConfig &A = Sys.Device;
  double DeviceSeconds = Charged * SecondsPerUnit;
  if (A.Tdp > 0)
    C.TdpEnergyPerUnit = A.Tdp * Sys.Pue * DeviceSeconds;
  // At the devices, then at the wall.
  double Activity = -1;
  if (A.StaticPower > 0 && DynamicPerUnit >= 0) {
    Activity = A.StaticPower * DeviceSeconds + DynamicPerUnit;
    C.EnergyPerUnit = Activity * Sys.Pue;
    // A working device's: the charged idle ones draw static power only.
    C.PowerPerDevice = A.StaticPower + DynamicPerUnit /
                                           (Working * SecondsPerUnit);
  }
  double Paid = DeviceSeconds / Sys.Utilization; // the idle time included
  if (Sys.Rented) {
    C.CostPerUnit = Sys.Rent > 0 ? Sys.Rent * Paid : 0;
    return C;
  }
  if (A.Price <= 0 || Sys.Lifetime <= 0 || Sys.EnergyPrice <= 0)
    return C;
  double Capital = A.Price + Sys.HostPrice / double(Sys.DevicesPerNode) +
                   Sys.NetworkPrice;
  double Rate = Capital / Sys.Lifetime;
  if (Sys.FacilityPrice > 0) {
    // The facility is sized by the devices' TDP and amortised over its
    // own lifetime (a sweep point may lack one; Sema refuses a spec that
    // does).
    if (A.Tdp <= 0 || Sys.FacilityLifetime <= 0)
      return C;
    Rate += Sys.FacilityPrice * A.Tdp / Sys.FacilityLifetime;
  }
  // Electricity: the run's activity and static power while idle, or,
  // without the activity's inputs, TDP all the time (an upper bound).
  double Energy;
  if (Activity >= 0) {
    Energy = Activity + A.StaticPower * (Paid - DeviceSeconds);
  } else if (A.Tdp > 0) {
    Energy = A.Tdp * Paid;
    C.CostAtTdp = true;
  } else {
    return C;
  }
  C.CostPerUnit = Rate * Paid + Sys.EnergyPrice * Sys.Pue * Energy;
  return C;
}

} // namespace cost
} // namespace llmsys
