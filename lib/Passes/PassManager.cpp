//===- PassManager.cpp - running passes in order ---------------------------===//

#include "Passes/Passes.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace llmsys {
namespace passes {

static const PassInfo Registry[] = {
    {"expand-layers", "operators of one micro-batch or serving step",
     expandLayers},
    {"fuse", "FlashAttention and fused element-wise kernels", fuse},
    {"recompute", "activation recomputation (none, selective, full)",
     recompute},
    {"partition", "TP, SP, CP, PP, EP and DP/ZeRO with their collectives",
     partition},
    {"schedule", "pipeline schedule or serving step structure", schedule},
};

ArrayRef<PassInfo> registry() { return Registry; }

const PassInfo *findPass(StringRef Name) {
  for (const PassInfo &P : Registry)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

std::optional<ir::Program>
runPasses(const ir::ScenarioConfig &Scenario, ArrayRef<const PassInfo *> Passes,
          PassContext &Ctx,
          const std::function<void(const PassInfo &, const ir::Program &)>
              &AfterPass) {
  ir::Program P;
  P.Scenario = Scenario;
  for (const PassInfo *Pass : Passes) {
    if (!Pass->Run(P, Ctx))
      return std::nullopt;
    P.Passes.push_back(Pass->Name.str());
    // The verifier runs after every pass (assertions are on in every
    // build we ship, see docs/building.md).
    if (Ctx.Verify) {
      std::string Problem = ir::verifyProgram(P);
      if (!Problem.empty())
        report_fatal_error(Twine("program invalid after ") + Pass->Name +
                           ": " + Problem);
    }
    if (AfterPass)
      AfterPass(*Pass, P);
  }
  return P;
}

std::optional<ir::Program> buildProgram(const ir::ScenarioConfig &Scenario,
                                        PassContext &Ctx) {
  std::vector<const PassInfo *> All;
  for (const PassInfo &P : Registry)
    All.push_back(&P);
  std::optional<ir::Program> P = runPasses(Scenario, All, Ctx);
  const ir::SpeculativeConfig &Spec = Scenario.Speculative;
  if (!P || Scenario.Training || !Spec.Enabled)
    return P;
  // Speculative decoding: the draft runs on the same devices with the same
  // mapping; the verification is the target's decode of k + 1 tokens per
  // sequence (the costs read its per-context bytes per sequence).
  ir::ScenarioConfig Draft = Scenario;
  Draft.Model = Spec.Draft;
  Draft.Speculative = {};
  ir::ScenarioConfig Verify = Scenario;
  Verify.Speculative = {};
  Verify.Batch = Scenario.Batch * (Spec.K + 1);
  std::optional<ir::Program> D = runPasses(Draft, All, Ctx);
  std::optional<ir::Program> V = D ? runPasses(Verify, All, Ctx) : std::nullopt;
  if (!D || !V)
    return std::nullopt;
  P->Draft = std::make_shared<const ir::Program>(std::move(*D));
  P->Verify = std::make_shared<const ir::Program>(std::move(*V));
  return P;
}

} // namespace passes
} // namespace llmsys
