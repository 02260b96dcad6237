//===- Tables.h - reports as titled tables -----------------------*- C++ -*-===//
//
// What the Markdown and HTML reports show, independent of the format: a
// heading and titled tables of cells as people read them (units from the
// JSON keys). Markdown.cpp and Html.cpp render the same tables.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_TABLES_H
#define LLMSYS_REPORT_TABLES_H

#include "Report/Diff.h"

#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace llmsys {
namespace report {

struct Table {
  std::string Title;                ///< "" for the first, untitled table
  std::vector<std::string> Columns; ///< "" for a column without a header
  std::vector<bool> RightAligned;   ///< numbers right, words left
  std::vector<std::vector<std::string>> Rows;
};

struct Section {
  std::string Heading; ///< "train `t`", "`a` -> `b`"
  std::string Text;    ///< a sentence under the heading, or ""
  std::vector<Table> Tables;
};

/// A scenario's JSON report (trainingJson / servingJson): the figures, the
/// blocks (inputs, breakdown, memory, phases) and the rows (SLOs,
/// operators, collectives).
Section scenarioSection(const llvm::json::Value &Scenario);
/// A diff: the inputs that differ, what binds, the verdicts, the figures.
Section diffSection(const DiffResult &D);

} // namespace report
} // namespace llmsys

#endif
