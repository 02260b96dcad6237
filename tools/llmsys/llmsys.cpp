//===- llmsys.cpp - the user's command line ---------------------------------===//
//
//   llmsys eval FILE...     check the files, then evaluate their scenarios
//   llmsys check FILE...    check the files (and their expectations)
//   llmsys list [FILE...]   entities available after imports, by kind
//   llmsys schema           the schema of every entity kind, as Markdown
//
// The tool is thin: the libraries do the work (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "Passes/Passes.h"
#include "Report/Format.h"
#include "Report/Report.h"
#include "Sema/Compilation.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include <fmt/format.h>

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace llvm;
using namespace llmsys;

static cl::OptionCategory LLMSysCat("llmsys options");

static cl::SubCommand EvalCmd("eval", "Check files, then evaluate their "
                                      "train and serve scenarios");
static cl::SubCommand CheckCmd("check", "Check files: syntax, names, units, "
                                        "types, expectations");
static cl::SubCommand ListCmd("list", "List the entities that the files and "
                                      "their imports make available");
static cl::SubCommand ValidateCmd(
    "validate", "Compare predictions with the measurements of a folder of "
                "validation cases");
static cl::SubCommand SchemaCmd("schema", "Print every entity kind with its "
                                          "fields, as Markdown");

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.llmsys>..."),
                                    cl::sub(EvalCmd), cl::sub(CheckCmd),
                                    cl::sub(ListCmd), cl::cat(LLMSysCat));
static cl::list<std::string> ValidateDirs(cl::Positional, cl::desc("<dir>..."),
                                          cl::OneOrMore, cl::sub(ValidateCmd),
                                          cl::cat(LLMSysCat));
static cl::list<std::string>
    IncludeDirs("I", cl::desc("Add <dir> to the search path of quoted imports"),
                cl::value_desc("dir"), cl::Prefix, cl::sub(EvalCmd),
                cl::sub(CheckCmd), cl::sub(ListCmd), cl::sub(ValidateCmd),
                cl::cat(LLMSysCat));
static cl::opt<std::string>
    StdlibDir("stdlib", cl::desc("Directory of the standard library "
                                 "(default: the installed one)"),
              cl::value_desc("dir"), cl::sub(EvalCmd), cl::sub(CheckCmd),
              cl::sub(ListCmd), cl::sub(ValidateCmd), cl::cat(LLMSysCat));
static cl::opt<unsigned>
    ErrorLimit("error-limit",
               cl::desc("Stop printing errors after <n> (0: no limit)"),
               cl::init(20), cl::value_desc("n"), cl::sub(EvalCmd),
               cl::sub(CheckCmd), cl::sub(ListCmd), cl::sub(ValidateCmd),
               cl::cat(LLMSysCat));
static cl::opt<unsigned> TopOps("ops",
                              cl::desc("Rows of the operator table (0: all)"),
                              cl::init(12), cl::value_desc("n"),
                              cl::sub(EvalCmd), cl::cat(LLMSysCat));
enum class Format { Text, Json };
static cl::opt<Format> OutputFormat(
    "format", cl::desc("Report format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "aligned text (default)"),
               clEnumValN(Format::Json, "json",
                          "one JSON document, base SI units "
                          "(docs/report-format.md)")),
    cl::sub(EvalCmd), cl::cat(LLMSysCat));
static cl::opt<std::string>
    ScenarioFilter("scenario", cl::desc("Evaluate only the scenario <name>"),
                   cl::value_desc("name"), cl::sub(EvalCmd), cl::cat(LLMSysCat));

static CompileOptions compileOptions(const char *Argv0) {
  CompileOptions O;
  O.Files.assign(Inputs.begin(), Inputs.end());
  O.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  O.StdlibDir = StdlibDir.empty()
                    ? findStdlibDir(Argv0, reinterpret_cast<void *>(&compileOptions))
                    : StdlibDir.getValue();
  O.ErrorLimit = ErrorLimit;
  O.Colors = WithColor(errs()).colorsEnabled();
  return O;
}

/// An inline entity by what it refines: "gpt3 (refined)".
static std::string describeEntity(const spec::Object &O) {
  if (!O.IsAnonymous)
    return O.Name;
  return O.Parent ? O.Parent->Name + " (refined)" : "(inline " + O.Type->Name + ")";
}

/// "1024 x H100_SXM (128 nodes of 8)"
static std::string describeSystem(const spec::Object &System) {
  const spec::Object *Acc = System.object("node.accelerator");
  double Devices = System.number("node.devices").value_or(0);
  double Nodes = System.number("nodes").value_or(1);
  std::string S = spec::formatNumber(Devices * Nodes) + " x " +
                  (Acc ? describeEntity(*Acc) : std::string("?"));
  if (Nodes > 1)
    S += " (" + spec::formatNumber(Nodes) + " nodes of " +
         spec::formatNumber(Devices) + ")";
  return S;
}

static std::string describeMapping(const spec::Object &Mapping) {
  std::string S;
  for (StringRef P : {"dp", "tp", "pp", "cp", "ep"}) {
    double V = Mapping.number(P).value_or(1);
    if (V != 1 || P == "tp" || P == "pp" || P == "dp")
      S += (S.empty() ? "" : " ") + P.str() + "=" + spec::formatNumber(V);
  }
  return S;
}

/// A serving scenario's program and report, with the decode crossover
/// batch (from the programs at batches 1 and 2).
struct Served {
  ir::Program Program;
  cost::ServingReport Report;
};
static std::optional<Served> serve(const ir::ScenarioConfig &S,
                                   passes::PassContext &Ctx) {
  std::optional<ir::Program> P = passes::buildProgram(S, Ctx);
  if (!P)
    return std::nullopt;
  Served Out{std::move(*P), {}};
  Out.Report = cost::costServing(Out.Program);
  ir::ScenarioConfig One = S, Two = S;
  One.Batch = 1;
  Two.Batch = 2;
  passes::PassContext Quiet;
  std::optional<ir::Program> P1 = passes::buildProgram(One, Quiet);
  std::optional<ir::Program> P2 = passes::buildProgram(Two, Quiet);
  if (P1 && P2)
    cost::setDecodeCrossover(Out.Report, *P1, *P2);
  return Out;
}

static int runEval(Compilation &C) {
  bool Ok = C.run();
  if (!Ok)
    return C.finish(errs());
  unsigned Shown = 0;
  bool Failed = false;
  passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  bool Json = OutputFormat == Format::Json;
  json::Array Scenarios;
  for (const spec::Object *S : C.Spec.Scenarios) {
    if (!ScenarioFilter.empty() && S->Name != ScenarioFilter)
      continue;
    if (Shown++ && !Json)
      outs() << '\n';
    ir::ScenarioConfig Config = ir::scenarioFromSpec(*S);
    if (!Config.Training) {
      std::optional<Served> R = serve(Config, Ctx);
      if (!R) {
        Failed = true;
        continue;
      }
      if (Json)
        Scenarios.push_back(report::servingJson(R->Program, R->Report));
      else
        report::printServingText(R->Program, R->Report, outs(),
                                 TopOps ? TopOps : ~0u);
      continue;
    }
    std::optional<ir::Program> P = passes::buildProgram(Config, Ctx);
    if (!P) {
      Failed = true;
      continue;
    }
    cost::TrainingReport R = cost::costTraining(*P);
    if (Json)
      Scenarios.push_back(report::trainingJson(*P, R));
    else
      report::printTrainingText(*P, R, outs(), TopOps ? TopOps : ~0u);
  }
  if (Json)
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"scenarios", std::move(Scenarios)}}))
           << '\n';
  int Status = C.finish(errs());
  if (!ScenarioFilter.empty() && Shown == 0) {
    WithColor::error(errs(), "llmsys")
        << "no scenario named '" << ScenarioFilter << "'\n";
    return 1;
  }
  return Failed ? 1 : Status;
}

/// The predicted value of a figure, or nullopt when this version does not
/// predict it.
static std::optional<double> predicted(const cost::TrainingReport &R,
                                       llvm::StringRef Figure) {
  if (Figure == "step_time")
    return R.StepTime;
  if (Figure == "throughput")
    return R.TokensPerSecond;
  if (Figure == "mfu")
    return R.Mfu;
  if (Figure == "hfu")
    return R.Hfu;
  if (Figure == "model_flops_rate")
    return R.ModelFlopsRate;
  if (Figure == "hardware_flops_rate")
    return R.HardwareFlopsRate;
  if (Figure == "peak_memory")
    return R.Memory.total();
  if (Figure == "time_to_train" && R.TimeToTrain > 0)
    return R.TimeToTrain;
  return std::nullopt;
}

static std::optional<double> predicted(const cost::ServingReport &R,
                                       llvm::StringRef Figure) {
  if (Figure == "ttft")
    return R.Ttft;
  if (Figure == "tpot" && R.Tpot > 0)
    return R.Tpot;
  if (Figure == "e2e")
    return R.E2E;
  if (Figure == "throughput")
    return R.Throughput;
  if (Figure == "throughput_per_device")
    return R.ThroughputPerDevice;
  if (Figure == "prefill_layer_time")
    return R.PrefillLayerTime;
  if (Figure == "decode_layer_time" && R.DecodeLayerTime > 0)
    return R.DecodeLayerTime;
  if (Figure == "max_batch")
    return double(R.MaxBatch);
  if (Figure == "peak_memory")
    return R.Memory.total();
  return std::nullopt;
}

static int runValidate(const char *Argv0) {
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
  struct Group {
    unsigned Cases = 0;
    double SumAbs = 0, MaxAbs = 0;
  };
  std::map<std::string, Group> Groups;
  Group All;
  bool Failed = false;
  std::vector<const spec::Measurement *> Ms;
  for (const spec::Measurement &M : C.Spec.Measurements)
    Ms.push_back(&M);
  std::stable_sort(Ms.begin(), Ms.end(), [](auto *A, auto *B) {
    return std::tie(A->Source, A->Case) < std::tie(B->Source, B->Case);
  });
  for (const spec::Measurement *M : Ms) {
    ir::ScenarioConfig Config = ir::scenarioFromSpec(*M->Scenario);
    std::string Label = M->Case.empty() ? M->Decl->Name : M->Case;
    std::optional<double> Value;
    if (Config.Training) {
      if (std::optional<ir::Program> P = passes::buildProgram(Config, Ctx))
        Value = predicted(cost::costTraining(*P), M->Figure->Name);
    } else if (std::optional<Served> R = serve(Config, Ctx)) {
      Value = predicted(R->Report, M->Figure->Name);
    }
    if (!Value) {
      WithColor::error(errs(), "llmsys")
          << "case " << Label << ": cannot predict " << M->Scenario->Name
          << "." << M->Figure->Name << '\n';
      Failed = true;
      continue;
    }
    double Measured = M->Measured.Num;
    double Error = (*Value - Measured) / Measured;
    std::string Unit = M->Measured.Dim.unitString();
    outs() << fmt::format("{:<18} {:<34} {:<20} predicted {:>12}  measured {:>12}  error {:>7}\n",
                          M->Source, Label, M->Figure->Name,
                          report::si(*Value, Unit, 4),
                          report::si(Measured, Unit, 4),
                          report::signedPercent(Error));
    for (Group *G : {&Groups[M->Source], &All}) {
      ++G->Cases;
      G->SumAbs += std::fabs(Error);
      G->MaxAbs = std::max(G->MaxAbs, std::fabs(Error));
    }
  }
  for (const auto &[Id, G] : Groups)
    outs() << fmt::format("group {}: {} cases, mean |error| {:.1f}%, max |error| {:.1f}%\n",
                          Id, G.Cases, 100 * G.SumAbs / G.Cases, 100 * G.MaxAbs);
  if (All.Cases)
    outs() << fmt::format("validation: {} cases, mean |error| {:.1f}%, max |error| {:.1f}%\n",
                          All.Cases, 100 * All.SumAbs / All.Cases,
                          100 * All.MaxAbs);
  else
    outs() << "validation: 0 cases\n";
  int Status = C.finish(errs());
  return Failed ? 1 : Status;
}

static int runCheck(Compilation &C) {
  C.run();
  return C.finish(errs());
}

static int runList(Compilation &C) {
  bool Ok = C.run();
  int Status = C.finish(errs());
  if (!Ok)
    return Status;
  std::map<std::string, std::vector<const spec::Object *>> ByKind;
  for (const spec::Object *O : C.Spec.Entities)
    ByKind[O->Type->Name].push_back(O);
  for (const StructSpec *Kind : Schema::get().entities()) {
    auto It = ByKind.find(Kind->Name);
    if (It == ByKind.end())
      continue;
    outs() << Kind->Name << " (" << It->second.size() << ")\n";
    for (const spec::Object *O : It->second) {
      outs() << "  " << O->Name;
      std::string Where = O->Module.empty()
                              ? C.SM.getMemoryBuffer(O->BufferID)
                                    ->getBufferIdentifier()
                                    .str()
                              : O->Module;
      outs().indent(O->Name.size() < 30 ? 30 - O->Name.size() : 1) << Where
                                                                    << '\n';
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions({&LLMSysCat, &getColorCategory()});
  for (cl::SubCommand *Sub :
       {&EvalCmd, &CheckCmd, &ListCmd, &ValidateCmd, &SchemaCmd})
    cl::HideUnrelatedOptions({&LLMSysCat, &getColorCategory()}, *Sub);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "llmsys " << LLMSYS_VERSION << '\n';
  });
  // The overview names the entity kinds from the schema itself.
  std::string Overview =
      "llmsys: predicts what training and serving LLMs costs\n\n"
      "  llmsys eval FILE...    check, then evaluate the scenarios\n"
      "  llmsys check FILE...   check the files and their expectations\n"
      "  llmsys list [FILE...]  entities available after imports\n"
      "  llmsys validate DIR... predictions against measured cases\n"
      "  llmsys schema          entity kinds and fields (Markdown)\n\n"
      "Entity kinds (fields: llmsys schema):\n";
  for (const StructSpec *K : Schema::get().entities())
    Overview += "  " + K->Name + std::string(14 - std::min<size_t>(13, K->Name.size()), ' ') +
                K->Doc + "\n";
  cl::ParseCommandLineOptions(argc, argv, Overview);

  if (SchemaCmd) {
    Schema::get().printMarkdown(outs());
    return 0;
  }
  if (ValidateCmd)
    return runValidate(argv[0]);
  if (!EvalCmd && !CheckCmd && !ListCmd) {
    WithColor::error(errs(), "llmsys")
        << "no subcommand given; see 'llmsys --help'\n";
    return 1;
  }
  Compilation C(compileOptions(argv[0]));
  if (EvalCmd)
    return runEval(C);
  if (CheckCmd)
    return runCheck(C);
  return runList(C);
}
