//===- CrossValidate.h - held-out errors of the fitted parameters -*- C++ -*-===//
//
// `llmsys validate --cross-validate`: the one end-to-end fitted parameter,
// each accelerator's `efficiency.sustained`, is refitted with one source
// group of measurements left out at a time, and that group is predicted
// with the values fitted on the others (leave-one-group-out). The held-out
// errors are the ones to quote: an in-sample error measures the fit, not
// the model (docs/validation.md).
//
// The fitting rule is the one tools/calibration/sustained.py applies: for
// each parameter (the accelerator entity that writes `sustained`, which
// the devices extending it share), the value on a 0.001 grid with the
// least mean |error| over the training cases that use it; ties (a flat
// least |error|) go to the middle of the tied values. A parameter none of whose cases is in the fit set (every
// run on that device is held out) takes the value fitted on all the fit
// set's training cases together, one value for every device: what a new
// device gets before it has measurements of its own.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_DRIVER_CROSSVALIDATE_H
#define LLMSYS_DRIVER_CROSSVALIDATE_H

#include "Driver/Validate.h"
#include "Driver/Evaluate.h"

#include <map>
#include <string>
#include <vector>

namespace llmsys {
namespace driver {

/// A fitted parameter: one accelerator entity's `efficiency.sustained`.
struct FittedParameter {
  std::string Owner;      ///< the entity that writes the value
  /// The field: efficiency.sustained (an accelerator's, fitted on training
  /// cases), step_overhead or sequence_overhead (an in-flight batching
  /// engine's mapping, fitted on its serving cases).
  std::string Field = "efficiency.sustained";
  double Written = 1;     ///< its value in the spec
  double Fitted = 1;      ///< refitted on every case it is fitted on
  unsigned TrainingCases = 0; ///< the cases it is fitted on
};

struct HeldOutGroup {
  std::string Source;
  ValidationSummary InSample; ///< at the spec's values
  ValidationSummary HeldOut;  ///< at the values fitted without the group
  /// Where a value a group was predicted with comes from: refitted on
  /// the device's other cases, the pooled fit (no case of that device
  /// left), or written in the spec (not a fitted parameter, or no training
  /// case left at all).
  enum class Origin { Fitted, Pooled, Written };
  struct Value {
    double V = 1;
    Origin From = Origin::Fitted;
  };
  /// The value of each parameter the group's cases use.
  std::map<std::string, Value> Values;
  /// An engine's step_overhead and sequence_overhead, by the mapping that
  /// writes them.
  struct EngineValue {
    double Step = 0, Sequence = 0;
    Origin From = Origin::Fitted;
  };
  std::map<std::string, EngineValue> Engines;
};

struct CrossValidation {
  std::vector<FittedParameter> Parameters;
  std::vector<HeldOutGroup> Groups; ///< by source
  /// Per case of the ValidationResult (same order): the held-out
  /// prediction.
  std::vector<double> HeldOutPredicted;
  ValidationSummary TrainHeldOut, ServeHeldOut, AllHeldOut;
  /// The training cases the parameters are fitted on (the others are
  /// `calibrates = false`).
  unsigned CalibratingCases = 0;
  /// The serving cases the engines' step overheads are fitted on.
  unsigned EngineCases = 0;
  double GridLow = 0.5, GridHigh = 1.0, GridStep = 0.001;
  /// The step overheads' grids (seconds): 0 .. StepHigh by StepStep, 0 ..
  /// SequenceHigh by SequenceStep.
  double StepHigh = 5e-3, StepStep = 1e-4;
  double SequenceHigh = 5e-6, SequenceStep = 1e-7;

  /// A source group's held-out summary, else "train", "serve" or "all";
  /// null for another name.
  const ValidationSummary *summary(llvm::StringRef Name) const;
};

/// "fitted", "pooled", "written".
llvm::StringRef originName(HeldOutGroup::Origin O);

/// The in-flight batching engine whose step_overhead and sequence_overhead
/// a serve scenario uses: the mapping entity that writes them (the
/// mappings extending it share them); "" when its mapping writes neither
/// (not fitted, and the scenario's measurements not fitted on).
std::string engineOwner(const spec::Object &Scenario);

/// Whether a serving case of Engine's (engineOwner) can fit its step
/// overheads: a run whose steps do not depend on their times
/// (TrafficReport::StepsFixed) and a figure over the run (throughput,
/// throughput_per_device, request_throughput), whose value at any
/// overheads follows from the run's duration, steps and sequences.
bool engineFitsOn(llvm::StringRef Engine, llvm::StringRef Figure,
                  const Evaluation &E);

/// Refits and predicts as above; R is validate()'s result for the same
/// spec (its cases are costed again at each grid value). Returns nullopt
/// after a diagnosed failure.
std::optional<CrossValidation> crossValidate(const ValidationResult &R,
                                             passes::PassContext &Ctx);

} // namespace driver
} // namespace llmsys

#endif
