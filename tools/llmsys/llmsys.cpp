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
//
// The tool is thin: the libraries do the work (docs/cli.md); each
// subcommand is a file of this folder.
//
//===----------------------------------------------------------------------===//

#include "Basic/Suggest.h"
#include "Driver.h"
#include "IR/Schema.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace llmsys;
using namespace llmsys::driver;

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions({&LLMSysCat, &getColorCategory()});
  for (cl::SubCommand *Sub : {&EvalCmd, &CheckCmd, &ListCmd, &ValidateCmd,
                              &SweepCmd, &RequireCmd, &DiffCmd, &SchemaCmd})
    cl::HideUnrelatedOptions({&LLMSysCat, &getColorCategory()}, *Sub);
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
      "  llmsys schema          entity kinds and fields (Markdown)\n\n"
      "Entity kinds (fields: llmsys schema):\n";
  for (const StructSpec *K : Schema::get().entities())
    Overview += "  " + K->Name +
                std::string(14 - std::min<size_t>(13, K->Name.size()), ' ') +
                K->Doc + "\n";
  // A first word that is no subcommand: say which one it was likely meant
  // to be (the option parser would call it an unknown argument).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> Names;
    for (cl::SubCommand *S : cl::getRegisteredSubcommands())
      if (!S->getName().empty())
        Names.push_back(S->getName().str());
    if (!llvm::is_contained(Names, StringRef(argv[1]))) {
      std::string Hint = didYouMean(argv[1], Names);
      WithColor::error(errs(), "llmsys")
          << "unknown subcommand '" << argv[1] << "'"
          << (Hint.empty() ? "; see 'llmsys --help'" : Hint) << '\n';
      return 1;
    }
  }
  cl::ParseCommandLineOptions(argc, argv, Overview);

  if (SchemaCmd) {
    Schema::get().printMarkdown(outs());
    return 0;
  }
  if (ValidateCmd)
    return withOutput([&] { return runValidate(argv[0]); });
  if (DiffCmd)
    return withOutput([&] { return runDiff(argv[0]); });
  if (!EvalCmd && !CheckCmd && !ListCmd && !SweepCmd && !RequireCmd) {
    WithColor::error(errs(), "llmsys")
        << "no subcommand given; see 'llmsys --help'\n";
    return 1;
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
  Compilation C(Options);
  if (EvalCmd)
    return withOutput([&] { return runEval(C); });
  if (CheckCmd)
    return runCheck(C);
  if (SweepCmd)
    return withOutput([&] { return runSweep(C); });
  if (RequireCmd)
    return withOutput([&] { return runRequire(C); });
  return runList(C);
}
