//===- Html.h - the report as one self-contained HTML page -------*- C++ -*-===//

#ifndef LLMSYS_REPORT_HTML_H
#define LLMSYS_REPORT_HTML_H

#include "Report/Tables.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace llmsys {
namespace report {

/// A section's tables and its figures (standalone SVG documents).
struct HtmlSection {
  Section Tables;
  std::vector<std::string> Figures;
};

/// One page: a title, then each section with its figures inline and its
/// tables; self-contained (no script, no external resource).
void printHtml(llvm::StringRef Title, llvm::ArrayRef<HtmlSection> Sections,
               llvm::raw_ostream &OS);

} // namespace report
} // namespace llmsys

#endif
