//===- llmsys-opt.cpp - print the compiler's intermediate forms -------------===//
//
//   llmsys-opt FILE --emit=ast    the syntax tree with locations
//   llmsys-opt FILE --emit=spec   the resolved spec: every field in base
//                                 units with where its value came from
//
// For lit tests of each stage (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "Sema/Compilation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace llmsys;

static cl::OptionCategory OptCat("llmsys-opt options");

enum class EmitKind { AST, Spec };
static cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to print"), cl::init(EmitKind::Spec),
    cl::values(clEnumValN(EmitKind::AST, "ast", "the syntax tree"),
               clEnumValN(EmitKind::Spec, "spec", "the resolved spec")),
    cl::cat(OptCat));
static cl::list<std::string> Inputs(cl::Positional, cl::desc("<file.llmsys>..."),
                                    cl::OneOrMore, cl::cat(OptCat));
static cl::list<std::string>
    IncludeDirs("I", cl::desc("Add <dir> to the search path of quoted imports"),
                cl::value_desc("dir"), cl::Prefix, cl::cat(OptCat));
static cl::opt<std::string> StdlibDir("stdlib",
                                      cl::desc("Directory of the standard library"),
                                      cl::value_desc("dir"), cl::cat(OptCat));
static cl::opt<bool> IncludeImported(
    "include-imported",
    cl::desc("With --emit=spec, print imported entities too"), cl::cat(OptCat));
static cl::opt<unsigned> ErrorLimit("error-limit",
                                    cl::desc("Stop printing errors after <n>"),
                                    cl::init(20), cl::cat(OptCat));

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions({&OptCat, &getColorCategory()});
  cl::ParseCommandLineOptions(argc, argv,
                              "llmsys-opt: prints the compiler's intermediate "
                              "forms\n");
  CompileOptions O;
  O.Files.assign(Inputs.begin(), Inputs.end());
  O.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  O.StdlibDir = StdlibDir.empty()
                    ? findStdlibDir(argv[0], reinterpret_cast<void *>(&main))
                    : StdlibDir.getValue();
  O.ErrorLimit = ErrorLimit;
  O.Colors = WithColor(errs()).colorsEnabled();
  Compilation C(O);

  bool Parsed = C.parse();
  if (Emit == EmitKind::AST) {
    for (const ast::File *F : C.TopLevel)
      ast::dumpAST(*F, C.SM, outs());
    return C.finish(errs());
  }
  if (!Parsed || !C.resolve())
    return C.finish(errs());
  spec::printSpec(C.Spec, C.SM, outs(), IncludeImported);
  return C.finish(errs());
}
