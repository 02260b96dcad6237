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
#include "Driver/Evaluate.h"
#include "Driver.h"
#include "Report/Csv.h"
#include "Report/Html.h"
#include "Report/Svg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include <memory>

using namespace llvm;

namespace llmsys {
namespace driver {

/// One side of `llmsys diff`: a file (or `git:REV:PATH`, or `-`) and,
/// optionally, a scenario.
struct DiffSide {
  std::string File, Scenario;
  std::string Rev;   ///< git:REV:PATH: the revision (File is PATH)
  std::string Shown; ///< the side as given, without the scenario
  std::unique_ptr<Compilation> C;
};

static DiffSide splitSide(StringRef Arg) {
  DiffSide S;
  if (Arg.consume_front("git:")) {
    auto [Rev, Rest] = Arg.split(':');
    S.Rev = Rev.str();
    Arg = Rest;
  }
  size_t Colon = Arg.rfind(':');
  if (Colon != StringRef::npos && !Arg.endswith(".llmsys") &&
      (!S.Rev.empty() || !sys::fs::exists(Arg))) {
    S.File = Arg.take_front(Colon).str();
    S.Scenario = Arg.drop_front(Colon + 1).str();
  } else {
    S.File = Arg.str();
  }
  S.Shown = S.Rev.empty() ? S.File : "git:" + S.Rev + ":" + S.File;
  return S;
}

/// `git show REV:./PATH` (PATH relative to the working directory): the
/// file's text at that revision, or nullopt after an error message.
static std::optional<std::string> gitShow(const DiffSide &S) {
  ErrorOr<std::string> Git = sys::findProgramByName("git");
  if (!Git) {
    WithColor::error(errs(), "llmsys")
        << "'" << S.Shown << "': git is not on the PATH\n";
    return std::nullopt;
  }
  SmallString<128> Out, Err;
  if (sys::fs::createTemporaryFile("llmsys-git", "llmsys", Out) ||
      sys::fs::createTemporaryFile("llmsys-git", "err", Err)) {
    WithColor::error(errs(), "llmsys") << "cannot create a temporary file\n";
    return std::nullopt;
  }
  std::string Object =
      S.Rev + ":" +
      (sys::path::is_absolute(S.File) ? S.File : "./" + S.File);
  StringRef Args[] = {*Git, "show", Object};
  std::optional<StringRef> Redirects[] = {StringRef(""), Out.str(),
                                          Err.str()};
  int Status = sys::ExecuteAndWait(*Git, Args, std::nullopt, Redirects);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Out);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Msg = MemoryBuffer::getFile(Err);
  sys::fs::remove(Out);
  sys::fs::remove(Err);
  if (Status != 0 || !Text) {
    WithColor::error(errs(), "llmsys")
        << "'" << S.Shown << "': git show " << Object << " failed"
        << (Msg && !(*Msg)->getBuffer().trim().empty()
                ? ": " + (*Msg)->getBuffer().trim().str()
                : std::string())
        << '\n';
    return std::nullopt;
  }
  return (*Text)->getBuffer().str();
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
    if (!S.Rev.empty()) {
      std::optional<std::string> Text = gitShow(S);
      if (!Text)
        return ExitBadInput;
      O.Texts.push_back({S.File, S.Shown, std::move(*Text)});
    }
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
  std::vector<report::HtmlSection> Page;
  bool Failed = false;
  for (size_t I = 0; I < Pairs.size(); ++I) {
    const spec::Object &A = *Pairs[I].first, &B = *Pairs[I].second;
    if (A.Type != B.Type) {
      Sides[1].C->Diags.report<DiagID::err_diff_kinds>(
          B.DeclRange, A.Type->Name, A.Name, B.Type->Name, B.Name);
      Failed = true;
      continue;
    }
    passes::PassContext CtxA, CtxB;
    CtxA.Diags = &Sides[0].C->Diags;
    CtxB.Diags = &Sides[1].C->Diags;
    std::optional<driver::Evaluation> EA =
        driver::evaluate(ir::scenarioFromSpec(*Pairs[I].first), CtxA);
    std::optional<driver::Evaluation> EB =
        driver::evaluate(ir::scenarioFromSpec(*Pairs[I].second), CtxB);
    if (!EA || !EB) {
      Failed = true;
      continue;
    }
    report::DiffResult D = report::diff(Sides[0].C->Spec, A, *EA,
                                        Sides[1].C->Spec, B, *EB);
    D.FileA = Sides[0].Shown;
    D.FileB = Sides[1].Shown;
    if (Json)
      Out.push_back(report::diffJson(D));
    else if (OutputFormat == Format::Csv)
      ; // one table, written after the loop
    else if (OutputFormat == Format::Html) {
      // Side by side: the tables, and each side's time and memory figures.
      auto Report = [](const driver::Evaluation &E) {
        return E.Training ? report::trainingJson(E.Program, E.Train)
                          : report::servingJson(E.Program, E.Serve);
      };
      json::Value JA = Report(*EA), JB = Report(*EB);
      Page.push_back({report::diffSection(D),
                      {report::plotTime(JA), report::plotTime(JB),
                       report::plotMemory(JA), report::plotMemory(JB)}});
    } else {
      if (I)
        out() << '\n';
      if (OutputFormat == Format::Md)
        report::printDiffMarkdown(D, out());
      else
        report::printDiffText(D, out());
    }
    std::string Error;
    for (std::string &M : report::crossed(D, Thresholds, Error))
      Crossed.push_back(std::move(M));
    Results.push_back(std::move(D));
    if (!Error.empty()) {
      WithColor::error(errs(), "llmsys") << Error << '\n';
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
  if (OutputFormat == Format::Html)
    report::printHtml("llmsys diff", Page, out());
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
