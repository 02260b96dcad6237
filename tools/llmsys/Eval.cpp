//===- Eval.cpp - llmsys eval and llmsys check ----------------------------===//
//
// eval: each scenario's report (text, Markdown, CSV or JSON, with figures
// under --plot), then the expectations; check: the files and their
// expectations.
//
//===----------------------------------------------------------------------===//

#include "Basic/Suggest.h"
#include "Driver/Evaluate.h"
#include "Driver.h"
#include "Driver/Trend.h"
#include "Report/Csv.h"
#include "Report/Diff.h"
#include "Report/Html.h"
#include "Report/Format.h"
#include "Report/Report.h"
#include "Report/Svg.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include <map>

using namespace llvm;

namespace llmsys {
namespace driver {

/// --strict: a scenario that does not fit, or misses an SLO, is a finding.
static void checkStrict(const spec::Object &S, const driver::Evaluation &E,
                        DiagnosticEngine &Diags) {
  double Need = E.Training ? E.Train.Memory.total() : E.Serve.Memory.total();
  double Have =
      E.Training ? E.Train.Memory.Capacity : E.Serve.Memory.Capacity;
  if (Need > Have)
    Diags.report<DiagID::err_strict_does_not_fit>(
        S.DeclRange, S.Type->Name, S.Name, report::si(Need, "B", 4),
        report::si(Have, "B", 4));
  if (E.Training)
    return;
  for (const cost::SloCheck &C : E.Serve.Slo)
    if (!C.Met) {
      auto Show = [&](double V) {
        return C.Name == "throughput" ? report::si(V, "tokens/s")
                                      : report::duration(V);
      };
      Diags.report<DiagID::err_strict_slo_missed>(
          S.DeclRange, S.Name, C.Name, Show(C.Value), C.Lower ? ">=" : "<=",
          Show(C.Limit));
    }
}

int runEval(Units &Us) {
  unsigned Shown = 0;
  int Status = ExitOk;
  bool Json = OutputFormat == Format::Json;
  bool Md = OutputFormat == Format::Md;
  bool Csv = OutputFormat == Format::Csv;
  bool Html = OutputFormat == Format::Html;
  std::vector<report::HtmlSection> Page;
  unsigned Rows = TopOps ? unsigned(TopOps) : ~0u;
  if (Csv)
    report::printScenarioCsvHeader(out());
  json::Array Scenarios;
  std::vector<std::string> Names;
  for (std::unique_ptr<Compilation> &Unit : Us) {
    Compilation &C = *Unit;
    if (!C.run()) {
      out().flush();
      Status = std::max(Status, C.finish(errs()));
      continue;
    }
    passes::PassContext Ctx;
    Ctx.Diags = &C.Diags;
    std::map<const spec::Object *, std::optional<driver::Evaluation>> Done;
    for (const std::string &N : report::scenarioNames(C.Spec))
      Names.push_back(N);
    for (const spec::Object *S : C.Spec.Scenarios) {
      if (!C.Spec.isTopLevel(*S) ||
          (!ScenarioFilter.empty() && S->Name != ScenarioFilter))
        continue;
      if (Shown++ && !Json && !Csv && !Html)
        out() << '\n';
      std::optional<driver::Evaluation> &E = Done[S] =
          driver::evaluate(ir::scenarioFromSpec(*S), Ctx);
      if (!E) {
        Status = std::max<int>(Status, ExitBadInput);
        continue;
      }
      if (Strict)
        checkStrict(*S, *E, C.Diags);
      // The JSON report feeds the figures and the Markdown tables.
      std::optional<json::Value> J;
      if (!PlotDir.empty() || Md || Html)
        J = E->Training ? report::trainingJson(E->Program, E->Train)
                        : report::servingJson(E->Program, E->Serve);
      if (!PlotDir.empty() &&
          (!writePlot(S->Name + ".roofline.svg",
                      report::plotRoofline(E->Program, *J)) ||
           !writePlot(S->Name + ".time.svg", report::plotTime(*J)) ||
           !writePlot(S->Name + ".memory.svg", report::plotMemory(*J))))
        Status = std::max<int>(Status, ExitBadInput);
      if (Csv) {
        report::printScenarioCsvRow(*S, *E, out());
        continue;
      }
      if (Md || Html) {
        if (json::Object *O = J->getAsObject()) {
          // The tables hold the first --ops rows, as the text report does.
          for (const char *T : {"operators", "collectives"})
            if (json::Array *A = O->getArray(T))
              while (A->size() > Rows)
                A->pop_back();
        }
        if (Html)
          Page.push_back({report::scenarioSection(*J),
                          {report::plotRoofline(E->Program, *J),
                           report::plotTime(*J), report::plotMemory(*J)}});
        else
          report::printMarkdown(*J, out());
        continue;
      }
      if (E->Training) {
        if (Json)
          Scenarios.push_back(report::trainingJson(E->Program, E->Train));
        else
          report::printTrainingText(E->Program, E->Train, out(), Rows);
      } else {
        if (Json)
          Scenarios.push_back(report::servingJson(E->Program, E->Serve));
        else
          report::printServingText(E->Program, E->Serve, out(), Rows);
      }
    }
    // The unit's reports first, then the diagnostics of its expectations.
    out().flush();
    report::checkExpectations(C.Spec, C.Diags, Done);
    Status = finish(C, Status);
  }
  if (Json)
    printJsonReports("scenarios", std::move(Scenarios));
  if (Html)
    report::printHtml("llmsys eval", Page, out());
  if (!ScenarioFilter.empty() && Shown == 0 && Status != ExitBadInput) {
    WithColor::error(errs(), "llmsys")
        << "no scenario named '" << ScenarioFilter << "'"
        << didYouMean(ScenarioFilter, Names) << '\n';
    return ExitBadInput;
  }
  return Status;
}

int runCheck(Units &Us) {
  // Checks each file, then evaluates its expectations (costing only the
  // scenarios they name) and fits its trends (whose points need their
  // years and values).
  int Status = ExitOk;
  for (std::unique_ptr<Compilation> &Unit : Us) {
    Compilation &C = *Unit;
    if (C.run()) {
      std::map<const spec::Object *, std::optional<driver::Evaluation>> Done;
      report::checkExpectations(C.Spec, C.Diags, Done);
      for (const spec::Object *O : C.Spec.Entities)
        if (O->Type->Id == StructID::Trend && C.Spec.isTopLevel(*O))
          (void)driver::fitTrend(*O, C.Diags);
    }
    Status = std::max(Status, C.finish(errs()));
  }
  return Status;
}

} // namespace driver
} // namespace llmsys
