//===- Validate.cpp - llmsys validate -------------------------------------===//
//
// Every .llmsys file under the folders, checked together; predictions
// against their measurements (lib/Driver/Validate.cpp).
//
//===----------------------------------------------------------------------===//

#include "Driver/CrossValidate.h"
#include "Driver/Validate.h"
#include "Driver.h"
#include "Report/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace llmsys {
namespace driver {

/// --budget group=percent: ExitFinding (after an error message per group)
/// when a group's mean |error|, held out when cross-validating, exceeds its
/// budget (`pairs`, `train_pairs`, `serve_pairs`: the pairs' ratio errors,
/// in-sample); ExitBadInput when a budget is malformed or names no group.
static int checkBudgets(const driver::ValidationResult &R,
                        const driver::CrossValidation *CV) {
  int Status = ExitOk;
  for (const std::string &B : Budgets) {
    auto [Group, Percent] = StringRef(B).split('=');
    double Limit;
    if (Percent.trim().getAsDouble(Limit) || !std::isfinite(Limit) ||
        Limit < 0) {
      WithColor::error(errs(), "llmsys")
          << "--budget '" << B << "': expected <group>=<percent>\n";
      Status = ExitBadInput;
      continue;
    }
    Group = Group.trim();
    // `pairs`, `train_pairs` and `serve_pairs` name the pairs (in-sample
    // either way), before any source group of that name.
    const driver::ValidationSummary *Pairs = R.pairSummary(Group);
    const bool HeldOut = CV && !Pairs;
    const driver::ValidationSummary *S = Pairs     ? Pairs
                                         : HeldOut ? CV->summary(Group)
                                                   : R.summary(Group);
    if (!S || !S->Cases) {
      WithColor::error(errs(), "llmsys")
          << "--budget '" << B << "': no case of group '" << Group << "'\n";
      Status = ExitBadInput;
      continue;
    }
    if (100 * S->meanAbs() > Limit) {
      WithColor::error(errs(), "llmsys")
          << formatv("group {0}: {1} mean |error| {2:F2}% exceeds its budget "
                     "of {3}%\n",
                     Group, HeldOut ? "held-out" : "in-sample", 100 * S->meanAbs(),
                     Percent.trim());
      Status = std::max<int>(Status, ExitFinding);
    }
  }
  return Status;
}

int runValidate(const char *Argv0) {
  if (refusesHtml("validate"))
    return ExitBadInput;
  // Every .llmsys file under the folders, checked together.
  std::vector<std::string> Files;
  for (const std::string &Dir : ValidateDirs) {
    std::error_code EC;
    if (!sys::fs::is_directory(Dir)) {
      Files.push_back(Dir);
      continue;
    }
    for (sys::fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC;
         I.increment(EC))
      if (sys::path::extension(I->path()) == ".llmsys")
        Files.push_back(I->path());
  }
  std::sort(Files.begin(), Files.end());
  CompileOptions O = compileOptions(Argv0);
  O.Files = Files;
  Compilation C(O);
  if (!C.run())
    return C.finish(errs());
  passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  driver::ValidationResult R = driver::validate(C.Spec, Ctx);
  for (const std::string &F : R.Failures)
    WithColor::error(errs(), "llmsys") << F << '\n';
  std::optional<driver::CrossValidation> CV;
  if (CrossValidate && R.Failures.empty()) {
    CV = driver::crossValidate(R, Ctx);
    if (!CV)
      return finish(C, ExitBadInput);
  }
  const driver::CrossValidation *CVP = CV ? &*CV : nullptr;
  if (OutputFormat == Format::Json)
    out() << formatv("{0:2}", report::validationJson(R, CVP)) << '\n';
  else if (OutputFormat == Format::Md)
    report::printValidationMarkdown(R, out(), CVP);
  else if (OutputFormat == Format::Csv)
    report::printValidationCsv(R, out(), CVP);
  else
    report::printValidationText(R, out(), CVP);
  int Budget = checkBudgets(R, CVP);
  return finish(C, !R.Failures.empty() ? ExitBadInput : Budget);
}

} // namespace driver
} // namespace llmsys
