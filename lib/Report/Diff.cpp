//===- Diff.cpp - two scenarios side by side ---------------------------------===//

#include "Report/Diff.h"

#include "Report/Format.h"
#include "Report/Report.h"
#include "Report/SweepReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <fmt/format.h>
#include <map>

using namespace llvm;

namespace llmsys {
namespace report {

std::optional<double> FigureChange::ratio() const {
  if (!A || !B || *A == 0)
    return std::nullopt;
  return *B / *A;
}

/// Every set field under O as "path" -> value; references to named
/// entities give their name and are followed.
/// Compared exactly (the spec printer's round-trip form); shown with SI
/// prefixes and six significant digits.
struct Shown {
  std::string Exact, Text;
  std::string Why; ///< a derived value's derivation
  bool operator!=(const Shown &O) const { return Exact != O.Exact; }
};

static Shown show(const spec::Value &V) {
  Shown S{spec::formatValue(V), "", ""};
  if (V.Kind != spec::ValueKind::Number || V.Dim.isDimensionless()) {
    S.Text = S.Exact;
    return S;
  }
  // "25.0000 GB/s" -> "25 GB/s"
  std::string T = si(V.Num, V.Dim.unitString(), 6);
  size_t Space = T.find(' ');
  std::string Num = T.substr(0, Space);
  if (Num.find('.') != std::string::npos) {
    while (Num.back() == '0')
      Num.pop_back();
    if (Num.back() == '.')
      Num.pop_back();
  }
  S.Text = Num + T.substr(Space);
  return S;
}

static void flatten(const spec::Object &O, const std::string &Prefix,
                    std::map<std::string, Shown> &Out, unsigned Depth) {
  if (Depth > 8)
    return;
  for (const spec::Field &F : O.Fields) {
    if (!F.isSet())
      continue;
    std::string Path = Prefix.empty() ? F.Spec->Name : Prefix + "." + F.Spec->Name;
    if (F.V.Kind == spec::ValueKind::Object && F.V.Obj) {
      const spec::Object &Sub = *F.V.Obj;
      if (Sub.IsEntity)
        Out[Path] = Sub.IsAnonymous ? Shown{"(inline)", "(inline)", ""}
                                    : Shown{Sub.Name, Sub.Name, ""};
      flatten(Sub, Path, Out, Depth + 1);
      continue;
    }
    Out[Path] = show(F.V);
    if (F.From == spec::Origin::Derived)
      Out[Path].Why = F.derivation().empty() && F.InheritedFrom
                          ? "re-derived from " + F.InheritedFrom->Name
                          : F.derivation().str();
  }
}

/// What sets the time: the largest term of a training step, or each
/// serving phase's bound.
static std::vector<std::pair<std::string, std::string>>
binding(const driver::Evaluation &E) {
  if (!E.Training)
    return {{"prefill", E.Serve.Prefill.bound()},
            {"decode", E.Serve.Decode.bound()}};
  const cost::TrainingReport &R = E.Train;
  std::pair<std::string, double> Max{"compute-bound", R.ComputeBound};
  auto Try = [&](std::string Name, double T) {
    if (T > Max.second)
      Max = {std::move(Name), T};
  };
  Try("memory-bound", R.MemoryBoundTime);
  for (int K = 0; K < cost::NumCommKinds; ++K)
    Try(std::string(cost::commKindName(static_cast<cost::CommKind>(K))) +
            " comm (exposed)",
        R.ExposedComm[K]);
  Try("pipeline bubble", R.Bubble);
  Try("optimizer", R.Optimizer);
  return {{"step", Max.first}};
}

/// Fits, each SLO of either side, and each expectation of either spec on
/// the two scenarios, evaluated on both sides.
static void verdicts(const spec::Spec &SA, const spec::Object &A,
                     const driver::Evaluation &EA, const spec::Spec &SB,
                     const spec::Object &B, const driver::Evaluation &EB,
                     std::vector<Verdict> &Out) {
  auto Fits = [](const driver::Evaluation &E) {
    return E.figure("fits").value_or(0) != 0;
  };
  Out.push_back({"fits", Fits(EA) ? "yes" : "NO", Fits(EB) ? "yes" : "NO",
                 Fits(EA), Fits(EB)});
  if (!EA.Training) {
    // SLOs by name: each side's limit, its value, met or missed.
    std::vector<std::string> Names;
    for (const auto *E : {&EA, &EB})
      for (const cost::SloCheck &C : E->Serve.Slo)
        if (!llvm::is_contained(Names, C.Name))
          Names.push_back(C.Name);
    for (const std::string &N : Names) {
      Verdict V;
      V.What = "slo " + N;
      auto Side = [&](const driver::Evaluation &E, bool &Pass) {
        for (const cost::SloCheck &C : E.Serve.Slo)
          if (C.Name == N) {
            Pass = C.Met;
            auto Show = [&](double X) {
              return N == "throughput" ? si(X, "tokens/s") : duration(X);
            };
            return fmt::format("{} ({} {} {})", C.Met ? "met" : "MISSED",
                               Show(C.Value),
                               C.Met ? (C.Lower ? ">=" : "<=")
                                     : (C.Lower ? "<" : ">"),
                               Show(C.Limit));
          }
        Pass = true;
        return std::string("(none)");
      };
      V.A = Side(EA, V.PassA);
      V.B = Side(EB, V.PassB);
      Out.push_back(V);
    }
  }
  std::vector<std::string> Seen;
  for (const auto &[S, O] : {std::pair{&SA, &A}, std::pair{&SB, &B}})
    for (const spec::Expectation &X : S->Expectations) {
      if (X.Scenario != O)
        continue;
      std::string What = "expect " + X.Figure->Name + " " + describeBound(X);
      if (llvm::is_contained(Seen, What))
        continue;
      Seen.push_back(What);
      Verdict V;
      V.What = What;
      auto Side = [&](const driver::Evaluation &E, bool &Pass) {
        std::optional<double> Value = E.figure(X.Figure->id());
        if (!Value) {
          Pass = false;
          return std::string("unavailable");
        }
        Pass = expectationHolds(X, *Value);
        return (Pass ? "holds (" : "FAILS (") + showForExpectation(X, *Value) +
               ")";
      };
      V.A = Side(EA, V.PassA);
      V.B = Side(EB, V.PassB);
      Out.push_back(V);
    }
}

DiffResult diff(const spec::Spec &SA, const spec::Object &A,
                const driver::Evaluation &EA, const spec::Spec &SB,
                const spec::Object &B, const driver::Evaluation &EB) {
  DiffResult D;
  D.NameA = A.Name;
  D.NameB = B.Name;
  std::map<std::string, Shown> FA, FB;
  flatten(A, "", FA, 0);
  flatten(B, "", FB, 0);
  std::map<std::string, std::pair<Shown, Shown>> All;
  for (const auto &[K, V] : FA)
    All[K].first = V;
  for (const auto &[K, V] : FB)
    All[K].second = V;
  for (const auto &[K, V] : All)
    if (V.first != V.second)
      D.Inputs.push_back({K, V.first.Text, V.second.Text, V.first.Exact,
                          V.second.Exact, V.first.Why, V.second.Why});
  verdicts(SA, A, EA, SB, B, EB, D.Verdicts);
  std::vector<std::pair<std::string, std::string>> BA = binding(EA),
                                                   BB = binding(EB);
  for (size_t I = 0; I < BA.size() && I < BB.size(); ++I)
    D.Binding.push_back({BA[I].first, {BA[I].second, BB[I].second}});

  // Figures of A's kind (a train and a serve scenario share some).
  for (const FigureSpec &F : A.Type->Figures) {
    if (!B.Type->findFigure(F.Name))
      continue;
    FigureChange C;
    C.Figure = &F;
    C.Key = F.key().str();
    C.A = EA.figure(F.Name);
    C.B = EB.figure(F.Name);
    // A figure neither result has (the percentiles of two static batches)
    // is not a difference.
    if (C.A || C.B)
      D.Figures.push_back(C);
  }
  // Largest change first; figures without a ratio last; ties in schema
  // order.
  auto Size = [](const FigureChange &C) {
    std::optional<double> R = C.ratio();
    return R && *R > 0 ? std::fabs(std::log(*R)) : -1.0;
  };
  std::stable_sort(D.Figures.begin(), D.Figures.end(),
                   [&](const FigureChange &X, const FigureChange &Y) {
                     return Size(X) > Size(Y);
                   });
  return D;
}

void printDiffText(const DiffResult &D, raw_ostream &OS) {
  auto Side = [](const std::string &File, const std::string &Name) {
    return File.empty() ? Name : File + ":" + Name;
  };
  OS << "diff " << Side(D.FileA, D.NameA) << " -> " << Side(D.FileB, D.NameB)
     << '\n';
  if (D.Inputs.empty()) {
    OS << "  inputs: the same\n";
  } else {
    OS << "  inputs that differ (" << D.Inputs.size() << ")\n";
    size_t W = 0;
    for (const InputChange &I : D.Inputs)
      W = std::max(W, I.Path.size());
    for (const InputChange &I : D.Inputs) {
      OS << fmt::format("    {:<{}}  {} -> {}\n", I.Path, W,
                        I.A.empty() ? "(unset)" : I.A,
                        I.B.empty() ? "(unset)" : I.B);
      // Why a derived value moved (the one that was derived).
      if (!I.WhyB.empty())
        OS << fmt::format("    {:<{}}    derived: {}\n", "", W, I.WhyB);
      else if (!I.WhyA.empty())
        OS << fmt::format("    {:<{}}    derived (first): {}\n", "", W, I.WhyA);
    }
  }
  if (!D.Binding.empty()) {
    OS << "  what binds\n";
    for (const auto &[Phase, AB] : D.Binding)
      OS << fmt::format("    {:<9}{} -> {}{}\n", Phase, AB.first, AB.second,
                        AB.first == AB.second ? "" : "  (changed)");
  }
  if (!D.Verdicts.empty()) {
    OS << "  verdicts\n";
    size_t VW = 0;
    for (const Verdict &V : D.Verdicts)
      VW = std::max(VW, V.What.size());
    for (const Verdict &V : D.Verdicts)
      OS << fmt::format("    {:<{}}  {} -> {}{}\n", V.What, VW, V.A, V.B,
                        V.flipped() ? "  (FLIPPED)" : "");
  }
  OS << "  figures, largest change first\n";
  size_t W = 0;
  for (const FigureChange &C : D.Figures)
    W = std::max(W, C.Figure->Name.size());
  for (const FigureChange &C : D.Figures) {
    auto Show = [&](const std::optional<double> &V) {
      return V ? showFigure(*V, C.Figure->Type) : std::string("-");
    };
    std::optional<double> R = C.ratio();
    OS << fmt::format("    {:<{}}  {:>16}  {:>16}  {:>9}\n", C.Figure->Name, W,
                      Show(C.A), Show(C.B),
                      R ? fmt::format("{:.3f}x", *R) : std::string("-"));
  }
}

json::Value diffJson(const DiffResult &D) {
  json::Array Inputs, Figures;
  for (const InputChange &I : D.Inputs) {
    json::Object O{
        {"path", I.Path},
        {"a", I.ExactA.empty() ? json::Value(nullptr) : json::Value(I.ExactA)},
        {"b", I.ExactB.empty() ? json::Value(nullptr) : json::Value(I.ExactB)}};
    if (!I.WhyA.empty())
      O["derived_a"] = I.WhyA;
    if (!I.WhyB.empty())
      O["derived_b"] = I.WhyB;
    Inputs.push_back(std::move(O));
  }
  json::Array Verdicts, Binding;
  for (const Verdict &V : D.Verdicts)
    Verdicts.push_back(json::Object{{"verdict", V.What},
                                    {"a", V.PassA},
                                    {"b", V.PassB},
                                    {"shown_a", V.A},
                                    {"shown_b", V.B}});
  for (const auto &[Phase, AB] : D.Binding)
    Binding.push_back(
        json::Object{{"phase", Phase}, {"a", AB.first}, {"b", AB.second}});
  for (const FigureChange &C : D.Figures) {
    auto V = [&](const std::optional<double> &X) -> json::Value {
      if (!X)
        return nullptr;
      if (C.Figure->Type.Kind == TypeKind::Bool)
        return *X != 0;
      return *X;
    };
    std::optional<double> R = C.ratio();
    Figures.push_back(json::Object{{"figure", C.Key},
                                   {"a", V(C.A)},
                                   {"b", V(C.B)},
                                   {"ratio", R ? json::Value(*R) : json::Value(nullptr)}});
  }
  return json::Object{{"a", D.NameA},
                      {"b", D.NameB},
                      {"file_a", D.FileA},
                      {"file_b", D.FileB},
                      {"inputs", std::move(Inputs)},
                      {"figures", std::move(Figures)},
                      {"verdicts", std::move(Verdicts)},
                      {"binding", std::move(Binding)}};
}

std::optional<Threshold> parseThreshold(StringRef S, std::string &Error) {
  Threshold T;
  T.Text = S.trim().str();
  StringRef Rest = S.trim();
  auto Malformed = [&] {
    Error = "'" + T.Text +
            "' is not 'FIGURE OP RATIOx', 'FIGURE OP VALUE [UNIT]' or "
            "'FIGURE == true|false' (e.g. 'step_time_s > 1.05x', "
            "'tpot > 5 ms', 'fits == false')";
    return std::nullopt;
  };
  size_t OpAt = Rest.find_first_of("<>=!");
  if (OpAt == StringRef::npos) {
    Error = "'" + T.Text + "' needs a comparison: 'FIGURE > 1.05x'";
    return std::nullopt;
  }
  T.Key = Rest.take_front(OpAt).trim().str();
  Rest = Rest.drop_front(OpAt);
  bool Found = false;
  // Two-character operators first ("<=" before "<").
  for (spec::Compare C : {spec::Compare::Le, spec::Compare::Ge,
                          spec::Compare::Eq, spec::Compare::Ne,
                          spec::Compare::Lt, spec::Compare::Gt})
    if (Rest.startswith(spelling(C))) {
      T.Op = C;
      Found = true;
      break;
    }
  if (!Found || T.Key.empty())
    return Malformed();
  Rest = Rest.drop_front(spelling(T.Op).size()).trim();
  bool Equality = T.Op == spec::Compare::Eq || T.Op == spec::Compare::Ne;
  if (Rest == "true" || Rest == "false") {
    if (!Equality)
      return Malformed();
    T.K = Threshold::Kind::Bool;
    T.Value = Rest == "true";
    return T;
  }
  if (Equality)
    return Malformed();
  // A ratio: "1.05x".
  StringRef Num = Rest;
  if (Num.consume_back("x") && !Num.trim().getAsDouble(T.Ratio)) {
    if (!std::isfinite(T.Ratio) || T.Ratio <= 0)
      return Malformed();
    return T;
  }
  // A value with an optional unit: "5 ms", "0.4", "80GB".
  size_t UnitAt = Rest.find_first_not_of("0123456789.eE+-");
  StringRef Digits = Rest.take_front(UnitAt).trim();
  StringRef Unit = UnitAt == StringRef::npos ? "" : Rest.drop_front(UnitAt).trim();
  double V;
  if (Digits.empty() || Digits.getAsDouble(V) || !std::isfinite(V))
    return Malformed();
  T.K = Threshold::Kind::Value;
  T.Value = V;
  if (!Unit.empty()) {
    UnitParse P = parseUnit(Unit);
    if (!P.Ok) {
      Error = "'" + T.Text + "': unknown unit '" + Unit.str() + "'" +
              (P.Suggestion.empty() ? "" : "; did you mean '" + P.Suggestion + "'?");
      return std::nullopt;
    }
    T.Value = V * P.Scale;
    T.Dim = P.Dim;
  }
  return T;
}

std::vector<std::string> crossed(const DiffResult &D,
                                 const std::vector<Threshold> &Ts,
                                 std::string &Error) {
  std::vector<std::string> Out;
  for (const Threshold &T : Ts) {
    const FigureChange *C = nullptr;
    for (const FigureChange &X : D.Figures)
      if (X.Key == T.Key || X.Figure->Name == T.Key)
        C = &X;
    if (!C) {
      Error = "--fail-if names '" + T.Key + "', not a figure of " + D.NameA +
              " (see 'llmsys schema')";
      return {};
    }
    const TypeSpec &Type = C->Figure->Type;
    bool IsBool = Type.Kind == TypeKind::Bool;
    if (IsBool != (T.K == Threshold::Kind::Bool)) {
      Error = "--fail-if '" + T.Text + "': " + C->Figure->Name + " is " +
              (IsBool ? "true or false: compare it with '== true' or "
                        "'== false'"
                      : "a number: compare its ratio ('> 1.05x') or its "
                        "value");
      return {};
    }
    if (T.K == Threshold::Kind::Value && !(T.Dim == Type.Dim)) {
      Error = "--fail-if '" + T.Text + "': " + C->Figure->Name +
              " is in " + Type.Dim.unitString() + ", but the value is in " +
              T.Dim.unitString();
      return {};
    }
    if (T.K == Threshold::Kind::Ratio) {
      std::optional<double> R = C->ratio();
      if (R && spec::compareHolds(T.Op, *R, T.Ratio))
        Out.push_back(fmt::format("'{}': {} changed {:.3f}x ({} -> {})",
                                  T.Text, C->Key, *R, D.NameA, D.NameB));
      continue;
    }
    // A value or a boolean: on the second side.
    if (!C->B)
      continue;
    if (spec::compareHolds(T.Op, *C->B, T.Value))
      Out.push_back(fmt::format("'{}': {} is {} ({})", T.Text,
                                C->Figure->Name, showFigure(*C->B, Type),
                                D.NameB));
  }
  return Out;
}

const spec::Object *topScenario(const spec::Spec &S, StringRef Name) {
  for (const spec::Object *O : S.Scenarios)
    if (O->Name == Name && S.isTopLevel(*O))
      return O;
  return nullptr;
}

std::vector<std::string> scenarioNames(const spec::Spec &S) {
  std::vector<std::string> Names;
  for (const spec::Object *O : S.Scenarios)
    if (S.isTopLevel(*O))
      Names.push_back(O->Name);
  return Names;
}

std::vector<ScenarioPair> pairScenarios(const spec::Spec &A, StringRef NameA,
                                        const spec::Spec &B, StringRef NameB) {
  auto Scenarios = [](const spec::Spec &S) {
    std::vector<const spec::Object *> Out;
    for (const spec::Object *O : S.Scenarios)
      if (S.isTopLevel(*O))
        Out.push_back(O);
    return Out;
  };
  std::vector<const spec::Object *> InA = Scenarios(A), InB = Scenarios(B);
  std::vector<ScenarioPair> Pairs;
  if (!NameA.empty() || !NameB.empty()) {
    const spec::Object *X = !NameA.empty() ? topScenario(A, NameA)
                            : InA.size() == 1 ? InA[0] : nullptr;
    const spec::Object *Y = !NameB.empty() ? topScenario(B, NameB)
                            : InB.size() == 1 ? InB[0] : nullptr;
    if (X && !Y && NameB.empty())
      Y = topScenario(B, X->Name);
    if (Y && !X && NameA.empty())
      X = topScenario(A, Y->Name);
    if (X && Y)
      Pairs.push_back({X, Y});
    return Pairs;
  }
  for (const spec::Object *X : InA)
    if (const spec::Object *Y = topScenario(B, X->Name))
      Pairs.push_back({X, Y});
  if (Pairs.empty() && InA.size() == 1 && InB.size() == 1)
    Pairs.push_back({InA[0], InB[0]});
  return Pairs;
}

} // namespace report
} // namespace llmsys
