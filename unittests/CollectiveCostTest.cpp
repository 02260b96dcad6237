//===- CollectiveCostTest.cpp - one collective's time --------------------===//
//
// The alpha-beta formulas of lib/Cost/CollectiveCost.cpp, by hand: the
// rings, the tree between nodes, a serving engine's one-shot all-reduce,
// NCCL's NVLS in a switch that reduces, and the bytes each form sends.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"

#include "gtest/gtest.h"

using namespace llmsys;
using namespace llmsys::ir;

namespace {

SystemConfig system(int64_t Devices, int64_t Nodes) {
  SystemConfig S;
  S.DevicesPerNode = Devices;
  S.Nodes = Nodes;
  S.ScaleUp = {"nvlink", 400e9, 1e-6, 0.75};
  S.ScaleOut = {"ib", 50e9, 5e-6, 0.8};
  return S;
}

Op collective(CollectiveKind K, int32_t Size, int32_t Level, int32_t PerNode,
              double Bytes) {
  Op O;
  O.Kind = OpKind::TpAllreduce;
  O.Category = OpCategory::Communication;
  O.Collective = K;
  O.Group = ParallelDim::TP;
  O.GroupSize = Size;
  O.FabricLevel = Level;
  O.GroupPerNode = PerNode;
  O.MessageBytes = Bytes;
  return O;
}

TEST(CollectiveCostTest, RingAllGatherInsideANode) {
  // (n - 1)/n S/B + (n - 1) a, B = 400 GB/s x 0.75.
  double S = 1e9, B = 400e9 * 0.75;
  cost::CollectiveTime T = cost::collectiveTime(
      collective(CollectiveKind::AllGather, 8, 0, 8, S), system(8, 1));
  EXPECT_DOUBLE_EQ(T.Time, 7.0 / 8 * S / B + 7 * 1e-6);
}

TEST(CollectiveCostTest, LargeAllReduceUsesTheRing) {
  // 2 (n - 1)/n S/B + 2 (n - 1) a beats the tree's 2 log2(n) a + 2 S/B.
  double S = 1e9, B = 400e9 * 0.75;
  cost::CollectiveTime T = cost::collectiveTime(
      collective(CollectiveKind::AllReduce, 8, 0, 8, S), system(8, 1));
  EXPECT_DOUBLE_EQ(T.Time, 2 * 7.0 / 8 * S / B + 2 * 7 * 1e-6);
}

TEST(CollectiveCostTest, SmallAllReduceInsideANodeIsStillTheRing) {
  // NCCL's tree runs between nodes: inside one node a training step's
  // small all-reduce pays the ring's 2 (n - 1) steps, not 2 log2(n).
  double S = 16384, B = 400e9 * 0.75;
  cost::CollectiveTime T = cost::collectiveTime(
      collective(CollectiveKind::AllReduce, 8, 0, 8, S), system(8, 1));
  EXPECT_STREQ(T.Algorithm, "ring");
  EXPECT_DOUBLE_EQ(T.Time, 2 * 7.0 / 8 * S / B + 2 * 7 * 1e-6);
}

TEST(CollectiveCostTest, ServingSmallAllReduceIsOneShot) {
  // A decode step's all-reduce on the switched fabric: 2 a + (n - 1) S/B.
  double S = 16384, B = 400e9 * 0.75;
  Op O = collective(CollectiveKind::AllReduce, 8, 0, 8, S);
  O.Ph = Phase::Decode;
  cost::CollectiveTime T = cost::collectiveTime(O, system(8, 1));
  EXPECT_STREQ(T.Algorithm, "one-shot");
  EXPECT_DOUBLE_EQ(T.Time, 2 * 1e-6 + 7 * S / B);
  // A large one reads n - 1 copies: the ring is faster.
  O.MessageBytes = 1e9;
  T = cost::collectiveTime(O, system(8, 1));
  EXPECT_STREQ(T.Algorithm, "ring");
}

TEST(CollectiveCostTest, SmallAllReduceAcrossNodesIsTheTree) {
  // 8 over 2 nodes, 4 a node: the tree's 2 (3 chain steps inside a node
  // at 1 us + log2(2) between the nodes at 5 us) + 2 S/B beats the ring's
  // 2 (6 steps at 1 us + 1 at 5 us) + 2 (7/8) S/B (NCCL's tuner).
  double S = 16384, B = std::min(400e9 * 0.75, 4 * 50e9 * 0.8);
  cost::CollectiveTime T = cost::collectiveTime(
      collective(CollectiveKind::AllReduce, 8, 1, 4, S), system(8, 2));
  EXPECT_STREQ(T.Algorithm, "tree");
  EXPECT_DOUBLE_EQ(T.Time, 2 * (3 * 1e-6 + 1 * 5e-6) + 2 * S / B);
  EXPECT_DOUBLE_EQ(T.Latency, 2 * (3 * 1e-6 + 1 * 5e-6));
}

TEST(CollectiveCostTest, OneMemberPerNodeCrossesOnItsOwnPort) {
  // A group of 4 over 4 nodes, one member each: the scale-out bandwidth
  // of one port and its latency.
  double S = 1e9, B = 50e9 * 0.8;
  cost::CollectiveTime T = cost::collectiveTime(
      collective(CollectiveKind::ReduceScatter, 4, 1, 1, S), system(8, 4));
  EXPECT_DOUBLE_EQ(T.Time, 3.0 / 4 * S / B + 3 * 5e-6);
}

TEST(CollectiveCostTest, NodePortsWorkInParallel) {
  // 4 members in each of 2 nodes: 4 ports in parallel, capped by NVLink.
  // Of the ring's 7 steps, 6 inside the nodes at NVLink's 1 us, 1 between
  // them at 5 us.
  double S = 1e9, B = std::min(400e9 * 0.75, 4 * 50e9 * 0.8);
  cost::CollectiveTime T = cost::collectiveTime(
      collective(CollectiveKind::AllGather, 8, 1, 4, S), system(8, 2));
  EXPECT_DOUBLE_EQ(T.Time, 7.0 / 8 * S / B + 6 * 1e-6 + 1 * 5e-6);
  EXPECT_DOUBLE_EQ(T.Latency, 6 * 1e-6 + 1 * 5e-6);
}

} // namespace

TEST(CollectiveCostTest, WireBytesFollowTheForm) {
  // The bytes a device sends, which the data movement's energy counts:
  // the ring's 2 (n - 1)/n S, the one-shot's (n - 1) S, nvls's
  // (n + 1)/n S, (n - 1)/n S for an all-gather or an all-to-all, a
  // send's S.
  double S = 16384;
  Op O = collective(CollectiveKind::AllReduce, 8, 0, 8, S);
  SystemConfig Sys = system(8, 1);
  EXPECT_DOUBLE_EQ(cost::collectiveTime(O, Sys).WireBytes, 2 * 7.0 / 8 * S);
  O.Ph = Phase::Decode;
  EXPECT_DOUBLE_EQ(cost::collectiveTime(O, Sys).WireBytes, 7 * S);
  // Past the engine's 8 MB, NCCL's; on a switch that reduces, nvls.
  Sys.ScaleUp.ReductionEfficiency = 0.7;
  Sys.ScaleUp.ReductionLatency = 20e-6;
  O.MessageBytes = 1e9;
  cost::CollectiveTime T = cost::collectiveTime(O, Sys);
  EXPECT_STREQ(T.Algorithm, "nvls");
  EXPECT_DOUBLE_EQ(T.Time, 20e-6 + 9.0 / 8 * 1e9 / (400e9 * 0.7));
  EXPECT_DOUBLE_EQ(T.WireBytes, 9.0 / 8 * 1e9);
  EXPECT_DOUBLE_EQ(
      cost::collectiveTime(collective(CollectiveKind::AllGather, 8, 0, 8, S),
                           Sys)
          .WireBytes,
      7.0 / 8 * S);
  EXPECT_DOUBLE_EQ(
      cost::collectiveTime(collective(CollectiveKind::SendRecv, 2, 0, 2, S),
                           Sys)
          .WireBytes,
      S);
}
