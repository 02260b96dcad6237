//===- Require.cpp - the least hardware that meets a scenario's SLOs -------===//

#include "Driver/Require.h"

#include <cmath>

namespace llmsys {
namespace driver {

using namespace cost;

using namespace ir;

static bool slosMet(const ServingReport &R) {
  for (const SloCheck &C : R.Slo)
    if (!C.Met)
      return false;
  return true;
}

namespace {
/// Scales one resource of the program's device by a factor.
struct Resource {
  const char *Name;
  const char *Unit;
  double (*Have)(const SystemConfig &, DType);
  void (*Scale)(SystemConfig &, double);
};
} // namespace

static const Resource Resources[] = {
    {"compute", "FLOP/s",
     [](const SystemConfig &S, DType T) { return S.Device.peak(T); },
     [](SystemConfig &S, double F) {
       for (double &P : S.Device.Peak)
         P *= F;
     }},
    {"memory bandwidth", "B/s",
     [](const SystemConfig &S, DType) { return S.Device.HbmBandwidth; },
     [](SystemConfig &S, double F) { S.Device.HbmBandwidth *= F; }},
    {"interconnect bandwidth", "B/s",
     [](const SystemConfig &S, DType) { return S.ScaleUp.Bandwidth; },
     [](SystemConfig &S, double F) {
       S.ScaleUp.Bandwidth *= F;
       S.ScaleOut.Bandwidth *= F;
     }},
};

RequireReport require(const Program &P, const ProgramAtBatch *AtBatch,
                      const PrefillPool &Pool) {
  RequireReport Out;
  bool Traffic = P.Scenario.Traffic.Enabled && AtBatch;
  bool Pools = Traffic && Pool.Prefill && Pool.AtPrefill;
  // A serving run on a system: the static batch, or the requests in flight
  // (a cache too small for a request meets nothing), on one pool of
  // engines or two.
  Program PoolOn = Pools ? *Pool.Prefill : Program();
  auto Serve = [&](const Program &Q, const SystemConfig *On,
                   ServingReport &R) {
    R = costServing(Q);
    if (!Pools)
      return !Traffic || simulateTraffic(Q, *AtBatch, R, nullptr, On);
    PoolOn.Scenario.System = Q.Scenario.System;
    ServingReport RP = costServing(PoolOn);
    return simulateDisaggregated(PoolOn, *Pool.AtPrefill, RP, Q, *AtBatch, R,
                                 nullptr, nullptr, On);
  };
  bool Ran = Serve(P, nullptr, Out.AsIs);
  Out.MetNow = Ran && slosMet(Out.AsIs) && Out.AsIs.Memory.fits();
  const SystemConfig &Sys = P.Scenario.System;
  DType Act = P.Scenario.Mapping.Activations;

  Program Scaled = P;
  ServingReport Trial;
  auto MetAt = [&](const Resource &Res, double F) {
    Scaled.Scenario.System = Sys;
    Res.Scale(Scaled.Scenario.System, F);
    return Serve(Scaled, &Scaled.Scenario.System, Trial) && slosMet(Trial);
  };
  for (const Resource &Res : Resources) {
    Requirement Row;
    Row.Resource = Res.Name;
    Row.Unit = Res.Unit;
    Row.Have = Res.Have(Sys, Act);
    double Lo = 1 / RequireRange, Hi = RequireRange;
    if (Row.Have <= 0 || MetAt(Res, Lo)) {
      Row.K = Requirement::Kind::AnyValue;
    } else if (!MetAt(Res, Hi)) {
      Row.K = Requirement::Kind::Unreachable;
    } else {
      // Geometric bisection to a relative width of 1e-6.
      while (Hi / Lo > 1 + 1e-6) {
        double Mid = std::sqrt(Lo * Hi);
        (MetAt(Res, Mid) ? Hi : Lo) = Mid;
      }
      Row.Need = Row.Have * Hi;
    }
    Out.Rows.push_back(Row);
  }
  // Capacity does not change a time: what is needed is what the batch
  // occupies (weights, KV cache, activations, reserve).
  Requirement Cap;
  Cap.Resource = "memory capacity";
  Cap.Unit = "B";
  Cap.Have = Sys.Device.HbmCapacity;
  Cap.Need = Out.AsIs.Memory.total();
  Out.Rows.insert(Out.Rows.begin() + 2, Cap);

  // Met: the tightest resource, the first to miss if the device shrank.
  // Missed: among the resources that alone would meet the SLOs (every one
  // short of its need is), the smallest upgrade; none if no single one can.
  bool CapacityShort = Cap.Need > Cap.Have;
  for (size_t I = 0; I < Out.Rows.size(); ++I) {
    const Requirement &Q = Out.Rows[I];
    if (Q.K != Requirement::Kind::Needed)
      continue;
    if (!Out.MetNow && (Q.ratio() <= 1 || (CapacityShort && &Q != &Out.Rows[2])))
      continue;
    if (Out.Binding < 0 ||
        (Out.MetNow ? Q.ratio() > Out.Rows[Out.Binding].ratio()
                    : Q.ratio() < Out.Rows[Out.Binding].ratio()))
      Out.Binding = static_cast<int>(I);
  }
  return Out;
}

} // namespace driver
} // namespace llmsys
