//===- Validate.h - predictions against published measurements -*- C++ -*-===//
//
// `llmsys validate`: every `measurement` of a checked spec is costed and set
// beside its published value, then summarised per source group, per kind of
// scenario (train / serve) and overall (docs/validation.md).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_DRIVER_VALIDATE_H
#define LLMSYS_DRIVER_VALIDATE_H

#include "IR/Spec.h"
#include "Passes/Passes.h"

#include <map>
#include <string>
#include <vector>

namespace llmsys {
namespace driver {

struct ValidationCase {
  std::string Source; ///< group id, e.g. "korthikanti2022"
  std::string Case;   ///< row id (or the measurement's name)
  std::string Figure;
  std::string Unit; ///< base unit of the figure ("s", "FLOP/s", ...)
  bool Training = true;
  /// Fitted on: a training case the spec does not exclude, or a serving
  /// case of an engine's fitted step overheads whose figure at other
  /// overheads follows from its run (engineFitsOn).
  bool Calibrates = true;
  /// The in-flight batching engine whose step overheads a serving case
  /// uses (engineOwner; "" for none).
  std::string Engine;
  /// A serving case the engine's overheads are fitted on: its run at the
  /// written overheads (duration, steps and the steps' sequences summed),
  /// from which its figure at others follows (CrossValidate.cpp).
  double RunDuration = 0, RunSteps = 0, RunSequenceSteps = 0;
  std::string Accelerator; ///< the scenario's device (calibration is per device)
  const spec::Measurement *Measurement = nullptr;
  double Predicted = 0, Measured = 0;
  double error() const { return errorOf(Predicted); }
  /// The relative error of another prediction of this measurement.
  double errorOf(double P) const { return (P - Measured) / Measured; }
};

struct ValidationSummary {
  unsigned Cases = 0;
  double SumAbs = 0, MaxAbs = 0;
  double meanAbs() const { return Cases ? SumAbs / Cases : 0; }
  void add(double Error);
};

/// A measurement and its `baseline`: the ratio of their predictions
/// against the ratio of their measurements (an FP8 run against the BF16 run
/// of the same setup, one part against another).
struct ValidationPair {
  size_t Case = 0, Baseline = 0; ///< indices into ValidationResult::Cases
  double PredictedRatio = 0, MeasuredRatio = 0;
  double error() const { return PredictedRatio / MeasuredRatio - 1; }
};

struct ValidationResult {
  std::vector<ValidationCase> Cases; ///< by source, then case id
  /// In the order of their cases; in-sample predictions (a ratio of two
  /// predictions on one part hardly moves with its fitted `sustained`).
  std::vector<ValidationPair> Pairs;
  /// All pairs, and those of training and of serving scenarios (a pair's
  /// kind is its measurement's).
  ValidationSummary PairSummary, TrainPairs, ServePairs;
  /// "pairs", "train_pairs" or "serve_pairs"; null for another name.
  const ValidationSummary *pairSummary(llvm::StringRef Name) const;
  std::map<std::string, ValidationSummary> Groups;
  ValidationSummary Train, Serve, All;
  /// Measurements whose scenario could not be costed (diagnosed through
  /// the pass context); a figure the scenario lacks is diagnosed at the
  /// measurement instead.
  std::vector<std::string> Failures;

  /// A source group's summary, else "train", "serve" or "all"; null for
  /// another name. (The pairs': pairSummary.)
  const ValidationSummary *summary(llvm::StringRef Name) const;
};

ValidationResult validate(const spec::Spec &S, passes::PassContext &Ctx);

} // namespace driver
} // namespace llmsys

#endif
