//===- PassManager.cpp - running passes in order ---------------------------===//

#include "Passes/Passes.h"
#include "Basic/Diagnostics.h"
#include "Passes/PrefixCache.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include <array>

using namespace llvm;

namespace llmsys {
namespace passes {

using namespace ir;

// Each pass's contract. Fusion and recomputation rewrite the unsplit
// layers (recomputation reads what fusion keeps); partition splits them
// and sizes what they save per device; quantize sizes its casts from the
// per-device shapes; schedule counts the stages partition made and closes
// the program.
static constexpr unsigned AfterPartition = StateQuantized | StateScheduled;
static const PassInfo Registry[] = {
    {"expand-layers", "operators of one micro-batch or serving step",
     expandLayers, 0,
     StateExpanded | StateAdapted | StateFused | StateRecomputed |
         StatePartitioned | AfterPartition,
     StateExpanded},
    {"adapt", "fine-tuning: frozen weights, LoRA/QLoRA adapters (training)",
     adapt, StateExpanded,
     StateAdapted | StateFused | StateRecomputed | StatePartitioned |
         AfterPartition,
     StateAdapted},
    {"fuse", "FlashAttention and fused element-wise kernels", fuse,
     StateExpanded,
     StateFused | StateRecomputed | StatePartitioned | AfterPartition,
     StateFused},
    {"recompute", "activation recomputation (none, selective, ops, dots, full)",
     recompute, StateExpanded,
     StateRecomputed | StatePartitioned | AfterPartition, StateRecomputed},
    {"partition", "TP, SP, CP, PP, EP and DP/ZeRO with their collectives",
     partition, StateExpanded, StatePartitioned | AfterPartition,
     StatePartitioned},
    {"quantize", "a low-precision recipe's GEMM formats and casts (training)",
     quantize, StateExpanded | StatePartitioned, AfterPartition,
     StateQuantized},
    {"schedule", "pipeline schedule or serving step structure", schedule,
     StateExpanded | StatePartitioned, StateScheduled, StateScheduled},
};

ArrayRef<PassInfo> registry() { return Registry; }

ArrayRef<const PassInfo *> defaultPipeline() {
  static const auto All = [] {
    std::array<const PassInfo *, std::size(Registry)> Out;
    for (size_t I = 0; I < Out.size(); ++I)
      Out[I] = &Registry[I];
    return Out;
  }();
  return All;
}

const PassInfo *findPass(StringRef Name) {
  for (const PassInfo &P : Registry)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

StringRef producerOf(unsigned States) {
  unsigned First = States & -States;
  for (const PassInfo &P : Registry)
    if (P.Produces & First)
      return P.Name;
  llvm_unreachable("a state no pass produces");
}

std::string contractViolation(const PassInfo &Pass, unsigned State) {
  if (Pass.admits(State))
    return "";
  // Lowest bit first: the earliest pass of the pipeline that is missing
  // or that has already run.
  if (unsigned Missing = Pass.Requires & ~State)
    return ("pass '" + Pass.Name + "' needs '" + producerOf(Missing) +
            "' to run before it")
        .str();
  if (unsigned Done = Pass.Forbids & State) {
    StringRef By = producerOf(Done);
    if (By == Pass.Name)
      return ("pass '" + Pass.Name + "' has already run").str();
    return ("pass '" + Pass.Name + "' must run before '" + By + "'").str();
  }
  llvm_unreachable("a pass refused without a missing or a done state");
}

std::optional<OrderProblem> checkOrder(ArrayRef<const PassInfo *> Passes) {
  unsigned State = 0;
  for (size_t I = 0; I < Passes.size(); ++I) {
    std::string Why = contractViolation(*Passes[I], State);
    if (!Why.empty())
      return OrderProblem{I, std::move(Why)};
    State |= Passes[I]->Produces;
  }
  return std::nullopt;
}

size_t layoutFreePrefix() {
  static const size_t N = [] {
    size_t I = 0;
    while (I < std::size(Registry) &&
           !(Registry[I].Produces & StatePartitioned))
      ++I;
    return I;
  }();
  return N;
}

std::optional<ir::Program>
runPasses(const ir::ScenarioConfig &Scenario, ArrayRef<const PassInfo *> Passes,
          PassContext &Ctx,
          const std::function<void(const PassInfo &, const ir::Program &)>
              &AfterPass) {
  std::optional<ir::Program> P(std::in_place);
  P->Scenario = Scenario;
  P->Passes.reserve(Passes.size());
  if (!continuePasses(*P, Passes, Ctx, AfterPass))
    P.reset();
  return P;
}

/// What follows each pass: its name in the program, the verifier, the
/// caller's hook.
static void passDone(const PassInfo *Pass, ir::Program &P, PassContext &Ctx,
                     const std::function<void(const PassInfo &,
                                              const ir::Program &)> &AfterPass) {
  P.Passes.push_back(Pass->Name.str());
  P.State |= Pass->Produces;
  // The verifier runs after every pass (assertions are on in every build
  // we ship, see docs/building.md).
  if (Ctx.Verify) {
    std::string Problem = ir::verifyProgram(P);
    if (!Problem.empty())
      report_fatal_error(Twine("program invalid after ") + Pass->Name + ": " +
                         Problem);
  }
  if (AfterPass)
    AfterPass(*Pass, P);
}

bool continuePasses(ir::Program &P, ArrayRef<const PassInfo *> Passes,
                    PassContext &Ctx,
                    const std::function<void(const PassInfo &,
                                             const ir::Program &)> &AfterPass) {
  for (const PassInfo *Pass : Passes) {
    if (!Pass->admits(P.State))
      report_fatal_error(Twine(contractViolation(*Pass, P.State)) +
                         " (checkOrder the pass list first)");
    if (!Pass->Run(P, Ctx))
      return false;
    passDone(Pass, P, Ctx, AfterPass);
  }
  return true;
}

bool runDefaultPipeline(const ir::ScenarioConfig &Scenario, PassContext &Ctx,
                        ir::Program &P) {
  const size_t PrefixPasses = layoutFreePrefix();
  // Most points of a mapping sweep are layouts partition rejects: it needs
  // no operators, nor the scenario in the program, to say so; quietly, the
  // answer is all there is (a context with diagnostics reports below).
  const bool Rejected = Ctx.Prefix && !layoutAccepted(Scenario);
  if (Rejected && !Ctx.Diags) {
    Ctx.Lists.recycleBlocks(P);
    P.Stages.clear();
    P.Passes.clear();
    P.State = 0;
    P.Draft.reset();
    P.Verify.reset();
    P.PipelineMicro.reset();
    return false;
  }
  P.Scenario = Scenario;
  // What an earlier program left (its blocks are cleared below unless the
  // cache restores them: their operator storage is rewritten in place).
  P.MicroBatch = 1;
  P.SeqLen = 0;
  P.Stages.clear();
  P.Schedule = {};
  P.Passes.clear();
  P.State = 0;
  P.Draft.reset();
  P.Verify.reset();
  P.PipelineMicro.reset();
  ArrayRef<const PassInfo *> Passes = defaultPipeline();
  P.Passes.reserve(Passes.size());
  bool Ok;
  if (!Ctx.Prefix) {
    Ctx.Lists.recycleBlocks(P);
    Ok = continuePasses(P, Passes, Ctx);
  } else if (Rejected) {
    Ctx.Lists.recycleBlocks(P);
    // (Reported as partition reports it.)
    Ok = partition(P, Ctx);
    assert(!Ok && "partition accepted a layout its checks reject");
  } else if (const std::vector<ir::Block> *Ops =
                 Ctx.Prefix->restore(Ctx.PrefixKey, P)) {
    // Partition reads the cached operators; the passes after it run as
    // usual.
    Ok = partitionFrom(P, *Ops, Ctx);
    if (Ok) {
      passDone(Passes[PrefixPasses], P, Ctx, nullptr);
      Ok = continuePasses(P, Passes.drop_front(PrefixPasses + 1), Ctx);
    }
  } else {
    Ctx.Lists.recycleBlocks(P);
    Ok = continuePasses(P, Passes.take_front(PrefixPasses), Ctx);
    if (Ok) {
      Ctx.Prefix->keep(Ctx.PrefixKey, P);
      Ok = continuePasses(P, Passes.drop_front(PrefixPasses), Ctx);
    }
  }
  return Ok;
}

} // namespace passes
} // namespace llmsys
