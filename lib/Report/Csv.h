//===- Csv.h - scenarios and diffs as CSV (and a diff as Markdown) -*- C++ -*-===//
//
// docs/report-format.md#csv. `eval --format=csv`: one row per scenario, a
// column per figure of train and serve (empty where a scenario has none).
// `diff --format=csv`: one row per figure of each pair.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_CSV_H
#define LLMSYS_REPORT_CSV_H

#include "Driver/Evaluate.h"
#include "Report/Diff.h"

#include "llvm/Support/raw_ostream.h"

namespace llmsys {
namespace report {

void printScenarioCsvHeader(llvm::raw_ostream &OS);
void printScenarioCsvRow(const spec::Object &S, const driver::Evaluation &E,
                         llvm::raw_ostream &OS);
void printDiffCsv(llvm::ArrayRef<DiffResult> Diffs, llvm::raw_ostream &OS);
void printDiffMarkdown(const DiffResult &D, llvm::raw_ostream &OS);

} // namespace report
} // namespace llmsys

#endif
