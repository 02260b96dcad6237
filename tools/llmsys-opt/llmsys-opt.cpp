//===- llmsys-opt.cpp - print the compiler's intermediate forms -------------===//
//
//   llmsys-opt FILE --emit=ast    the syntax tree with locations
//   llmsys-opt FILE --emit=spec   the resolved spec: every field in base
//                                 units with where its value came from
//   llmsys-opt FILE --emit=ir     the program as text that reads back
//   llmsys-opt F.ir --passes=...  chosen passes on a program read back
//
// For lit tests of each stage (docs/cli.md, docs/passes.md).
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "IR/Model.h"
#include "IR/ProgramText.h"
#include "Passes/Passes.h"
#include "Sema/Compilation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace llvm;
using namespace llmsys;

static cl::OptionCategory OptCat("llmsys-opt options");

enum class EmitKind { AST, Spec, Params, Program, IR, Costs, Memory };
static cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to print"), cl::init(EmitKind::Spec),
    cl::values(clEnumValN(EmitKind::AST, "ast", "the syntax tree"),
               clEnumValN(EmitKind::Spec, "spec", "the resolved spec"),
               clEnumValN(EmitKind::Params, "params",
                          "parameter counts of the models"),
               clEnumValN(EmitKind::Program, "program",
                          "the operator program of each scenario after the "
                          "passes"),
               clEnumValN(EmitKind::IR, "ir",
                          "the same as text that llmsys-opt reads back "
                          "(a .ir input)"),
               clEnumValN(EmitKind::Costs, "costs",
                          "each operator's time on the scenario's hardware"),
               clEnumValN(EmitKind::Memory, "memory",
                          "training memory per device, term by term")),
    cl::cat(OptCat));
static cl::list<std::string> Inputs(cl::Positional,
                                    cl::desc("<file.llmsys>... | <file.ir>"),
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
static cl::opt<bool> VerifyText(
    "verify-ir-roundtrip",
    cl::desc("After each pass, write the program as IR text, read it back "
             "and check that it writes the same text and (a program without "
             "sub-programs) costs the same; prints one line per scenario"),
    cl::cat(OptCat));
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
        cost::CollectiveTime C =
            P.Scenario.Training
                ? cost::trainingCollectiveTime(P, O)
                : cost::servingCollectiveTime(O, Sys, P.Scenario.Mapping);
        OS << fmt::format("    {:<10} {:<22} {} {} bytes {:.4g} time {:.4g} s "
                          "bandwidth {:.4g} B/s",
                          ir::phaseName(O.Ph).str(), O.name(),
                          ir::collectiveName(O.Collective).str(), C.Algorithm,
                          O.MessageBytes, C.Time, C.Bandwidth);
        // (A data-parallel collective issued per gradient bucket.)
        if (C.Calls > 1)
          OS << fmt::format(" calls {:.0f}", C.Calls);
        OS << '\n';
        continue;
      }
      if (O.fused())
        continue;
      cost::OpTime T =
          cost::mappedOpTime(O, Sys.Device, P.Scenario.Mapping);
      OS << fmt::format("    {:<10} {:<22} time {:.4g} s compute {:.4g} "
                        "memory {:.4g} efficiency {:.4g} {}\n",
                        ir::phaseName(O.Ph).str(), O.name(), T.Time, T.Compute,
                        T.Memory, T.Efficiency,
                        T.MemoryBound ? "memory-bound" : "compute-bound");
    }
  }
}

/// The passes --passes names (the default pipeline when it names none
/// and Default is set); nullopt after an unknown name.
static std::optional<std::vector<const passes::PassInfo *>>
pipelineFromOptions(bool Default) {
  std::vector<const passes::PassInfo *> Pipeline;
  if (PassList.empty() && Default)
    Pipeline.assign(passes::defaultPipeline().begin(),
                    passes::defaultPipeline().end());
  for (const std::string &Name : PassList) {
    const passes::PassInfo *P = passes::findPass(Name);
    if (!P) {
      WithColor::error(errs(), "llmsys-opt") << "unknown pass '" << Name
                                             << "'\n";
      return std::nullopt;
    }
    Pipeline.push_back(P);
  }
  return Pipeline;
}

/// The passes' contracts, from a program in State: an order they break is
/// refused, the pass at fault marked in the list. False after reporting.
static bool checkPipeline(ArrayRef<const passes::PassInfo *> Pipeline,
                          unsigned State, const std::string &StateWhat) {
  std::optional<passes::OrderProblem> Bad;
  if (!State)
    Bad = passes::checkOrder(Pipeline);
  unsigned Final = State;
  for (size_t I = 0; I < Pipeline.size(); ++I) {
    if (State && !Bad)
      if (std::string Why = passes::contractViolation(*Pipeline[I], Final);
          !Why.empty())
        Bad = passes::OrderProblem{
            I, (Twine(Why) + " (" + StateWhat + ")").str()};
    Final |= Pipeline[I]->Produces;
  }
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
  if (!Bad)
    return true;
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
  return false;
}

/// Prints a program in the form --emit asks for; SpecPath is what the IR
/// text names as its spec.
static void emitProgram(const ir::Program &Prog, StringRef SpecPath) {
  if (Emit == EmitKind::Costs)
    printCosts(Prog, outs());
  else if (Emit == EmitKind::Memory)
    printMemory(Prog, outs());
  else if (Emit == EmitKind::IR)
    ir::writeProgramText(Prog, SpecPath, outs());
  else
    ir::printProgram(Prog, outs(), PrintRepeats);
}

static bool printAfterAll(cl::opt<bool> *PrintAfterAll) {
  return PrintAfterAll && *PrintAfterAll;
}

/// The step time (training) or the throughput (serving) of a program the
/// cost model can read, for comparing two programs; NaN otherwise.
static double costOf(const ir::Program &P) {
  if ((P.State & passes::CostRequires) != passes::CostRequires || P.Draft ||
      P.Verify || P.PipelineMicro)
    return std::nan("");
  if (P.Scenario.Training)
    return cost::costTraining(P, /*Tables=*/false).StepTime;
  return cost::costServing(P, /*Tables=*/false).Throughput;
}

/// The human form of a program and its cost, to compare two programs.
static std::string summaryOf(const ir::Program &P) {
  std::string S;
  raw_string_ostream OS(S);
  ir::printProgram(P, OS, /*ExpandLayers=*/false);
  OS << "cost " << fmt::format("{}", costOf(P)) << '\n';
  return OS.str();
}

/// --verify-ir-roundtrip: P written as text, read back with its scenario
/// (into Back), written again; "" or what differs.
static std::string roundTripProblem(const ir::Program &P, StringRef SpecPath,
                                    ir::Program &Back) {
  std::string First, Second;
  {
    raw_string_ostream OS(First);
    ir::writeProgramText(P, SpecPath, OS);
  }
  SourceMgr SM;
  DiagnosticEngine Diags(SM);
  unsigned ID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(First, "<round trip>"), SMLoc());
  std::optional<ir::ProgramText> Text = ir::readProgramText(ID, Diags);
  if (!Text) {
    std::string Why;
    raw_string_ostream OS(Why);
    Diags.flush(OS);
    return "the text does not read back: " + OS.str();
  }
  Back = std::move(Text->Prog);
  Back.Scenario = P.Scenario;
  {
    raw_string_ostream OS(Second);
    ir::writeProgramText(Back, SpecPath, OS);
  }
  if (First != Second)
    return "the text read back writes differently";
  if (summaryOf(P) != summaryOf(Back))
    return "the program read back prints or costs differently";
  return "";
}

/// A program read back from its text (a .ir input): its spec compiled
/// again for the scenario, the passes --passes names (none by default)
/// run on it, the result printed.
static int runOnProgramText(StringRef Path, const CompileOptions &Base,
                            cl::opt<bool> *PrintAfterAll) {
  if (!Emit.getNumOccurrences())
    Emit = EmitKind::Program;
  if (Emit != EmitKind::Program && Emit != EmitKind::IR &&
      Emit != EmitKind::Costs && Emit != EmitKind::Memory) {
    WithColor::error(errs(), "llmsys-opt")
        << "a program read back (" << Path
        << ") prints as --emit=program, ir, costs or memory\n";
    return ExitBadInput;
  }
  SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Diags.setErrorLimit(Base.ErrorLimit);
  Diags.setShowColors(Base.Colors);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer) {
    WithColor::error(errs(), "llmsys-opt")
        << "cannot read '" << Path << "': " << Buffer.getError().message()
        << "\n";
    return ExitBadInput;
  }
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Buffer), SMLoc());
  std::optional<ir::ProgramText> Text = ir::readProgramText(ID, Diags);
  if (!Text) {
    Diags.flush(errs());
    return ExitBadInput;
  }
  // The spec, relative to the IR file unless absolute.
  SmallString<256> Spec(Text->SpecPath);
  if (sys::path::is_relative(Spec)) {
    Spec = sys::path::parent_path(Path);
    sys::path::append(Spec, Text->SpecPath);
  }
  if (std::error_code EC = sys::fs::access(Spec, sys::fs::AccessMode::Exist)) {
    Diags.report<DiagID::err_ir_spec>(Text->SpecRange, Text->SpecPath,
                                      EC.message());
    Diags.flush(errs());
    return ExitBadInput;
  }
  CompileOptions O = Base;
  O.Files = {std::string(Spec)};
  Compilation C(O);
  if (!C.run())
    return C.finish(errs());
  const spec::Object *Scenario = nullptr;
  for (const spec::Object *S : C.Spec.Scenarios)
    if (S->Name == Text->ScenarioName)
      Scenario = S;
  if (!Scenario) {
    Diags.report<DiagID::err_ir_scenario>(Text->ScenarioRange,
                                          Text->ScenarioName, Text->SpecPath);
    Diags.flush(errs());
    return ExitBadInput;
  }
  ir::Program P = std::move(Text->Prog);
  P.Scenario = ir::scenarioFromSpec(*Scenario);
  // What the text says against what it holds (a block after
  // partition's stages, FLOPs that are not 2 M N K, ...).
  if (std::string Why = ir::verifyProgram(P); !Why.empty()) {
    Diags.report<DiagID::err_ir_verify>(Text->ProgramRange, Why);
    Diags.flush(errs());
    return ExitBadInput;
  }
  std::optional<std::vector<const passes::PassInfo *>> Pipeline =
      pipelineFromOptions(/*Default=*/false);
  if (!Pipeline ||
      !checkPipeline(*Pipeline, P.State,
                     "the program read is " + ir::stateWords(P.State)))
    return ExitBadInput;
  passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  auto After = [&](const passes::PassInfo &Pass, const ir::Program &Prog) {
    if (!printAfterAll(PrintAfterAll))
      return;
    outs() << "// after " << Pass.Name << "\n";
    emitProgram(Prog, Text->SpecPath);
  };
  if (!passes::continuePasses(P, *Pipeline, Ctx, After)) {
    int Status = C.finish(errs());
    return Status ? Status : ExitBadInput;
  }
  if (!printAfterAll(PrintAfterAll) || Pipeline->empty())
    emitProgram(P, Text->SpecPath);
  return C.finish(errs());
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
  if (Inputs.size() == 1 && sys::path::extension(Inputs.front()) == ".ir")
    return runOnProgramText(Inputs.front(), O, PrintAfterAll);
  Compilation C(O);

  bool Parsed = C.parse();
  if (Emit == EmitKind::AST) {
    for (const ast::File *F : C.TopLevel)
      ast::dumpAST(*F, C.SM, outs());
    return C.finish(errs());
  }
  if (!Parsed || !C.resolve())
    return C.finish(errs());
  if (VerifyText || Emit == EmitKind::Program || Emit == EmitKind::IR ||
      Emit == EmitKind::Costs || Emit == EmitKind::Memory) {
    std::optional<std::vector<const passes::PassInfo *>> Pipeline =
        pipelineFromOptions(/*Default=*/true);
    if (!Pipeline || !checkPipeline(*Pipeline, 0, ""))
      return 1;
    passes::PassContext Ctx;
    Ctx.Diags = &C.Diags;
    bool Failed = false;
    for (const spec::Object *S : C.Spec.Scenarios) {
      if (!ScenarioName.empty() && S->Name != ScenarioName)
        continue;
      // The IR names the file that declares the scenario (its imports
      // come with it when it is compiled again).
      StringRef SpecPath = Inputs.front();
      if (unsigned Buf = C.SM.FindBufferContainingLoc(S->DeclRange.Start))
        SpecPath = C.SM.getMemoryBuffer(Buf)->getBufferIdentifier();
      // --verify-ir-roundtrip: each pass's program read back, and the
      // passes after it, to run on it.
      std::string RoundTrip;
      std::vector<std::pair<ir::Program, ArrayRef<const passes::PassInfo *>>>
          ReadBack;
      size_t Done = 0;
      auto After = [&](const passes::PassInfo &P, const ir::Program &Prog) {
        ++Done;
        if (VerifyText && RoundTrip.empty()) {
          ir::Program Back;
          if (std::string Why = roundTripProblem(Prog, SpecPath, Back);
              !Why.empty())
            RoundTrip = ("after " + P.Name + ": " + Why).str();
          else
            ReadBack.emplace_back(std::move(Back),
                                  ArrayRef(*Pipeline).drop_front(Done));
        }
        if (!printAfterAll(PrintAfterAll))
          return;
        outs() << "// after " << P.Name << "\n";
        emitProgram(Prog, SpecPath);
      };
      std::optional<ir::Program> Prog = passes::runPasses(
          ir::scenarioFromSpec(*S), *Pipeline, Ctx, After);
      if (!Prog) {
        Failed = true;
        continue;
      }
      if (VerifyText) {
        // The passes after each read-back program give what they gave the
        // program itself.
        std::string Final = summaryOf(*Prog);
        for (auto &[Back, Rest] : ReadBack) {
          if (!RoundTrip.empty())
            break;
          Back.Draft = Prog->Draft;
          Back.Verify = Prog->Verify;
          Back.PipelineMicro = Prog->PipelineMicro;
          if (!passes::continuePasses(Back, Rest, Ctx) ||
              summaryOf(Back) != Final)
            RoundTrip = fmt::format(
                "the program read back before '{}' ends differently",
                Rest.empty() ? "" : Rest.front()->Name.str());
        }
        outs() << "round trip " << S->Name << ": "
               << (RoundTrip.empty() ? "ok" : RoundTrip) << '\n';
        Failed |= !RoundTrip.empty();
        continue;
      }
      if (!printAfterAll(PrintAfterAll) || Emit == EmitKind::Costs ||
          Emit == EmitKind::Memory)
        emitProgram(*Prog, SpecPath);
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
