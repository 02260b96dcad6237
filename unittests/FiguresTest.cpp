//===- FiguresTest.cpp - the figure registry --------------------------------===//

#include "IR/Figures.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace llmsys::ir;

namespace {

TEST(FiguresTest, NamesAndKeysAreUniquePerScenarioKind) {
  for (bool Training : {true, false}) {
    std::set<std::string> Names, Keys;
    for (const FigureInfo &F : figures()) {
      if (F.Training != Training)
        continue;
      EXPECT_TRUE(Names.insert(F.Name.str()).second) << F.Name.str();
      EXPECT_TRUE(Keys.insert(F.Key.str()).second) << F.Key.str();
      // A key is its name, with the base unit after it when it has one.
      EXPECT_TRUE(F.Key.startswith(F.Name)) << F.Key.str();
    }
  }
}

TEST(FiguresTest, FoundByNameOrKeyInItsKindOnly) {
  const FigureInfo *ByName = findFigure(true, "step_time");
  const FigureInfo *ByKey = findFigure(true, "step_time_s");
  ASSERT_NE(ByName, nullptr);
  EXPECT_EQ(ByName, ByKey);
  EXPECT_EQ(ByName->Id, FigureID::StepTime);
  EXPECT_EQ(findFigure(false, "step_time"), nullptr);
  // Both kinds have a throughput: one name, one key, two figures.
  const FigureInfo *T = findFigure(true, "throughput");
  const FigureInfo *S = findFigure(false, "throughput");
  ASSERT_TRUE(T && S);
  EXPECT_NE(T->Id, S->Id);
  EXPECT_EQ(T->Key, S->Key);
  EXPECT_TRUE(T->HigherIsBetter && S->HigherIsBetter);
}

TEST(FiguresTest, TableOrderIsTheEnumOrder) {
  unsigned I = 0;
  for (const FigureInfo &F : figures())
    EXPECT_EQ(static_cast<unsigned>(F.Id), I++);
  EXPECT_EQ(I, NumFigures);
  EXPECT_EQ(&figureInfo(FigureID::Tpot), findFigure(false, "tpot_s"));
}

} // namespace
