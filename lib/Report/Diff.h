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

#include "Cost/Evaluate.h"
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
  std::vector<InputChange> Inputs;   ///< in path order
  std::vector<FigureChange> Figures; ///< largest |log ratio| first
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

DiffResult diff(const spec::Object &A, const cost::Evaluation &EA,
                const spec::Object &B, const cost::Evaluation &EB);

void printDiffText(const DiffResult &D, llvm::raw_ostream &OS);
llvm::json::Value diffJson(const DiffResult &D);

/// A `--fail-if` threshold: KEY OP RATIO x, e.g. "step_time_s > 1.05x".
struct Threshold {
  std::string Text;
  std::string Key;
  std::string Op; ///< <, <=, >, >=
  double Ratio = 1;
};
/// Parses a threshold; nullopt with Error set when it is malformed.
std::optional<Threshold> parseThreshold(llvm::StringRef S, std::string &Error);
/// The thresholds D crosses, as messages.
std::vector<std::string> crossed(const DiffResult &D,
                                 const std::vector<Threshold> &Ts,
                                 std::string &UnknownKey);

} // namespace report
} // namespace llmsys

#endif
