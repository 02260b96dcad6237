//===- Trends.cpp - llmsys trends -----------------------------------------===//
//
// Each top-level `trend` of the files, fitted (lib/Driver/Trend.cpp), as
// text, Markdown, CSV or JSON (lib/Report/TrendReport.cpp).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Driver/Trend.h"
#include "Report/Report.h"
#include "Report/Svg.h"
#include "Report/TrendReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace llmsys {
namespace driver {

int runTrends(Units &Us) {
  if (refusesHtml("trends"))
    return ExitBadInput;
  bool Json = OutputFormat == Format::Json, Csv = OutputFormat == Format::Csv;
  if (Csv)
    report::printTrendCsvHeader(out());
  int Status = ExitOk;
  unsigned Shown = 0;
  json::Array Out;
  for (std::unique_ptr<Compilation> &Unit : Us) {
    Compilation &C = *Unit;
    if (!C.run()) {
      Status = std::max(Status, C.finish(errs()));
      continue;
    }
    int UnitStatus = ExitOk;
    for (const spec::Object *O : C.Spec.Entities) {
      if (O->Type->Id != StructID::Trend || !C.Spec.isTopLevel(*O))
        continue;
      std::optional<TrendFit> T = fitTrend(*O, C.Diags);
      if (!T) {
        UnitStatus = ExitBadInput;
        continue;
      }
      if (Json)
        Out.push_back(report::trendJson(*T));
      else if (Csv)
        report::printTrendCsvRows(*T, out());
      else if (OutputFormat == Format::Md) {
        if (Shown)
          out() << '\n';
        report::printTrendMarkdown(*T, out());
      } else {
        if (Shown)
          out() << '\n';
        report::printTrendText(*T, out());
      }
      if (!PlotDir.empty() &&
          !writePlot(T->Name + ".trend.svg", report::plotTrend(*T)))
        return ExitBadInput;
      ++Shown;
    }
    Status = std::max(Status, finish(C, UnitStatus));
  }
  if (Json)
    printJsonReports("trends", std::move(Out));
  if (!Shown && Status == ExitOk)
    WithColor::warning(errs(), "llmsys") << "no trend to fit\n";
  return Status;
}

} // namespace driver
} // namespace llmsys
