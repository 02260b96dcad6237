//===- Trend.cpp - a quantity of dated accelerators, fitted ------------------===//

#include "Driver/Trend.h"

#include "IR/Scenario.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <set>

using namespace llvm;

namespace llmsys {
namespace driver {

using namespace ir;

namespace {

/// The quantity of an accelerator, and its name and unit; 0 when unset.
struct Quantity {
  std::string Name, Unit;
  double Value = 0;
};

Quantity quantityOf(const spec::Object &A, TrendQuantity Q, DType Format) {
  AcceleratorConfig C = acceleratorFromSpec(A);
  auto Link = [&](AcceleratorField F) {
    const spec::Object *N = spec::objectOf(A.ifSet(F));
    return N ? spec::numberOf(N->ifSet(NetworkField::Bandwidth), 0) : 0.0;
  };
  switch (Q) {
  case TrendQuantity::Peak:
    return {"peak." + enumWord(Format).str(), "FLOP/s",
            C.Peak[static_cast<int>(Format)]};
  case TrendQuantity::NarrowestPeak:
    for (DType T : {DType::FP4, DType::FP8, DType::FP16, DType::BF16,
                    DType::TF32, DType::FP32, DType::FP64})
      if (C.Peak[static_cast<int>(T)] > 0)
        return {"peak (narrowest format)", "FLOP/s",
                C.Peak[static_cast<int>(T)]};
    return {"peak (narrowest format)", "FLOP/s", 0};
  case TrendQuantity::MemoryBandwidth:
    return {"hbm.bandwidth", "B/s", C.HbmBandwidth};
  case TrendQuantity::MemoryCapacity:
    return {"hbm.capacity", "B", C.HbmCapacity};
  case TrendQuantity::ScaleUpBandwidth:
    return {"scale_up.bandwidth", "B/s", Link(AcceleratorField::ScaleUp)};
  case TrendQuantity::ScaleOutBandwidth:
    return {"scale_out.bandwidth", "B/s", Link(AcceleratorField::ScaleOut)};
  case TrendQuantity::Tdp:
    return {"tdp", "W", C.Tdp};
  }
  return {};
}

} // namespace

std::optional<TrendFit> fitTrend(const spec::Object &T, DiagnosticEngine &Diags) {
  TrendFit F;
  F.Name = T.Name;
  auto Q = checkedEnum<TrendQuantity>(spec::wordOf(T.ifSet(TrendField::Quantity)));
  DType Format = checkedEnum<DType>(spec::wordOf(T.ifSet(TrendField::Precision)));
  F.PerYears = spec::numberOf(T.ifSet(TrendField::Per), 2 * 365.25 * 86400) /
               (365.25 * 86400);
  if (const spec::Field *R = T.ifSet(TrendField::Reference))
    F.Reference = R->V.Num;
  const spec::Field *Of = T.ifSet(TrendField::Of);
  bool Ok = true;
  std::set<int64_t> Years;
  for (const spec::Value &V : Of->V.elems()) {
    const spec::Object *A = V.Obj;
    if (!A)
      continue;
    if (llvm::any_of(F.Points, [&](const TrendPoint &P) {
          return P.Accelerator == A->Name;
        })) {
      Diags.report<DiagID::err_trend_twice>(Of->Loc, T.Name, A->Name);
      Ok = false;
      continue;
    }
    Quantity Qty = quantityOf(*A, Q, Format);
    F.Quantity = Qty.Name;
    F.Unit = Qty.Unit;
    const spec::Field *Year = A->ifSet(AcceleratorField::Year);
    if (!Year || !(Qty.Value > 0)) {
      Diags.report<DiagID::err_trend_point>(Of->Loc, T.Name,
                                            !Year ? "the year" : Qty.Name,
                                            A->Name);
      Ok = false;
      continue;
    }
    // A derived part (a variant, a shrink) need not come out the year of
    // the part it extends.
    if (Year->From == spec::Origin::Inherited && Year->InheritedFrom)
      Diags.report<DiagID::warn_trend_year_inherited>(
          Of->Loc, T.Name, A->Name, Year->InheritedFrom->Name,
          spec::integerOf(Year, 0));
    TrendPoint P;
    P.Accelerator = A->Name;
    P.Year = spec::integerOf(Year, 0);
    P.Value = Qty.Value;
    Years.insert(P.Year);
    F.Points.push_back(std::move(P));
  }
  if (!Ok)
    return std::nullopt;
  if (Years.size() < 2) {
    Diags.report<DiagID::err_trend_years>(
        Of->Loc, T.Name,
        Years.empty() ? std::string("it has none")
                      : "all are of " + std::to_string(*Years.begin()));
    return std::nullopt;
  }
  // Least squares of ln(value) on the year.
  double N = double(F.Points.size()), SX = 0, SY = 0;
  for (const TrendPoint &P : F.Points) {
    SX += double(P.Year);
    SY += std::log(P.Value);
  }
  double MX = SX / N, MY = SY / N, Sxx = 0, Sxy = 0, Syy = 0;
  for (const TrendPoint &P : F.Points) {
    double DX = double(P.Year) - MX, DY = std::log(P.Value) - MY;
    Sxx += DX * DX;
    Sxy += DX * DY;
    Syy += DY * DY;
  }
  double Slope = Sxy / Sxx, Intercept = MY - Slope * MX, Residual = 0;
  for (TrendPoint &P : F.Points) {
    double Fit = Intercept + Slope * double(P.Year);
    P.Fitted = std::exp(Fit);
    Residual += std::pow(std::log(P.Value) - Fit, 2);
  }
  F.Growth = std::exp(Slope * F.PerYears);
  F.R2 = Syy > 0 ? 1 - Residual / Syy : 1;
  if (F.Points.size() > 2) {
    double Se = std::sqrt(Residual / (N - 2) / Sxx);
    F.GrowthLow = std::exp((Slope - Se) * F.PerYears);
    F.GrowthHigh = std::exp((Slope + Se) * F.PerYears);
  }
  F.FirstYear = *Years.begin();
  F.LastYear = *Years.rbegin();
  return F;
}

} // namespace driver
} // namespace llmsys
