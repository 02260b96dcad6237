//===- Evaluate.h - a scenario from spec to results ----------------*- C++ -*-===//
//
// The pipeline every tool runs for a scenario: the passes, then the training
// or serving cost; and the value of a named figure of the result (the
// figures of the schema, for `expect`, `measurement` and sweeps).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_DRIVER_EVALUATE_H
#define LLMSYS_DRIVER_EVALUATE_H

#include "Cost/Cost.h"
#include "Driver/BuildProgram.h"
#include "Passes/Passes.h"

#include <map>
#include <optional>

namespace llmsys {
namespace driver {

struct Evaluation {
  ir::Program Program;
  bool Training = true;
  cost::TrainingReport Train;
  cost::ServingReport Serve;

  /// The value of a figure in base units (booleans as 0 or 1), or nullopt
  /// when the result lacks it (ir::FigureInfo::Needs says why).
  std::optional<double> figure(ir::FigureID F) const;
  /// The same by name or key, nullopt also for a figure of the other
  /// scenario kind.
  std::optional<double> figure(llvm::StringRef NameOrKey) const;
};

/// A scenario's programs at other batches, built quietly on demand and
/// kept (in-flight batching prices its steps with them).
class BatchPrograms {
public:
  BatchPrograms(const ir::ScenarioConfig &S, bool Verify) : S(S) {
    Quiet.Verify = Verify;
  }
  /// Null when the scenario does not build at that batch.
  const ir::Program *at(int64_t Batch);
  cost::ProgramAtBatch callback() {
    return [this](int64_t Batch) { return at(Batch); };
  }

private:
  const ir::ScenarioConfig &S;
  passes::PassContext Quiet;
  std::map<int64_t, std::optional<ir::Program>> Built;
};

/// Runs the passes and the cost. Failures are diagnosed through Ctx.
/// Detail: the per-operator and per-collective tables and, for serving,
/// the decode crossover batch (two more decode programs); a sweep, which
/// reads figures only, leaves them out.
std::optional<Evaluation> evaluate(const ir::ScenarioConfig &S,
                                   passes::PassContext &Ctx,
                                   bool Detail = true);
/// The same into E, which may hold an earlier evaluation (a sweep thread
/// evaluates point after point into one, reusing its storage); false
/// after a diagnosed failure (E then holds no valid result).
/// Every figure is then checked to be finite and not negative
/// (err_figure_out_of_model otherwise).
bool evaluateInto(const ir::ScenarioConfig &S, passes::PassContext &Ctx,
                  Evaluation &E, bool Detail = true);
/// That check: false, with the error through Ctx, when a figure of E is
/// not finite or is negative.
bool checkFigures(const ir::ScenarioConfig &S, const Evaluation &E,
                  passes::PassContext &Ctx);

} // namespace driver
} // namespace llmsys

#endif
