//===- FigureCheckTest.cpp - the last check before figures are shown -------===//
//
// No input known today reaches err_figure_out_of_model (each one found became
// a limit on a field, docs/language.md "Limits"), so the check is tested
// here on reports made by hand.
//
//===----------------------------------------------------------------------===//

#include "Driver/Evaluate.h"

#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace llmsys;

namespace {

struct Checked {
  bool Ok;
  unsigned Errors;
};

Checked check(const driver::Evaluation &E) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  passes::PassContext Ctx;
  Ctx.Diags = &Diags;
  ir::ScenarioConfig S;
  S.Name = "t";
  S.Training = E.Training;
  bool Ok = driver::checkFigures(S, E, Ctx);
  return {Ok, Diags.getNumErrors()};
}

driver::Evaluation training() {
  driver::Evaluation E;
  E.Training = true;
  E.Train.Devices = 8;
  E.Train.StepTime = 2.0;
  E.Train.TokensPerSecond = 1e6;
  return E;
}

TEST(FigureCheckTest, FiniteNonNegativeFiguresPass) {
  Checked C = check(training());
  EXPECT_TRUE(C.Ok);
  EXPECT_EQ(C.Errors, 0u);
}

TEST(FigureCheckTest, NaNInfinityAndNegativeAreErrors) {
  for (double Bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity(), -1.0}) {
    driver::Evaluation E = training();
    E.Train.StepTime = Bad;
    Checked C = check(E);
    EXPECT_FALSE(C.Ok) << Bad;
    EXPECT_EQ(C.Errors, 1u) << Bad;
  }
  driver::Evaluation E = training();
  E.Train.TokensPerSecond = -5;
  EXPECT_FALSE(check(E).Ok);
}

TEST(FigureCheckTest, ServingFiguresToo) {
  driver::Evaluation E;
  E.Training = false;
  E.Serve.Ttft = 0.1;
  E.Serve.Throughput = 100;
  EXPECT_TRUE(check(E).Ok);
  E.Serve.MaxBatch = -1;
  EXPECT_FALSE(check(E).Ok);
  // A training figure's value is not looked at in a serving evaluation.
  E.Serve.MaxBatch = 4;
  E.Train.StepTime = -1;
  EXPECT_TRUE(check(E).Ok);
}

} // namespace
