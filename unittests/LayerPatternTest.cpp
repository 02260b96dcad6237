//===- LayerPatternTest.cpp - which layers are MoE, which windowed -------===//
//
// ModelConfig's closed forms for interleaved MoE layers (moe.every) and a
// window pattern (full_attention_every), against a walk over the layers.
//
//===----------------------------------------------------------------------===//

#include "Cost/Cost.h"
#include "IR/Model.h"
#include "IR/Program.h"

#include <cmath>
#include <utility>

#include "gtest/gtest.h"

using namespace llmsys;
using namespace llmsys::ir;

namespace {

TEST(LayerPatternTest, ClosedFormsMatchAWalk) {
  for (int64_t Layers = 1; Layers <= 24; ++Layers)
    for (int64_t Dense = 0; Dense < Layers; ++Dense)
      for (int64_t Every = 1; Every <= 5; ++Every)
        for (int64_t Full = 0; Full <= 6; ++Full) {
          ModelConfig M;
          M.Layers = Layers;
          M.SlidingWindow = 128;
          M.FullAttentionEvery = Full;
          MoEConfig E;
          E.Experts = 4;
          E.TopK = 1;
          E.DenseLayers = Dense;
          E.Every = Every;
          M.Moe = E;
          // Layer i (1-based) is MoE past the dense ones at every Every-th
          // place, and attends over the whole context at a multiple of
          // Full.
          int64_t Moe = 0, WindowedMoe = 0, WindowedDense = 0;
          bool LastMoe = false;
          for (int64_t I = 1; I <= Layers; ++I) {
            bool IsMoe = I > Dense && (I - Dense) % Every == 0;
            bool Windowed = !(Full && I % Full == 0);
            Moe += IsMoe;
            (IsMoe ? WindowedMoe : WindowedDense) += Windowed;
            LastMoe = IsMoe;
          }
          SCOPED_TRACE(testing::Message()
                       << "layers " << Layers << " dense " << Dense
                       << " every " << Every << " full " << Full);
          EXPECT_EQ(M.moeLayers(), Moe);
          EXPECT_EQ(M.denseLayers(), Layers - Moe);
          EXPECT_EQ(M.lastLayerMoe(), LastMoe);
          EXPECT_EQ(M.windowedLayersOf(true), WindowedMoe);
          EXPECT_EQ(M.windowedLayersOf(false), WindowedDense);
        }
}

} // namespace

namespace {

TEST(LayerPatternTest, ChunkedReads) {
  Op O;
  O.Window = -1024; // chunks of 1024 tokens
  EXPECT_TRUE(O.chunked());
  EXPECT_EQ(O.span(), 1024);
  // A token at context c reads its chunk so far: ((c - 1) mod 1024) + 1.
  EXPECT_DOUBLE_EQ(O.contextRead(0), 0); // no cache yet: nothing read
  EXPECT_DOUBLE_EQ(O.contextRead(1), 1);
  EXPECT_DOUBLE_EQ(O.contextRead(1024), 1024);
  EXPECT_DOUBLE_EQ(O.contextRead(1025), 1);
  EXPECT_DOUBLE_EQ(O.contextRead(3000), 952);
  O.Window = 1024; // a sliding window
  EXPECT_FALSE(O.chunked());
  EXPECT_DOUBLE_EQ(O.contextRead(3000), 1024);
}

TEST(LayerPatternTest, ChunkedKeys) {
  EXPECT_EQ(chunkedKeys(4096, 1024), 1024);
  EXPECT_EQ(chunkedKeys(1000, 1024), 1000);
  // (4 x 1024^2 + 904^2) / 5000 = 1002.3.
  EXPECT_EQ(chunkedKeys(5000, 1024), 1002);
}

/// A step time linear in the context plus one linear in the chunk read:
/// Simpson's rule piece by piece is the mean over the whole contexts.
TEST(LayerPatternTest, ChunkedTpotIsTheMeanOverContexts) {
  for (double Chunk : {64.0, 1000.0})
    for (auto [First, Last] :
         {std::pair{1.0, 50.0}, {10.0, 3000.0}, {70.0, 100000.0}}) {
      auto Time = [&](double C) {
        return 5 + 0.25 * C + 2 * (std::fmod(C - 1, Chunk) + 1);
      };
      double Sum = 0;
      for (double C = First; C <= Last; ++C)
        Sum += Time(C);
      double Mean = Sum / (Last - First + 1);
      SCOPED_TRACE(testing::Message() << "chunk " << Chunk << " contexts "
                                      << First << ".." << Last);
      // Exact, also past 64 pieces, whose whole chunks go in groups.
      EXPECT_NEAR(cost::chunkedTpot(First, Last, Chunk, Time), Mean,
                  Mean * 1e-9);
    }
}

} // namespace
