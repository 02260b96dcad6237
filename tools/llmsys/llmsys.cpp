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

#include "Sema/Compilation.h"

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
static cl::SubCommand SchemaCmd("schema", "Print every entity kind with its "
                                          "fields, as Markdown");

static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.llmsys>..."),
                                    cl::sub(EvalCmd), cl::sub(CheckCmd),
                                    cl::sub(ListCmd), cl::cat(LLMSysCat));
static cl::list<std::string>
    IncludeDirs("I", cl::desc("Add <dir> to the search path of quoted imports"),
                cl::value_desc("dir"), cl::Prefix, cl::sub(EvalCmd),
                cl::sub(CheckCmd), cl::sub(ListCmd), cl::cat(LLMSysCat));
static cl::opt<std::string>
    StdlibDir("stdlib", cl::desc("Directory of the standard library "
                                 "(default: the installed one)"),
              cl::value_desc("dir"), cl::sub(EvalCmd), cl::sub(CheckCmd),
              cl::sub(ListCmd), cl::cat(LLMSysCat));
static cl::opt<unsigned>
    ErrorLimit("error-limit",
               cl::desc("Stop printing errors after <n> (0: no limit)"),
               cl::init(20), cl::value_desc("n"), cl::sub(EvalCmd),
               cl::sub(CheckCmd), cl::sub(ListCmd), cl::cat(LLMSysCat));
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

static int runEval(Compilation &C) {
  bool Ok = C.run();
  int Status = C.finish(errs());
  if (!Ok)
    return Status;
  unsigned Shown = 0;
  for (const spec::Object *S : C.Spec.Scenarios) {
    if (!ScenarioFilter.empty() && S->Name != ScenarioFilter)
      continue;
    ++Shown;
    const spec::Object *Model = S->object("model");
    const spec::Object *System = S->object("system");
    const spec::Object *Mapping = S->object("mapping");
    outs() << S->Type->Name << ' ' << S->Name << ": model "
           << (Model ? describeEntity(*Model) : "?") << " on "
           << (System ? describeSystem(*System) : "?") << ", mapping "
           << (Mapping ? describeMapping(*Mapping) : "?") << '\n';
  }
  if (!ScenarioFilter.empty() && Shown == 0) {
    WithColor::error(errs(), "llmsys")
        << "no scenario named '" << ScenarioFilter << "'\n";
    return 1;
  }
  outs() << Shown << (Shown == 1 ? " scenario" : " scenarios")
         << " checked; cost figures are not computed by this version\n";
  return 0;
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
  for (cl::SubCommand *Sub : {&EvalCmd, &CheckCmd, &ListCmd, &SchemaCmd})
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
