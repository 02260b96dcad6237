//===- Expectations.cpp - `expect` statements against evaluations ---------===//
//
// `llmsys eval` and `llmsys check` evaluate the files' expectations: each
// figure of a scenario against its bound or range, a failure diagnosed at
// the `expect` with the value found (docs/language.md#expectations).
//
//===----------------------------------------------------------------------===//

#include "Report/Report.h"
#include "Report/SweepReport.h"

#include <cmath>
#include <fmt/format.h>

namespace llmsys {
namespace report {

/// A value in the unit a bound was written in ("51.57 day" for a bound in
/// days), else as the figure's reports show it.
static std::string showIn(double V, const std::string &Unit, double Scale,
                          const TypeSpec &Type) {
  if (Unit.empty())
    return showFigure(V, Type);
  double X = V / Scale;
  // Whole numbers up to 10^12 rather than an exponent ("237500 ns").
  if (std::abs(X) >= 1e4 && std::abs(X) < 1e12)
    return fmt::format("{:.0f} {}", X, Unit);
  return fmt::format("{:.4g} {}", X, Unit);
}

bool expectationHolds(const spec::Expectation &X, double V) {
  double Lo = X.Lo.Kind == spec::ValueKind::Bool ? double(X.Lo.Bool) : X.Lo.Num;
  return spec::compareHolds(X.Op, V, Lo, X.Hi.Num);
}

std::string describeBound(const spec::Expectation &X) {
  double Lo = X.Lo.Kind == spec::ValueKind::Bool ? double(X.Lo.Bool) : X.Lo.Num;
  if (X.Op == spec::Compare::In)
    return "in " + showIn(Lo, X.LoUnit, X.LoScale, X.Figure->Type) + " .. " +
           showIn(X.Hi.Num, X.HiUnit, X.HiScale, X.Figure->Type);
  return spelling(X.Op).str() + " " + showIn(Lo, X.LoUnit, X.LoScale, X.Figure->Type);
}

std::string showForExpectation(const spec::Expectation &X, double V) {
  return X.LoUnit.empty() ? showIn(V, X.HiUnit, X.HiScale, X.Figure->Type)
                          : showIn(V, X.LoUnit, X.LoScale, X.Figure->Type);
}

bool checkExpectations(
    const spec::Spec &S, DiagnosticEngine &Diags,
    std::map<const spec::Object *, std::optional<driver::Evaluation>> &Done) {
  passes::PassContext Ctx;
  Ctx.Diags = &Diags;
  bool Ok = true;
  for (const spec::Expectation &X : S.Expectations) {
    // The expectations of the files named, not of the files they import
    // (each file is checked when it is named itself).
    if (!llvm::is_contained(
            S.TopLevelBuffers,
            Diags.getSourceMgr().FindBufferContainingLoc(X.Range.Start)))
      continue;
    auto It = Done.find(X.Scenario);
    if (It == Done.end())
      It = Done.emplace(X.Scenario,
                        driver::evaluate(ir::scenarioFromSpec(*X.Scenario), Ctx))
               .first;
    if (!It->second) {
      Ok = false;
      continue;
    }
    std::optional<double> V = It->second->figure(X.Figure->id());
    if (!V) {
      Diags.report<DiagID::err_expect_unavailable>(X.Range, X.Scenario->Name,
                   X.Figure->Name,
                   X.Figure->Info->missingReason());
      Ok = false;
      continue;
    }
    bool Holds = expectationHolds(X, *V);
    if (!Holds) {
      Diags.report<DiagID::err_expect_failed>(X.Range, X.Scenario->Name,
                   X.Figure->Name, showForExpectation(X, *V),
                   describeBound(X));
      Ok = false;
    }
  }
  return Ok;
}

} // namespace report
} // namespace llmsys
