//===- TrendReport.h - fitted trends for people and tools -------*- C++ -*-===//
//
// `llmsys trends`: each trend's growth per period with its error and R^2,
// the published growth beside it, and the points with the fit, as text,
// Markdown, CSV and JSON (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_TRENDREPORT_H
#define LLMSYS_REPORT_TRENDREPORT_H

#include "Driver/Trend.h"
#include "Report/Tables.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace llmsys {
namespace report {

void printTrendText(const driver::TrendFit &T, llvm::raw_ostream &OS);
/// A heading with the fit in a sentence and the points as a table.
Section trendSection(const driver::TrendFit &T);
/// (Markdown.cpp, with the other Markdown tables.)
void printTrendMarkdown(const driver::TrendFit &T, llvm::raw_ostream &OS);
llvm::json::Value trendJson(const driver::TrendFit &T);
void printTrendCsvHeader(llvm::raw_ostream &OS);
void printTrendCsvRows(const driver::TrendFit &T, llvm::raw_ostream &OS);

} // namespace report
} // namespace llmsys

#endif
