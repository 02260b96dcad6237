//===- InitLit.cpp - llmsys init-lit --------------------------------------===//
//
// Writes what a spec library needs to run under lit (docs/spec-testing.md):
// a lit.cfg.py that finds llmsys and LLVM's FileCheck without absolute
// paths and treats only files with RUN lines as tests, and a .gitignore
// for lit's outputs. examples/spec-library/lit.cfg.py is this template
// (test/Driver/spec-library.test compares them).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace llmsys {
namespace driver {

static const char LitConfig[] = R"(# lit configuration of a spec library, written by `llmsys init-lit`
# (docs/spec-testing.md). Every .llmsys file with a RUN: line is a test;
# files without one (shared definitions that tests import) are not.
# Run the suite with `lit -sv DIR`.
#
# Environment: LLMSYS_BIN, a folder holding llmsys (default: PATH);
# LLMSYS_STDLIB, a standard library (default: the installed one's).
import os
import shutil
import subprocess

import lit.formats

config.name = os.path.basename(os.path.dirname(os.path.abspath(__file__)))
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".llmsys"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))


def has_run_line(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return "RUN:" in f.read()


# lit matches excludes by file name, in any folder.
config.excludes = ["Output"] + sorted({
    name
    for folder, _, names in os.walk(config.test_source_root)
    for name in names
    if name.endswith(".llmsys") and
    not has_run_line(os.path.join(folder, name))})


def llvm_bindir():
    """The folder of FileCheck and count: beside them on PATH, else
    llvm-config's."""
    if shutil.which("FileCheck"):
        return ""
    for tool in ("llvm-config-16", "llvm-config"):
        if shutil.which(tool):
            return subprocess.check_output([tool, "--bindir"],
                                           text=True).strip()
    return ""


path = [os.environ.get("LLMSYS_BIN", ""), llvm_bindir(),
        os.environ.get("PATH", "")]
config.environment["PATH"] = os.pathsep.join(p for p in path if p)
if "LLMSYS_STDLIB" in os.environ:
    config.environment["LLMSYS_STDLIB"] = os.environ["LLMSYS_STDLIB"]
)";

static const char GitIgnore[] = "# lit's outputs (llmsys init-lit)\n"
                                "Output/\n"
                                ".lit_test_times.txt\n";

/// Writes Path whole, unless it exists (then false after a message).
static bool writeNew(StringRef Path, StringRef Text) {
  if (sys::fs::exists(Path)) {
    WithColor::error(errs(), "llmsys")
        << "'" << Path << "' exists; not overwritten\n";
    return false;
  }
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC) {
    WithColor::error(errs(), "llmsys")
        << "cannot write '" << Path << "': " << EC.message() << '\n';
    return false;
  }
  OS << Text;
  outs() << "wrote " << Path << '\n';
  return true;
}

int runInitLit() {
  std::string Dir = InitDir.empty() ? std::string(".") : InitDir.getValue();
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    WithColor::error(errs(), "llmsys")
        << "cannot create '" << Dir << "': " << EC.message() << '\n';
    return ExitBadInput;
  }
  SmallString<128> Cfg(Dir), Ignore(Dir);
  sys::path::append(Cfg, "lit.cfg.py");
  sys::path::append(Ignore, ".gitignore");
  if (!writeNew(Cfg, LitConfig))
    return ExitBadInput;
  // An existing .gitignore gets the lines it lacks.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Old = MemoryBuffer::getFile(Ignore);
  if (!Old)
    return writeNew(Ignore, GitIgnore) ? ExitOk : ExitBadInput;
  std::string Add;
  for (StringRef Line : {"Output/", ".lit_test_times.txt"})
    if (!llvm::is_contained(
            [&] {
              SmallVector<StringRef, 16> Lines;
              (*Old)->getBuffer().split(Lines, '\n');
              for (StringRef &L : Lines)
                L = L.trim();
              return Lines;
            }(),
            Line))
      Add += Line.str() + "\n";
  if (Add.empty())
    return ExitOk;
  std::error_code EC;
  raw_fd_ostream OS(Ignore, EC, sys::fs::OF_Append | sys::fs::OF_Text);
  if (EC) {
    WithColor::error(errs(), "llmsys")
        << "cannot write '" << Ignore << "': " << EC.message() << '\n';
    return ExitBadInput;
  }
  if (!(*Old)->getBuffer().empty() && !(*Old)->getBuffer().endswith("\n"))
    OS << '\n';
  OS << Add;
  outs() << "added to " << Ignore << ": " << StringRef(Add).trim() << '\n';
  return ExitOk;
}

} // namespace driver
} // namespace llmsys
