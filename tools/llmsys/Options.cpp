//===- Options.cpp - the command line -------------------------------------===//
//
// Subcommands and options of llmsys; each option lists the subcommands
// that take it (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

using namespace llvm;

namespace llmsys {
namespace driver {

cl::OptionCategory LLMSysCat("llmsys options");

cl::SubCommand EvalCmd("eval", "Check files, then evaluate their "
                               "train and serve scenarios");
cl::SubCommand CheckCmd("check", "Check files: syntax, names, units, "
                                 "types, expectations");
cl::SubCommand ListCmd("list", "List the entities that the files and "
                               "their imports make available");
cl::SubCommand
    ValidateCmd("validate",
                "Compare predictions with the measurements of a folder of "
                "validation cases");
cl::SubCommand SweepCmd("sweep", "Check files, then evaluate their "
                                 "sweeps");
cl::SubCommand
    RequireCmd("require",
               "For serve scenarios with SLOs: the least compute, memory "
               "bandwidth, capacity and interconnect that meet them");
cl::SubCommand TrendsCmd("trends",
                         "Check files, then fit their trends: a quantity of "
                         "dated accelerators, its growth per period");
cl::SubCommand
    DiffCmd("diff",
            "Two scenarios side by side: the inputs that differ and every "
            "figure with the ratio; three or more: each with the next, and "
            "one figure along the chain");
cl::SubCommand SchemaCmd("schema", "Print every entity kind with its "
                                   "fields, as Markdown");
cl::opt<std::string> SchemaJson(
    "json",
    cl::desc("The JSON Schema of a command's --format=json document instead: "
             "--json (eval), --json=validate, sweep, diff or require"),
    cl::value_desc("command"), cl::ValueOptional, cl::sub(SchemaCmd),
    cl::cat(LLMSysCat));
cl::SubCommand LspCmd("lsp", "Serve the Language Server Protocol over "
                             "stdin and stdout (docs/lsp.md)");
cl::SubCommand InitLitCmd("init-lit",
                          "Write a lit.cfg.py and a .gitignore that make a "
                          "folder of specs a lit suite");
cl::opt<std::string> InitDir(cl::Positional, cl::desc("[<dir>]"),
                             cl::sub(InitLitCmd), cl::cat(LLMSysCat));

cl::SubCommand FmtCmd("fmt", "Format files: indentation, spaces, aligned "
                             "trailing comments (printed, -i in place, "
                             "--check for CI)");
cl::opt<bool> FmtCheck(
    "check",
    cl::desc("Print a diff for each file that is not formatted and exit 1; "
             "write nothing"),
    cl::sub(FmtCmd), cl::cat(LLMSysCat));
cl::opt<bool> FmtInPlace("i",
                         cl::desc("Rewrite the files that are not formatted "
                                  "in place"),
                         cl::sub(FmtCmd), cl::cat(LLMSysCat));

cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.llmsys>..."),
                             cl::sub(EvalCmd), cl::sub(CheckCmd),
                             cl::sub(FmtCmd),
                             cl::sub(ListCmd), cl::sub(SweepCmd),
                             cl::sub(RequireCmd), cl::sub(TrendsCmd),
                             cl::cat(LLMSysCat));
cl::list<std::string>
    DiffSides(cl::Positional,
              cl::desc("<file.llmsys[:scenario]> <file.llmsys[:scenario]>..."),
              cl::OneOrMore, cl::sub(DiffCmd), cl::cat(LLMSysCat));
cl::opt<std::string> ChainFigure(
    "figure",
    cl::desc("The figure a chain of scenarios is followed by (default: "
             "throughput_per_device; a chain is shown for three or more "
             "sides, or two with this option)"),
    cl::value_desc("name"), cl::sub(DiffCmd), cl::cat(LLMSysCat));
cl::opt<bool> ChainOnly(
    "chain-only",
    cl::desc("Of a chain, print the chain alone, not each pair (text and "
             "Markdown)"),
    cl::sub(DiffCmd), cl::cat(LLMSysCat));
cl::list<std::string>
    FailIf("fail-if",
           cl::desc("Exit 1 when a figure's ratio (second / first) crosses a "
                    "threshold, e.g. 'step_time_s > 1.05x' (repeatable)"),
           cl::value_desc("threshold"), cl::sub(DiffCmd), cl::cat(LLMSysCat));
cl::list<std::string> ValidateDirs(cl::Positional, cl::desc("<dir>..."),
                                   cl::OneOrMore, cl::sub(ValidateCmd),
                                   cl::cat(LLMSysCat));
cl::opt<bool> CrossValidate(
    "cross-validate",
    cl::desc("Also predict each source group with the fitted parameters "
             "refitted without it (leave one group out), and report "
             "in-sample and held-out errors"),
    cl::sub(ValidateCmd), cl::cat(LLMSysCat));
cl::list<std::string> Budgets(
    "budget",
    cl::desc("Exit 1 when a group's mean |error| (held-out with "
             "--cross-validate) exceeds <percent>; <group> is a source "
             "group, train, serve, all, pairs, train_pairs or serve_pairs "
             "(repeatable)"),
    cl::value_desc("group=percent"), cl::sub(ValidateCmd), cl::cat(LLMSysCat));
cl::list<std::string>
    IncludeDirs("I", cl::desc("Add <dir> to the search path of quoted imports"),
                cl::value_desc("dir"), cl::Prefix, cl::sub(EvalCmd),
                cl::sub(CheckCmd), cl::sub(ListCmd), cl::sub(ValidateCmd),
                cl::sub(SweepCmd), cl::sub(RequireCmd), cl::sub(DiffCmd),
                cl::sub(TrendsCmd), cl::sub(LspCmd), cl::cat(LLMSysCat));
cl::opt<std::string> StdlibDir("stdlib",
                               cl::desc("Directory of the standard library "
                                        "(default: the installed one)"),
                               cl::value_desc("dir"), cl::sub(EvalCmd),
                               cl::sub(CheckCmd), cl::sub(ListCmd),
                               cl::sub(ValidateCmd), cl::sub(SweepCmd),
                               cl::sub(RequireCmd), cl::sub(DiffCmd),
                               cl::sub(TrendsCmd), cl::sub(LspCmd),
                               cl::cat(LLMSysCat));
cl::opt<unsigned> ErrorLimit(
    "error-limit", cl::desc("Stop printing errors after <n> (0: no limit)"),
    cl::init(20), cl::value_desc("n"), cl::sub(EvalCmd), cl::sub(CheckCmd),
    cl::sub(FmtCmd),
    cl::sub(ListCmd), cl::sub(ValidateCmd), cl::sub(SweepCmd),
    cl::sub(RequireCmd), cl::sub(DiffCmd), cl::sub(TrendsCmd),
    cl::cat(LLMSysCat));
cl::opt<unsigned> TopOps("ops", cl::desc("Rows of the operator table (0: all)"),
                         cl::init(12), cl::value_desc("n"), cl::sub(EvalCmd),
                         cl::cat(LLMSysCat));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Report format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "aligned text (default)"),
               clEnumValN(Format::Md, "md",
                          "Markdown tables (eval, diff, validate, trends)"),
               clEnumValN(Format::Csv, "csv",
                          "one table, base SI units (eval: a row per "
                          "scenario; diff: a row per figure; trends: a row "
                          "per point)"),
               clEnumValN(Format::Json, "json",
                          "one JSON document, base SI units "
                          "(docs/report-format.md)"),
               clEnumValN(Format::Html, "html",
                          "one self-contained page: tables and figures "
                          "inline (eval, diff)")),
    cl::sub(EvalCmd), cl::sub(RequireCmd), cl::sub(DiffCmd),
    cl::sub(ValidateCmd), cl::sub(TrendsCmd), cl::cat(LLMSysCat));
cl::opt<std::string>
    ScenarioFilter("scenario", cl::desc("Evaluate only the scenario <name>"),
                   cl::value_desc("name"), cl::sub(EvalCmd),
                   cl::sub(RequireCmd), cl::cat(LLMSysCat));

cl::opt<report::SweepFormat> SweepOutputFormat(
    "format", cl::desc("Sweep output format"),
    cl::init(report::SweepFormat::Text),
    cl::values(clEnumValN(report::SweepFormat::Text, "text",
                          "aligned table (default)"),
               clEnumValN(report::SweepFormat::Csv, "csv",
                          "one row per point, base SI units"),
               clEnumValN(report::SweepFormat::Json, "json",
                          "one JSON document, base SI units")),
    cl::sub(SweepCmd), cl::cat(LLMSysCat));
cl::opt<std::string> SweepFilter("sweep", cl::desc("Run only the sweep <name>"),
                                 cl::value_desc("name"), cl::sub(SweepCmd),
                                 cl::cat(LLMSysCat));
cl::opt<unsigned> SweepThreads("threads",
                               cl::desc("Threads (default: one per core); the "
                                        "output does not depend on it"),
                               cl::init(0), cl::value_desc("n"),
                               cl::sub(SweepCmd), cl::cat(LLMSysCat));
cl::opt<std::string> Checkpoint(
    "checkpoint",
    cl::desc("Save the sweep's progress to <file> (atomically, every "
             "--checkpoint-interval seconds and at the end) and resume from "
             "it when it exists"),
    cl::value_desc("file"), cl::sub(SweepCmd), cl::cat(LLMSysCat));
cl::opt<double> CheckpointInterval(
    "checkpoint-interval",
    cl::desc("Seconds between checkpoints (default 60; 0: after every wave "
             "of points)"),
    cl::init(60), cl::value_desc("seconds"), cl::sub(SweepCmd),
    cl::cat(LLMSysCat));
cl::opt<uint64_t> MaxPoints(
    "max-points",
    cl::desc("Refuse sweeps of more than <n> points (default 1000000)"),
    cl::init(1000000), cl::value_desc("n"), cl::sub(SweepCmd),
    cl::cat(LLMSysCat));
cl::opt<bool> SweepReusePrefix(
    "reuse-prefix",
    cl::desc("Reuse the operators built before partition across points that "
             "differ only in layout or system (default on; off runs every "
             "pass at every point, with the same results)"),
    cl::init(true), cl::Hidden, cl::sub(SweepCmd), cl::cat(LLMSysCat));
cl::opt<bool> SweepReuseEvaluation(
    "reuse-evaluation",
    cl::desc("Evaluate every point of a thread into one program and report "
             "(default on; off builds new ones per point, with the same "
             "results)"),
    cl::init(true), cl::Hidden, cl::sub(SweepCmd), cl::cat(LLMSysCat));
cl::opt<cl::boolOrDefault>
    Progress("progress",
             cl::desc("A progress line on stderr (default: on a terminal)"),
             cl::sub(SweepCmd), cl::cat(LLMSysCat));

cl::opt<bool> Strict(
    "strict",
    cl::desc("Exit 1 when a scenario does not fit in memory or misses an "
             "SLO"),
    cl::sub(EvalCmd), cl::cat(LLMSysCat));
cl::opt<bool> Quiet("q",
                    cl::desc("Quiet: no warnings, notes or progress line; "
                             "errors only"),
                    cl::sub(EvalCmd), cl::sub(CheckCmd), cl::sub(ListCmd),
                    cl::sub(SweepCmd), cl::sub(RequireCmd), cl::sub(DiffCmd),
                    cl::sub(ValidateCmd), cl::sub(TrendsCmd),
                    cl::cat(LLMSysCat));
static cl::alias QuietLong("quiet", cl::desc("Alias for -q"),
                           cl::aliasopt(Quiet), cl::cat(LLMSysCat));

cl::opt<std::string> OutputFile(
    "o",
    cl::desc("Write the report to <file> (a temporary file renamed into "
             "place), also when a check fails (exit 1); not on bad input"),
    cl::value_desc("file"), cl::sub(EvalCmd), cl::sub(SweepCmd),
    cl::sub(RequireCmd), cl::sub(DiffCmd), cl::sub(ValidateCmd),
    cl::sub(TrendsCmd), cl::cat(LLMSysCat));

cl::opt<std::string> PlotDir(
    "plot",
    cl::desc("Write SVG figures to <dir>: per scenario its roofline, time "
             "and memory; per pareto sweep its front; per diff chain its "
             "waterfall; per trend its fit"),
    cl::value_desc("dir"), cl::sub(EvalCmd), cl::sub(SweepCmd),
    cl::sub(DiffCmd), cl::sub(TrendsCmd), cl::cat(LLMSysCat));

} // namespace driver
} // namespace llmsys
