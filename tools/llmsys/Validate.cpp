//===- Validate.cpp - llmsys validate -------------------------------------===//
//
// Every .llmsys file under the folders, checked together; predictions
// against their measurements (lib/Cost/Validate.cpp).
//
//===----------------------------------------------------------------------===//

#include "Cost/Validate.h"
#include "Driver.h"
#include "Report/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include <algorithm>

using namespace llvm;

namespace llmsys {
namespace driver {

int runValidate(const char *Argv0) {
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
  cost::ValidationResult R = cost::validate(C.Spec, Ctx);
  for (const std::string &F : R.Failures)
    WithColor::error(errs(), "llmsys") << F << '\n';
  if (OutputFormat == Format::Json)
    out() << formatv("{0:2}", report::validationJson(R)) << '\n';
  else if (OutputFormat == Format::Md)
    report::printValidationMarkdown(R, out());
  else if (OutputFormat == Format::Csv)
    report::printValidationCsv(R, out());
  else
    report::printValidationText(R, out());
  return finish(C, !R.Failures.empty());
}

} // namespace driver
} // namespace llmsys
