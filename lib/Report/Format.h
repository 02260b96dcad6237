//===- Format.h - numbers for people -------------------------------*- C++ -*-===//
//
// Reports print quantities with SI prefixes and a fixed number of
// significant digits, so that text output is stable for FileCheck and for
// diffs of reports under version control.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_FORMAT_H
#define LLMSYS_REPORT_FORMAT_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace llmsys {
namespace report {

/// "1.42 s", "152 TFLOP/s", "85.9 GB", "3.27 k" — Digits significant
/// digits, an SI prefix from p to E.
std::string si(double Value, llvm::StringRef Unit, int Digits = 3);

/// An amount of money, to Digits significant digits with the thousands
/// grouped: "208,300 USD" (amounts under 1000 as "0.1828 USD").
std::string money(double Amount, llvm::StringRef Currency = "USD",
                  int Digits = 4);

/// Times: "812 us", "1.42 s", "2.31 h", "13.6 days".
std::string duration(double Seconds, int Digits = 3);

/// Text for a Markdown table cell: `|` escaped.
std::string markdownCell(llvm::StringRef S);

/// Text for SVG and HTML: `<`, `>`, `&` and `"` as entities.
std::string markupText(llvm::StringRef S);

/// "41.5%".
std::string percent(double Fraction, int Decimals = 1);

/// "+3.2%" / "-0.8%".
std::string signedPercent(double Fraction, int Decimals = 1);

} // namespace report
} // namespace llmsys

#endif
