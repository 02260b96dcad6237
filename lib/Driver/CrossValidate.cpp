//===- CrossValidate.cpp - held-out errors of the fitted parameters -------===//

#include "Driver/CrossValidate.h"
#include "Driver/Evaluate.h"
#include "IR/Scenario.h"
#include "IR/Spec.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>

namespace llmsys {
namespace driver {

using namespace cost;

namespace {

/// The entity that writes an accelerator's `efficiency.sustained`: the
/// parameter the devices extending it share. A device that writes none
/// (the schema default) is its own parameter.
std::string sustainedOwner(const spec::Object &Scenario) {
  // The system of either scenario kind, then its node's accelerator.
  const spec::Field *System = Scenario.Type->Id == StructID::Train
                                  ? Scenario.ifSet(TrainField::System)
                                  : Scenario.ifSet(ServeField::System);
  const spec::Object *Sys = spec::objectOf(System);
  const spec::Object *Acc =
      Sys ? spec::objectOf(
                Sys->ifSet(SystemField::Node, NodeField::Accelerator))
          : nullptr;
  if (!Acc)
    return "";
  const spec::Field *F =
      Acc->ifSet(AcceleratorField::Efficiency, EfficiencyField::Sustained);
  if (F && F->From == spec::Origin::Inherited && F->InheritedFrom)
    return F->InheritedFrom->Name;
  return Acc->Name;
}

} // namespace

std::string engineOwner(const spec::Object &Scenario) {
  if (Scenario.Type->Id != StructID::Serve)
    return "";
  const spec::Object *Map =
      spec::objectOf(Scenario.ifSet(ServeField::Mapping));
  if (!Map)
    return "";
  for (MappingField Id :
       {MappingField::StepOverhead, MappingField::SequenceOverhead}) {
    const spec::Field *F = Map->ifWritten(Id);
    if (!F)
      continue;
    if (F->From == spec::Origin::Inherited && F->InheritedFrom)
      return F->InheritedFrom->Name;
    return Map->Name;
  }
  return "";
}

bool engineFitsOn(llvm::StringRef Engine, llvm::StringRef Figure,
                  const Evaluation &E) {
  // (Figures that count over the run's duration: its output tokens, or
  // requests, per second.)
  const bool PerRun = Figure == "throughput" ||
                      Figure == "throughput_per_device" ||
                      Figure == "request_throughput";
  const cost::TrafficReport &T = E.Serve.Traffic;
  return !Engine.empty() && !E.Training && PerRun && T.Simulated &&
         T.StepsFixed && T.Duration > 0;
}

namespace {

struct CaseInfo {
  ir::ScenarioConfig Config;
  std::string Owner;
  /// The engine whose step overheads the case uses ("" for none), and
  /// whether they are fitted on it: a calibrating case of a run whose
  /// steps do not depend on their times, with a figure over the run
  /// (TrafficReport::StepsFixed), whose figure at any overheads follows
  /// from one evaluation: the run at the written ones lasts Duration,
  /// over Steps steps of SequenceSteps sequences in all.
  std::string Engine;
  bool FitsEngine = false;
  double Figure = 0, Duration = 0, Steps = 0, SequenceSteps = 0;
  double EngineFigure(double Step, double Sequence) const {
    double D = Duration + (Step - Config.Mapping.StepOverhead) * Steps +
               (Sequence - Config.Mapping.SequenceOverhead) * SequenceSteps;
    return D > 0 ? Figure * Duration / D : 0;
  }
  const ValidationCase *Case = nullptr;
  /// Training cases: the prediction at every grid value.
  std::vector<double> Grid;
};

class Fitter {
public:
  Fitter(const ValidationResult &R, passes::PassContext &Ctx, int Low,
         int High)
      : Ctx(Ctx), Low(Low), High(High) {
    for (const ValidationCase &C : R.Cases) {
      CaseInfo I;
      I.Case = &C;
      I.Config = ir::scenarioFromSpec(*C.Measurement->Scenario);
      I.Owner = sustainedOwner(*C.Measurement->Scenario);
      I.Engine = C.Engine;
      if (C.Calibrates && C.Training)
        FittedOwners.insert(I.Owner);
      Cases.push_back(std::move(I));
    }
  }

  double value(int G) const { return double(Low + G) / 1000; }
  int points() const { return High - Low + 1; }

  /// The figure of case I with the device's sustained set to V (and with
  /// an engine's step overheads, Step and Sequence).
  std::optional<double>
  predict(const CaseInfo &I, double V,
          std::optional<std::pair<double, double>> Overheads = std::nullopt) {
    ir::ScenarioConfig Config = I.Config;
    Config.System.Device.Sustained = V;
    if (Overheads) {
      Config.Mapping.StepOverhead = Overheads->first;
      Config.Mapping.SequenceOverhead = Overheads->second;
    }
    std::optional<Evaluation> E = evaluate(Config, Ctx, /*Detail=*/false);
    return E ? E->figure(I.Case->Figure) : std::nullopt;
  }

  /// Takes, for each serving case an engine's overheads are fitted on,
  /// what its figure at other overheads follows from: its run as validate
  /// costed it (ValidationCase::RunDuration, CaseInfo::FitsEngine).
  void readEngineCases() {
    for (CaseInfo &I : Cases) {
      const ValidationCase &C = *I.Case;
      if (C.Training || !C.Calibrates)
        continue;
      I.FitsEngine = true;
      I.Figure = C.Predicted;
      I.Duration = C.RunDuration;
      I.Steps = C.RunSteps;
      I.SequenceSteps = C.RunSequenceSteps;
      FittedEngines.insert(I.Engine);
    }
  }

  /// Engine's step overheads fitted on its cases outside group Out: the
  /// grid point of least mean |error| (the lowest step_overhead, then
  /// sequence_overhead, of tied ones); nullopt when no case is left.
  std::optional<std::pair<double, double>>
  fitEngine(const std::string &Engine, const std::string &Out) const {
    std::vector<const CaseInfo *> Use;
    for (const CaseInfo &I : Cases)
      if (I.FitsEngine && I.Engine == Engine && I.Case->Source != Out)
        Use.push_back(&I);
    if (Use.empty())
      return std::nullopt;
    double Least = std::numeric_limits<double>::infinity();
    std::pair<double, double> Best{0, 0};
    for (int A = 0; A < StepPoints; ++A)
      for (int B = 0; B < SequencePoints; ++B) {
        double Step = A / StepsPerSecond, Sequence = B / SequencesPerSecond;
        double Sum = 0;
        for (const CaseInfo *I : Use)
          Sum += absError(I->EngineFigure(Step, Sequence), I->Case->Measured);
        if (Sum < Least * (1 - 1e-12)) {
          Least = Sum;
          Best = {Step, Sequence};
        }
      }
    return Best;
  }

  static constexpr int StepPoints = 51, SequencePoints = 51;
  // (Grid points a second: a step is 0.1 ms, 0.1 us.)
  static constexpr double StepsPerSecond = 1e4, SequencesPerSecond = 1e7;

  /// Costs every training case at every grid value.
  bool tabulate() {
    for (CaseInfo &I : Cases) {
      if (!I.Case->Training)
        continue;
      I.Grid.resize(points());
      for (int G = 0; G < points(); ++G) {
        std::optional<double> P = predict(I, value(G));
        if (!P)
          return false;
        I.Grid[G] = *P;
      }
    }
    return true;
  }

  static double absError(double Predicted, double Measured) {
    return std::fabs((Predicted - Measured) / Measured);
  }

  /// The grid index with the least mean |error| over the training cases
  /// that Use accepts; -1 when there is none. A least |error| can be flat
  /// over an interval (two cases erring in opposite directions): ties go
  /// to the middle of the tied values (the lower of two middles).
  template <typename Pred> int fit(Pred Use) const {
    std::vector<double> Sums(points(), 0);
    double Least = std::numeric_limits<double>::infinity();
    for (int G = 0; G < points(); ++G) {
      unsigned N = 0;
      for (const CaseInfo &I : Cases)
        if (I.Case->Training && I.Case->Calibrates && Use(I)) {
          Sums[G] += absError(I.Grid[G], I.Case->Measured);
          ++N;
        }
      if (!N)
        return -1;
      Least = std::min(Least, Sums[G]);
    }
    std::vector<int> Tied;
    for (int G = 0; G < points(); ++G)
      if (Sums[G] <= Least * (1 + 1e-12))
        Tied.push_back(G);
    if (Tied.empty()) // no finite sum (a prediction not a number)
      return -1;
    return Tied[(Tied.size() - 1) / 2];
  }

  /// The value of Owner's parameter fitted on the training cases outside
  /// group Out ("" leaves none out), and whether it is the pooled fit; -1
  /// for a value no training case uses (an input written for the cases
  /// that use it, not a fitted parameter).
  std::pair<int, bool> fitOwner(const std::string &Owner,
                                const std::string &Out) const {
    if (!FittedOwners.count(Owner))
      return {-1, false};
    int G = fit([&](const CaseInfo &I) {
      return I.Owner == Owner && I.Case->Source != Out;
    });
    if (G >= 0)
      return {G, false};
    return {fit([&](const CaseInfo &I) { return I.Case->Source != Out; }),
            true};
  }

  passes::PassContext &Ctx;
  int Low, High;
  std::vector<CaseInfo> Cases;
  /// The parameters some training case uses (the fitted ones).
  std::set<std::string> FittedOwners;
  /// The engines some serving case fits step overheads on.
  std::set<std::string> FittedEngines;
};

} // namespace

const ValidationSummary *CrossValidation::summary(llvm::StringRef Name) const {
  for (const HeldOutGroup &G : Groups)
    if (G.Source == Name)
      return &G.HeldOut;
  return Name == "train"   ? &TrainHeldOut
         : Name == "serve" ? &ServeHeldOut
         : Name == "all"   ? &AllHeldOut
                           : nullptr;
}

llvm::StringRef originName(HeldOutGroup::Origin O) {
  switch (O) {
  case HeldOutGroup::Origin::Fitted: return "fitted";
  case HeldOutGroup::Origin::Pooled: return "pooled";
  case HeldOutGroup::Origin::Written: return "written";
  }
  return "fitted";
}

std::optional<CrossValidation> crossValidate(const ValidationResult &R,
                                             passes::PassContext &Ctx) {
  CrossValidation CV;
  const int Low = 500, High = 1000; // sustained in thousandths
  CV.GridLow = Low / 1000.0;
  CV.GridHigh = High / 1000.0;
  Fitter F(R, Ctx, Low, High);
  if (!F.tabulate())
    return std::nullopt;
  F.readEngineCases();
  CV.StepHigh = (Fitter::StepPoints - 1) / Fitter::StepsPerSecond;
  CV.StepStep = 1 / Fitter::StepsPerSecond;
  CV.SequenceHigh = (Fitter::SequencePoints - 1) / Fitter::SequencesPerSecond;
  CV.SequenceStep = 1 / Fitter::SequencesPerSecond;

  // The parameters, as written and refitted on every training case.
  std::map<std::string, FittedParameter> Params;
  for (const CaseInfo &I : F.Cases) {
    FittedParameter &P = Params[I.Owner];
    P.Owner = I.Owner;
    P.Written = I.Config.System.Device.Sustained;
    if (I.Case->Calibrates && I.Case->Training) {
      ++P.TrainingCases;
      ++CV.CalibratingCases;
    }
  }
  for (auto &[Owner, P] : Params) {
    if (!P.TrainingCases)
      continue; // not fitted: an input of the cases that write it
    P.Fitted = F.value(F.fitOwner(Owner, "").first);
    CV.Parameters.push_back(P);
  }
  // The engines' step overheads, as written and refitted on every case.
  std::map<std::string, std::pair<FittedParameter, FittedParameter>> Engines;
  for (const CaseInfo &I : F.Cases) {
    if (!I.FitsEngine)
      continue;
    auto &[Step, Sequence] = Engines[I.Engine];
    Step.Owner = Sequence.Owner = I.Engine;
    Step.Field = "step_overhead";
    Sequence.Field = "sequence_overhead";
    Step.Written = I.Config.Mapping.StepOverhead;
    Sequence.Written = I.Config.Mapping.SequenceOverhead;
    ++Step.TrainingCases;
    ++Sequence.TrainingCases;
    ++CV.EngineCases;
  }
  for (auto &[Engine, P] : Engines) {
    std::pair<double, double> Fit = *F.fitEngine(Engine, "");
    P.first.Fitted = Fit.first;
    P.second.Fitted = Fit.second;
    CV.Parameters.push_back(P.first);
    CV.Parameters.push_back(P.second);
  }

  // Each group predicted with the values fitted on the others.
  std::map<std::pair<std::string, std::string>,
           std::optional<std::pair<double, double>>>
      EngineFits;
  CV.HeldOutPredicted.assign(F.Cases.size(), 0);
  std::map<std::string, HeldOutGroup> Groups;
  for (size_t K = 0; K < F.Cases.size(); ++K) {
    const CaseInfo &I = F.Cases[K];
    const ValidationCase &C = *I.Case;
    HeldOutGroup &H = Groups[C.Source];
    H.Source = C.Source;
    auto [G, Pooled] = F.fitOwner(I.Owner, C.Source);
    // An engine's step overheads fitted without the group (the written
    // ones when no case of the engine is left, or it fits none).
    std::optional<std::pair<double, double>> Overheads;
    if (!I.Engine.empty()) {
      if (F.FittedEngines.count(I.Engine)) {
        // (One fit per engine and left-out group.)
        auto [At, New] = EngineFits.try_emplace({I.Engine, C.Source});
        if (New)
          At->second = F.fitEngine(I.Engine, C.Source);
        Overheads = At->second;
      }
      HeldOutGroup::EngineValue &EV = H.Engines[I.Engine];
      if (Overheads)
        EV = {Overheads->first, Overheads->second,
              HeldOutGroup::Origin::Fitted};
      else
        EV = {I.Config.Mapping.StepOverhead, I.Config.Mapping.SequenceOverhead,
              HeldOutGroup::Origin::Written};
    }
    double Predicted;
    if (G < 0 && !Overheads) {
      // Not a fitted parameter, or no training case outside the group at
      // all: the spec's value.
      Predicted = C.Predicted;
      H.Values[I.Owner] = {I.Config.System.Device.Sustained,
                           HeldOutGroup::Origin::Written};
    } else {
      double V = I.Config.System.Device.Sustained;
      if (G < 0) {
        H.Values[I.Owner] = {V, HeldOutGroup::Origin::Written};
      } else {
        V = F.value(G);
        H.Values[I.Owner] = {V, Pooled ? HeldOutGroup::Origin::Pooled
                                       : HeldOutGroup::Origin::Fitted};
      }
      if (C.Training) {
        Predicted = I.Grid[G];
      } else {
        std::optional<double> P = F.predict(I, V, Overheads);
        if (!P)
          return std::nullopt;
        Predicted = *P;
      }
    }
    CV.HeldOutPredicted[K] = Predicted;
    double Error = C.errorOf(Predicted);
    H.InSample.add(C.error());
    H.HeldOut.add(Error);
    for (ValidationSummary *S :
         {C.Training ? &CV.TrainHeldOut : &CV.ServeHeldOut, &CV.AllHeldOut})
      S->add(Error);
  }
  for (auto &[Id, H] : Groups)
    CV.Groups.push_back(std::move(H));
  return CV;
}

} // namespace driver
} // namespace llmsys
