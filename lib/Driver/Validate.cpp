//===- Validate.cpp - predictions against published measurements ----------===//

#include "Driver/Validate.h"
#include "Driver/CrossValidate.h"
#include "Driver/Evaluate.h"
#include "Basic/Diagnostics.h"
#include "IR/Scenario.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace llmsys {
namespace driver {

using namespace cost;

void ValidationSummary::add(double Error) {
  ++Cases;
  SumAbs += std::fabs(Error);
  MaxAbs = std::max(MaxAbs, std::fabs(Error));
}

const ValidationSummary *ValidationResult::summary(llvm::StringRef Name) const {
  auto It = Groups.find(Name.str());
  if (It != Groups.end())
    return &It->second;
  return Name == "train"   ? &Train
         : Name == "serve" ? &Serve
         : Name == "all"   ? &All
                           : nullptr;
}

const ValidationSummary *
ValidationResult::pairSummary(llvm::StringRef Name) const {
  return Name == "pairs"         ? &PairSummary
         : Name == "train_pairs" ? &TrainPairs
         : Name == "serve_pairs" ? &ServePairs
                                 : nullptr;
}

ValidationResult validate(const spec::Spec &S, passes::PassContext &Ctx) {
  std::vector<const spec::Measurement *> Ms;
  for (const spec::Measurement &M : S.Measurements)
    Ms.push_back(&M);
  std::stable_sort(Ms.begin(), Ms.end(), [](auto *A, auto *B) {
    return std::tie(A->Source, A->Case) < std::tie(B->Source, B->Case);
  });
  ValidationResult R;
  // Each measurement's case (NotPredicted: none), for the pairs below.
  constexpr size_t NotPredicted = ~size_t(0);
  llvm::DenseMap<const spec::Object *, size_t> CaseOf;
  for (const spec::Measurement *M : Ms) {
    CaseOf[M->Decl] = NotPredicted;
    ir::ScenarioConfig Config = ir::scenarioFromSpec(*M->Scenario);
    ValidationCase C;
    C.Source = M->Source;
    C.Case = M->Case.empty() ? M->Decl->Name : M->Case;
    C.Figure = M->Figure->Name;
    C.Unit = M->Measured.Dim.unitString();
    C.Training = Config.Training;
    C.Engine = engineOwner(*M->Scenario);
    C.Accelerator = Config.System.Device.Name;
    C.Measured = M->Measured.Num;
    C.Measurement = M;
    std::optional<Evaluation> E = evaluate(Config, Ctx, /*Detail=*/false);
    std::optional<double> Value = E ? E->figure(C.Figure) : std::nullopt;
    // Fitted on: training cases, and the serving cases an engine's step
    // overheads are fitted on (CrossValidate.cpp), unless excluded.
    C.Calibrates = M->Calibrates &&
                   (C.Training || (E && engineFitsOn(C.Engine, C.Figure, *E)));
    if (C.Calibrates && !C.Training) {
      const cost::TrafficReport &T = E->Serve.Traffic;
      C.RunDuration = T.Duration;
      C.RunSteps = double(T.Steps);
      C.RunSequenceSteps = T.SequenceSteps;
    }
    if (!Value) {
      // A scenario that fails was diagnosed by the passes; a figure it
      // does not have is diagnosed here, at the measurement.
      if (E && Ctx.Diags)
        Ctx.Diags->report<DiagID::err_measurement_unavailable>(M->Decl->DeclRange, M->Scenario->Name, C.Figure,
                          M->Decl->Name,
                          ir::findFigure(C.Training, C.Figure)
                              ->missingReason());
      else
        R.Failures.push_back("case " + C.Case + ": cannot predict " +
                             M->Scenario->Name + "." + C.Figure);
      continue;
    }
    C.Predicted = *Value;
    for (ValidationSummary *G :
         {&R.Groups[C.Source], C.Training ? &R.Train : &R.Serve, &R.All})
      G->add(C.error());
    CaseOf[M->Decl] = R.Cases.size();
    R.Cases.push_back(std::move(C));
  }
  // Each measurement with a baseline that was predicted too makes a pair
  // (a baseline that could not be predicted was reported above; one that
  // is not a measurement of the files validated is reported here).
  for (size_t I = 0; I < R.Cases.size(); ++I) {
    const spec::Object *B = R.Cases[I].Measurement->Baseline;
    if (!B)
      continue;
    auto It = CaseOf.find(B);
    if (It == CaseOf.end())
      R.Failures.push_back("case " + R.Cases[I].Case + ": its baseline '" +
                           B->Name +
                           "' is not a measurement of the files validated");
    if (It == CaseOf.end() || It->second == NotPredicted)
      continue;
    const ValidationCase &C = R.Cases[I], &Base = R.Cases[It->second];
    if (Base.Predicted <= 0)
      continue;
    ValidationPair P;
    P.Case = I;
    P.Baseline = It->second;
    P.PredictedRatio = C.Predicted / Base.Predicted;
    P.MeasuredRatio = C.Measured / Base.Measured;
    R.PairSummary.add(P.error());
    (C.Training ? R.TrainPairs : R.ServePairs).add(P.error());
    R.Pairs.push_back(P);
  }
  return R;
}

} // namespace driver
} // namespace llmsys
