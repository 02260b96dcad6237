//===- OpCost.cpp - one operator's time -------------------------------------===//
//
// Roofline first: t = max(FLOPs / (peak eta_c), bytes / (bandwidth eta_m))
// plus a launch overhead (Williams et al. 2009), with eta_c shape-aware for
// contractions: the accelerator's largest achieved fraction, times tile
// quantization (each of M, N, K rounded up to the tile) and wave
// quantization (the last wave of tiles leaves compute units idle). Validated
// against measured A100 GEMMs (docs/validation.md).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include <algorithm>
#include <cmath>

namespace llmsys {
namespace cost {

using namespace ir;

static double roundUp(double V, double To) { return std::ceil(V / To) * To; }

double gemmEfficiency(const Op &O, const AcceleratorConfig &A) {
  double M = std::max<double>(1, O.M), N = std::max<double>(1, O.N),
         K = std::max<double>(1, O.K);
  double Tm = std::max<int64_t>(1, A.TileM), Tn = std::max<int64_t>(1, A.TileN),
         Tk = std::max<int64_t>(1, A.TileK);
  double Tile = (M * N * K) / (roundUp(M, Tm) * roundUp(N, Tn) * roundUp(K, Tk));
  double Wave = 1;
  if (A.ComputeUnits > 0) {
    double Tiles = std::ceil(M / Tm) * std::ceil(N / Tn) * std::max<int64_t>(1, O.Batch);
    Wave = Tiles / roundUp(Tiles, double(A.ComputeUnits));
  }
  return A.ComputeEfficiency * Tile * Wave;
}

OpTime opTime(const Op &O, const AcceleratorConfig &A, double Context) {
  OpTime T;
  if (O.Fused || O.isCollective())
    return T;
  double Flops = O.Flops + O.FlopsPerContext * Context;
  double Bytes = O.BytesRead + O.BytesWritten + O.BytesPerContext * Context;
  double Peak = A.peak(O.Type);
  double Efficiency = O.Category == OpCategory::Contraction
                          ? gemmEfficiency(O, A)
                          : A.ComputeEfficiency;
  T.Efficiency = Efficiency;
  if (Flops > 0 && Peak > 0 && Efficiency > 0)
    T.Compute = Flops / (Peak * Efficiency);
  double Bandwidth = A.HbmBandwidth * A.MemoryEfficiency;
  if (Bytes > 0 && Bandwidth > 0)
    T.Memory = Bytes / Bandwidth;
  T.MemoryBound = T.Memory > T.Compute;
  T.Overhead = (Flops > 0 || Bytes > 0) ? A.KernelOverhead : 0;
  T.Time = std::max(T.Compute, T.Memory) + T.Overhead;
  return T;
}

} // namespace cost
} // namespace llmsys
