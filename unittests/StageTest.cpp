//===- StageTest.cpp - runs of stages holding the same blocks -------------===//
//
// markRepeatedStages marks a stage that holds its predecessor's blocks
// (what the memory, the fullest stage, the stage times and the readable
// dump work out once a run), and the verifier rejects a stage marked
// otherwise than so.
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

std::vector<bool> marks(const std::vector<Stage> &Stages) {
  std::vector<bool> Marked;
  for (const Stage &St : Stages)
    Marked.push_back(St.RepeatsPrevious);
  return Marked;
}

TEST(StageTest, MarksTheStagesThatHoldTheBlocksBefore) {
  std::vector<Stage> Stages = {stage(2, 0, /*Embedding=*/true),
                               stage(2, 0),
                               stage(2, 0),
                               stage(1, 1),
                               stage(1, 1),
                               stage(1, 1, /*Embedding=*/false, /*Head=*/true)};
  // Interleaved chunks: the same MoE layers in other chunks differ.
  Stages[3].MoEChunks = {0, 1};
  Stages[4].MoEChunks = {1, 0};
  markRepeatedStages(Stages);
  EXPECT_EQ(marks(Stages),
            (std::vector<bool>{false, false, true, false, false, false}));
  // A stage after one of the same blocks, chunks included.
  Stage Same = Stages[4];
  Stages.insert(Stages.begin() + 5, Same);
  markRepeatedStages(Stages);
  EXPECT_EQ(marks(Stages),
            (std::vector<bool>{false, false, true, false, false, true, false}));
}

TEST(StageTest, VerifierRejectsAStageMarkedOtherwise) {
  Program P;
  P.Scenario.Model.Layers = 6;
  P.State = StatePartitioned;
  P.Stages = {stage(2, 0, /*Embedding=*/true), stage(2, 0), stage(2, 0),
              stage(0, 0, /*Embedding=*/false, /*Head=*/true)};
  // Stage 2 holds stage 1's blocks, unmarked.
  EXPECT_EQ(verifyProgram(P), "stage 2 holds the blocks of the stage before "
                              "but is not marked so");
  markRepeatedStages(P.Stages);
  EXPECT_EQ(verifyProgram(P), "");
  P.Stages[3].RepeatsPrevious = true;
  EXPECT_EQ(verifyProgram(P), "stage 3 does not hold the blocks of the stage "
                              "before but is marked so");
  P.Stages[3].RepeatsPrevious = false;
  P.Stages[0].RepeatsPrevious = true;
  EXPECT_EQ(verifyProgram(P), "stage 0 does not hold the blocks of the stage "
                              "before but is marked so");
}

} // namespace
