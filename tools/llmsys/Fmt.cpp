//===- Fmt.cpp - llmsys fmt -----------------------------------------------===//
//
// Prints each file formatted (lib/Format), rewrites it in place (-i), or
// says which files are not formatted with a diff (--check, for CI). A file
// that does not parse gets its diagnostics and is left as it is.
//
//===----------------------------------------------------------------------===//

#include "Basic/SourceFiles.h"
#include "Driver.h"
#include "Format/Format.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace llmsys {
namespace driver {

/// Replaces a file by Text through a temporary file renamed into place,
/// through a symbolic link to its target, keeping the file's permissions.
static bool rewriteFile(StringRef Path, StringRef Text) {
  SmallString<256> Target;
  if (std::error_code EC = sys::fs::real_path(Path, Target)) {
    WithColor::error(errs(), "llmsys")
        << "cannot write '" << Path << "': " << EC.message() << '\n';
    return false;
  }
  ErrorOr<sys::fs::perms> Perms = sys::fs::getPermissions(Target);
  if (Error E = writeToOutput(Target, [&](raw_ostream &OS) {
        OS << Text;
        return Error::success();
      })) {
    WithColor::error(errs(), "llmsys")
        << "cannot write '" << Path << "': " << toString(std::move(E))
        << '\n';
    return false;
  }
  if (Perms)
    (void)sys::fs::setPermissions(Target, *Perms);
  return true;
}

int runFmt() {
  if (Inputs.empty()) {
    WithColor::error(errs(), "llmsys") << "fmt: no input files\n";
    return ExitBadInput;
  }
  if (FmtCheck && FmtInPlace) {
    WithColor::error(errs(), "llmsys")
        << "fmt: --check and -i do not go together\n";
    return ExitBadInput;
  }
  bool Colors = WithColor(errs()).colorsEnabled();
  int Status = ExitOk;
  for (const std::string &Path : Inputs) {
    if (FmtInPlace && Path == "-") {
      WithColor::error(errs(), "llmsys")
          << "fmt: -i cannot rewrite standard input\n";
      Status = ExitBadInput;
      continue;
    }
    SourceMgr SM;
    DiagnosticEngine Diags(SM);
    Diags.setShowColors(Colors);
    Diags.setErrorLimit(ErrorLimit);
    SourceFiles Files(SM, Diags);
    std::optional<SourceFiles::Loaded> L = Files.loadTopLevel(Path);
    std::optional<std::string> Formatted;
    if (L)
      Formatted = formatBuffer(L->BufferID, SM, Diags);
    Diags.flush(errs());
    if (!Formatted) {
      Status = ExitBadInput;
      continue;
    }
    StringRef Original = SM.getMemoryBuffer(L->BufferID)->getBuffer();
    if (FmtCheck) {
      if (*Formatted != Original) {
        std::string Name = Path == "-" ? "<stdin>" : Path;
        outs() << unifiedDiff(Original, *Formatted, Name,
                              Name + " (formatted)");
        Status = std::max<int>(Status, ExitFinding);
      }
    } else if (FmtInPlace) {
      if (*Formatted != Original && !rewriteFile(Path, *Formatted))
        Status = ExitBadInput;
    } else {
      outs() << *Formatted;
    }
  }
  return Status;
}

} // namespace driver
} // namespace llmsys
