//===- Chain.h - a figure along a chain of diffs ----------------*- C++ -*-===//
//
// `llmsys diff A B C ...` compares each scenario with the next; the chain
// follows one figure along them: its value at each scenario, the ratio of
// each step and of the whole, what each step changed, and a waterfall
// figure of the steps (docs/cli.md, "A chain of scenarios").
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_REPORT_CHAIN_H
#define LLMSYS_REPORT_CHAIN_H

#include "Report/Diff.h"
#include "Report/Tables.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace report {

struct ChainStep {
  std::string Scenario;
  std::optional<double> Value;
  /// What this scenario changes from the one before, as "path: a -> b"
  /// (none for the first): an entity whose fields changed with it by its
  /// name, other fields by their values.
  std::vector<std::string> Changed;
};

struct Chain {
  const FigureSpec *Figure = nullptr;
  std::vector<ChainStep> Steps;
  /// Value / the previous one (nullopt: either missing or 0).
  std::optional<double> stepRatio(size_t I) const;
  /// Value / the first one.
  std::optional<double> totalRatio(size_t I) const;
};

/// The chain of Name (a figure's name or key) along consecutive diffs
/// (Diffs[i].B is Diffs[i + 1].A); nullopt with Error set when no diff has
/// that figure.
std::optional<Chain> chainOf(llvm::ArrayRef<DiffResult> Diffs,
                             llvm::StringRef Name, std::string &Error);

void printChainText(const Chain &C, llvm::raw_ostream &OS);
/// (Markdown.cpp, with the other Markdown tables.)
void printChainMarkdown(const Chain &C, llvm::raw_ostream &OS);
llvm::json::Value chainJson(const Chain &C);
/// The chain as a titled table (Markdown and HTML).
Section chainSection(const Chain &C);

} // namespace report
} // namespace llmsys

#endif
