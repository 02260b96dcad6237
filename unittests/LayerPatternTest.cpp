//===- LayerPatternTest.cpp - which layers are MoE, which windowed -------===//
//
// ModelConfig's closed forms for interleaved MoE layers (moe.every) and a
// window pattern (full_attention_every), against a walk over the layers.
//
//===----------------------------------------------------------------------===//

#include "IR/Model.h"

#include "gtest/gtest.h"

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
