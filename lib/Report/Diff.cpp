//===- Diff.cpp - two scenarios side by side ---------------------------------===//

#include "Report/Diff.h"

#include "Report/Format.h"
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
  bool operator!=(const Shown &O) const { return Exact != O.Exact; }
};

static Shown show(const spec::Value &V) {
  Shown S{spec::formatValue(V), ""};
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
      if (Sub.IsEntity && !Sub.IsAnonymous)
        Out[Path] = {Sub.Name, Sub.Name};
      flatten(Sub, Path, Out, Depth + 1);
      continue;
    }
    Out[Path] = show(F.V);
  }
}

DiffResult diff(const spec::Object &A, const cost::Evaluation &EA,
                const spec::Object &B, const cost::Evaluation &EB) {
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
                          V.second.Exact});

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
  OS << "diff " << D.NameA << " -> " << D.NameB << '\n';
  if (D.Inputs.empty()) {
    OS << "  inputs: the same\n";
  } else {
    OS << "  inputs that differ (" << D.Inputs.size() << ")\n";
    size_t W = 0;
    for (const InputChange &I : D.Inputs)
      W = std::max(W, I.Path.size());
    for (const InputChange &I : D.Inputs)
      OS << fmt::format("    {:<{}}  {} -> {}\n", I.Path, W,
                        I.A.empty() ? "(unset)" : I.A,
                        I.B.empty() ? "(unset)" : I.B);
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
  for (const InputChange &I : D.Inputs)
    Inputs.push_back(json::Object{
        {"path", I.Path},
        {"a", I.ExactA.empty() ? json::Value(nullptr) : json::Value(I.ExactA)},
        {"b", I.ExactB.empty() ? json::Value(nullptr) : json::Value(I.ExactB)}});
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
                      {"inputs", std::move(Inputs)},
                      {"figures", std::move(Figures)}};
}

std::optional<Threshold> parseThreshold(StringRef S, std::string &Error) {
  Threshold T;
  T.Text = S.trim().str();
  StringRef Rest = S.trim();
  size_t OpAt = Rest.find_first_of("<>");
  if (OpAt == StringRef::npos) {
    Error = "'" + T.Text + "' needs a comparison: 'FIGURE > 1.05x'";
    return std::nullopt;
  }
  T.Key = Rest.take_front(OpAt).trim().str();
  Rest = Rest.drop_front(OpAt);
  T.Op = Rest.startswith("<=") || Rest.startswith(">=") ? Rest.take_front(2).str()
                                                         : Rest.take_front(1).str();
  Rest = Rest.drop_front(T.Op.size()).trim();
  if (!Rest.consume_back("x") || Rest.trim().getAsDouble(T.Ratio) ||
      T.Key.empty() || !std::isfinite(T.Ratio) || T.Ratio <= 0) {
    Error = "'" + T.Text + "' is not 'FIGURE OP RATIOx' (e.g. 'step_time_s > 1.05x')";
    return std::nullopt;
  }
  return T;
}

std::vector<std::string> crossed(const DiffResult &D,
                                 const std::vector<Threshold> &Ts,
                                 std::string &UnknownKey) {
  std::vector<std::string> Out;
  for (const Threshold &T : Ts) {
    const FigureChange *C = nullptr;
    for (const FigureChange &X : D.Figures)
      if (X.Key == T.Key || X.Figure->Name == T.Key)
        C = &X;
    if (!C) {
      UnknownKey = T.Key;
      return {};
    }
    std::optional<double> R = C->ratio();
    if (!R)
      continue;
    bool Hit = T.Op == "<"    ? *R < T.Ratio
               : T.Op == "<=" ? *R <= T.Ratio
               : T.Op == ">"  ? *R > T.Ratio
                              : *R >= T.Ratio;
    if (Hit)
      Out.push_back(fmt::format("'{}': {} changed {:.3f}x ({} -> {})", T.Text,
                                C->Key, *R, D.NameA, D.NameB));
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
