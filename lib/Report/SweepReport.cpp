//===- SweepReport.cpp - a sweep's points as text, CSV or JSON -------------===//
//
// Rows are written as the runner hands them over (streamed sweeps never
// hold their points), so the header is written first and the summary last.
//
//===----------------------------------------------------------------------===//

#include "Report/SweepReport.h"

#include "Report/Format.h"
#include "Report/Report.h"

#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace report {

std::string showFigure(double V, const TypeSpec &T) {
  if (std::isnan(V))
    return "-";
  if (T.Kind == TypeKind::Bool)
    return V != 0 ? "true" : "false";
  if (T.Kind == TypeKind::Quantity)
    return si(V, T.Dim.unitString(), 4);
  return fmt::format("{:.4g}", V);
}

static std::string showAxisValue(const spec::Value &V) {
  if (V.Kind == spec::ValueKind::Number && !V.Dim.isDimensionless())
    return si(V.Num, V.Dim.unitString(), 4);
  return spec::formatValue(V);
}

/// An axis value for CSV and JSON: numbers in base units, words and names
/// as they are.
static json::Value axisJson(const spec::Value &V) {
  switch (V.Kind) {
  case spec::ValueKind::Number:
    return V.Num;
  case spec::ValueKind::Bool:
    return V.Bool;
  default:
    return spec::formatValue(V);
  }
}

static std::string csvField(std::string S) {
  if (S.find_first_of(",\"\n") == std::string::npos)
    return S;
  std::string Out = "\"";
  for (char C : S)
    Out += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Out + "\"";
}

SweepPrinter::SweepPrinter(const spec::Sweep &W,
                           const std::vector<std::string> &Columns,
                           SweepFormat Format, raw_ostream &OS)
    : W(W), Format(Format), OS(OS) {
  for (const std::string &C : Columns)
    Figures.push_back(W.Scenario->Type->findFigure(C));
  Ranked = !W.Objectives.empty();
}

std::string SweepPrinter::objective() const {
  if (W.Objectives.empty())
    return "";
  if (W.Pareto)
    return "pareto " + W.Objectives[0].first + ", " + W.Objectives[1].first;
  return (W.Objectives[0].second ? "maximize " : "minimize ") +
         W.Objectives[0].first;
}

void SweepPrinter::begin() {
  switch (Format) {
  case SweepFormat::Text: {
    OS << "sweep " << W.Decl->Name << " over " << W.Scenario->Name << ": "
       << W.points() << (W.points() == 1 ? " point" : " points");
    if (Ranked)
      OS << "; " << objective();
    OS << '\n';
    std::vector<std::string> Header{Ranked ? "rank" : "point"};
    for (const spec::SweepAxis &A : W.Axes)
      Header.push_back(A.Path);
    for (const FigureSpec *F : Figures)
      Header.push_back(F->Name);
    Widths.clear();
    Widths.push_back(std::max<size_t>(5, Header[0].size()));
    for (size_t I = 0; I < W.Axes.size(); ++I) {
      size_t Wd = Header[I + 1].size();
      for (const spec::Value &V : W.Axes[I].Values)
        Wd = std::max(Wd, showAxisValue(V).size());
      Widths.push_back(Wd);
    }
    // Four significant digits, a prefix and the unit: "167.2 ktoken/s".
    for (const FigureSpec *F : Figures)
      Widths.push_back(std::max<size_t>(
          F->Name.size(), F->Type.Kind == TypeKind::Quantity
                              ? 8 + F->Type.Dim.unitString().size()
                              : 6));
    OS << ' ';
    for (size_t I = 0; I < Header.size(); ++I)
      OS << "  " << fmt::format("{:>{}}", Header[I], Widths[I]);
    OS << '\n';
    break;
  }
  case SweepFormat::Csv: {
    std::vector<std::string> Header{Ranked ? "rank" : "point"};
    for (const spec::SweepAxis &A : W.Axes)
      Header.push_back(csvField(A.Path));
    for (const FigureSpec *F : Figures)
      Header.push_back(F->key().str());
    OS << join(Header, ",") << '\n';
    break;
  }
  case SweepFormat::Json:
    J = std::make_unique<json::OStream>(OS, 2);
    J->objectBegin();
    J->attribute("schema_version", JsonSchemaVersion);
    J->attribute("sweep", W.Decl->Name);
    J->attribute("scenario", W.Scenario->Name);
    J->attribute("points", static_cast<int64_t>(W.points()));
    if (Ranked)
      J->attribute("objective", objective());
    J->attributeBegin("results");
    J->arrayBegin();
    break;
  }
}

void SweepPrinter::row(const sweep::Point &P, uint64_t Rank) {
  uint64_t Label = Ranked ? Rank : P.Index + 1;
  switch (Format) {
  case SweepFormat::Text: {
    OS << ' ' << "  " << fmt::format("{:>{}}", Label, Widths[0]);
    for (size_t I = 0; I < W.Axes.size(); ++I)
      OS << "  "
         << fmt::format("{:>{}}", showAxisValue(W.Axes[I].Values[P.Choice[I]]),
                        Widths[I + 1]);
    for (size_t I = 0; I < Figures.size(); ++I)
      OS << "  "
         << fmt::format("{:>{}}", showFigure(P.Figures[I], Figures[I]->Type),
                        Widths[1 + W.Axes.size() + I]);
    OS << '\n';
    break;
  }
  case SweepFormat::Csv: {
    OS << Label;
    for (size_t I = 0; I < W.Axes.size(); ++I) {
      const spec::Value &V = W.Axes[I].Values[P.Choice[I]];
      OS << ','
         << csvField(V.Kind == spec::ValueKind::Number
                         ? spec::formatNumber(V.Num)
                         : spec::formatValue(V));
    }
    for (size_t I = 0; I < Figures.size(); ++I) {
      double V = P.Figures[I];
      OS << ',';
      if (std::isnan(V))
        continue;
      if (Figures[I]->Type.Kind == TypeKind::Bool)
        OS << (V != 0 ? "true" : "false");
      else
        OS << spec::formatNumber(V);
    }
    OS << '\n';
    break;
  }
  case SweepFormat::Json:
    J->objectBegin();
    J->attribute(Ranked ? "rank" : "point", static_cast<int64_t>(Label));
    J->attributeBegin("inputs");
    J->objectBegin();
    for (size_t I = 0; I < W.Axes.size(); ++I)
      J->attribute(W.Axes[I].Path, axisJson(W.Axes[I].Values[P.Choice[I]]));
    J->objectEnd();
    J->attributeEnd();
    for (size_t I = 0; I < Figures.size(); ++I) {
      double V = P.Figures[I];
      if (std::isnan(V))
        J->attribute(Figures[I]->key(), nullptr);
      else if (Figures[I]->Type.Kind == TypeKind::Bool)
        J->attribute(Figures[I]->key(), V != 0);
      else
        J->attribute(Figures[I]->key(), V);
    }
    J->objectEnd();
    break;
  }
}

void SweepPrinter::end(const sweep::Result &R) {
  switch (Format) {
  case SweepFormat::Text:
    if (R.Accepted == 0)
      OS << "  (no point accepted)\n";
    OS << fmt::format("{} point{}: {} accepted, {} rejected by where, {} "
                      "not valid mapping{}",
                      R.Total, R.Total == 1 ? "" : "s", R.Accepted,
                      R.RejectedByWhere, R.InvalidMapping,
                      R.InvalidMapping == 1 ? "" : "s");
    if (Ranked)
      OS << fmt::format("; {} shown ({})", R.Kept.size(),
                        W.Pareto ? "the Pareto front" : "best first");
    OS << '\n';
    break;
  case SweepFormat::Csv:
    break; // Rows only: the file loads as one table.
  case SweepFormat::Json:
    J->arrayEnd();
    J->attributeEnd();
    J->attribute("accepted", static_cast<int64_t>(R.Accepted));
    J->attribute("rejected_by_where", static_cast<int64_t>(R.RejectedByWhere));
    J->attribute("invalid_mappings", static_cast<int64_t>(R.InvalidMapping));
    J->objectEnd();
    J->flush();
    OS << '\n';
    break;
  }
}

} // namespace report
} // namespace llmsys
