//===- llmsys-opt.cpp - print the compiler's intermediate forms -------------===//
//
//   llmsys-opt FILE --emit=ast    the syntax tree with locations
//   llmsys-opt FILE --emit=spec   the resolved spec: every field in base
//                                 units with where its value came from
//
// For lit tests of each stage (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "IR/Model.h"
#include "Passes/Passes.h"
#include "Sema/Compilation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace llvm;
using namespace llmsys;

static cl::OptionCategory OptCat("llmsys-opt options");

enum class EmitKind { AST, Spec, Params, Program, Costs, Memory };
static cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to print"), cl::init(EmitKind::Spec),
    cl::values(clEnumValN(EmitKind::AST, "ast", "the syntax tree"),
               clEnumValN(EmitKind::Spec, "spec", "the resolved spec"),
               clEnumValN(EmitKind::Params, "params",
                          "parameter counts of the models"),
               clEnumValN(EmitKind::Program, "program",
                          "the operator program of each scenario after the "
                          "passes"),
               clEnumValN(EmitKind::Costs, "costs",
                          "each operator's time on the scenario's hardware"),
               clEnumValN(EmitKind::Memory, "memory",
                          "training memory per device, term by term")),
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
static cl::list<std::string>
    PassList("passes",
             cl::desc("Passes to run, in order (default: expand-layers, "
                      "adapt, fuse, recompute, partition, quantize, "
                      "schedule)"),
             cl::CommaSeparated, cl::value_desc("pass,..."), cl::cat(OptCat));
static cl::opt<bool> PrintRepeats(
    "print-repeats",
    cl::desc("Print a repeated layer once per repetition, not once with a count"),
    cl::cat(OptCat));
static cl::opt<std::string> ScenarioName("scenario",
                                         cl::desc("Only the scenario <name>"),
                                         cl::value_desc("name"), cl::cat(OptCat));
static cl::opt<unsigned> ErrorLimit("error-limit",
                                    cl::desc("Stop printing errors after <n>"),
                                    cl::init(20), cl::cat(OptCat));

/// "1.7460e+11 (reference 1.75e+11: -0.23%, within 0.50%)"
static std::string withReference(double Computed, std::optional<double> Ref,
                                 std::optional<double> Tolerance) {
  std::string S = fmt::format("{:.5g}", Computed);
  if (!Ref)
    return S;
  ir::ReferenceCheck R = ir::checkReference(Computed, *Ref, Tolerance);
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
  OS << "  params total  "
     << withReference(P.Total, M.ReferenceParams, M.ReferenceTolerance)
     << "\n";
  OS << "  params active "
     << withReference(P.Active,
                      M.ReferenceActiveParams
                          ? M.ReferenceActiveParams
                          : (M.Moe ? std::nullopt : M.ReferenceParams),
                      M.ReferenceTolerance)
     << "\n";
  if (P.Mtp > 0)
    OS << fmt::format("  params mtp    {:.5g} ({} multi-token-prediction "
                      "module{}, in neither count)\n",
                      P.Mtp, M.MtpLayers, M.MtpLayers == 1 ? "" : "s");
  OS << fmt::format("  embedding {:.5g}, positions {:.5g}, lm head {:.5g}, "
                    "final norm {:.5g}\n",
                    P.Embedding, P.Positions, P.LMHead, P.FinalNorm);
  OS << fmt::format("  per layer: attention {:.5g}, norms {:.5g}, dense mlp "
                    "{:.5g}, moe {:.5g} (active {:.5g})\n",
                    P.AttentionPerLayer, P.NormsPerLayer, P.DenseMlpPerLayer,
                    P.MoePerLayer, P.MoeActivePerLayer);
}

/// Training memory of the stage that needs the most, in bytes and GiB.
static void printMemory(const ir::Program &P, raw_ostream &OS) {
  if (!P.Scenario.Training)
    return;
  cost::MemoryBreakdown M = cost::trainingMemory(P);
  auto Row = [&](StringRef Name, double Bytes) {
    OS << fmt::format("  {:<18} {:.6g} B = {:.6g} GiB\n", Name.str(), Bytes,
                      Bytes / 1073741824.0);
  };
  OS << "memory " << P.Scenario.Name << " (stage " << M.Stage << ", "
     << fmt::format("{:.6g}", M.InFlight) << " micro-batches in flight)\n";
  Row("weights", M.Weights);
  Row("gradients", M.Gradients);
  Row("optimizer", M.Optimizer);
  Row("params+grads+opt", M.Weights + M.Gradients + M.Optimizer);
  Row("layers' share", M.LayerStateShare * (M.Weights + M.Gradients + M.Optimizer));
  Row("activations", M.Activations);
  Row("layer activations", M.LayerActivations);
  Row("reserved", M.Reserved);
  Row("total", M.total());
}

/// One line per op: its time on the scenario's device (per execution), the
/// compute and memory terms, the achieved efficiency and the bound.
static void printCosts(const ir::Program &P, raw_ostream &OS) {
  const ir::SystemConfig &Sys = P.Scenario.System;
  OS << "costs " << P.Scenario.Name << " on " << Sys.Accelerator << '\n';
  for (const ir::Block &B : P.Blocks) {
    OS << "  block " << ir::blockKindName(B.Kind) << " x" << B.Repeat << '\n';
    for (const ir::Op &O : B.Ops) {
      if (O.isCollective()) {
        cost::CollectiveTime C = cost::collectiveTime(O, Sys);
        OS << fmt::format("    {:<10} {:<22} {} {} bytes {:.4g} time {:.4g} s "
                          "bandwidth {:.4g} B/s\n",
                          ir::phaseName(O.Ph).str(), O.name(),
                          ir::collectiveName(O.Collective).str(), C.Algorithm,
                          O.MessageBytes, C.Time, C.Bandwidth);
        continue;
      }
      if (O.fused())
        continue;
      cost::OpTime T = cost::opTime(O, Sys.Device);
      OS << fmt::format("    {:<10} {:<22} time {:.4g} s compute {:.4g} "
                        "memory {:.4g} efficiency {:.4g} {}\n",
                        ir::phaseName(O.Ph).str(), O.name(), T.Time, T.Compute,
                        T.Memory, T.Efficiency,
                        T.MemoryBound ? "memory-bound" : "compute-bound");
    }
  }
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // libLLVM already registers --print-after-all (for its own IR); llmsys-opt
  // adopts that option rather than registering a second one.
  cl::opt<bool> *PrintAfterAll = nullptr;
  {
    auto &Registered = cl::getRegisteredOptions();
    auto It = Registered.find("print-after-all");
    if (It != Registered.end()) {
      PrintAfterAll = static_cast<cl::opt<bool> *>(It->second);
      PrintAfterAll->addCategory(OptCat);
      PrintAfterAll->setDescription("Print the program after each pass");
    }
  }
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
  if (Emit == EmitKind::Program || Emit == EmitKind::Costs ||
      Emit == EmitKind::Memory) {
    std::vector<const passes::PassInfo *> Pipeline;
    if (PassList.empty())
      Pipeline.assign(passes::defaultPipeline().begin(),
                      passes::defaultPipeline().end());
    for (const std::string &Name : PassList) {
      const passes::PassInfo *P = passes::findPass(Name);
      if (!P) {
        WithColor::error(errs(), "llmsys-opt") << "unknown pass '" << Name
                                               << "'\n";
        return 1;
      }
      Pipeline.push_back(P);
    }
    // The contracts: an order they break is refused before any scenario,
    // the pass at fault marked in the list.
    std::optional<passes::OrderProblem> Bad = passes::checkOrder(Pipeline);
    unsigned Final = 0;
    for (const passes::PassInfo *P : Pipeline)
      Final |= P->Produces;
    // Each operator's time needs operators; the memory of a stage needs
    // the stages and the micro-batches in flight.
    unsigned Needs = Emit == EmitKind::Memory  ? passes::CostRequires
                     : Emit == EmitKind::Costs ? unsigned(ir::StateExpanded)
                                               : 0u;
    if (unsigned Missing = Needs & ~Final; !Bad && Missing)
      Bad = passes::OrderProblem{
          Pipeline.size(),
          (Twine("--emit=") + (Emit == EmitKind::Costs ? "costs" : "memory") +
           " needs '" + passes::producerOf(Missing) + "' to run before it")
              .str()};
    if (Bad) {
      std::string List = "--passes=";
      size_t At = List.size(), Len = 1;
      for (size_t I = 0; I < Pipeline.size(); ++I) {
        if (I)
          List += ",";
        if (I == Bad->Index) {
          At = List.size();
          Len = Pipeline[I]->Name.size();
        }
        List += Pipeline[I]->Name.str();
      }
      if (Bad->Index == Pipeline.size())
        At = List.size();
      WithColor::error(errs(), "llmsys-opt") << Bad->Message << "\n";
      errs() << "  " << List << "\n  " << std::string(At, ' ') << '^'
             << std::string(Len - 1, '~') << "\n";
      return 1;
    }
    passes::PassContext Ctx;
    Ctx.Diags = &C.Diags;
    bool Failed = false;
    for (const spec::Object *S : C.Spec.Scenarios) {
      if (!ScenarioName.empty() && S->Name != ScenarioName)
        continue;
      auto After = [&](const passes::PassInfo &P, const ir::Program &Prog) {
        if (!PrintAfterAll || !*PrintAfterAll)
          return;
        outs() << "// after " << P.Name << "\n";
        ir::printProgram(Prog, outs(), PrintRepeats);
      };
      std::optional<ir::Program> Prog = passes::runPasses(
          ir::scenarioFromSpec(*S), Pipeline, Ctx, After);
      if (!Prog) {
        Failed = true;
        continue;
      }
      if (Emit == EmitKind::Costs)
        printCosts(*Prog, outs());
      else if (Emit == EmitKind::Memory)
        printMemory(*Prog, outs());
      else if (!PrintAfterAll || !*PrintAfterAll)
        ir::printProgram(*Prog, outs(), PrintRepeats);
    }
    int Status = C.finish(errs());
    return Failed ? 1 : Status;
  }
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
