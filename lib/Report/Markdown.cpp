//===- Markdown.cpp - the report as Markdown tables --------------------------===//
//
// Rendered from the JSON report (docs/report-format.md), whose keys carry
// their units: the same figures, as tables for design notes and pull
// requests. Figures first in a fixed order, then the blocks (inputs,
// breakdown, memory, roofline phases) as two-column tables, then the rows
// (SLOs, operators, collectives) as tables.
//
//===----------------------------------------------------------------------===//

#include "Report/Format.h"
#include "Report/Report.h"

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

static void pairs(const json::Object &O, StringRef Title, raw_ostream &OS) {
  OS << "\n**" << Title << "**\n\n| | |\n| --- | ---: |\n";
  std::vector<std::string> Keys;
  for (const auto &KV : O)
    Keys.push_back(KV.first.str());
  llvm::sort(Keys);
  for (const std::string &K : Keys)
    OS << "| " << K << " | " << markdownCell(cell(K, *O.get(K))) << " |\n";
}

static void rows(const json::Array &A, StringRef Title, raw_ostream &OS) {
  if (A.empty())
    return;
  const json::Object *First = A.front().getAsObject();
  if (!First)
    return;
  std::vector<std::string> Cols;
  for (const auto &KV : *First)
    Cols.push_back(KV.first.str());
  llvm::sort(Cols);
  // The name first.
  auto It = llvm::find(Cols, "name");
  if (It != Cols.end())
    std::rotate(Cols.begin(), It, It + 1);
  OS << "\n**" << Title << "**\n\n|";
  for (const std::string &C : Cols)
    OS << ' ' << C << " |";
  OS << "\n|";
  // Words left, numbers right.
  for (const std::string &C : Cols) {
    const json::Value *V = First->get(C);
    bool Word = V && (V->getAsString() || V->getAsBoolean());
    OS << (Word ? " --- |" : " ---: |");
  }
  OS << '\n';
  for (const json::Value &R : A) {
    const json::Object *O = R.getAsObject();
    if (!O)
      continue;
    // SLO rows hold times, or a token rate for `throughput`.
    std::optional<StringRef> Name = O->getString("name");
    bool Rate = Title == "slo" && Name && *Name == "throughput";
    OS << '|';
    for (const std::string &C : Cols) {
      const json::Value *V = O->get(C);
      std::string Key = Title == "slo" && (C == "limit" || C == "value")
                            ? (Rate ? "tokens_per_s" : "x_s")
                            : C;
      OS << ' ' << (V ? markdownCell(cell(Key, *V)) : "") << " |";
    }
    OS << '\n';
  }
}

void printMarkdown(const json::Value &Scenario, raw_ostream &OS) {
  const json::Object *S = Scenario.getAsObject();
  if (!S)
    return;
  OS << "## " << S->getString("kind").value_or("") << " `"
     << S->getString("name").value_or("") << "`\n\n";
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
  OS << "| figure | value |\n| --- | ---: |\n";
  for (const std::string &K : Keys)
    OS << "| " << K << " | " << markdownCell(cell(K, *S->get(K))) << " |\n";
  for (const char *Block :
       {"inputs", "breakdown", "memory", "prefill", "decode", "speculative"})
    if (const json::Object *O = S->getObject(Block))
      pairs(*O, Block, OS);
  for (const char *Table : {"slo", "operators", "collectives"})
    if (const json::Array *A = S->getArray(Table))
      rows(*A, Table, OS);
}

} // namespace report
} // namespace llmsys
