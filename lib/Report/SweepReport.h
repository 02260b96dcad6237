//===- SweepReport.h - a sweep's points as text, CSV or JSON -----*- C++ -*-===//
//
// docs/report-format.md describes the three forms. Figures in CSV and JSON
// are in base SI units with the unit in the key (`step_time_s`,
// `throughput_tokens_per_s`, `peak_memory_bytes`).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_SWEEPREPORT_H
#define LLMSYS_REPORT_SWEEPREPORT_H

#include "IR/Spec.h"
#include "Sweep/Sweep.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>

namespace llmsys {
namespace report {

enum class SweepFormat { Text, Csv, Json };

/// A figure as people read it: "1.420 s", "0.4150", "true"; "-" for NaN.
std::string showFigure(double V, const TypeSpec &T);

class SweepPrinter {
public:
  SweepPrinter(const spec::Sweep &W, const std::vector<std::string> &Columns,
               SweepFormat Format, llvm::raw_ostream &OS);
  void begin();
  /// Rank: 1-based position among kept points (ignored when streamed).
  void row(const sweep::Point &P, uint64_t Rank = 0);
  void end(const sweep::Result &R);

private:
  std::string objective() const;

  const spec::Sweep &W;
  SweepFormat Format;
  llvm::raw_ostream &OS;
  std::vector<const FigureSpec *> Figures;
  std::vector<size_t> Widths;
  bool Ranked = false;
  std::unique_ptr<llvm::json::OStream> J;
};

} // namespace report
} // namespace llmsys

#endif
