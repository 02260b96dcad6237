//===- CrossValidate.cpp - held-out errors of the fitted parameters -------===//

#include "Driver/CrossValidate.h"
#include "Driver/Evaluate.h"
#include "IR/Scenario.h"

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

struct CaseInfo {
  ir::ScenarioConfig Config;
  std::string Owner;
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
      if (C.Calibrates)
        FittedOwners.insert(I.Owner);
      Cases.push_back(std::move(I));
    }
  }

  double value(int G) const { return double(Low + G) / 1000; }
  int points() const { return High - Low + 1; }

  /// The figure of case I with the device's sustained set to V.
  std::optional<double> predict(const CaseInfo &I, double V) {
    ir::ScenarioConfig Config = I.Config;
    Config.System.Device.Sustained = V;
    std::optional<Evaluation> E = evaluate(Config, Ctx, /*Detail=*/false);
    return E ? E->figure(I.Case->Figure) : std::nullopt;
  }

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
        if (I.Case->Calibrates && Use(I)) {
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

  // The parameters, as written and refitted on every training case.
  std::map<std::string, FittedParameter> Params;
  for (const CaseInfo &I : F.Cases) {
    FittedParameter &P = Params[I.Owner];
    P.Owner = I.Owner;
    P.Written = I.Config.System.Device.Sustained;
    if (I.Case->Calibrates)
      ++P.TrainingCases;
    if (I.Case->Calibrates)
      ++CV.CalibratingCases;
  }
  for (auto &[Owner, P] : Params) {
    if (!P.TrainingCases)
      continue; // not fitted: an input of the cases that write it
    P.Fitted = F.value(F.fitOwner(Owner, "").first);
    CV.Parameters.push_back(P);
  }

  // Each group predicted with the values fitted on the others.
  CV.HeldOutPredicted.assign(F.Cases.size(), 0);
  std::map<std::string, HeldOutGroup> Groups;
  for (size_t K = 0; K < F.Cases.size(); ++K) {
    const CaseInfo &I = F.Cases[K];
    const ValidationCase &C = *I.Case;
    HeldOutGroup &H = Groups[C.Source];
    H.Source = C.Source;
    auto [G, Pooled] = F.fitOwner(I.Owner, C.Source);
    double Predicted;
    if (G < 0) {
      // Not a fitted parameter, or no training case outside the group at
      // all: the spec's value.
      Predicted = C.Predicted;
      H.Values[I.Owner] = {I.Config.System.Device.Sustained,
                           HeldOutGroup::Origin::Written};
    } else {
      H.Values[I.Owner] = {F.value(G), Pooled ? HeldOutGroup::Origin::Pooled
                                              : HeldOutGroup::Origin::Fitted};
      if (C.Training) {
        Predicted = I.Grid[G];
      } else {
        std::optional<double> P = F.predict(I, F.value(G));
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
