//===- ValueTest.cpp - spec::Value keeps text and elements aside ---------===//
//
// A value holds its text or list elements in a payload shared between copies
// (issue 21: every field of every object holds a value). Copies must still
// behave as values: changing one copy's elements leaves the other alone.

#include "IR/Spec.h"

#include <gtest/gtest.h>

using namespace llmsys;
using spec::Value;

TEST(ValueTest, SmallAndTextAside) {
  EXPECT_LE(sizeof(Value), 32u);
  Value W = Value::enumWord("switch");
  Value S = Value::string("a.csv");
  EXPECT_EQ(W.str(), "switch");
  EXPECT_EQ(S.str(), "a.csv");
  EXPECT_TRUE(Value::number(3).str().empty());
  EXPECT_TRUE(W.elems().empty());
  Value Copy = W;
  EXPECT_EQ(Copy.str(), "switch");
}

TEST(ValueTest, ElementsCopiedOnWrite) {
  Value L = Value::list({Value::number(1), Value::number(2)});
  Value Shared = L;
  L.elemsToChange()[0] = Value::number(7);
  L.elemsToChange().push_back(Value::number(9));
  ASSERT_EQ(L.elems().size(), 3u);
  EXPECT_EQ(L.elems()[0].Num, 7);
  ASSERT_EQ(Shared.elems().size(), 2u);
  EXPECT_EQ(Shared.elems()[0].Num, 1);
  Value Empty;
  Empty.Kind = spec::ValueKind::List;
  Empty.elemsToChange().push_back(Value::enumWord("gpipe"));
  EXPECT_EQ(Empty.elems()[0].str(), "gpipe");
}

TEST(ValueTest, FieldStaysSmall) {
  EXPECT_LE(sizeof(spec::Field), 88u);
}

namespace {
// One comparison for `expect`, `diff --fail-if` and sweeps: spelled as
// written, bounds inclusive where the operator says.
TEST(CompareTest, SpellingAndBounds) {
  using llmsys::spec::Compare;
  using llmsys::spec::compareHolds;
  EXPECT_EQ(spelling(Compare::Le), "<=");
  EXPECT_EQ(spelling(Compare::In), "in");
  EXPECT_TRUE(compareHolds(Compare::Le, 2, 2));
  EXPECT_FALSE(compareHolds(Compare::Lt, 2, 2));
  EXPECT_TRUE(compareHolds(Compare::Ge, 3, 2));
  EXPECT_TRUE(compareHolds(Compare::Ne, 3, 2));
  EXPECT_TRUE(compareHolds(Compare::In, 2, 2, 4));
  EXPECT_TRUE(compareHolds(Compare::In, 4, 2, 4));
  EXPECT_FALSE(compareHolds(Compare::In, 4.5, 2, 4));
}
} // namespace
