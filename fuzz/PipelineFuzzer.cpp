//===- PipelineFuzzer.cpp - libFuzzer target: the whole pipeline ----------===//
//
// A spec that resolves is costed as `llmsys eval` and `llmsys sweep` would:
// every scenario through the passes and the cost (with the verifier and
// the last check on figures) and into every report (text, JSON, Markdown,
// the three figures), and each sweep of at most 64 points. Every
// figure that comes out is finite and not negative, or the run is a
// finding. Traffic is simulated for at most 256 requests (and a sweep over
// traffic not at all): a study's 2,000 requests at a few dozen rates take
// minutes under the sanitizers, which is time, not a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "Driver/Evaluate.h"
#include "IR/Figures.h"
#include "Report/Report.h"
#include "Report/Svg.h"
#include "Sweep/Sweep.h"

#include <cmath>
#include <cstdlib>

using namespace llmsys;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::unique_ptr<Compilation> C = compileFuzzInput(Data, Size);
  if (!C->run()) {
    C->finish(llvm::nulls());
    return 0;
  }
  auto Slow = [](const ir::ScenarioConfig &S, int64_t Requests) {
    return S.Traffic.Enabled && S.Traffic.Requests > Requests;
  };
  for (const spec::Object *S : C->Spec.Scenarios) {
    passes::PassContext Ctx;
    Ctx.Diags = &C->Diags;
    ir::ScenarioConfig Config = ir::scenarioFromSpec(*S);
    if (Slow(Config, 256))
      continue;
    std::optional<driver::Evaluation> E = driver::evaluate(Config, Ctx);
    if (!E)
      continue;
    // evaluate() checked them; a figure that slips past is a finding.
    for (const ir::FigureInfo &F : ir::figures())
      if (F.Training == Config.Training)
        if (std::optional<double> V = E->figure(F.Id))
          if (!std::isfinite(*V) || *V < 0)
            std::abort();
    llvm::json::Value J = E->Training
                              ? report::trainingJson(E->Program, E->Train)
                              : report::servingJson(E->Program, E->Serve);
    if (E->Training)
      report::printTrainingText(E->Program, E->Train, llvm::nulls(), 5);
    else
      report::printServingText(E->Program, E->Serve, llvm::nulls(), 5);
    report::printMarkdown(J, llvm::nulls());
    (void)report::plotRoofline(E->Program, J);
    (void)report::plotTime(J);
    (void)report::plotMemory(J);
  }
  for (const spec::Sweep &W : C->Spec.Sweeps) {
    if (W.points() > 64 || Slow(ir::scenarioFromSpec(*W.Scenario), 0))
      continue;
    sweep::Options O;
    O.Threads = 1;
    sweep::Result R = sweep::run(W, O);
    for (const sweep::Point &P : R.Kept)
      for (double V : P.Figures)
        // (NaN stands for a figure the point lacks.)
        if (!std::isnan(V) && (std::isinf(V) || V < 0))
          std::abort();
  }
  C->finish(llvm::nulls());
  return 0;
}
