//===- Diff.h - two scenarios side by side ------------------------*- C++ -*-===//
//
// `llmsys diff`: every input that differs between two scenarios (fields
// through the model, system, accelerator, mapping, ..., in base units) and
// every figure side by side with the ratio, largest changes first; and
// thresholds on ratios (`step_time_s > 1.05x`) for CI (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_DIFF_H
#define LLMSYS_REPORT_DIFF_H

#include "Driver/Evaluate.h"
#include "IR/Spec.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace report {

struct InputChange {
  std::string Path;   ///< "model.hidden", "system.node.accelerator.hbm.bandwidth"
  std::string A, B;   ///< as shown ("" when unset on that side)
  std::string ExactA, ExactB; ///< base units, round-trip (JSON)
  /// How a derived value came about on each side ("technology N4 -> N2,
  /// x2.09 (...)"; "" when written, inherited or a default).
  std::string WhyA, WhyB;
};

/// A yes/no outcome on both sides: fits, each SLO, each expectation.
struct Verdict {
  std::string What; ///< "fits", "slo ttft <= 200 ms", "expect mfu in 0.35 .. 0.6"
  std::string A, B; ///< "yes"/"no", "met"/"MISSED", "holds"/"FAILS" with values
  bool PassA = false, PassB = false;
  bool flipped() const { return PassA != PassB; }
};

struct FigureChange {
  const FigureSpec *Figure = nullptr;
  std::string Key; ///< "step_time_s"
  std::optional<double> A, B;
  /// B / A; nullopt when either side is missing or A is 0.
  std::optional<double> ratio() const;
};

struct DiffResult {
  std::string NameA, NameB;
  /// The sides as given ("a.llmsys", "git:HEAD:specs/a.llmsys", "-").
  std::string FileA, FileB;
  std::vector<InputChange> Inputs;   ///< in path order
  std::vector<FigureChange> Figures; ///< largest |log ratio| first
  std::vector<Verdict> Verdicts;     ///< fits, SLOs, expectations
  /// What sets the time on each side, by phase ("step": the largest term
  /// of a training step; "prefill" and "decode" for serving).
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>>
      Binding;
};

/// A top-level scenario of a spec by name, or null.
const spec::Object *topScenario(const spec::Spec &S, llvm::StringRef Name);
/// The names of the top-level scenarios (for suggestions).
std::vector<std::string> scenarioNames(const spec::Spec &S);

/// The scenarios `llmsys diff` compares: the named ones (a side without a
/// name takes its only scenario, or the other side's name); with no names,
/// the scenarios of the same name in both, else the only scenario of each.
using ScenarioPair = std::pair<const spec::Object *, const spec::Object *>;
std::vector<ScenarioPair> pairScenarios(const spec::Spec &A,
                                        llvm::StringRef NameA,
                                        const spec::Spec &B,
                                        llvm::StringRef NameB);

/// A and B must be scenarios of one kind. The expectations of both specs
/// on the two scenarios are evaluated on both sides.
DiffResult diff(const spec::Spec &SA, const spec::Object &A,
                const driver::Evaluation &EA, const spec::Spec &SB,
                const spec::Object &B, const driver::Evaluation &EB);

void printDiffText(const DiffResult &D, llvm::raw_ostream &OS);
llvm::json::Value diffJson(const DiffResult &D);

/// A `--fail-if` threshold on the second side: a ratio to the first
/// ("step_time_s > 1.05x"), an absolute value with a unit of the figure's
/// dimension ("tpot > 5 ms"), or a boolean ("fits == false").
struct Threshold {
  enum class Kind { Ratio, Value, Bool };
  std::string Text;
  std::string Key;
  spec::Compare Op = spec::Compare::Eq; ///< not In
  Kind K = Kind::Ratio;
  double Ratio = 1;  ///< Kind::Ratio
  double Value = 0;  ///< Kind::Value (base units) and Kind::Bool (0 or 1)
  Dimension Dim;     ///< Kind::Value: the dimension written
};
/// Parses a threshold; nullopt with Error set when it is malformed.
std::optional<Threshold> parseThreshold(llvm::StringRef S, std::string &Error);
/// The thresholds D crosses, as messages. A threshold on a figure D does
/// not have, or of the wrong kind or dimension, sets Error (and returns
/// nothing).
std::vector<std::string> crossed(const DiffResult &D,
                                 const std::vector<Threshold> &Ts,
                                 std::string &Error);

} // namespace report
} // namespace llmsys

#endif
