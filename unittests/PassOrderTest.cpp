//===- PassOrderTest.cpp - pass contracts --------------------------------===//

#include "Passes/Passes.h"

#include "gtest/gtest.h"

using namespace llmsys;
using namespace llmsys::passes;

namespace {

std::vector<const PassInfo *> passes(std::initializer_list<const char *> Names) {
  std::vector<const PassInfo *> Out;
  for (const char *N : Names)
    Out.push_back(findPass(N));
  return Out;
}

TEST(PassOrderTest, DefaultPipelineKeepsEveryContract) {
  std::vector<const PassInfo *> All;
  for (const PassInfo &P : registry())
    All.push_back(&P);
  EXPECT_FALSE(checkOrder(All).has_value());
  // What the cost model reads, the default pipeline produces.
  unsigned State = 0;
  for (const PassInfo *P : All)
    State |= P->Produces;
  EXPECT_EQ(State & CostRequires, CostRequires);
}

TEST(PassOrderTest, OptionalPassesMayBeLeftOut) {
  EXPECT_FALSE(checkOrder(passes({"expand-layers", "partition", "schedule"})));
  EXPECT_FALSE(checkOrder(passes({"expand-layers", "recompute", "partition"})));
}

TEST(PassOrderTest, BrokenOrdersNameThePassAtFault) {
  auto Alone = checkOrder(passes({"partition"}));
  ASSERT_TRUE(Alone);
  EXPECT_EQ(Alone->Index, 0u);
  EXPECT_EQ(Alone->Message, "pass 'partition' needs 'expand-layers' to run before it");

  auto Twice = checkOrder(passes({"expand-layers", "partition", "partition"}));
  ASSERT_TRUE(Twice);
  EXPECT_EQ(Twice->Index, 2u);
  EXPECT_EQ(Twice->Message, "pass 'partition' has already run");

  auto Late = checkOrder(passes({"expand-layers", "recompute", "fuse"}));
  ASSERT_TRUE(Late);
  EXPECT_EQ(Late->Index, 2u);
  EXPECT_EQ(Late->Message, "pass 'fuse' must run before 'recompute'");
}

TEST(PassOrderTest, SweepCachePrefixEndsBeforePartition) {
  size_t N = layoutFreePrefix();
  ASSERT_LT(N, registry().size());
  EXPECT_EQ(registry()[N].Name, "partition");
  for (size_t I = 0; I < N; ++I)
    EXPECT_EQ(registry()[I].Produces & ir::StatePartitioned, 0u);
}

} // namespace
