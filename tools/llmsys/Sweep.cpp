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

#include "llvm/Support/MD5.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace llmsys {
namespace driver {

/// Adds the text of every file C read (the spec, its imports, the data
/// files) to Hash, each with its length.
static void hashSources(MD5 &Hash, const Compilation &C) {
  for (unsigned I = 1; I <= C.SM.getNumBuffers(); ++I) {
    StringRef Text = C.SM.getMemoryBuffer(I)->getBuffer();
    uint64_t Size = Text.size();
    Hash.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&Size),
                                  sizeof Size));
    Hash.update(Text);
  }
}

/// What a checkpoint of W must match: the tool's version and checkpoint
/// format, the sweep's name, and the text of every file the unit read (the
/// spec, its imports, the data files), hashed.
static std::string checkpointIdentity(const Compilation &C,
                                      const spec::Sweep &W) {
  MD5 Hash;
  hashSources(Hash, C);
  MD5::MD5Result R;
  Hash.final(R);
  return std::string("llmsys ") + LLMSYS_VERSION + "\nsweep " +
         W.Decl->Name + "\n" + std::string(R.digest().str());
}

/// The sweeps of one unit; Any: a sweep was printed (by an earlier unit
/// too); Names: the unit's sweep names are added.
static int runSweepUnit(Compilation &C, bool &Any,
                        std::vector<std::string> &Names) {
  bool Failed = false; // bad input or I/O
  for (const spec::Sweep &W : C.Spec.Sweeps) {
    if (C.Spec.isTopLevel(*W.Decl))
      Names.push_back(W.Decl->Name);
  }
  // A checkpoint holds one sweep's progress.
  if (!Checkpoint.empty()) {
    unsigned Selected = 0;
    for (const spec::Sweep &W : C.Spec.Sweeps)
      if (C.Spec.isTopLevel(*W.Decl) &&
          (SweepFilter.empty() || W.Decl->Name == SweepFilter) &&
          (Any || Selected++ > 0)) {
        C.Diags.report<DiagID::err_sweep_checkpoint_one>(W.Decl->DeclRange,
                                                         W.Decl->Name);
        return finish(C, ExitBadInput);
      }
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
    std::vector<std::string> Cols = sweep::columns(W);
    report::SweepPrinter Printer(W, Cols, SweepOutputFormat, out());
    // Begun with the first row or after the run: a sweep refused by its
    // checkpoint prints nothing.
    bool Begun = false;
    auto Begin = [&] {
      if (Begun)
        return;
      if (Any)
        out() << '\n';
      Any = true;
      Printer.begin();
      Begun = true;
    };
    sweep::Options Opts;
    if (!Checkpoint.empty()) {
      if (!(CheckpointInterval >= 0)) {
        WithColor::error(errOut(), "llmsys")
            << "--checkpoint-interval takes seconds, 0 or more\n";
        Failed = true;
        break;
      }
      Opts.Save.Path = Checkpoint;
      Opts.Save.IntervalSeconds = CheckpointInterval;
      Opts.Save.Identity = checkpointIdentity(C, W);
    }
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
      Begin();
      Printer.row(P);
      if (!PlotDir.empty())
        Streamed.push_back(P);
    };
    sweep::Result R = sweep::run(W, Opts);
    if (!R.Ran) {
      WithColor::error(errOut(), "llmsys") << R.CheckpointError << '\n';
      Failed = true;
      break;
    }
    if (R.Resumed && !Quiet)
      WithColor::note(errOut(), "llmsys")
          << "sweep '" << W.Decl->Name << "' resumed from '" << Checkpoint
          << "': " << R.Resumed << " of " << R.Total
          << " points were done\n";
    Begin();
    for (size_t I = 0; I < R.Kept.size(); ++I)
      Printer.row(R.Kept[I], I + 1);
    Printer.end(R);
    if (!R.CheckpointError.empty()) {
      // The report is whole; the progress on disk is not.
      WithColor::error(errOut(), "llmsys") << R.CheckpointError << '\n';
      Failed = true;
    }
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
    bool Reports = !SweepRanks || SweepRanks->rank() == 0;
    if (Reports && !PlotDir.empty() &&
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

/// Under MPI: whether every rank compiled the same units to the same
/// result (the same files' text, the same errors), so that all run the
/// same sweeps in the same order; rank 0 says why not.
static bool ranksCompiledAlike(Units &Us) {
  MD5 Hash;
  for (std::unique_ptr<Compilation> &Unit : Us) {
    uint8_t Ok = !Unit->Diags.hasErrors();
    Hash.update(ArrayRef<uint8_t>(&Ok, 1));
    hashSources(Hash, *Unit);
  }
  MD5::MD5Result R;
  Hash.final(R);
  std::vector<uint64_t> All = SweepRanks->allGather(R.low());
  if (llvm::all_equal(All))
    return true;
  if (SweepRanks->rank() == 0)
    WithColor::error(errs(), "llmsys")
        << "the MPI ranks read different specs (a file that differs "
           "between nodes?): every rank must see the same files\n";
  return false;
}

int runSweep(Units &Us) {
  bool Any = false;
  int Status = ExitOk;
  std::vector<std::string> Names;
  for (std::unique_ptr<Compilation> &Unit : Us)
    Unit->run();
  if (SweepRanks && !ranksCompiledAlike(Us))
    return ExitBadInput;
  for (std::unique_ptr<Compilation> &Unit : Us) {
    Compilation &C = *Unit;
    if (C.Diags.hasErrors()) {
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
