//===- ValidationReport.cpp - llmsys validate output ----------------------===//
//
// Text: one line per case, then one per source group, per kind of scenario
// and the total (the lines CI logs and docs/validation.md quote). Markdown:
// the same as two tables, embedded in docs/validation.md by
// tools/gen-doc-outputs.py. CSV and JSON: every case (and in JSON the
// summaries) in base units.
//
//===----------------------------------------------------------------------===//

#include "IR/Spec.h"
#include "Report/Format.h"
#include "Report/Report.h"

#include <fmt/format.h>

namespace llmsys {
namespace report {

using cost::ValidationResult;
using cost::ValidationSummary;

static std::string summaryLine(const ValidationSummary &S) {
  return fmt::format("{} cases, mean |error| {:.1f}%, max |error| {:.1f}%",
                     S.Cases, 100 * S.meanAbs(), 100 * S.MaxAbs);
}

void printValidationText(const ValidationResult &R, llvm::raw_ostream &OS) {
  for (const cost::ValidationCase &C : R.Cases)
    OS << fmt::format(
        "{:<18} {:<34} {:<20} predicted {:>12}  measured {:>12}  error {:>7}\n",
        C.Source, C.Case, C.Figure, si(C.Predicted, C.Unit, 4),
        si(C.Measured, C.Unit, 4), signedPercent(C.error()));
  for (const auto &[Id, G] : R.Groups)
    OS << "group " << Id << ": " << summaryLine(G) << '\n';
  if (R.Train.Cases)
    OS << "train: " << summaryLine(R.Train) << '\n';
  if (R.Serve.Cases)
    OS << "serve: " << summaryLine(R.Serve) << '\n';
  if (R.All.Cases)
    OS << "validation: " << summaryLine(R.All) << '\n';
  else
    OS << "validation: 0 cases\n";
}

void printValidationMarkdown(const ValidationResult &R, llvm::raw_ostream &OS) {
  OS << "| group | case | figure | predicted | measured | error |\n"
        "| --- | --- | --- | ---: | ---: | ---: |\n";
  for (const cost::ValidationCase &C : R.Cases)
    OS << "| " << markdownCell(C.Source) << " | " << markdownCell(C.Case)
       << " | " << markdownCell(C.Figure) << " | " << si(C.Predicted, C.Unit, 4)
       << " | " << si(C.Measured, C.Unit, 4) << " | "
       << signedPercent(C.error()) << " |\n";
  OS << "\n| cases | n | mean \\|error\\| | max \\|error\\| |\n"
        "| --- | ---: | ---: | ---: |\n";
  auto Row = [&](const std::string &Name, const ValidationSummary &S) {
    if (S.Cases)
      OS << fmt::format("| {} | {} | {:.1f}% | {:.1f}% |\n", Name, S.Cases,
                        100 * S.meanAbs(), 100 * S.MaxAbs);
  };
  for (const auto &[Id, G] : R.Groups)
    Row("group " + markdownCell(Id), G);
  Row("all train", R.Train);
  Row("all serve", R.Serve);
  Row("**all**", R.All);
}

void printValidationCsv(const ValidationResult &R, llvm::raw_ostream &OS) {
  OS << "source,case,figure,kind,accelerator,unit,predicted,measured,error\n";
  for (const cost::ValidationCase &C : R.Cases)
    OS << C.Source << ',' << C.Case << ',' << C.Figure << ','
       << (C.Training ? "train" : "serve") << ',' << C.Accelerator << ','
       << C.Unit << ','
       << spec::formatNumber(C.Predicted) << ','
       << spec::formatNumber(C.Measured) << ',' << spec::formatNumber(C.error())
       << '\n';
}

llvm::json::Value validationJson(const ValidationResult &R) {
  auto Summary = [](const ValidationSummary &S) {
    return llvm::json::Object{{"cases", S.Cases},
                              {"mean_abs_error", S.meanAbs()},
                              {"max_abs_error", S.MaxAbs}};
  };
  llvm::json::Array Cases;
  for (const cost::ValidationCase &C : R.Cases)
    Cases.push_back(llvm::json::Object{{"source", C.Source},
                                       {"case", C.Case},
                                       {"figure", C.Figure},
                                       {"kind", C.Training ? "train" : "serve"},
                                       {"accelerator", C.Accelerator},
                                       {"unit", C.Unit},
                                       {"predicted", C.Predicted},
                                       {"measured", C.Measured},
                                       {"error", C.error()}});
  llvm::json::Object Groups;
  for (const auto &[Id, G] : R.Groups)
    Groups[Id] = Summary(G);
  return llvm::json::Object{{"cases", std::move(Cases)},
                            {"groups", std::move(Groups)},
                            {"train", Summary(R.Train)},
                            {"serve", Summary(R.Serve)},
                            {"all", Summary(R.All)}};
}

} // namespace report
} // namespace llmsys
