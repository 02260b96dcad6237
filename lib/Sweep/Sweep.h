//===- Sweep.h - evaluating a sweep's points ------------------------*- C++ -*-===//
//
// A sweep is the cartesian product of its axes over one scenario. Each point
// sets the axis fields in a private copy of the scenario's objects, reads
// the typed scenario, checks the `where` conditions that need no figures,
// costs the point, checks the rest, and ranks it: `minimize`/`maximize`
// keep the best `keep` points (10 unless written), `pareto` keeps the
// non-dominated front, and a sweep without an objective streams every
// accepted point in order. Memory is bounded by the wave size and what is
// kept, whatever the sweep's size. Waves of points are split over threads
// and merged in point order, so the output is identical for any number of
// threads.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SWEEP_SWEEP_H
#define LLMSYS_SWEEP_SWEEP_H

#include "IR/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace llmsys {
namespace driver {
struct Evaluation;
}
namespace passes {
struct PassContext;
}
namespace sweep {

/// One accepted point: its index in the grid (the last axis varies
/// fastest), the index of each axis value, and the value of each column
/// figure (NaN where the version does not compute it).
struct Point {
  uint64_t Index = 0;
  std::vector<uint32_t> Choice;
  std::vector<double> Figures;
};

struct Result {
  /// Figures reported per point: the scenario kind's summary figures, then
  /// objectives and figures named by `where` that are not among them.
  std::vector<std::string> Columns;
  uint64_t Total = 0;
  uint64_t InvalidMapping = 0; ///< rejected by the passes (divisibility, ...)
  uint64_t RejectedByWhere = 0;
  uint64_t Accepted = 0;
  /// keep: the best points, best first; pareto: the front, by the first
  /// objective; no objective: empty (points were streamed).
  std::vector<Point> Kept;
  /// Resumed from a checkpoint: the points it had done (0: a fresh run).
  uint64_t Resumed = 0;
  /// Non-empty: the checkpoint could not be read or written; before the
  /// first wave the sweep did not run (nothing is reported), after it the
  /// result is whole but the last checkpoint was not saved.
  std::string CheckpointError;
  bool Ran = true; ///< false: refused before the first wave
};

/// Long sweeps survive being stopped (docs/cli.md): rank 0 saves the merged
/// progress (the next point, the counts, the points kept or streamed so
/// far) to Path, atomically, every IntervalSeconds and at the end; a run
/// given a saved file resumes after its last point. Identity names the
/// sweep and everything it reads (the tool checks it: a file of another
/// sweep, spec or version is refused).
struct Checkpoint {
  std::string Path;
  double IntervalSeconds = 60;
  std::string Identity;
};

/// A sweep run by several processes (the ranks of an MPI job, docs/cli.md):
/// the grid is cut into waves, each rank evaluates its block of every wave
/// with its threads, and rank 0 gathers every rank's results wave after
/// wave and merges them in grid order, so that it reports what one
/// process would, byte for byte. lib/Sweep does not depend on MPI: the
/// tool implements this over it.
class Exchange {
public:
  virtual ~Exchange();
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;
  /// Every rank's value, in rank order, on every rank.
  virtual std::vector<uint64_t> allGather(uint64_t Mine) = 0;
  /// On rank 0, every rank's bytes in rank order; empty on the others.
  virtual std::vector<std::string> gather(const std::string &Mine) = 0;
};

struct Options {
  unsigned Threads = 0; ///< 0: one per core
  bool Progress = false; ///< a progress line on stderr
  /// Reuse the program before `partition` across points that differ only
  /// in the layout or the system (off: every pass runs at every point;
  /// the results are the same).
  bool ReusePrefix = true;
  /// Evaluate every point of a thread into one evaluation, reusing its
  /// storage (off: a new one per point; the results are the same).
  bool ReuseEvaluation = true;
  /// Without an objective: called for each accepted point, in grid order
  /// (on rank 0 alone when Ranks is set).
  std::function<void(const Point &)> Stream;
  /// Null: this process evaluates the whole grid. Otherwise the result is
  /// rank 0's; the other ranks' Result holds only Columns and Total.
  Exchange *Ranks = nullptr;
  /// Empty Path: no checkpoint.
  Checkpoint Save;
};

/// The figures reported for every point of a sweep over Scenario.
std::vector<std::string> columns(const spec::Sweep &W);

/// Whether a larger value of the figure is better (throughput, mfu, ...);
/// `pareto` uses it for the direction of each objective.
bool higherIsBetter(llvm::StringRef Figure);

/// Evaluates every point of W.
Result run(const spec::Sweep &W, const Options &Opts);

/// Evaluates one point of W (Choice: a value index per axis) as `llmsys
/// eval` does (with its operator tables, diagnostics through Ctx), and
/// hands the result to Use while the point's objects live. False when a
/// field computed from the axes does not accept its value (Ctx is told
/// nothing then) or after a diagnosed failure. The Python module's
/// overrides are the one point of a sweep of one value per axis.
bool evaluatePoint(const spec::Sweep &W, llvm::ArrayRef<uint32_t> Choice,
                   passes::PassContext &Ctx,
                   llvm::function_ref<void(const driver::Evaluation &)> Use);

/// The points `keep` retains when the sweep does not say.
constexpr unsigned DefaultKeep = 10;

} // namespace sweep
} // namespace llmsys

#endif
