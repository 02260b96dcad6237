//===- StageTest.cpp - runs of stages holding the same blocks ------------===//
//
// markRepeatedStages marks a stage that holds its predecessor's blocks
// (what the memory, the fullest stage and the serving stage times work out
// once a run), and the verifier rejects a stage marked wrongly.
//
//===----------------------------------------------------------------------===//

#include "IR/Program.h"

#include "gtest/gtest.h"

using namespace llmsys;
using namespace llmsys::ir;

namespace {

Stage stage(int64_t Dense, int64_t Moe, bool Embedding = false,
            bool Head = false) {
  Stage St;
  St.DenseLayers = Dense;
  St.MoELayers = Moe;
  St.HasEmbedding = Embedding;
  St.HasHead = Head;
  return St;
}

TEST(StageTest, MarksTheStagesThatHoldTheBlocksBefore) {
  std::vector<Stage> Stages = {
      stage(2, 0, /*Embedding=*/true), stage(2, 0), stage(2, 0),
      stage(1, 1),                     stage(1, 1), stage(1, 1, false, true)};
  // Interleaved chunks: the same MoE layers in other chunks differ.
  Stages[4].MoEChunks = {1, 0};
  Stages[3].MoEChunks = {0, 1};
  markRepeatedStages(Stages);
  std::vector<bool> Marked;
  for (const Stage &St : Stages)
    Marked.push_back(St.RepeatsPrevious);
  EXPECT_EQ(Marked, (std::vector<bool>{false, false, true, false, false,
                                       false}));
  // A stage after one of the same blocks, chunks included.
  Stages.insert(Stages.begin() + 5, Stages[4]);
  markRepeatedStages(Stages);
  EXPECT_TRUE(Stages[5].RepeatsPrevious);
  EXPECT_FALSE(Stages[6].RepeatsPrevious);
}

TEST(StageTest, VerifierRejectsAStageMarkedWrongly) {
  Program P;
  P.Scenario.Model.Layers = 6;
  P.State = StatePartitioned;
  P.Stages = {stage(2, 0, true), stage(2, 0), stage(2, 0, false, true)};
  markRepeatedStages(P.Stages);
  EXPECT_EQ(verifyProgram(P), "");
  // Unmarked is safe (what repeats is worked out again).
  P.Stages[1].RepeatsPrevious = false;
  EXPECT_EQ(verifyProgram(P), "");
  P.Stages[2].RepeatsPrevious = true;
  EXPECT_EQ(verifyProgram(P), "stage 2 marked as holding the blocks of the "
                              "stage before, which it does not");
  P.Stages[2].RepeatsPrevious = false;
  P.Stages[0].RepeatsPrevious = true;
  EXPECT_EQ(verifyProgram(P), "stage 0 marked as holding the blocks of the "
                              "stage before, which it does not");
}

} // namespace
