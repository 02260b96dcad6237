//===- OpCostTest.cpp - one operator's roofline time ------------------------===//
//
// Expected values derived by hand from the formulas in lib/Cost/OpCost.cpp
// and docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "Passes/OpBuilder.h"

#include "gtest/gtest.h"
#include <vector>

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

TEST(OpCostTest, KernelOverheadFollowsTheMappingsLaunches) {
  // Replayed from a CUDA graph, a kernel costs kernel_overhead; launched by
  // the host, launch_overhead; an op with no work, nothing.
  AcceleratorConfig A = device();
  A.LaunchOverhead = 5e-6;
  passes::PointwiseModel Plain;
  Op O = passes::pointwise(OpKind::AttnResidual, Phase::Decode, DType::BF16, 2,
                           1e3, Plain);
  MappingConfig Graphs, Launched;
  Launched.CudaGraphs = false;
  cost::OpTime G =
      cost::opTime(O, A, 0, cost::kernelOverhead(A, Graphs, Phase::Decode));
  cost::OpTime L =
      cost::opTime(O, A, 0, cost::kernelOverhead(A, Launched, Phase::Decode));
  EXPECT_DOUBLE_EQ(G.Overhead, 2e-6);
  EXPECT_DOUBLE_EQ(L.Overhead, 5e-6);
  EXPECT_DOUBLE_EQ(L.Time - G.Time, 3e-6);
  // A serving prefill's launches run ahead of its kernels: no launch cost.
  EXPECT_DOUBLE_EQ(cost::kernelOverhead(A, Launched, Phase::Prefill), 2e-6);
  EXPECT_DOUBLE_EQ(cost::kernelOverhead(A, Launched, Phase::Forward), 5e-6);
  Op Empty;
  Empty.Kind = OpKind::AttnResidual;
  EXPECT_EQ(cost::opTime(Empty, A, 0, 5e-6).Overhead, 0);
}

TEST(OpCostTest, ALayerPatternsAttentionSetsShareOneLaunchALayer) {
  // Each set of a layer pattern's attention products stands for its share
  // of the block's layers: its kernel's fixed cost is that share of one.
  AcceleratorConfig A = device();
  Op Scores = passes::gemm(OpKind::AttnScore, Phase::Forward, DType::BF16, 2, 2,
                           4096, 128, 64, 4);
  EXPECT_DOUBLE_EQ(cost::opTime(Scores, A, 0, 2e-6).Overhead, 2e-6);
  passes::applyShare(Scores, 0.75);
  EXPECT_DOUBLE_EQ(cost::opTime(Scores, A, 0, 2e-6).Overhead, 1.5e-6);
  // Other contractions keep the whole launch.
  Op Out = passes::gemm(OpKind::AttnOut, Phase::Forward, DType::BF16, 2, 2,
                        4096, 256, 256);
  EXPECT_DOUBLE_EQ(cost::opTime(Out, A, 0, 2e-6).Overhead, 2e-6);
}

TEST(OpCostTest, ElementwiseIsMemoryBoundAtItsBandwidthFraction) {
  // 1e9 elements of a gated activation, unfused and without biases: the
  // activation of the gate half (read 1, write 1) and the product with
  // the up half (read 2, write 1), bf16 (IR/OpKinds.def): 10 GB at 2 TB/s
  // x 0.5.
  passes::PointwiseModel Gated;
  Gated.GatedMlp = true;
  Op O = passes::pointwise(OpKind::MlpAct, Phase::Forward, DType::BF16, 2, 1e9,
                           Gated);
  cost::OpTime T = cost::opTime(O, device(), 0, 2e-6);
  EXPECT_TRUE(T.MemoryBound);
  EXPECT_DOUBLE_EQ(T.Memory, 10e9 / (2e12 * 0.5));
  EXPECT_DOUBLE_EQ(T.Time, T.Memory + 2e-6);
  // With biases, their add over both halves first (read 2, write 2): 18 GB.
  Gated.Bias = true;
  Op B = passes::pointwise(OpKind::MlpAct, Phase::Forward, DType::BF16, 2, 1e9,
                           Gated);
  EXPECT_DOUBLE_EQ(cost::opTime(B, device(), 0, 2e-6).Memory,
                   18e9 / (2e12 * 0.5));
}

TEST(OpCostTest, LargeAlignedGemmRunsAtTheComputeEfficiency) {
  // 8192^3: whole tiles, no K-loop overhead, no compute units (no waves):
  // 2 * 8192^3 FLOPs at 1 PFLOP/s x 0.8.
  Op O = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::BF16, 2, 2, 8192,
                      8192, 8192);
  cost::OpTime T = cost::opTime(O, device(), 0, 2e-6);
  EXPECT_FALSE(T.MemoryBound);
  EXPECT_DOUBLE_EQ(T.Efficiency, 0.8);
  EXPECT_DOUBLE_EQ(T.Compute, 2.0 * 8192 * 8192 * 8192 / (1e15 * 0.8));
}

TEST(OpCostTest, PartialTilesAndNarrowFormats) {
  // M = 192 on 128-row tiles: 192 / 256 of the tile work is useful.
  Op O = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::BF16, 2, 2, 192,
                      8192, 8192);
  cost::OpTime T = cost::opTime(O, device(), 0, 2e-6);
  EXPECT_DOUBLE_EQ(T.Efficiency, 0.8 * 192.0 / 256.0);
  // The same GEMM in FP8 at twice the peak and the narrow efficiency.
  AcceleratorConfig A = device();
  A.NarrowEfficiency = 0.9;
  Op F = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::FP8, 1, 1, 8192,
                      8192, 8192);
  cost::OpTime TF = cost::opTime(F, A, 0, 2e-6);
  EXPECT_DOUBLE_EQ(TF.Compute, 2.0 * 8192 * 8192 * 8192 / (2e15 * 0.8 * 0.9));
}

TEST(OpCostTest, SustainedScalesComputeOnly) {
  AcceleratorConfig A = device();
  A.Sustained = 0.5;
  Op O = passes::gemm(OpKind::MlpUp, Phase::Forward, DType::BF16, 2, 2, 8192,
                      8192, 8192);
  EXPECT_DOUBLE_EQ(cost::opTime(O, A, 0, 2e-6).Compute,
                   2 * cost::opTime(O, device(), 0, 2e-6).Compute);
  passes::PointwiseModel Gated;
  Gated.GatedMlp = true;
  Op E = passes::pointwise(OpKind::MlpAct, Phase::Forward, DType::BF16, 2, 1e9,
                           Gated);
  EXPECT_DOUBLE_EQ(cost::opTime(E, A, 0, 2e-6).Memory,
                   cost::opTime(E, device(), 0, 2e-6).Memory);
}

TEST(OpKindsTest, PointwiseCountsFollowTheModel) {
  // IR/OpKinds.def: an unfused RMSNorm does 4 FLOPs a value, a LayerNorm
  // 8; both read 3 values and write 2.
  passes::PointwiseModel Rms, Layer;
  Rms.RmsNorm = true;
  Op R = passes::pointwise(OpKind::Ln1, Phase::Forward, DType::BF16, 2, 10, Rms);
  Op L = passes::pointwise(OpKind::Ln1, Phase::Forward, DType::BF16, 2, 10, Layer);
  EXPECT_DOUBLE_EQ(R.Flops, 40);
  EXPECT_DOUBLE_EQ(L.Flops, 80);
  EXPECT_DOUBLE_EQ(R.BytesRead, 60);
  EXPECT_DOUBLE_EQ(R.BytesWritten, 40);
  EXPECT_EQ(R.Category, OpCategory::Normalization);
  // A pass's own traffic: a cast reading 1.5 and writing 2 values a value.
  Op Q = passes::pointwise(OpKind::QuantInput, Phase::Forward, DType::FP8, 1,
                           100, passes::traffic(1.5, 2));
  EXPECT_DOUBLE_EQ(Q.BytesRead, 150);
  EXPECT_DOUBLE_EQ(Q.BytesWritten, 200);
  EXPECT_EQ(Q.Category, OpCategory::Memory);
}

TEST(OpKindsTest, EveryPointwiseKindHasCounts) {
  // OpKinds.def: a kind that is neither a contraction nor a collective has
  // a POINTWISE line (passes::pointwise asserts otherwise).
  bool Has[size_t(OpKind::NumOpKinds)] = {};
#define POINTWISE(Id, FlopsPer, ReadPer, WritePer) Has[size_t(OpKind::Id)] = true;
#include "IR/OpKinds.def"
  for (size_t K = 1; K < size_t(OpKind::NumOpKinds); ++K) {
    OpCategory C = opCategory(OpKind(K));
    bool Pointwise =
        C != OpCategory::Contraction && C != OpCategory::Communication;
    EXPECT_EQ(Has[K], Pointwise) << opName(OpKind(K)).str();
  }
}

TEST(OpKindsTest, TraitsAndTargets) {
  EXPECT_TRUE(hasWeightMatrix(OpKind::AttnQkv));
  EXPECT_FALSE(hasWeightMatrix(OpKind::AttnScore));
  EXPECT_TRUE(hasKindTrait(OpKind::AttnScoreDk, KindAttentionGradient));
  EXPECT_FALSE(hasKindTrait(OpKind::AttnScore, KindAttentionGradient));
  EXPECT_TRUE(hasKindTrait(OpKind::AttnSoftmax, KindAttentionCore));
  EXPECT_TRUE(hasKindTrait(OpKind::MoeExpertDown, KindNormedInput));
  EXPECT_FALSE(hasKindTrait(OpKind::MoeExpertUp, KindNormedInput));
  EXPECT_EQ(loraTarget(OpKind::AttnOut), LoraTarget::Out);
  EXPECT_EQ(loraTarget(OpKind::MoeSharedDown), LoraTarget::Down);
  EXPECT_EQ(loraTarget(OpKind::LmHead), std::nullopt);
  EXPECT_EQ(opCategory(OpKind::TpAllreduce), OpCategory::Communication);
  EXPECT_EQ(opCategory(OpKind::KvAppend), OpCategory::Memory);
}

TEST(OpCostTest, AFusedAttentionKernelPaysAFixedCostPerBlock) {
  // A causal prefill of 1024 tokens (8 blocks of 128): the kernel performs
  // 9/16 of the score product and a query block visits v = 9/16 x 8 = 4.5
  // key blocks; with attention_overhead = 0.9 the products take
  // (4.5 + 0.9) / 4.5 = 1.2x their time, 0.2x of it the per-block part
  // (BlockOverhead, linear in the sequence where the rest is quadratic).
  // The backward's own value applies to the backward products only.
  AcceleratorConfig A = device();
  A.AttentionEfficiency = A.AttentionBackwardEfficiency = 0.5;
  A.AttentionOverhead = 0.9;
  A.AttentionOverheadBackward = 4.5;
  Op Score = passes::gemm(OpKind::AttnScore, Phase::Prefill, DType::BF16, 2, 2,
                          1024, 1024, 128, 8);
  Score.FusedAttention = AttentionKernel::Native;
  Score.Executed = 9.0f / 16.0f;
  double Products = Score.Flops * Score.Executed / (1e15 * 0.5);
  cost::OpTime T = cost::opTime(Score, A, 0, 0);
  EXPECT_NEAR(T.Compute, 1.2 * Products, 1e-9 * Products);
  EXPECT_NEAR(T.BlockOverhead, 0.2 * Products, 1e-9 * Products);
  Op Grad = Score;
  Grad.Kind = OpKind::AttnScoreDq;
  Grad.Ph = Phase::BackwardData;
  Grad.N = 128;
  Grad.K = 1024; // dQ = dS K: the keys are its K
  cost::OpTime B = cost::opTime(Grad, A, 0, 0);
  EXPECT_NEAR(B.Compute, 2.0 * Products, 1e-9 * Products); // (4.5 + 4.5) / 4.5
  // Outside a fused kernel the products keep the GEMM model: no such cost.
  Op Plain = Score;
  Plain.FusedAttention = AttentionKernel::None;
  EXPECT_EQ(cost::opTime(Plain, A, 0, 0).BlockOverhead, 0);
}

/// A device with tiles, units and fused-attention costs, so that every
/// term of opTime is in play.
AcceleratorConfig tiledDevice() {
  AcceleratorConfig A = device();
  A.AttentionEfficiency = 0.5;
  A.AttentionOverhead = 0.9;
  A.AttentionOverheadBackward = 4.5;
  A.LaunchOverhead = 5e-6;
  A.TileM = A.TileN = 128;
  A.TileK = 32;
  A.ComputeUnits = 108;
  A.KOverhead = 64;
  return A;
}

/// Forward ops of three sorts: a GEMM in Gemm's format (Bytes an
/// element), a causal fused attention product, an element-wise op.
std::vector<Op> forwardOps(DType Gemm, float Bytes) {
  passes::PointwiseModel Plain;
  Op Score = passes::gemm(OpKind::AttnScore, Phase::Forward, DType::BF16, 2, 2,
                          1024, 1024, 128, 8);
  Score.FusedAttention = AttentionKernel::Native;
  Score.Executed = 9.0f / 16.0f;
  return {passes::gemm(OpKind::MlpUp, Phase::Forward, Gemm, Bytes, Bytes, 4000,
                       5000, 3000),
          Score,
          passes::pointwise(OpKind::AttnResidual, Phase::Forward, DType::BF16,
                            2, 1e6, Plain)};
}

TEST(OpCostTest, ARecomputationCostsWhatItsForwardCosts) {
  // The training cost takes a recomputed op's time from its forward op
  // (TrainingCost.cpp, sameOpCost): the phase must not change the time of
  // any kind of op, fused attention and its per-block cost included.
  AcceleratorConfig A = tiledDevice();
  const std::vector<Op> Forwards = forwardOps(DType::FP8, 1);
  MappingConfig Launched;
  Launched.CudaGraphs = false;
  for (const Op &F : Forwards) {
    Op R = F;
    R.Ph = Phase::Recompute;
    R.ModelWork = false;
    cost::OpTime TF =
        cost::opTime(F, A, 0, cost::kernelOverhead(A, Launched, F.Ph));
    cost::OpTime TR =
        cost::opTime(R, A, 0, cost::kernelOverhead(A, Launched, R.Ph));
    EXPECT_GT(TF.Time, 0) << F.name().str();
    EXPECT_EQ(TF.Time, TR.Time) << F.name().str();
    EXPECT_EQ(TF.MemoryBound, TR.MemoryBound) << F.name().str();
  }
}

TEST(OpCostTest, SameOpCostLeavesOutOnlyFieldsOpTimeDoesNotRead) {
  // A recomputed op takes the time of a forward op sameOpCost matches: a
  // field it leaves out must not change opTime's answer (the phase only
  // between forward and recompute), and each it compares tells two ops
  // apart.
  AcceleratorConfig A = tiledDevice();
  const std::vector<Op> Bases = forwardOps(DType::BF16, 2);
  using Edit = void (*)(Op &);
  const Edit LeftOut[] = {
      [](Op &O) { O.Ph = Phase::Recompute; },
      [](Op &O) { O.TpAxis = Axis::K; },
      [](Op &O) { O.TokenAxis = Axis::M; },
      [](Op &O) { O.FabricLevel = 1; },
      [](Op &O) { O.Overlappable = true; },
      [](Op &O) { O.SavedBytes = 1e9; },
      [](Op &O) { O.SequenceRegion = !O.SequenceRegion; },
      [](Op &O) { O.SavedInSequenceRegion = !O.SavedInSequenceRegion; },
      [](Op &O) { O.ModelWork = !O.ModelWork; },
      [](Op &O) { O.Group = ParallelDim::TP; },
      [](Op &O) { O.GroupSize = 8; },
      [](Op &O) { O.GroupPerNode = 8; },
      [](Op &O) { O.MessageBytes = 1e6; }};
  const Edit Compared[] = {
      [](Op &O) { O.Kind = OpKind::MlpDown; },
      [](Op &O) { O.Type = DType::FP8; },
      [](Op &O) { O.M += 1; },
      [](Op &O) { O.N += 1; },
      [](Op &O) { O.K += 1; },
      [](Op &O) { O.Batch += 1; },
      [](Op &O) { O.BBytes = 1; },
      [](Op &O) { O.Flops *= 2; },
      [](Op &O) { O.BytesRead *= 2; },
      [](Op &O) { O.BytesWritten *= 2; },
      [](Op &O) { O.BytesPerContext = 1; },
      [](Op &O) { O.Executed = 0.5f; },
      [](Op &O) { O.FusedInto = OpKind::MlpUp; },
      [](Op &O) { O.SparseWeight = true; }};
  for (const Op &Base : Bases) {
    double Time = cost::opTime(Base, A, 0, 5e-6).Time;
    for (size_t I = 0; I < std::size(LeftOut); ++I) {
      Op O = Base;
      LeftOut[I](O);
      EXPECT_TRUE(cost::sameOpCost(O, Base)) << Base.name().str() << ' ' << I;
      EXPECT_EQ(cost::opTime(O, A, 0, 5e-6).Time, Time)
          << Base.name().str() << ' ' << I;
    }
    for (size_t I = 0; I < std::size(Compared); ++I) {
      Op O = Base;
      Compared[I](O);
      EXPECT_FALSE(cost::sameOpCost(O, Base)) << Base.name().str() << ' ' << I;
    }
  }
}

TEST(OpCostTest, ATrainingOpsDataEnergyIsItsAddAtNoContext) {
  // blockTime adds a training op's bytes and FLOPs with DataTraffic::addOnce,
  // add(O, 1, 0, Sys) without the context's terms: the two must agree for
  // every kind of compute and memory op, sparse, fused and offloaded ones
  // included.
  SystemConfig Sys;
  Sys.Device = tiledDevice();
  std::vector<Op> Ops = forwardOps(DType::FP8, 1);
  for (Op O : forwardOps(DType::BF16, 2)) {
    O.SparseWeight = O.Category == OpCategory::Contraction;
    Ops.push_back(O);
  }
  Op Fused = Ops.front();
  Fused.FusedInto = OpKind::AttnQkv;
  Ops.push_back(Fused);
  for (OpKind K : {OpKind::OffloadGradToHost, OpKind::OffloadHostUpdate,
                   OpKind::OffloadParamToDevice}) {
    Op Offload = Ops.front();
    Offload.Kind = K;
    Ops.push_back(Offload);
  }
  ASSERT_GT(Ops.size(), 8u);
  for (const Op &O : Ops) {
    cost::DataTraffic Once, Add;
    Once.addOnce(O);
    Add.add(O, 1, 0, Sys);
    EXPECT_EQ(Once.Memory, Add.Memory) << O.name().str();
    for (int I = 0; I < NumDTypes; ++I) {
      EXPECT_EQ(Once.Flops[I], Add.Flops[I]) << O.name().str();
      EXPECT_EQ(Once.SparseFlops[I], Add.SparseFlops[I]) << O.name().str();
    }
  }
}

} // namespace
