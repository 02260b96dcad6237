//===- TrendReport.cpp - fitted trends for people and tools -----------------===//

#include "Report/TrendReport.h"

#include "Report/Format.h"

#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace report {

using driver::TrendFit;

static std::string per(const TrendFit &T) {
  return T.PerYears == 1 ? std::string("per year")
                         : fmt::format("per {:g} years", T.PerYears);
}

/// "x2.28 per 2 years (x2.05 .. x2.53 within one standard error of the
/// slope), R^2 0.981".
static std::string growth(const TrendFit &T) {
  std::string S = fmt::format("x{:.2f} {}", T.Growth, per(T));
  if (T.GrowthLow && T.GrowthHigh)
    S += fmt::format(" (x{:.2f} .. x{:.2f} within one standard error of the "
                     "slope), R^2 {:.3f}",
                     *T.GrowthLow, *T.GrowthHigh, T.R2);
  else
    S += " (through two points: no error)";
  return S;
}

static std::string reference(const TrendFit &T) {
  return fmt::format("x{:.2f} {} (the fit is {:.2f}x of it)", *T.Reference,
                     per(T), T.Growth / *T.Reference);
}

void printTrendText(const TrendFit &T, raw_ostream &OS) {
  OS << fmt::format("trend {}: {} of {} accelerators, {} .. {}\n", T.Name,
                    T.Quantity, T.Points.size(), T.FirstYear, T.LastYear);
  OS << "  growth     " << growth(T) << '\n';
  if (T.Reference)
    OS << "  reference  " << reference(T) << '\n';
  size_t Width = 11;
  for (const driver::TrendPoint &P : T.Points)
    Width = std::max(Width, P.Accelerator.size());
  OS << fmt::format("  {:<{}}  {:>4}  {:>16}  {:>16}  {:>8}\n", "accelerator",
                    Width, "year", "value", "fit", "value/fit");
  for (const driver::TrendPoint &P : T.Points)
    OS << fmt::format("  {:<{}}  {:>4}  {:>16}  {:>16}  {:>8.3f}\n",
                      P.Accelerator, Width, P.Year, si(P.Value, T.Unit, 4),
                      si(P.Fitted, T.Unit, 4), P.Value / P.Fitted);
}

Section trendSection(const TrendFit &T) {
  Section S;
  S.Heading = fmt::format("trend `{}`: {}", T.Name, T.Quantity);
  S.Text = fmt::format("{} accelerators, {} .. {}: {}.", T.Points.size(),
                       T.FirstYear, T.LastYear, growth(T));
  if (T.Reference)
    S.Text += " Reference: " + reference(T) + ".";
  Table Tb;
  Tb.Columns = {"accelerator", "year", "value", "fit", "value/fit"};
  Tb.RightAligned = {false, true, true, true, true};
  for (const driver::TrendPoint &P : T.Points)
    Tb.Rows.push_back({P.Accelerator, std::to_string(P.Year),
                       si(P.Value, T.Unit, 4), si(P.Fitted, T.Unit, 4),
                       fmt::format("{:.3f}", P.Value / P.Fitted)});
  S.Tables.push_back(std::move(Tb));
  return S;
}

json::Value trendJson(const TrendFit &T) {
  auto Opt = [](std::optional<double> V) {
    return V ? json::Value(*V) : json::Value(nullptr);
  };
  json::Array Points;
  for (const driver::TrendPoint &P : T.Points)
    Points.push_back(json::Object{{"accelerator", P.Accelerator},
                                  {"year", P.Year},
                                  {"value", P.Value},
                                  {"fitted", P.Fitted}});
  return json::Object{{"name", T.Name},
                      {"quantity", T.Quantity},
                      {"unit", T.Unit},
                      {"per_years", T.PerYears},
                      {"growth", T.Growth},
                      {"growth_low", Opt(T.GrowthLow)},
                      {"growth_high", Opt(T.GrowthHigh)},
                      {"r2", T.R2},
                      {"reference", Opt(T.Reference)},
                      {"first_year", T.FirstYear},
                      {"last_year", T.LastYear},
                      {"points", std::move(Points)}};
}

void printTrendCsvHeader(raw_ostream &OS) {
  OS << "trend,quantity,unit,accelerator,year,value,fitted,growth,per_years\n";
}

void printTrendCsvRows(const TrendFit &T, raw_ostream &OS) {
  for (const driver::TrendPoint &P : T.Points)
    OS << fmt::format("{},{},{},{},{},{:.12g},{:.12g},{:.12g},{:g}\n", T.Name,
                      T.Quantity, T.Unit, P.Accelerator, P.Year, P.Value,
                      P.Fitted, T.Growth, T.PerYears);
}

} // namespace report
} // namespace llmsys
