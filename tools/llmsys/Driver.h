//===- Driver.h - what the llmsys subcommands share -------------*- C++ -*-===//
//
// The command line (Options.cpp), where reports go (Output.cpp), and one
// entry point per subcommand, each in its own file (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_TOOLS_LLMSYS_DRIVER_H
#define LLMSYS_TOOLS_LLMSYS_DRIVER_H

#include "Report/SweepReport.h"
#include "Sema/Compilation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <memory>
#include <string>

namespace llmsys {
namespace driver {

namespace cl = llvm::cl;

enum class Format { Text, Md, Csv, Json, Html };

extern cl::OptionCategory LLMSysCat;
extern cl::SubCommand EvalCmd, CheckCmd, ListCmd, ValidateCmd, SweepCmd,
    RequireCmd, TrendsCmd, DiffCmd, SchemaCmd, InitLitCmd, FmtCmd, LspCmd;
extern cl::list<std::string> Inputs, DiffSides, FailIf, ValidateDirs,
    IncludeDirs;
extern cl::opt<std::string> InitDir;
extern cl::opt<std::string> StdlibDir, ScenarioFilter, SweepFilter, OutputFile,
    PlotDir, ChainFigure;
extern cl::opt<unsigned> ErrorLimit, TopOps, SweepThreads;
extern cl::opt<bool> SweepReusePrefix, CrossValidate, ChainOnly;
extern cl::list<std::string> Budgets;
extern cl::opt<bool> SweepReuseEvaluation, Strict, Quiet, FmtCheck, FmtInPlace;
extern cl::opt<std::string> SchemaJson;
extern cl::opt<Format> OutputFormat;
extern cl::opt<report::SweepFormat> SweepOutputFormat;
extern cl::opt<uint64_t> MaxPoints;
extern cl::opt<std::string> Checkpoint;
extern cl::opt<double> CheckpointInterval;
extern cl::opt<cl::boolOrDefault> Progress;

/// Where reports go: stdout, or the -o file being written.
llvm::raw_ostream &out();
/// Where a command's own error messages go: stderr (nowhere once
/// silenced).
llvm::raw_ostream &errOut();
/// Runs a command, its report to stdout or to -o. The file is replaced
/// when the report is whole: the command exits 0, or 1 for a finding (a
/// failed expectation, --fail-if, --strict), not on bad input.
int withOutput(const std::function<int()> &Run);
/// Writes one figure under --plot, whole. False after an error message.
bool writePlot(llvm::StringRef Name, const std::string &Svg);
/// The end of a command: the report flushed, then the diagnostics; the
/// larger of Status (an ExitStatus) and the diagnostics' status.
int finish(Compilation &C, int Status);
/// True, after an error message, when --format=html asks for a page from
/// a command that prints text, md, csv or json only.
bool refusesHtml(llvm::StringRef Command);
/// A command's JSON document: the schema version and its reports under
/// Key, to out().
void printJsonReports(llvm::StringRef Key, llvm::json::Array Reports);
/// The end of a command that found nothing to do: the diagnostics, then
/// the error Message; ExitBadInput.
int nothingFound(Compilation &C, const std::string &Message);
/// The compilation options of the command line's files.
CompileOptions compileOptions(const char *Argv0);

/// The files of a command line, each compiled as its own unit with its
/// own imports (as a C compiler treats translation units): two files may
/// define the same name unless one imports the other.
using Units = std::vector<std::unique_ptr<Compilation>>;

int runEval(Units &Us);
int runCheck(Units &Us);
int runList(Units &Us);
int runSweep(Units &Us);
int runRequire(Units &Us);
int runTrends(Units &Us);
int runDiff(const char *Argv0);
int runLsp(const char *Argv0);

/// Under an MPI launcher with several ranks, this process's place in the
/// job (MPI initialised; finalised when it is destroyed); null otherwise.
/// Error: set when several ranks were launched but MPI is not built in.
std::unique_ptr<sweep::Exchange> joinMpiJob(std::string &Error);
/// The ranks of the sweep being run (null: one process). A rank other
/// than 0 prints nothing: no report, no diagnostics.
extern sweep::Exchange *SweepRanks;
/// From now on, reports and diagnostics of this process go nowhere (an
/// MPI rank other than 0).
void silenceOutput();
int runValidate(const char *Argv0);
int runInitLit();
int runFmt();

} // namespace driver
} // namespace llmsys

#endif
