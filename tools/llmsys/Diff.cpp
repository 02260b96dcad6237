//===- Diff.cpp - llmsys diff ---------------------------------------------===//
//
// Two sides or more, FILE or FILE:SCENARIO, each compiled on its own;
// each side's scenarios paired with the next side's, evaluated and
// compared (lib/Report/Diff.cpp); a chain of three or more followed by one
// figure (lib/Report/Chain.cpp); --fail-if thresholds.
//
//===----------------------------------------------------------------------===//

#include "Basic/Suggest.h"
#include "Report/Chain.h"
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
#include <map>
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
  if (DiffSides.size() < 2) {
    WithColor::error(errs(), "llmsys")
        << "diff needs two sides or more: FILE[:SCENARIO] FILE[:SCENARIO]...\n";
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
  std::vector<DiffSide> Sides;
  for (const std::string &Arg : DiffSides)
    Sides.push_back(splitSide(Arg));
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
  // Each side with the next. A chain (three sides or more) follows one
  // scenario from side to side.
  bool IsChain = Sides.size() > 2 || !ChainFigure.empty();
  if (ChainOnly && (!IsChain || (OutputFormat != Format::Text &&
                                 OutputFormat != Format::Md))) {
    WithColor::error(errs(), "llmsys")
        << "--chain-only prints a chain (three sides or more, or --figure) "
           "as text or Markdown\n";
    return ExitBadInput;
  }
  struct Link {
    size_t Side; ///< the pair's first side
    report::ScenarioPair Pair;
  };
  std::vector<Link> Links;
  for (size_t K = 0; K + 1 < Sides.size(); ++K) {
    std::vector<report::ScenarioPair> Pairs = report::pairScenarios(
        Sides[K].C->Spec, Sides[K].Scenario, Sides[K + 1].C->Spec,
        Sides[K + 1].Scenario);
    if (Pairs.empty() || (IsChain && Pairs.size() != 1)) {
      WithColor::error(errs(), "llmsys")
          << (Pairs.empty() ? "no pair of scenarios to compare"
                            : "a chain compares one scenario per side")
          << " between " << DiffSides[K] << " and " << DiffSides[K + 1]
          << "; name them: FILE:SCENARIO\n";
      return ExitBadInput;
    }
    // The scenario a side gives the pair after it is the one it gave the
    // pair before.
    if (IsChain && K > 0 && Links.back().Pair.second != Pairs.front().first) {
      WithColor::error(errs(), "llmsys")
          << "a chain follows one scenario per side; " << DiffSides[K]
          << " gives '" << Links.back().Pair.second->Name << "' to the side "
          << "before it and '" << Pairs.front().first->Name
          << "' to the side after; name it: FILE:SCENARIO\n";
      return ExitBadInput;
    }
    for (const report::ScenarioPair &P : Pairs)
      Links.push_back({K, P});
  }
  if (!PlotDir.empty() && Links.size() != 1 && !IsChain) {
    WithColor::error(errs(), "llmsys")
        << "--plot draws a chain's waterfall: one scenario per side\n";
    return ExitBadInput;
  }
  bool Json = OutputFormat == Format::Json;
  json::Array Out;
  std::vector<report::DiffResult> Results;
  std::vector<std::string> Crossed;
  std::vector<report::HtmlSection> Page;
  std::map<const spec::Object *,
           std::unique_ptr<std::optional<driver::Evaluation>>>
      Evaluated;
  bool Failed = false;
  for (size_t I = 0; I < Links.size(); ++I) {
    DiffSide &SA = Sides[Links[I].Side], &SB = Sides[Links[I].Side + 1];
    const spec::Object &A = *Links[I].Pair.first, &B = *Links[I].Pair.second;
    if (A.Type != B.Type) {
      SB.C->Diags.report<DiagID::err_diff_kinds>(B.DeclRange, A.Type->Name,
                                                  A.Name, B.Type->Name, B.Name);
      Failed = true;
      continue;
    }
    // Each scenario once, though a chain's middle ones are in two pairs.
    auto Evaluate = [&](const spec::Object &O, DiffSide &Side)
        -> const std::optional<driver::Evaluation> & {
      std::unique_ptr<std::optional<driver::Evaluation>> &E = Evaluated[&O];
      if (!E) {
        passes::PassContext Ctx;
        Ctx.Diags = &Side.C->Diags;
        E = std::make_unique<std::optional<driver::Evaluation>>(
            driver::evaluate(ir::scenarioFromSpec(O), Ctx));
      }
      return *E;
    };
    const std::optional<driver::Evaluation> &EA = Evaluate(A, SA);
    const std::optional<driver::Evaluation> &EB = Evaluate(B, SB);
    if (!EA || !EB) {
      Failed = true;
      continue;
    }
    report::DiffResult D =
        report::diff(SA.C->Spec, A, *EA, SB.C->Spec, B, *EB);
    D.FileA = SA.Shown;
    D.FileB = SB.Shown;
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
    } else if (!(IsChain && ChainOnly)) {
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
  // The chain: one figure along the sides, in every format but CSV (whose
  // rows already hold each pair's figures), and its waterfall.
  std::optional<report::Chain> Chain;
  if (IsChain && !Failed) {
    std::string Error;
    Chain = report::chainOf(Results,
                            ChainFigure.empty() ? "throughput_per_device"
                                                : ChainFigure.getValue(),
                            Error);
    if (!Chain) {
      WithColor::error(errs(), "llmsys") << "--figure: " << Error << '\n';
      return ExitBadInput;
    }
  }
  if (Json) {
    json::Object Doc{{"schema_version", report::JsonSchemaVersion},
                     {"diffs", std::move(Out)}};
    if (Chain)
      Doc["chain"] = report::chainJson(*Chain);
    out() << formatv("{0:2}", json::Value(std::move(Doc))) << '\n';
  }
  if (OutputFormat == Format::Csv)
    report::printDiffCsv(Results, out());
  if (OutputFormat == Format::Html) {
    if (Chain)
      Page.push_back({report::chainSection(*Chain),
                      {report::plotWaterfall(*Chain)}});
    report::printHtml("llmsys diff", Page, out());
  }
  if (Chain && (OutputFormat == Format::Text || OutputFormat == Format::Md)) {
    if (!ChainOnly)
      out() << '\n';
    if (OutputFormat == Format::Md)
      report::printChainMarkdown(*Chain, out());
    else
      report::printChainText(*Chain, out());
  }
  out().flush();
  if (!PlotDir.empty() && !Failed) {
    if (!Chain) {
      std::string Error;
      Chain = report::chainOf(Results, "throughput_per_device", Error);
    }
    if (Chain && !writePlot("chain.waterfall.svg", report::plotWaterfall(*Chain)))
      return ExitBadInput;
  }
  int Status = ExitOk;
  for (DiffSide &S : Sides)
    Status = std::max(Status, S.C->finish(errs()));
  for (const std::string &M : Crossed)
    WithColor::error(errs(), "llmsys") << "threshold crossed: " << M << '\n';
  return std::max<int>(Status, Failed             ? ExitBadInput
                         : !Crossed.empty() ? ExitFinding
                                            : ExitOk);
}

} // namespace driver
} // namespace llmsys
