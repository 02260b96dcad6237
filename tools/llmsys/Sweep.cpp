//===- Sweep.cpp - llmsys sweep -------------------------------------------===//
//
// Each top-level sweep of the files (or --sweep NAME): its points, kept or
// streamed, as text, CSV or JSON, and the Pareto figure under --plot.
//
//===----------------------------------------------------------------------===//

#include "Sweep/Sweep.h"
#include "Basic/Suggest.h"
#include "Driver.h"
#include "Driver/Evaluate.h"
#include "Report/Svg.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace llmsys {
namespace driver {

/// The sweeps of one unit; Any: a sweep was printed (by an earlier unit
/// too); Names: the unit's sweep names are added.
static int runSweepUnit(Compilation &C, bool &Any,
                        std::vector<std::string> &Names) {
  bool Failed = false; // bad input or I/O
  for (const spec::Sweep &W : C.Spec.Sweeps) {
    if (C.Spec.isTopLevel(*W.Decl))
      Names.push_back(W.Decl->Name);
  }
  for (const spec::Sweep &W : C.Spec.Sweeps) {
    if (!C.Spec.isTopLevel(*W.Decl) ||
        (!SweepFilter.empty() && W.Decl->Name != SweepFilter))
      continue;
    if (SweepRanks && SweepRanks->size() > W.points()) {
      C.Diags.report<DiagID::err_sweep_ranks_exceed_points>(
          W.Decl->DeclRange, W.Decl->Name, W.pointsText(),
          SweepRanks->size());
      Failed = true;
      continue;
    }
    if (W.points() > MaxPoints) {
      C.Diags.report<DiagID::err_sweep_too_large>(W.Decl->DeclRange,
                     W.Decl->Name, W.pointsText(), uint64_t(MaxPoints));
      Failed = true;
      continue;
    }
    if (Any && SweepOutputFormat != report::SweepFormat::Text) {
      C.Diags.report<DiagID::err_sweep_one_per_document>(W.Decl->DeclRange,
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
    Opts.Ranks = SweepRanks;
    Opts.ReusePrefix = SweepReusePrefix;
    Opts.ReuseEvaluation = SweepReuseEvaluation;
    Opts.Progress = Quiet                      ? false
                    : Progress == cl::BOU_UNSET
                        ? sys::Process::StandardErrIsDisplayed()
                        : Progress == cl::BOU_TRUE;
    // Without an objective the points are streamed, not kept: a figure
    // needs them kept too.
    std::vector<sweep::Point> Streamed;
    Opts.Stream = [&](const sweep::Point &P) {
      Printer.row(P);
      if (!PlotDir.empty())
        Streamed.push_back(P);
    };
    sweep::Result R = sweep::run(W, Opts);
    for (size_t I = 0; I < R.Kept.size(); ++I)
      Printer.row(R.Kept[I], I + 1);
    Printer.end(R);
    // An objective no point has (cost without prices, ...) ranks nothing.
    for (const auto &[Figure, Maximize] : W.Objectives) {
      auto Col = std::find(R.Columns.begin(), R.Columns.end(), Figure);
      if (R.Kept.empty() || Col == R.Columns.end())
        continue;
      double Best = R.Kept.front().Figures[Col - R.Columns.begin()];
      if (std::isnan(Best))
        C.Diags.report<DiagID::warn_sweep_objective_unavailable>(W.Decl->DeclRange, Figure, W.Decl->Name,
                       W.Scenario->Type->findFigure(Figure)
                           ->Info->missingReason());
    }
    if (!PlotDir.empty() &&
        !(W.Pareto
              ? writePlot(W.Decl->Name + ".pareto.svg",
                          report::plotPareto(W, R))
              : writePlot(W.Decl->Name + ".sweep.svg",
                          report::plotSweep(W, R,
                                            R.Kept.empty() ? Streamed
                                                           : R.Kept))))
      Failed = true;
  }
  return finish(C, Failed ? ExitBadInput : ExitOk);
}

int runSweep(Units &Us) {
  bool Any = false;
  int Status = ExitOk;
  std::vector<std::string> Names;
  for (std::unique_ptr<Compilation> &Unit : Us) {
    Compilation &C = *Unit;
    if (!C.run()) {
      Status = std::max(Status, C.finish(errOut()));
      continue;
    }
    Status = std::max(Status, runSweepUnit(C, Any, Names));
  }
  if (!SweepFilter.empty() && !Any && Status == ExitOk) {
    WithColor::error(errOut(), "llmsys")
        << "no sweep named '" << SweepFilter << "'"
        << didYouMean(SweepFilter, Names) << '\n';
    return ExitBadInput;
  }
  // A file without sweeps would print nothing and succeed.
  if (!Any && Status == ExitOk) {
    WithColor::error(errOut(), "llmsys")
        << "the input declares no sweep: write 'sweep NAME over SCENARIO "
           "{ AXIS in [...]; minimize FIGURE }'\n";
    return ExitBadInput;
  }
  return Status;
}

} // namespace driver
} // namespace llmsys
