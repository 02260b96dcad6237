//===- Trend.h - a quantity of dated accelerators, fitted -------*- C++ -*-===//
//
// A `trend` entity: one quantity (a peak, memory bandwidth or capacity, a
// link's bandwidth, TDP) of accelerators, each dated by its `year`, fitted
// by least squares as log(value) = a + b year. The growth per period is
// exp(b x period), with exp((b -/+ se(b)) x period) as its error (the
// standard error of the slope; none through two points) and R^2 of the
// log fit (docs/language.md, "Trends").
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_DRIVER_TREND_H
#define LLMSYS_DRIVER_TREND_H

#include "Basic/Diagnostics.h"
#include "IR/Spec.h"

#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace driver {

struct TrendPoint {
  std::string Accelerator;
  int64_t Year = 0;
  double Value = 0;  ///< base units
  double Fitted = 0; ///< the fit at Year
};

struct TrendFit {
  std::string Name;
  std::string Quantity; ///< "peak.bf16", "hbm.bandwidth", ...
  std::string Unit;     ///< of Value ("FLOP/s", "B/s", "B", "W")
  double PerYears = 2;
  std::vector<TrendPoint> Points; ///< in the order of `of`
  double Growth = 1;              ///< per PerYears
  /// Growth at the slope -/+ its standard error (nullopt through two
  /// points).
  std::optional<double> GrowthLow, GrowthHigh;
  double R2 = 1;
  std::optional<double> Reference; ///< written, per PerYears
  int64_t FirstYear = 0, LastYear = 0;
};

/// Fits the trend T; nullopt after a located error (an accelerator
/// without a year or without the quantity, fewer than two years).
std::optional<TrendFit> fitTrend(const spec::Object &T, DiagnosticEngine &Diags);

} // namespace driver
} // namespace llmsys

#endif
