//===- DataEnergy.cpp - the energy of a device's activity --------------------===//
//
// The FLOPs a step computes, each at the flop_energy of the format it runs
// in (fp8 on a device without fp8 runs, and is charged, as bf16), and the
// bytes it moves, times what moving a byte costs where it moves:
// every operator's device-memory bytes (read and written, unfused) at the
// energy_per_bit of the memory technology the accelerator's `hbm` names,
// and every collective's bytes on the wire at the energy_per_bit of the
// fabric it crosses (the node's inside a node, the system's across
// nodes). On the wire a device sends 2 (n - 1) / n of an all-reduce's
// message, (n - 1) / n of an all-gather's, reduce-scatter's or
// all-to-all's, and all of a send/recv's. Static power, drawn for the
// whole run whatever runs, is added by the callers (EnergyCost.cpp).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include <algorithm>

namespace llmsys {
namespace cost {

using namespace ir;

void DataTraffic::add(const Op &O, double Times, double Context,
                      const SystemConfig &Sys) {
  if (O.isCollective()) {
    addWire(O, Times, collectiveTime(O, Sys).WireBytes);
    return;
  }
  if (!movesDeviceMemory(O))
    return;
  Memory += Times * (O.BytesRead + O.BytesWritten +
                     O.BytesPerContext * O.contextRead(Context));
  // The FLOPs the op's kernel runs (a causal kernel skips the masked
  // tiles: Executed), as dense ones.
  double F = O.Flops + O.FlopsPerContext * O.contextRead(Context);
  if (F > 0)
    (O.SparseWeight ? SparseFlops : Flops)[static_cast<int>(O.Type)] +=
        Times * F * O.Executed;
}

void DataTraffic::add(const DataTraffic &D, double Times) {
  Memory += Times * D.Memory;
  ScaleUp += Times * D.ScaleUp;
  ScaleOut += Times * D.ScaleOut;
  for (int I = 0; I < NumDTypes; ++I) {
    Flops[I] += Times * D.Flops[I];
    SparseFlops[I] += Times * D.SparseFlops[I];
  }
}

double DataTraffic::computeEnergy(const AcceleratorConfig &A) const {
  double E = 0;
  double Sparse = std::max(1.0, A.Sparsity);
  for (int I = 0; I < NumDTypes; ++I) {
    double F = Flops[I] + SparseFlops[I] / Sparse;
    if (F <= 0)
      continue;
    double PerFlop = A.FlopEnergy[static_cast<int>(A.runsAs(DType(I)))];
    if (PerFlop <= 0)
      return -1;
    E += F * PerFlop;
  }
  return E;
}

double DataTraffic::activityEnergy(const SystemConfig &Sys) const {
  double Bytes = energy(Sys), Compute = computeEnergy(Sys.Device);
  if ((Bytes <= 0 && any()) || Compute < 0)
    return -1;
  return Bytes + Compute;
}

double DataTraffic::energy(const SystemConfig &Sys) const {
  const NetworkConfig &Up = Sys.ScaleUp, &Out = Sys.ScaleOut;
  if (Sys.Device.HbmEnergyPerByte <= 0 ||
      (ScaleUp > 0 && Up.EnergyPerByte <= 0) ||
      (ScaleOut > 0 && Out.EnergyPerByte <= 0))
    return 0;
  return Memory * Sys.Device.HbmEnergyPerByte + ScaleUp * Up.EnergyPerByte +
         ScaleOut * Out.EnergyPerByte;
}

} // namespace cost
} // namespace llmsys
