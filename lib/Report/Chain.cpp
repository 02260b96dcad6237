//===- Chain.cpp - a figure along a chain of diffs ---------------------------===//

#include "Report/Chain.h"

#include "Report/Format.h"
#include "Report/SweepReport.h"

#include <cmath>
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace report {

std::optional<double> Chain::stepRatio(size_t I) const {
  if (I == 0 || !Steps[I].Value || !Steps[I - 1].Value ||
      *Steps[I - 1].Value == 0)
    return std::nullopt;
  return *Steps[I].Value / *Steps[I - 1].Value;
}

std::optional<double> Chain::totalRatio(size_t I) const {
  if (!Steps[I].Value || !Steps[0].Value || *Steps[0].Value == 0)
    return std::nullopt;
  return *Steps[I].Value / *Steps[0].Value;
}

/// What a step changed, as people name it: "system.node.accelerator:
/// A100_SXM_80GB -> H100_SXM" for an entity whose fields changed with it
/// (the scenario's own system, model or mapping is looked into), a field's
/// path and values otherwise.
static std::vector<std::string> summarize(ArrayRef<InputChange> Inputs) {
  auto Has = [&](StringRef Prefix) {
    return any_of(Inputs, [&](const InputChange &In) {
      return StringRef(In.Path).startswith(Prefix.str() + ".");
    });
  };
  std::vector<std::string> Shown, Out;
  for (const InputChange &In : Inputs) {
    StringRef P = In.Path;
    if (any_of(Shown, [&](const std::string &R) {
          return P.startswith(R + ".");
        }))
      continue;
    bool Entity = Has(P);
    if (Entity && !P.contains('.'))
      continue; // the scenario's system, model or mapping: look inside
    if (Entity)
      Shown.push_back(In.Path);
    Out.push_back(fmt::format("{}: {} -> {}", In.Path,
                              In.A.empty() ? "-" : In.A,
                              In.B.empty() ? "-" : In.B));
  }
  return Out;
}

std::optional<Chain> chainOf(ArrayRef<DiffResult> Diffs, StringRef Name,
                             std::string &Error) {
  Chain C;
  auto Find = [&](const DiffResult &D) -> const FigureChange * {
    for (const FigureChange &F : D.Figures)
      if (F.Figure && (F.Figure->Name == Name || F.Key == Name))
        return &F;
    return nullptr;
  };
  for (size_t I = 0; I < Diffs.size(); ++I) {
    const DiffResult &D = Diffs[I];
    const FigureChange *F = Find(D);
    if (!F) {
      Error = fmt::format("'{}' is not a figure of '{}' and '{}'", Name.str(),
                          D.NameA, D.NameB);
      return std::nullopt;
    }
    C.Figure = F->Figure;
    if (I == 0)
      C.Steps.push_back({D.NameA, F->A, {}});
    ChainStep S{D.NameB, F->B, summarize(D.Inputs)};
    C.Steps.push_back(std::move(S));
  }
  return C;
}

static std::string ratio(std::optional<double> R) {
  return R ? fmt::format("{:.3g}x", *R) : "-";
}

/// The first three changes, and how many more.
static std::string changed(const std::vector<std::string> &Changes) {
  std::string S;
  size_t Shown = std::min<size_t>(Changes.size(), 3);
  for (size_t I = 0; I < Shown; ++I)
    S += (I ? "; " : "") + Changes[I];
  if (Changes.size() > Shown)
    S += fmt::format("; and {} more", Changes.size() - Shown);
  return S;
}

static std::string value(const Chain &C, size_t I) {
  return C.Steps[I].Value ? showFigure(*C.Steps[I].Value, C.Figure->Type)
                          : "-";
}

void printChainText(const Chain &C, raw_ostream &OS) {
  OS << "chain of " << C.Steps.size() << " scenarios: " << C.Figure->Name
     << '\n';
  size_t Width = 8;
  for (const ChainStep &S : C.Steps)
    Width = std::max(Width, S.Scenario.size());
  OS << fmt::format("  {:<{}}  {:>16}  {:>8}  {:>8}  {}\n", "scenario", Width,
                    C.Figure->Name.size() > 16 ? "value" : C.Figure->Name,
                    "step", "total", "changes");
  for (size_t I = 0; I < C.Steps.size(); ++I)
    OS << StringRef(fmt::format("  {:<{}}  {:>16}  {:>8}  {:>8}  {}",
                                C.Steps[I].Scenario, Width, value(C, I),
                                ratio(C.stepRatio(I)), ratio(C.totalRatio(I)),
                                changed(C.Steps[I].Changed)))
              .rtrim()
       << '\n';
}

Section chainSection(const Chain &C) {
  Section S;
  S.Heading = "chain: `" + C.Figure->Name + "`";
  Table T;
  T.Columns = {"scenario", C.Figure->key().str(), "step", "total", "changes"};
  T.RightAligned = {false, true, true, true, false};
  for (size_t I = 0; I < C.Steps.size(); ++I)
    T.Rows.push_back({C.Steps[I].Scenario, value(C, I), ratio(C.stepRatio(I)),
                      ratio(C.totalRatio(I)), changed(C.Steps[I].Changed)});
  S.Tables.push_back(std::move(T));
  return S;
}

json::Value chainJson(const Chain &C) {
  json::Array Steps;
  for (size_t I = 0; I < C.Steps.size(); ++I) {
    auto Opt = [](std::optional<double> V) {
      return V ? json::Value(*V) : json::Value(nullptr);
    };
    json::Array Changed;
    for (const std::string &Change : C.Steps[I].Changed)
      Changed.push_back(Change);
    Steps.push_back(json::Object{{"scenario", C.Steps[I].Scenario},
                                 {"value", Opt(C.Steps[I].Value)},
                                 {"step_ratio", Opt(C.stepRatio(I))},
                                 {"total_ratio", Opt(C.totalRatio(I))},
                                 {"changed", std::move(Changed)}});
  }
  return json::Object{{"figure", C.Figure->key()},
                      {"steps", std::move(Steps)}};
}

} // namespace report
} // namespace llmsys
