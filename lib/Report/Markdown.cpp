//===- Markdown.cpp - the report as Markdown tables --------------------------===//
//
// Rendered from the JSON report (docs/report-format.md), whose keys carry
// their units: the same figures, as tables for design notes and pull
// requests. Figures first in a fixed order, then the blocks (inputs,
// breakdown, memory, roofline phases) as two-column tables, then the rows
// (SLOs, operators, collectives) as tables.
//
//===----------------------------------------------------------------------===//

#include "Report/Chain.h"
#include "Report/Format.h"
#include "Report/Report.h"
#include "Report/SweepReport.h"
#include "Report/TrendReport.h"
#include "Report/Tables.h"

#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace report {

/// A value as people read it, its unit taken from its key.
static std::string cell(StringRef Key, const json::Value &V) {
  if (V.kind() == json::Value::Null)
    return "-";
  if (std::optional<bool> B = V.getAsBoolean())
    return *B ? "yes" : "no";
  if (std::optional<StringRef> S = V.getAsString())
    return S->str();
  std::optional<double> D = V.getAsNumber();
  if (!D)
    return "";
  double X = *D;
  // "..._per_s" at the end or before another suffix ("tokens_per_step"
  // is a count).
  auto Rate = [&](StringRef Unit) {
    return Key.endswith(Unit) || Key.contains((Unit + "_").str());
  };
  if (Rate("tokens_per_s"))
    return si(X, "tokens/s");
  if (Rate("flops_per_s"))
    return si(X, "FLOP/s");
  if (Key.endswith("_bytes") || Key == "bytes")
    return si(X, "B");
  if (Key == "flops")
    return si(X, "FLOP");
  if (Key.endswith("_usd"))
    return money(X);
  if (Key.endswith("_j"))
    return si(X, "J");
  if (Key.endswith("_s"))
    return duration(X);
  if (Key.contains("intensity"))
    return si(X, "FLOP/B");
  if (std::optional<int64_t> I = V.getAsInteger())
    return std::to_string(*I);
  return fmt::format("{:.4g}", X);
}

static Table pairs(const json::Object &O, StringRef Title) {
  Table T{Title.str(), {"", ""}, {false, true}, {}};
  std::vector<std::string> Keys;
  for (const auto &KV : O)
    Keys.push_back(KV.first.str());
  llvm::sort(Keys);
  for (const std::string &K : Keys)
    T.Rows.push_back({K, cell(K, *O.get(K))});
  return T;
}

static std::optional<Table> rows(const json::Array &A, StringRef Title) {
  if (A.empty())
    return std::nullopt;
  const json::Object *First = A.front().getAsObject();
  if (!First)
    return std::nullopt;
  Table T;
  T.Title = Title.str();
  for (const auto &KV : *First)
    T.Columns.push_back(KV.first.str());
  llvm::sort(T.Columns);
  // The name first.
  auto It = llvm::find(T.Columns, "name");
  if (It != T.Columns.end())
    std::rotate(T.Columns.begin(), It, It + 1);
  // Words left, numbers right.
  for (const std::string &C : T.Columns) {
    const json::Value *V = First->get(C);
    T.RightAligned.push_back(!(V && (V->getAsString() || V->getAsBoolean())));
  }
  for (const json::Value &R : A) {
    const json::Object *O = R.getAsObject();
    if (!O)
      continue;
    // SLO rows hold times, or a token rate for `throughput`.
    std::optional<StringRef> Name = O->getString("name");
    bool Rate = Title == "slo" && Name && *Name == "throughput";
    std::vector<std::string> Row;
    for (const std::string &C : T.Columns) {
      const json::Value *V = O->get(C);
      std::string Key = Title == "slo" && (C == "limit" || C == "value")
                            ? (Rate ? "tokens_per_s" : "x_s")
                            : C;
      Row.push_back(V ? cell(Key, *V) : "");
    }
    T.Rows.push_back(std::move(Row));
  }
  return T;
}

Section scenarioSection(const json::Value &Scenario) {
  Section Out;
  const json::Object *S = Scenario.getAsObject();
  if (!S)
    return Out;
  Out.Heading = (S->getString("kind").value_or("") + " `" +
                 S->getString("name").value_or("") + "`")
                    .str();
  // The figures first, in the order of Figures.def.
  bool Training = S->getString("kind").value_or("") == "train";
  std::vector<std::string> Keys;
  for (const ir::FigureInfo &F : ir::figures())
    if (F.Training == Training && S->get(F.Key) &&
        !llvm::is_contained(Keys, F.Key.str()))
      Keys.push_back(F.Key.str());
  std::vector<std::string> Rest;
  for (const auto &KV : *S) {
    StringRef K = KV.first;
    if (K == "kind" || K == "name" || KV.second.getAsObject() ||
        KV.second.getAsArray() || llvm::is_contained(Keys, K.str()))
      continue;
    Rest.push_back(K.str());
  }
  llvm::sort(Rest);
  Keys.insert(Keys.end(), Rest.begin(), Rest.end());
  Table Figures{"", {"figure", "value"}, {false, true}, {}};
  for (const std::string &K : Keys)
    Figures.Rows.push_back({K, cell(K, *S->get(K))});
  Out.Tables.push_back(std::move(Figures));
  for (const char *Block :
       {"inputs", "breakdown", "memory", "prefill", "decode", "speculative"})
    if (const json::Object *O = S->getObject(Block))
      Out.Tables.push_back(pairs(*O, Block));
  for (const char *Name : {"slo", "operators", "collectives"})
    if (const json::Array *A = S->getArray(Name))
      if (std::optional<Table> T = rows(*A, Name))
        Out.Tables.push_back(std::move(*T));
  return Out;
}

Section diffSection(const DiffResult &D) {
  Section Out;
  Out.Heading = "`" + D.NameA + "` -> `" + D.NameB + "`";
  auto Dash = [](const std::string &S) {
    return S.empty() ? std::string("-") : S;
  };
  if (D.Inputs.empty())
    Out.Text = "The inputs are the same.";
  else {
    Table T{"", {"input", D.NameA, D.NameB}, {false, true, true}, {}};
    for (const InputChange &I : D.Inputs)
      T.Rows.push_back({I.Path, Dash(I.A), Dash(I.B)});
    Out.Tables.push_back(std::move(T));
  }
  if (!D.Binding.empty()) {
    Table T{"what binds", {"phase", D.NameA, D.NameB}, {false, false, false},
            {}};
    for (const auto &[Phase, AB] : D.Binding)
      T.Rows.push_back({Phase, AB.first, AB.second});
    Out.Tables.push_back(std::move(T));
  }
  if (!D.Verdicts.empty()) {
    Table T{"verdicts",
            {"verdict", D.NameA, D.NameB, "flipped"},
            {false, false, false, false},
            {}};
    for (const Verdict &V : D.Verdicts)
      T.Rows.push_back({V.What, V.A, V.B, V.flipped() ? "yes" : ""});
    Out.Tables.push_back(std::move(T));
  }
  Table F{"", {"figure", D.NameA, D.NameB, "ratio"}, {false, true, true, true},
          {}};
  for (const FigureChange &C : D.Figures) {
    auto Show = [&](const std::optional<double> &V) {
      return V ? showFigure(*V, C.Figure->Type) : std::string("-");
    };
    std::optional<double> R = C.ratio();
    F.Rows.push_back({C.Figure->Name, Show(C.A), Show(C.B),
                      R ? fmt::format("{:.3f}x", *R) : std::string("-")});
  }
  Out.Tables.push_back(std::move(F));
  return Out;
}

/// A section as Markdown: a level-2 heading, then each table (a titled one
/// under its title in bold).
static void printSectionMarkdown(const Section &S, raw_ostream &OS) {
  OS << "## " << S.Heading << "\n";
  if (!S.Text.empty())
    OS << "\n" << S.Text << "\n";
  for (const Table &T : S.Tables) {
    OS << '\n';
    if (!T.Title.empty())
      OS << "**" << T.Title << "**\n\n";
    OS << '|';
    for (const std::string &C : T.Columns)
      OS << (C.empty() ? " |" : " " + markdownCell(C) + " |");
    OS << "\n|";
    for (bool Right : T.RightAligned)
      OS << (Right ? " ---: |" : " --- |");
    OS << '\n';
    for (const std::vector<std::string> &Row : T.Rows) {
      OS << '|';
      for (const std::string &Cell : Row)
        OS << ' ' << markdownCell(Cell) << " |";
      OS << '\n';
    }
  }
}

void printMarkdown(const json::Value &Scenario, raw_ostream &OS) {
  printSectionMarkdown(scenarioSection(Scenario), OS);
}

void printDiffMarkdown(const DiffResult &D, raw_ostream &OS) {
  printSectionMarkdown(diffSection(D), OS);
}

void printChainMarkdown(const Chain &C, raw_ostream &OS) {
  printSectionMarkdown(chainSection(C), OS);
}

void printTrendMarkdown(const driver::TrendFit &T, raw_ostream &OS) {
  printSectionMarkdown(trendSection(T), OS);
}

} // namespace report
} // namespace llmsys
