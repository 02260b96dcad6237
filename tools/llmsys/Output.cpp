//===- Output.cpp - where reports and figures go --------------------------===//
//
// stdout or -o FILE (written whole, unless the input was bad), SVG
// figures under --plot, and the compilation options.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Report/Report.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace llmsys {
namespace driver {

// A temporary file renamed into place.
/// A written file gets the mode a new file gets from the user's umask
/// (0644 under the usual 022): writeToOutput leaves its temporary file's.
static void setFileMode(StringRef Path) {
  unsigned Mask = sys::fs::getUmask();
  (void)sys::fs::setPermissions(
      Path, static_cast<sys::fs::perms>(
                (sys::fs::all_read | sys::fs::all_write) & ~Mask));
}

bool writePlot(StringRef Name, const std::string &Svg) {
  if (std::error_code EC = sys::fs::create_directories(PlotDir)) {
    WithColor::error(errs(), "llmsys")
        << "cannot create '" << PlotDir << "': " << EC.message() << '\n';
    return false;
  }
  SmallString<128> Path(PlotDir.getValue());
  sys::path::append(Path, Name);
  if (Error E = writeToOutput(Path, [&](raw_ostream &OS) {
        OS << Svg;
        return Error::success();
      })) {
    WithColor::error(errs(), "llmsys")
        << "cannot write '" << Path << "': " << toString(std::move(E)) << '\n';
    return false;
  }
  setFileMode(Path);
  return true;
}

static raw_ostream *ReportStream = nullptr;
static bool Silent = false;
raw_ostream &out() {
  return Silent ? nulls() : ReportStream ? *ReportStream : outs();
}
raw_ostream &errOut() { return Silent ? nulls() : errs(); }
void silenceOutput() { Silent = true; }
sweep::Exchange *SweepRanks = nullptr;

/// Where -o writes: through a symbolic link to its target (the link
/// stays), and straight into a file that is not a regular one (a device
/// such as /dev/stdout, a FIFO), which cannot be replaced by a rename.
struct OutputTarget {
  std::string Path;
  bool Direct = false;
};

static OutputTarget outputTarget(StringRef File) {
  sys::fs::file_status St;
  if (File == "-" || sys::fs::status(File, St))
    return {File.str(), false}; // stdout, or a new file
  if (St.type() != sys::fs::file_type::regular_file)
    return {File.str(), true};
  SmallString<256> Real;
  if (sys::fs::is_symlink_file(File) && !sys::fs::real_path(File, Real))
    return {std::string(Real.str()), false};
  return {File.str(), false};
}

int withOutput(const std::function<int()> &Run) {
  if (OutputFile.empty())
    return Run();
  OutputTarget T = outputTarget(OutputFile);
  int Status = 0;
  auto Whole = [&] { return Status == ExitOk || Status == ExitFinding; };
  auto NotWritten = [&] {
    if (!Quiet)
      WithColor::note(errs(), "llmsys")
          << "'" << OutputFile << "' not written: the command failed\n";
    return Status;
  };
  if (T.Direct) {
    // The report in memory, written whole when the command succeeds.
    std::string Report;
    raw_string_ostream Buffer(Report);
    ReportStream = &Buffer;
    Status = Run();
    ReportStream = nullptr;
    if (!Whole())
      return NotWritten();
    std::error_code EC;
    raw_fd_ostream OS(T.Path, EC, sys::fs::OF_Append);
    if (!EC) {
      OS << Buffer.str();
      OS.close();
      EC = OS.error();
    }
    if (EC) {
      WithColor::error(errs(), "llmsys")
          << "cannot write '" << OutputFile << "': " << EC.message() << '\n';
      return ExitBadInput;
    }
    return Status;
  }
  Error E = writeToOutput(T.Path, [&](raw_ostream &OS) -> Error {
    ReportStream = &OS;
    Status = Run();
    ReportStream = nullptr;
    // A finding's report is whole: CI keeps the report of a failed check.
    if (!Whole())
      return createStringError(inconvertibleErrorCode(), "not written");
    return Error::success();
  });
  if (!Whole()) {
    consumeError(std::move(E));
    return NotWritten();
  }
  if (E) {
    WithColor::error(errs(), "llmsys")
        << "cannot write '" << OutputFile << "': " << toString(std::move(E))
        << '\n';
    return ExitBadInput;
  }
  if (T.Path != "-")
    setFileMode(T.Path);
  return Status;
}

int finish(Compilation &C, int Status) {
  out().flush();
  return std::max(Status, C.finish(errOut()));
}

bool refusesHtml(llvm::StringRef Command) {
  if (OutputFormat != Format::Html)
    return false;
  WithColor::error(errs(), "llmsys")
      << "--format=html is for eval and diff; " << Command
      << " prints text, md, csv or json\n";
  return true;
}

void printJsonReports(llvm::StringRef Key, llvm::json::Array Reports) {
  out() << llvm::formatv("{0:2}",
                         llvm::json::Value(llvm::json::Object{
                             {"schema_version", report::JsonSchemaVersion},
                             {Key, std::move(Reports)}}))
        << '\n';
}

int nothingFound(Compilation &C, const std::string &Message) {
  C.finish(errs());
  WithColor::error(errs(), "llmsys") << Message << '\n';
  return ExitBadInput;
}

CompileOptions compileOptions(const char *Argv0) {
  CompileOptions O;
  O.Files.assign(Inputs.begin(), Inputs.end());
  O.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  O.StdlibDir =
      StdlibDir.empty()
          ? findStdlibDir(Argv0, reinterpret_cast<void *>(&compileOptions))
          : StdlibDir.getValue();
  O.ErrorLimit = ErrorLimit;
  O.Colors = WithColor(errs()).colorsEnabled();
  O.Quiet = Quiet;
  return O;
}

} // namespace driver
} // namespace llmsys
