//===- llmsys.cpp - the user's command line ---------------------------------===//
//
//   llmsys eval FILE...     check the files, then evaluate their scenarios
//   llmsys check FILE...    check the files (and their expectations)
//   llmsys list [FILE...]   entities available after imports, by kind
//   llmsys schema           the schema of every entity kind, as Markdown
//
// The tool is thin: the libraries do the work (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "Cost/Evaluate.h"
#include "Passes/Passes.h"
#include "Report/Csv.h"
#include "Report/Diff.h"
#include "Report/Format.h"
#include "Report/Report.h"
#include "Report/Svg.h"
#include "Report/SweepReport.h"
#include "Sweep/Sweep.h"
#include "Sema/Compilation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <fmt/format.h>

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <map>

using namespace llvm;
using namespace llmsys;

static cl::OptionCategory LLMSysCat("llmsys options");

static cl::SubCommand EvalCmd("eval", "Check files, then evaluate their "
                                      "train and serve scenarios");
static cl::SubCommand CheckCmd("check", "Check files: syntax, names, units, "
                                        "types, expectations");
static cl::SubCommand ListCmd("list", "List the entities that the files and "
                                      "their imports make available");
static cl::SubCommand ValidateCmd(
    "validate", "Compare predictions with the measurements of a folder of "
                "validation cases");
static cl::SubCommand SweepCmd("sweep", "Check files, then evaluate their "
                                        "sweeps");
static cl::SubCommand RequireCmd(
    "require", "For serve scenarios with SLOs: the least compute, memory "
               "bandwidth, capacity and interconnect that meet them");
static cl::SubCommand DiffCmd(
    "diff", "Two scenarios side by side: the inputs that differ and every "
            "figure with the ratio");
static cl::SubCommand SchemaCmd("schema", "Print every entity kind with its "
                                          "fields, as Markdown");

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.llmsys>..."),
                                    cl::sub(EvalCmd), cl::sub(CheckCmd),
                                    cl::sub(ListCmd), cl::sub(SweepCmd),
                                    cl::sub(RequireCmd), cl::cat(LLMSysCat));
static cl::list<std::string> DiffSides(
    cl::Positional, cl::desc("<file.llmsys[:scenario]> <file.llmsys[:scenario]>"),
    cl::OneOrMore, cl::sub(DiffCmd), cl::cat(LLMSysCat));
static cl::list<std::string>
    FailIf("fail-if",
           cl::desc("Exit 1 when a figure's ratio (second / first) crosses a "
                    "threshold, e.g. 'step_time_s > 1.05x' (repeatable)"),
           cl::value_desc("threshold"), cl::sub(DiffCmd), cl::cat(LLMSysCat));
static cl::list<std::string> ValidateDirs(cl::Positional, cl::desc("<dir>..."),
                                          cl::OneOrMore, cl::sub(ValidateCmd),
                                          cl::cat(LLMSysCat));
static cl::list<std::string>
    IncludeDirs("I", cl::desc("Add <dir> to the search path of quoted imports"),
                cl::value_desc("dir"), cl::Prefix, cl::sub(EvalCmd),
                cl::sub(CheckCmd), cl::sub(ListCmd), cl::sub(ValidateCmd),
                cl::sub(SweepCmd), cl::sub(RequireCmd), cl::sub(DiffCmd),
                cl::cat(LLMSysCat));
static cl::opt<std::string>
    StdlibDir("stdlib", cl::desc("Directory of the standard library "
                                 "(default: the installed one)"),
              cl::value_desc("dir"), cl::sub(EvalCmd), cl::sub(CheckCmd),
              cl::sub(ListCmd), cl::sub(ValidateCmd), cl::sub(SweepCmd),
              cl::sub(RequireCmd), cl::sub(DiffCmd), cl::cat(LLMSysCat));
static cl::opt<unsigned>
    ErrorLimit("error-limit",
               cl::desc("Stop printing errors after <n> (0: no limit)"),
               cl::init(20), cl::value_desc("n"), cl::sub(EvalCmd),
               cl::sub(CheckCmd), cl::sub(ListCmd), cl::sub(ValidateCmd),
               cl::sub(SweepCmd), cl::sub(RequireCmd), cl::sub(DiffCmd),
               cl::cat(LLMSysCat));
static cl::opt<unsigned> TopOps("ops",
                              cl::desc("Rows of the operator table (0: all)"),
                              cl::init(12), cl::value_desc("n"),
                              cl::sub(EvalCmd), cl::cat(LLMSysCat));
enum class Format { Text, Md, Csv, Json };
static cl::opt<Format> OutputFormat(
    "format", cl::desc("Report format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "aligned text (default)"),
               clEnumValN(Format::Md, "md",
                          "Markdown tables (eval, diff, validate)"),
               clEnumValN(Format::Csv, "csv",
                          "one table, base SI units (eval: a row per "
                          "scenario; diff: a row per figure)"),
               clEnumValN(Format::Json, "json",
                          "one JSON document, base SI units "
                          "(docs/report-format.md)")),
    cl::sub(EvalCmd), cl::sub(RequireCmd), cl::sub(DiffCmd),
    cl::sub(ValidateCmd), cl::cat(LLMSysCat));
static cl::opt<std::string>
    ScenarioFilter("scenario", cl::desc("Evaluate only the scenario <name>"),
                   cl::value_desc("name"), cl::sub(EvalCmd),
                   cl::sub(RequireCmd), cl::cat(LLMSysCat));

static cl::opt<report::SweepFormat> SweepOutputFormat(
    "format", cl::desc("Sweep output format"),
    cl::init(report::SweepFormat::Text),
    cl::values(clEnumValN(report::SweepFormat::Text, "text",
                          "aligned table (default)"),
               clEnumValN(report::SweepFormat::Csv, "csv",
                          "one row per point, base SI units"),
               clEnumValN(report::SweepFormat::Json, "json",
                          "one JSON document, base SI units")),
    cl::sub(SweepCmd), cl::cat(LLMSysCat));
static cl::opt<std::string>
    SweepFilter("sweep", cl::desc("Run only the sweep <name>"),
                cl::value_desc("name"), cl::sub(SweepCmd), cl::cat(LLMSysCat));
static cl::opt<unsigned>
    SweepThreads("threads", cl::desc("Threads (default: one per core); the "
                                     "output does not depend on it"),
                 cl::init(0), cl::value_desc("n"), cl::sub(SweepCmd),
                 cl::cat(LLMSysCat));
static cl::opt<uint64_t> MaxPoints(
    "max-points",
    cl::desc("Refuse sweeps of more than <n> points (default 1000000)"),
    cl::init(1000000), cl::value_desc("n"), cl::sub(SweepCmd),
    cl::cat(LLMSysCat));
static cl::opt<cl::boolOrDefault>
    Progress("progress",
             cl::desc("A progress line on stderr (default: on a terminal)"),
             cl::sub(SweepCmd), cl::cat(LLMSysCat));

static cl::opt<std::string> OutputFile(
    "o",
    cl::desc("Write the report to <file>: whole, and only when the command "
             "succeeds (a temporary file renamed into place)"),
    cl::value_desc("file"), cl::sub(EvalCmd), cl::sub(SweepCmd),
    cl::sub(RequireCmd), cl::sub(DiffCmd), cl::sub(ValidateCmd),
    cl::cat(LLMSysCat));

static cl::opt<std::string> PlotDir(
    "plot",
    cl::desc("Write SVG figures to <dir>: per scenario its roofline, time "
             "and memory; per pareto sweep its front"),
    cl::value_desc("dir"), cl::sub(EvalCmd), cl::sub(SweepCmd),
    cl::cat(LLMSysCat));

/// Writes one figure under --plot, whole (a temporary file renamed into
/// place). False after an error message.
static bool writePlot(StringRef Name, const std::string &Svg) {
  if (std::error_code EC = sys::fs::create_directories(PlotDir)) {
    WithColor::error(errs(), "llmsys") << "cannot create '" << PlotDir
                                       << "': " << EC.message() << '\n';
    return false;
  }
  SmallString<128> Path(PlotDir.getValue());
  sys::path::append(Path, Name);
  if (Error E = writeToOutput(Path, [&](raw_ostream &OS) {
        OS << Svg;
        return Error::success();
      })) {
    WithColor::error(errs(), "llmsys") << "cannot write '" << Path
                                       << "': " << toString(std::move(E))
                                       << '\n';
    return false;
  }
  return true;
}

/// Where reports go: stdout, or the -o file being written.
static raw_ostream *ReportStream = nullptr;
static raw_ostream &out() { return ReportStream ? *ReportStream : outs(); }

/// Runs a command, its report to stdout or to -o. The file is replaced
/// only when the command exits 0.
static int withOutput(const std::function<int()> &Run) {
  if (OutputFile.empty())
    return Run();
  int Status = 0;
  Error E = writeToOutput(OutputFile, [&](raw_ostream &OS) -> Error {
    ReportStream = &OS;
    Status = Run();
    ReportStream = nullptr;
    if (Status != 0)
      return createStringError(inconvertibleErrorCode(), "not written");
    return Error::success();
  });
  if (Status != 0) {
    consumeError(std::move(E));
    WithColor::note(errs(), "llmsys")
        << "'" << OutputFile << "' not written: the command failed\n";
    return Status;
  }
  if (E) {
    WithColor::error(errs(), "llmsys")
        << "cannot write '" << OutputFile << "': " << toString(std::move(E))
        << '\n';
    return 1;
  }
  return 0;
}

static CompileOptions compileOptions(const char *Argv0) {
  CompileOptions O;
  O.Files.assign(Inputs.begin(), Inputs.end());
  O.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  O.StdlibDir = StdlibDir.empty()
                    ? findStdlibDir(Argv0, reinterpret_cast<void *>(&compileOptions))
                    : StdlibDir.getValue();
  O.ErrorLimit = ErrorLimit;
  O.Colors = WithColor(errs()).colorsEnabled();
  return O;
}

/// Evaluates the `expect` statements of the files against the evaluations
/// (computing those of scenarios not yet evaluated). Failures are
/// diagnostics at the expectation; returns false if any failed.
static bool checkExpectations(
    Compilation &C,
    std::map<const spec::Object *, std::optional<cost::Evaluation>> &Done) {
  passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  bool Ok = true;
  for (const spec::Expectation &X : C.Spec.Expectations) {
    auto It = Done.find(X.Scenario);
    if (It == Done.end())
      It = Done.emplace(X.Scenario,
                        cost::evaluate(ir::scenarioFromSpec(*X.Scenario), Ctx))
               .first;
    if (!It->second) {
      Ok = false;
      continue;
    }
    std::optional<double> V = It->second->figure(X.Figure->Name);
    if (!V) {
      C.Diags.report(DiagID::err_expect_unavailable, X.Range,
                     X.Scenario->Name, X.Figure->Name);
      Ok = false;
      continue;
    }
    double Lo = X.Lo.Kind == spec::ValueKind::Bool ? double(X.Lo.Bool) : X.Lo.Num;
    double Hi = X.Hi.Num;
    bool Holds;
    std::string Want;
    if (X.Op == "in") {
      Holds = *V >= Lo && *V <= Hi;
      Want = "in " + report::showFigure(Lo, X.Figure->Type) + " .. " +
             report::showFigure(Hi, X.Figure->Type);
    } else {
      Holds = X.Op == "<"    ? *V < Lo
              : X.Op == "<=" ? *V <= Lo
              : X.Op == ">"  ? *V > Lo
              : X.Op == ">=" ? *V >= Lo
              : X.Op == "==" ? *V == Lo
                             : *V != Lo;
      Want = X.Op + " " + report::showFigure(Lo, X.Figure->Type);
    }
    if (!Holds) {
      C.Diags.report(DiagID::err_expect_failed, X.Range, X.Scenario->Name,
                     X.Figure->Name, report::showFigure(*V, X.Figure->Type), Want);
      Ok = false;
    }
  }
  return Ok;
}

static int runEval(Compilation &C) {
  bool Ok = C.run();
  if (!Ok)
    return C.finish(errs());
  unsigned Shown = 0;
  bool Failed = false;
  passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  bool Json = OutputFormat == Format::Json;
  bool Md = OutputFormat == Format::Md;
  bool Csv = OutputFormat == Format::Csv;
  unsigned Rows = TopOps ? unsigned(TopOps) : ~0u;
  if (Csv)
    report::printScenarioCsvHeader(out());
  json::Array Scenarios;
  std::map<const spec::Object *, std::optional<cost::Evaluation>> Done;
  for (const spec::Object *S : C.Spec.Scenarios) {
    if (!ScenarioFilter.empty() && S->Name != ScenarioFilter)
      continue;
    if (Shown++ && !Json && !Csv)
      out() << '\n';
    std::optional<cost::Evaluation> &E =
        Done[S] = cost::evaluate(ir::scenarioFromSpec(*S), Ctx);
    if (!E) {
      Failed = true;
      continue;
    }
    // The JSON report feeds the figures and the Markdown tables.
    std::optional<json::Value> J;
    if (!PlotDir.empty() || Md)
      J = E->Training ? report::trainingJson(E->Program, E->Train)
                      : report::servingJson(E->Program, E->Serve);
    if (!PlotDir.empty() &&
        (!writePlot(S->Name + ".roofline.svg",
                    report::plotRoofline(E->Program, *J)) ||
         !writePlot(S->Name + ".time.svg", report::plotTime(*J)) ||
         !writePlot(S->Name + ".memory.svg", report::plotMemory(*J))))
      Failed = true;
    if (Csv) {
      report::printScenarioCsvRow(*S, *E, out());
      continue;
    }
    if (Md) {
      if (json::Object *O = J->getAsObject()) {
        // The tables hold the first --ops rows, as the text report does.
        for (const char *T : {"operators", "collectives"})
          if (json::Array *A = O->getArray(T))
            while (A->size() > Rows)
              A->pop_back();
      }
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
  if (Json)
    out() << formatv("{0:2}", json::Value(json::Object{
                                   {"scenarios", std::move(Scenarios)}}))
           << '\n';
  if (!ScenarioFilter.empty() && Shown == 0) {
    C.finish(errs());
    WithColor::error(errs(), "llmsys")
        << "no scenario named '" << ScenarioFilter << "'\n";
    return 1;
  }
  // The reports first, then the diagnostics of the expectations.
  out().flush();
  if (!checkExpectations(C, Done))
    Failed = true;
  int Status = C.finish(errs());
  return Failed ? 1 : Status;
}

static int runSweep(Compilation &C) {
  if (!C.run())
    return C.finish(errs());
  bool Any = false, Failed = false;
  for (const spec::Sweep &W : C.Spec.Sweeps) {
    if (!C.Spec.isTopLevel(*W.Decl) ||
        (!SweepFilter.empty() && W.Decl->Name != SweepFilter))
      continue;
    if (W.points() > MaxPoints) {
      C.Diags.report(DiagID::err_sweep_too_large, W.Decl->DeclRange,
                     W.Decl->Name, W.points(), uint64_t(MaxPoints));
      Failed = true;
      continue;
    }
    if (Any && SweepOutputFormat != report::SweepFormat::Text) {
      C.Diags.report(DiagID::err_sweep_one_per_document, W.Decl->DeclRange,
                     W.Decl->Name);
      Failed = true;
      break;
    }
    if (Any)
      out() << '\n';
    Any = true;
    std::vector<std::string> Cols = sweep::columns(W);
    report::SweepPrinter Printer(W, Cols, SweepOutputFormat, out());
    Printer.begin();
    sweep::Options Opts;
    Opts.Threads = SweepThreads;
    Opts.Progress = Progress == cl::BOU_UNSET
                        ? sys::Process::StandardErrIsDisplayed()
                        : Progress == cl::BOU_TRUE;
    Opts.Stream = [&](const sweep::Point &P) { Printer.row(P); };
    sweep::Result R = sweep::run(W, Opts);
    for (size_t I = 0; I < R.Kept.size(); ++I)
      Printer.row(R.Kept[I], I + 1);
    Printer.end(R);
    if (!PlotDir.empty() && W.Pareto &&
        !writePlot(W.Decl->Name + ".pareto.svg", report::plotPareto(W, R)))
      Failed = true;
  }
  if (!SweepFilter.empty() && !Any && !Failed) {
    C.finish(errs());
    WithColor::error(errs(), "llmsys")
        << "no sweep named '" << SweepFilter << "'\n";
    return 1;
  }
  out().flush();
  int Status = C.finish(errs());
  return Failed ? 1 : Status;
}

static int runRequire(Compilation &C) {
  if (OutputFormat == Format::Md || OutputFormat == Format::Csv) {
    WithColor::error(errs(), "llmsys") << "require prints text or json\n";
    return 1;
  }
  if (!C.run())
    return C.finish(errs());
  passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  bool Json = OutputFormat == Format::Json;
  bool Failed = false;
  unsigned Shown = 0;
  json::Array Out;
  for (const spec::Object *S : C.Spec.Scenarios) {
    if (S->Type->Name != "serve" ||
        (!ScenarioFilter.empty() && S->Name != ScenarioFilter))
      continue;
    ir::ScenarioConfig Config = ir::scenarioFromSpec(*S);
    if (!Config.SloTtft && !Config.SloTpot && !Config.SloE2E &&
        !Config.SloThroughput) {
      C.Diags.report(DiagID::err_require_no_slo, S->DeclRange, S->Name);
      Failed = true;
      continue;
    }
    std::optional<ir::Program> P = passes::buildProgram(Config, Ctx);
    if (!P) {
      Failed = true;
      continue;
    }
    cost::RequireReport R = cost::require(*P);
    if (Json) {
      Out.push_back(report::requireJson(*P, R));
    } else {
      if (Shown)
        out() << '\n';
      report::printRequireText(*P, R, out());
    }
    ++Shown;
  }
  if (Json)
    out() << formatv("{0:2}", json::Value(json::Object{
                                   {"requirements", std::move(Out)}}))
           << '\n';
  if (Shown == 0 && !Failed) {
    C.finish(errs());
    WithColor::error(errs(), "llmsys")
        << (ScenarioFilter.empty()
                ? std::string("no serve scenario in the files")
                : "no serve scenario named '" + ScenarioFilter + "'")
        << '\n';
    return 1;
  }
  out().flush();
  int Status = C.finish(errs());
  return Failed ? 1 : Status;
}

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

static const spec::Object *topScenario(Compilation &C, StringRef Name) {
  for (const spec::Object *S : C.Spec.Scenarios)
    if (S->Name == Name && C.Spec.isTopLevel(*S))
      return S;
  return nullptr;
}

static int runDiff(const char *Argv0) {
  if (DiffSides.size() != 2) {
    WithColor::error(errs(), "llmsys")
        << "diff needs two sides: FILE[:SCENARIO] FILE[:SCENARIO]\n";
    return 1;
  }
  std::vector<report::Threshold> Thresholds;
  for (const std::string &T : FailIf) {
    std::string Error;
    std::optional<report::Threshold> Th = report::parseThreshold(T, Error);
    if (!Th) {
      WithColor::error(errs(), "llmsys") << "--fail-if " << Error << '\n';
      return 1;
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
  // The pairs: the named scenarios; else scenarios of the same name; else
  // the only scenario of each file.
  std::vector<std::pair<const spec::Object *, const spec::Object *>> Pairs;
  auto Scenarios = [](Compilation &C) {
    std::vector<const spec::Object *> Out;
    for (const spec::Object *S : C.Spec.Scenarios)
      if (C.Spec.isTopLevel(*S))
        Out.push_back(S);
    return Out;
  };
  for (DiffSide &S : Sides)
    if (!S.Scenario.empty() && !topScenario(*S.C, S.Scenario)) {
      WithColor::error(errs(), "llmsys") << "no scenario named '" << S.Scenario
                                         << "' in " << S.File << '\n';
      return 1;
    }
  std::vector<const spec::Object *> A = Scenarios(*Sides[0].C),
                                    B = Scenarios(*Sides[1].C);
  if (!Sides[0].Scenario.empty() || !Sides[1].Scenario.empty()) {
    const spec::Object *X = !Sides[0].Scenario.empty()
                                ? topScenario(*Sides[0].C, Sides[0].Scenario)
                            : A.size() == 1 ? A[0] : nullptr;
    const spec::Object *Y = !Sides[1].Scenario.empty()
                                ? topScenario(*Sides[1].C, Sides[1].Scenario)
                            : B.size() == 1 ? B[0] : nullptr;
    if (X && !Y && Sides[1].Scenario.empty())
      Y = topScenario(*Sides[1].C, X->Name);
    if (Y && !X && Sides[0].Scenario.empty())
      X = topScenario(*Sides[0].C, Y->Name);
    if (X && Y)
      Pairs.push_back({X, Y});
  } else {
    for (const spec::Object *X : A)
      if (const spec::Object *Y = topScenario(*Sides[1].C, X->Name))
        Pairs.push_back({X, Y});
    if (Pairs.empty() && A.size() == 1 && B.size() == 1)
      Pairs.push_back({A[0], B[0]});
  }
  if (Pairs.empty()) {
    WithColor::error(errs(), "llmsys")
        << "no pair of scenarios to compare; name them: FILE:SCENARIO\n";
    return 1;
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
      return 1;
    }
  }
  if (Json)
    out() << formatv("{0:2}", json::Value(json::Object{{"diffs", std::move(Out)}}))
           << '\n';
  if (OutputFormat == Format::Csv)
    report::printDiffCsv(Results, out());
  out().flush();
  int Status = std::max(Sides[0].C->finish(errs()), Sides[1].C->finish(errs()));
  for (const std::string &M : Crossed)
    WithColor::error(errs(), "llmsys") << "threshold crossed: " << M << '\n';
  return Failed || !Crossed.empty() ? 1 : Status;
}

static int runValidate(const char *Argv0) {
  // Every .llmsys file under the folders, checked together.
  std::vector<std::string> Files;
  for (const std::string &Dir : ValidateDirs) {
    std::error_code EC;
    if (!sys::fs::is_directory(Dir)) {
      Files.push_back(Dir);
      continue;
    }
    for (sys::fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC;
         I.increment(EC))
      if (sys::path::extension(I->path()) == ".llmsys")
        Files.push_back(I->path());
  }
  std::sort(Files.begin(), Files.end());
  CompileOptions O = compileOptions(Argv0);
  O.Files = Files;
  Compilation C(O);
  if (!C.run())
    return C.finish(errs());
  passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  cost::ValidationResult R = cost::validate(C.Spec, Ctx);
  for (const std::string &F : R.Failures)
    WithColor::error(errs(), "llmsys") << F << '\n';
  if (OutputFormat == Format::Json)
    out() << formatv("{0:2}", report::validationJson(R)) << '\n';
  else if (OutputFormat == Format::Md)
    report::printValidationMarkdown(R, out());
  else if (OutputFormat == Format::Csv)
    report::printValidationCsv(R, out());
  else
    report::printValidationText(R, out());
  out().flush();
  bool Failed = !R.Failures.empty();
  int Status = C.finish(errs());
  return Failed ? 1 : Status;
}

static int runCheck(Compilation &C) {
  // Checks the files, then evaluates their expectations (costing only the
  // scenarios they name).
  if (C.run()) {
    std::map<const spec::Object *, std::optional<cost::Evaluation>> Done;
    checkExpectations(C, Done);
  }
  return C.finish(errs());
}

static int runList(Compilation &C) {
  bool Ok = C.run();
  int Status = C.finish(errs());
  if (!Ok)
    return Status;
  std::map<std::string, std::vector<const spec::Object *>> ByKind;
  for (const spec::Object *O : C.Spec.Entities)
    ByKind[O->Type->Name].push_back(O);
  for (const StructSpec *Kind : Schema::get().entities()) {
    auto It = ByKind.find(Kind->Name);
    if (It == ByKind.end())
      continue;
    outs() << Kind->Name << " (" << It->second.size() << ")\n";
    for (const spec::Object *O : It->second) {
      outs() << "  " << O->Name;
      std::string Where = O->Module.empty()
                              ? C.SM.getMemoryBuffer(O->BufferID)
                                    ->getBufferIdentifier()
                                    .str()
                              : O->Module;
      outs().indent(O->Name.size() < 30 ? 30 - O->Name.size() : 1) << Where
                                                                    << '\n';
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions({&LLMSysCat, &getColorCategory()});
  for (cl::SubCommand *Sub :
       {&EvalCmd, &CheckCmd, &ListCmd, &ValidateCmd, &SweepCmd, &RequireCmd,
        &DiffCmd, &SchemaCmd})
    cl::HideUnrelatedOptions({&LLMSysCat, &getColorCategory()}, *Sub);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "llmsys " << LLMSYS_VERSION << '\n';
  });
  // The overview names the entity kinds from the schema itself.
  std::string Overview =
      "llmsys: predicts what training and serving LLMs costs\n\n"
      "  llmsys eval FILE...    check, then evaluate the scenarios\n"
      "  llmsys check FILE...   check the files and their expectations\n"
      "  llmsys sweep FILE...   evaluate the sweeps of the files\n"
      "  llmsys require FILE... least hardware meeting serve SLOs\n"
      "  llmsys diff A B        two scenarios side by side\n"
      "  llmsys list [FILE...]  entities available after imports\n"
      "  llmsys validate DIR... predictions against measured cases\n"
      "  llmsys schema          entity kinds and fields (Markdown)\n\n"
      "Entity kinds (fields: llmsys schema):\n";
  for (const StructSpec *K : Schema::get().entities())
    Overview += "  " + K->Name + std::string(14 - std::min<size_t>(13, K->Name.size()), ' ') +
                K->Doc + "\n";
  cl::ParseCommandLineOptions(argc, argv, Overview);

  if (SchemaCmd) {
    Schema::get().printMarkdown(outs());
    return 0;
  }
  if (ValidateCmd)
    return withOutput([&] { return runValidate(argv[0]); });
  if (DiffCmd)
    return withOutput([&] { return runDiff(argv[0]); });
  if (!EvalCmd && !CheckCmd && !ListCmd && !SweepCmd && !RequireCmd) {
    WithColor::error(errs(), "llmsys")
        << "no subcommand given; see 'llmsys --help'\n";
    return 1;
  }
  Compilation C(compileOptions(argv[0]));
  if (EvalCmd)
    return withOutput([&] { return runEval(C); });
  if (CheckCmd)
    return runCheck(C);
  if (SweepCmd)
    return withOutput([&] { return runSweep(C); });
  if (RequireCmd)
    return withOutput([&] { return runRequire(C); });
  return runList(C);
}
