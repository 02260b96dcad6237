//===- OpCostTest.cpp - one operator's roofline time ------------------------===//
//
// Expected values derived by hand from the formulas in lib/Cost/OpCost.cpp
// and docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "Passes/OpBuilder.h"

#include "gtest/gtest.h"

using namespace llmsys;
using namespace llmsys::ir;

namespace {

AcceleratorConfig device() {
  AcceleratorConfig A;
  A.Name = "gpu";
  A.Peak[static_cast<int>(DType::BF16)] = 1e15; // 1 PFLOP/s
  A.Peak[static_cast<int>(DType::FP8)] = 2e15;
  A.HbmBandwidth = 2e12; // 2 TB/s
  A.ComputeEfficiency = 0.8;
  A.MemoryEfficiency = 0.9;
  A.ElementwiseEfficiency = 0.5;
  A.KernelOverhead = 2e-6;
  return A;
}

TEST(OpCostTest, ElementwiseIsMemoryBoundAtItsBandwidthFraction) {
  // 1e9 elements, read 2 and write 1 bf16 value each: 6 GB at 2 TB/s x 0.5.
  Op O = passes::pointwise(OpKind::MlpAct, Phase::Forward,
                           OpCategory::Elementwise, DType::BF16, 2, 1e9, 1, 2, 1);
  cost::OpTime T = cost::opTime(O, device(), 0);
  EXPECT_TRUE(T.MemoryBound);
  EXPECT_DOUBLE_EQ(T.Memory, 6e9 / (2e12 * 0.5));
  EXPECT_DOUBLE_EQ(T.Time, T.Memory + 2e-6);
}

TEST(OpCostTest, LargeAlignedGemmRunsAtTheComputeEfficiency) {
  // 8192^3: whole tiles, no K-loop overhead, no compute units (no waves):
  // 2 * 8192^3 FLOPs at 1 PFLOP/s x 0.8.
  Op O = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::BF16, 2, 2, 8192,
                      8192, 8192);
  cost::OpTime T = cost::opTime(O, device(), 0);
  EXPECT_FALSE(T.MemoryBound);
  EXPECT_DOUBLE_EQ(T.Efficiency, 0.8);
  EXPECT_DOUBLE_EQ(T.Compute, 2.0 * 8192 * 8192 * 8192 / (1e15 * 0.8));
}

TEST(OpCostTest, PartialTilesAndNarrowFormats) {
  // M = 192 on 128-row tiles: 192 / 256 of the tile work is useful.
  Op O = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::BF16, 2, 2, 192,
                      8192, 8192);
  cost::OpTime T = cost::opTime(O, device(), 0);
  EXPECT_DOUBLE_EQ(T.Efficiency, 0.8 * 192.0 / 256.0);
  // The same GEMM in FP8 at twice the peak and the narrow efficiency.
  AcceleratorConfig A = device();
  A.NarrowEfficiency = 0.9;
  Op F = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::FP8, 1, 1, 8192,
                      8192, 8192);
  cost::OpTime TF = cost::opTime(F, A, 0);
  EXPECT_DOUBLE_EQ(TF.Compute, 2.0 * 8192 * 8192 * 8192 / (2e15 * 0.8 * 0.9));
}

TEST(OpCostTest, SustainedScalesComputeOnly) {
  AcceleratorConfig A = device();
  A.Sustained = 0.5;
  Op O = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::BF16, 2, 2, 8192,
                      8192, 8192);
  EXPECT_DOUBLE_EQ(cost::opTime(O, A, 0).Compute,
                   2 * cost::opTime(O, device(), 0).Compute);
  Op E = passes::pointwise(OpKind::MlpAct, Phase::Forward,
                           OpCategory::Elementwise, DType::BF16, 2, 1e9, 1, 2, 1);
  EXPECT_DOUBLE_EQ(cost::opTime(E, A, 0).Memory, cost::opTime(E, device(), 0).Memory);
}

} // namespace
