//===- llmsys-opt.cpp - print the compiler's intermediate forms -------------===//
//
//   llmsys-opt FILE --emit=ast    the syntax tree with locations
//   llmsys-opt FILE --emit=spec   the resolved spec: every field in base
//                                 units with where its value came from
//
// For lit tests of each stage (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "IR/Model.h"
#include "Sema/Compilation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace llvm;
using namespace llmsys;

static cl::OptionCategory OptCat("llmsys-opt options");

enum class EmitKind { AST, Spec, Params };
static cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to print"), cl::init(EmitKind::Spec),
    cl::values(clEnumValN(EmitKind::AST, "ast", "the syntax tree"),
               clEnumValN(EmitKind::Spec, "spec", "the resolved spec"),
               clEnumValN(EmitKind::Params, "params",
                          "parameter counts of the models")),
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

/// "1.7460e+11 (reference 1.75e+11: -0.23%, within 0.50%)"
static std::string withReference(double Computed, std::optional<double> Ref) {
  std::string S = fmt::format("{:.5g}", Computed);
  if (!Ref)
    return S;
  ir::ReferenceCheck R = ir::checkReference(Computed, *Ref);
  return S + fmt::format(" (reference {:.5g}: {:+.2f}%, {} {:.2f}%)", *Ref,
                         100 * R.RelativeError,
                         R.Within ? "within" : "OUTSIDE", 100 * R.Tolerance);
}

static void printParams(const ir::ModelConfig &M, raw_ostream &OS) {
  ir::ParamCount P = ir::countParams(M);
  OS << "model " << M.Name << ": " << M.Layers << " layers, hidden "
     << M.Hidden << ", heads " << M.Heads << "/" << M.KvHeads << " ("
     << ir::attentionName(M.attention()) << "), ffn " << M.Ffn;
  if (M.Moe)
    OS << ", moe " << M.Moe->Experts << "x" << M.Moe->ExpertFfn << " top-"
       << M.Moe->TopK;
  OS << "\n";
  OS << "  params total  " << withReference(P.Total, M.ReferenceParams)
     << "\n";
  OS << "  params active "
     << withReference(P.Active, M.ReferenceActiveParams ? M.ReferenceActiveParams
                                                        : (M.Moe ? std::nullopt
                                                                 : M.ReferenceParams))
     << "\n";
  OS << fmt::format("  embedding {:.5g}, positions {:.5g}, lm head {:.5g}, "
                    "final norm {:.5g}\n",
                    P.Embedding, P.Positions, P.LMHead, P.FinalNorm);
  OS << fmt::format("  per layer: attention {:.5g}, norms {:.5g}, dense mlp "
                    "{:.5g}, moe {:.5g} (active {:.5g})\n",
                    P.AttentionPerLayer, P.NormsPerLayer, P.DenseMlpPerLayer,
                    P.MoePerLayer, P.MoeActivePerLayer);
}

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
  if (Emit == EmitKind::Params) {
    for (const spec::Object *O : C.Spec.Entities)
      if (O->Type->Name == "model" &&
          (IncludeImported || C.Spec.isTopLevel(*O)))
        printParams(ir::modelFromSpec(*O), outs());
    return C.finish(errs());
  }
  spec::printSpec(C.Spec, C.SM, outs(), IncludeImported);
  return C.finish(errs());
}
