//===- Evaluate.cpp - a scenario from spec to results --------------------------===//

#include "Cost/Evaluate.h"

#include <map>

using llvm::StringRef;

namespace llmsys {
namespace cost {

std::optional<Evaluation> evaluate(const ir::ScenarioConfig &S,
                                   passes::PassContext &Ctx,
                                   bool Detail) {
  // Built in place (one return object): programs and reports are large
  // enough that moving them costs in a sweep.
  std::optional<Evaluation> E(std::in_place);
  if (!evaluateInto(S, Ctx, *E, Detail))
    E.reset();
  return E;
}

bool evaluateInto(const ir::ScenarioConfig &S, passes::PassContext &Ctx,
                  Evaluation &E, bool Detail) {
  if (!passes::buildProgram(S, Ctx, E.Program))
    return false;
  E.Training = S.Training;
  if (S.Training) {
    costTraining(E.Program, Detail, E.Train);
    return true;
  }
  E.Serve = costServing(E.Program, Detail);
  if (S.Traffic.Enabled) {
    // The engine's steps priced by the scenario's decode step at other
    // batches (built once each, quietly: the scenario's own build has
    // diagnosed what would fail).
    BatchPrograms Programs(S, Ctx.Verify);
    if (!simulateTraffic(E.Program, Programs.callback(), E.Serve, Ctx.Diags))
      return false;
    setGoodput(E.Program, Programs.callback(), E.Serve);
  }
  if (!Detail)
    return true;
  // The decode crossover compares the decode step at batches 1 and 2.
  ir::ScenarioConfig One = S, Two = S;
  One.Batch = 1;
  Two.Batch = 2;
  passes::PassContext Quiet;
  std::optional<ir::Program> P1 = passes::buildProgram(One, Quiet);
  std::optional<ir::Program> P2 = passes::buildProgram(Two, Quiet);
  if (P1 && P2)
    setDecodeCrossover(E.Serve, *P1, *P2);
  return true;
}

const ir::Program *BatchPrograms::at(int64_t Batch) {
  std::optional<ir::Program> &P = Built[Batch];
  if (!P) {
    ir::ScenarioConfig At = S;
    At.Batch = Batch;
    P = passes::buildProgram(At, Quiet);
  }
  return P ? &*P : nullptr;
}

std::optional<double> Evaluation::figure(ir::FigureID F) const {
  return Training ? figureValue(Train, F) : figureValue(Serve, F);
}

std::optional<double> Evaluation::figure(StringRef Name) const {
  const ir::FigureInfo *F = ir::findFigure(Training, Name);
  return F ? figure(F->Id) : std::nullopt;
}

} // namespace cost
} // namespace llmsys
