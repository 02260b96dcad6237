//===- Svg.h - figures as standalone SVG files ----------------------*- C++ -*-===//
//
// `--plot DIR` (docs/report-format.md#plots): each function returns a whole
// SVG document. Scenario figures read the JSON report (and, for the roof,
// the device of the program); the Pareto front reads a sweep's result.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_SVG_H
#define LLMSYS_REPORT_SVG_H

#include "IR/Program.h"
#include "Driver/Trend.h"
#include "Report/Chain.h"
#include "IR/Spec.h"
#include "Sweep/Sweep.h"

#include "llvm/Support/JSON.h"
#include <string>

namespace llmsys {
namespace report {

/// Each operator of the report at (FLOP/B, FLOP/s per device) under the
/// device's roof; area by time.
std::string plotRoofline(const ir::Program &P, const llvm::json::Value &Report);
/// Training: the step's breakdown; serving: prefill and decode of a request.
std::string plotTime(const llvm::json::Value &Report);
/// Memory per device by part, against capacity.
std::string plotMemory(const llvm::json::Value &Report);
/// A chain's waterfall: each step's ratio as a bar from the running total
/// before it to the one after it, on a logarithmic axis, and the whole as
/// the last bar.
std::string plotWaterfall(const Chain &C);
/// A trend: each part's value by year on a logarithmic axis, the fitted
/// line, and the reference growth's slope through the fit's middle.
std::string plotTrend(const driver::TrendFit &T);
/// A `pareto` sweep's front, on log axes of its two figures.
std::string plotPareto(const spec::Sweep &W, const sweep::Result &R);
/// Any other sweep: its objective (or, without one, its first figure)
/// against its first axis, a dot per point (Points: the kept or every
/// accepted point) and a line through the best at each value of the axis.
std::string plotSweep(const spec::Sweep &W, const sweep::Result &R,
                      llvm::ArrayRef<sweep::Point> Points);

} // namespace report
} // namespace llmsys

#endif
