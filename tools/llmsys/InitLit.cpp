//===- InitLit.cpp - llmsys init-lit --------------------------------------===//
//
// Writes what a spec library needs to run under lit (docs/spec-testing.md):
// a lit.cfg.py that finds llmsys and LLVM's FileCheck without absolute
// paths and treats only files with RUN lines as tests, and a .gitignore
// for lit's outputs. The template is examples/spec-library/lit.cfg.py,
// compiled in (test/Driver/spec-library.test runs that library).
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

// LitConfig: examples/spec-library/lit.cfg.py, the one copy of the
// template (read by CMake into LitConfig.inc).
#include "LitConfig.inc"

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
