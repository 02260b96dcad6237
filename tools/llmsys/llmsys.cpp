//===- llmsys.cpp - the user's command line -------------------------------===//
//
//   llmsys eval FILE...     check the files, then evaluate their scenarios
//   llmsys check FILE...    check the files (and their expectations)
//   llmsys sweep FILE...    evaluate their sweeps
//   llmsys require FILE...  the least hardware meeting serve SLOs
//   llmsys diff A B         two scenarios side by side
//   llmsys validate DIR...  predictions against measured cases
//   llmsys list [FILE...]   entities available after imports, by kind
//   llmsys schema           the schema of every entity kind, as Markdown
//   llmsys fmt FILE...      format the files (-i in place, --check for CI)
//   llmsys lsp              a language server on stdin/stdout
//
// The tool is thin: the libraries do the work (docs/cli.md); each
// subcommand is a file of this folder.
//
//===----------------------------------------------------------------------===//

#include "Basic/Suggest.h"
#include "Driver.h"
#include "IR/Schema.h"
#include "Report/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace llmsys;
using namespace llmsys::driver;

static const char ExitStatusHelp[] =
    "Exit status: 0 success; 1 a finding (a failed expect, --fail-if,\n"
    "--budget, --strict, an SLO that require cannot meet); 2 bad input,\n"
    "a usage error or an I/O failure. --color=auto|always|never anywhere\n"
    "on the line; NO_COLOR=1 turns colours off.\n";

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions({&LLMSysCat});
  for (cl::SubCommand *Sub :
       {&EvalCmd, &CheckCmd, &ListCmd, &ValidateCmd, &SweepCmd, &RequireCmd, &TrendsCmd,
        &DiffCmd, &SchemaCmd, &InitLitCmd, &FmtCmd, &LspCmd})
    cl::HideUnrelatedOptions({&LLMSysCat}, *Sub);
  cl::SetVersionPrinter(
      [](raw_ostream &OS) { OS << "llmsys " << LLMSYS_VERSION << '\n'; });
  // The overview names the entity kinds from the schema itself.
  std::string Overview =
      "llmsys: predicts what training and serving LLMs costs\n\n"
      "  llmsys eval FILE...    check, then evaluate the scenarios\n"
      "  llmsys check FILE...   check the files and their expectations\n"
      "  llmsys sweep FILE...   evaluate the sweeps of the files\n"
      "  llmsys require FILE... least hardware meeting serve SLOs\n"
      "  llmsys diff A B        two scenarios side by side\n"
      "  llmsys list [FILE...]  entities available after imports\n"
      "  llmsys validate DIR... predictions against measured cases\n"
      "  llmsys trends FILE...  fit the trends of dated accelerators\n"
      "  llmsys schema          entity kinds and fields (Markdown)\n"
      "  llmsys fmt FILE...     format the files (-i, --check)\n"
      "  llmsys init-lit [DIR]  make a folder of specs a lit suite\n"
      "  llmsys lsp             a language server on stdin/stdout\n\n"
      "Entity kinds (fields: llmsys schema):\n";
  for (const StructSpec *K : Schema::get().entities())
    Overview += "  " + K->Name +
                std::string(14 - std::min<size_t>(13, K->Name.size()), ' ') +
                K->Doc + "\n";
  // --color=auto|always|never may stand anywhere on the line (LLVM's own
  // option is taken only before the subcommand); NO_COLOR turns colours
  // off unless --color asks for them (https://no-color.org).
  int Colors = -1; // auto
  if (std::optional<std::string> No = sys::Process::GetEnv("NO_COLOR"))
    if (!No->empty())
      Colors = 0;
  std::vector<const char *> Args;
  for (int I = 0; I < argc; ++I) {
    StringRef A = argv[I];
    if (I == 0 || !A.consume_front("-") ||
        !(A.consume_front("-color") || A.consume_front("color")) ||
        !(A.empty() || A.front() == '=')) {
      Args.push_back(argv[I]);
      continue;
    }
    A.consume_front("=");
    if (A.empty() || A == "always" || A == "true")
      Colors = 1;
    else if (A == "never" || A == "false")
      Colors = 0;
    else if (A == "auto")
      Colors = -1;
    else {
      WithColor::error(errs(), "llmsys")
          << "--color takes auto, always or never, not '" << A << "'\n";
      return ExitBadInput;
    }
  }
  // A first word that is no subcommand: say which one it was likely meant
  // to be (the option parser would call it an unknown argument). A
  // subcommand's --help shows its own description, not the overview.
  if (Args.size() > 1 && Args[1][0] != '-') {
    std::vector<std::string> Names;
    cl::SubCommand *Named = nullptr;
    for (cl::SubCommand *S : cl::getRegisteredSubcommands())
      if (!S->getName().empty()) {
        Names.push_back(S->getName().str());
        if (S->getName() == Args[1])
          Named = S;
      }
    if (!Named) {
      std::string Hint = didYouMean(Args[1], Names);
      WithColor::error(errs(), "llmsys")
          << "unknown subcommand '" << Args[1] << "'"
          << (Hint.empty() ? "; see 'llmsys --help'" : Hint) << '\n';
      return ExitBadInput;
    }
    Overview = std::string("llmsys predicts what training and serving LLMs "
                           "costs ('llmsys --help' lists the subcommands)\n\n") +
               ExitStatusHelp;
  } else {
    Overview += "\n" + std::string(ExitStatusHelp);
  }
  if (!cl::ParseCommandLineOptions(int(Args.size()), Args.data(), Overview,
                                   &errs()))
    return ExitBadInput;
  if (Colors >= 0) {
    StringMap<cl::Option *> &Opts = cl::getRegisteredOptions();
    auto It = Opts.find("color");
    if (It != Opts.end())
      It->second->addOccurrence(0, "color", Colors ? "true" : "false");
  }

  if (SchemaCmd) {
    if (SchemaJson.getNumOccurrences()) {
      StringRef Of = SchemaJson.empty() ? "eval" : StringRef(SchemaJson);
      std::optional<json::Value> S = report::jsonSchemaOf(Of);
      if (!S) {
        WithColor::error(errs(), "llmsys")
            << "--json=" << Of
            << ": the JSON Schemas are of eval, validate, sweep, diff, "
               "require and trends\n";
        return ExitBadInput;
      }
      outs() << formatv("{0:2}", *S) << '\n';
    } else
      Schema::get().printMarkdown(outs());
    return 0;
  }
  if (ValidateCmd)
    return withOutput([&] { return runValidate(argv[0]); });
  if (InitLitCmd)
    return runInitLit();
  if (LspCmd)
    return runLsp(argv[0]);
  if (FmtCmd)
    return runFmt();
  if (DiffCmd)
    return withOutput([&] { return runDiff(argv[0]); });
  if (!EvalCmd && !CheckCmd && !ListCmd && !SweepCmd && !RequireCmd &&
      !TrendsCmd) {
    WithColor::error(errs(), "llmsys")
        << "no subcommand given; see 'llmsys --help'\n";
    return ExitBadInput;
  }
  CompileOptions Options = compileOptions(argv[0]);
  // `llmsys list` with no files lists the standard library: every
  // .llmsys file under it, in path order.
  if (ListCmd && Options.Files.empty() && !Options.StdlibDir.empty()) {
    std::error_code EC;
    for (sys::fs::recursive_directory_iterator I(Options.StdlibDir, EC), E;
         I != E && !EC; I.increment(EC))
      if (sys::path::extension(I->path()) == ".llmsys")
        Options.Files.push_back(I->path());
    llvm::sort(Options.Files);
  }
  // One unit per file named; the standard library listed as one.
  Units Us;
  if (Options.Files.size() <= 1 || (ListCmd && Inputs.empty())) {
    Us.push_back(std::make_unique<Compilation>(Options));
  } else {
    for (const std::string &F : Options.Files) {
      CompileOptions O = Options;
      O.Files = {F};
      Us.push_back(std::make_unique<Compilation>(O));
    }
  }
  if (EvalCmd)
    return withOutput([&] { return runEval(Us); });
  if (CheckCmd)
    return runCheck(Us);
  if (SweepCmd) {
    // Under mpirun or srun: the ranks share the grid; rank 0 reports.
    std::string MpiError;
    std::unique_ptr<sweep::Exchange> Ranks = joinMpiJob(MpiError);
    if (!MpiError.empty()) {
      WithColor::error(errs(), "llmsys") << MpiError << '\n';
      return ExitBadInput;
    }
    SweepRanks = Ranks.get();
    if (Ranks) {
      // Every rank must run the same sweeps, and rank 0 must be able to
      // write the report: any rank that cannot go on stops them all (a
      // rank left waiting for the others would hang the job).
      std::string Why;
      if (llvm::is_contained(Inputs, "-"))
        Why = "a spec read from standard input reaches rank 0 only; name "
              "the file under MPI";
      else if (Ranks->rank() == 0 && !OutputFile.empty()) {
        SmallString<256> Dir(sys::path::parent_path(OutputFile));
        if (Dir.empty())
          Dir = ".";
        if (sys::fs::access(Dir, sys::fs::AccessMode::Write))
          Why = "cannot write '" + OutputFile + "': its folder '" +
                std::string(Dir.str()) + "' is not writable";
      }
      std::vector<uint64_t> Ready = Ranks->allGather(Why.empty());
      if (!llvm::all_of(Ready, [](uint64_t R) { return R == 1; })) {
        if (Ranks->rank() == 0 && !Why.empty())
          WithColor::error(errs(), "llmsys") << Why << '\n';
        return ExitBadInput;
      }
    }
    if (Ranks && Ranks->rank() != 0) {
      silenceOutput();
      return runSweep(Us);
    }
    return withOutput([&] { return runSweep(Us); });
  }
  if (RequireCmd)
    return withOutput([&] { return runRequire(Us); });
  if (TrendsCmd)
    return withOutput([&] { return runTrends(Us); });
  return runList(Us);
}
