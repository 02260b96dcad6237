//===- Diff.cpp - llmsys diff ---------------------------------------------===//
//
// Two sides, FILE or FILE:SCENARIO, each compiled on its own; scenarios
// paired, evaluated and compared (lib/Report/Diff.cpp); --fail-if
// thresholds.
//
//===----------------------------------------------------------------------===//

#include "Basic/Suggest.h"
#include "Report/Diff.h"
#include "Report/Report.h"
#include "Cost/Evaluate.h"
#include "Driver.h"
#include "Report/Csv.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include <memory>

using namespace llvm;

namespace llmsys {
namespace driver {

/// One side of `llmsys diff`: a file and, optionally, a scenario.
struct DiffSide {
  std::string File, Scenario;
  std::unique_ptr<Compilation> C;
};

static DiffSide splitSide(StringRef Arg) {
  DiffSide S;
  size_t Colon = Arg.rfind(':');
  if (Colon != StringRef::npos && !sys::fs::exists(Arg)) {
    S.File = Arg.take_front(Colon).str();
    S.Scenario = Arg.drop_front(Colon + 1).str();
  } else {
    S.File = Arg.str();
  }
  return S;
}

int runDiff(const char *Argv0) {
  if (DiffSides.size() != 2) {
    WithColor::error(errs(), "llmsys")
        << "diff needs two sides: FILE[:SCENARIO] FILE[:SCENARIO]\n";
    return ExitBadInput;
  }
  std::vector<report::Threshold> Thresholds;
  for (const std::string &T : FailIf) {
    std::string Error;
    std::optional<report::Threshold> Th = report::parseThreshold(T, Error);
    if (!Th) {
      WithColor::error(errs(), "llmsys") << "--fail-if " << Error << '\n';
      return ExitBadInput;
    }
    Thresholds.push_back(*Th);
  }
  DiffSide Sides[2] = {splitSide(DiffSides[0]), splitSide(DiffSides[1])};
  for (DiffSide &S : Sides) {
    CompileOptions O = compileOptions(Argv0);
    O.Files = {S.File};
    S.C = std::make_unique<Compilation>(O);
    if (!S.C->run())
      return S.C->finish(errs());
  }
  for (DiffSide &S : Sides)
    if (!S.Scenario.empty() && !report::topScenario(S.C->Spec, S.Scenario)) {
      WithColor::error(errs(), "llmsys")
          << "no scenario named '" << S.Scenario << "' in " << S.File
          << didYouMean(S.Scenario, report::scenarioNames(S.C->Spec)) << '\n';
      return ExitBadInput;
    }
  std::vector<report::ScenarioPair> Pairs = report::pairScenarios(
      Sides[0].C->Spec, Sides[0].Scenario, Sides[1].C->Spec, Sides[1].Scenario);
  if (Pairs.empty()) {
    WithColor::error(errs(), "llmsys")
        << "no pair of scenarios to compare; name them: FILE:SCENARIO\n";
    return ExitBadInput;
  }
  bool Json = OutputFormat == Format::Json;
  json::Array Out;
  std::vector<report::DiffResult> Results;
  std::vector<std::string> Crossed;
  bool Failed = false;
  for (size_t I = 0; I < Pairs.size(); ++I) {
    passes::PassContext CtxA, CtxB;
    CtxA.Diags = &Sides[0].C->Diags;
    CtxB.Diags = &Sides[1].C->Diags;
    std::optional<cost::Evaluation> EA =
        cost::evaluate(ir::scenarioFromSpec(*Pairs[I].first), CtxA);
    std::optional<cost::Evaluation> EB =
        cost::evaluate(ir::scenarioFromSpec(*Pairs[I].second), CtxB);
    if (!EA || !EB) {
      Failed = true;
      continue;
    }
    report::DiffResult D =
        report::diff(*Pairs[I].first, *EA, *Pairs[I].second, *EB);
    if (Json)
      Out.push_back(report::diffJson(D));
    else if (OutputFormat == Format::Csv)
      ; // one table, written after the loop
    else {
      if (I)
        out() << '\n';
      if (OutputFormat == Format::Md)
        report::printDiffMarkdown(D, out());
      else
        report::printDiffText(D, out());
    }
    std::string Unknown;
    for (std::string &M : report::crossed(D, Thresholds, Unknown))
      Crossed.push_back(std::move(M));
    Results.push_back(std::move(D));
    if (!Unknown.empty()) {
      WithColor::error(errs(), "llmsys")
          << "--fail-if names '" << Unknown << "', not a figure of "
          << Pairs[I].first->Name << " (see 'llmsys schema')\n";
      return ExitBadInput;
    }
  }
  if (Json)
    out() << formatv("{0:2}",
                     json::Value(json::Object{
                         {"schema_version", report::JsonSchemaVersion},
                         {"diffs", std::move(Out)}}))
          << '\n';
  if (OutputFormat == Format::Csv)
    report::printDiffCsv(Results, out());
  out().flush();
  int Status = std::max(Sides[0].C->finish(errs()), Sides[1].C->finish(errs()));
  for (const std::string &M : Crossed)
    WithColor::error(errs(), "llmsys") << "threshold crossed: " << M << '\n';
  return std::max<int>(Status, Failed             ? ExitBadInput
                         : !Crossed.empty() ? ExitFinding
                                            : ExitOk);
}

} // namespace driver
} // namespace llmsys
