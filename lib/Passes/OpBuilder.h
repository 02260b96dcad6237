//===- OpBuilder.h - making operators with their counts -----------*- C++ -*-===//
//
// Shared by the passes: constructors that fill an op's FLOPs and bytes from
// its shape, so that every pass counts the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PASSES_OPBUILDER_H
#define LLMSYS_PASSES_OPBUILDER_H

#include "IR/Program.h"

#include <cassert>

namespace llmsys {
namespace passes {

/// C[M x N] = A[M x K] * B[K x N], Batch times. B is a weight matrix (read in
/// the weights' format) or an activation. Reads A and B once, writes C once.
inline ir::Op gemm(ir::OpKind Kind, ir::Phase Ph, ir::DType Compute,
                   double ActBytes, double BBytes, int64_t M, int64_t N,
                   int64_t K, int64_t Batch = 1) {
  ir::Op O;
  O.Kind = Kind;
  O.Category = ir::OpCategory::Contraction;
  O.Ph = Ph;
  O.Type = Compute;
  O.M = M;
  O.N = N;
  O.K = K;
  O.Batch = Batch;
  O.ABytes = ActBytes;
  O.BBytes = BBytes;
  O.Flops = 2.0 * M * N * K * Batch;
  O.BytesRead = Batch * (double(M) * K * ActBytes + double(K) * N * BBytes);
  O.BytesWritten = Batch * double(M) * N * ActBytes;
  return O;
}

/// Changes a contraction's shape, keeping its counts consistent: FLOPs and
/// bytes scale with the new shape (custom byte counts scale in proportion).
inline void reshape(ir::Op &O, int64_t M, int64_t N, int64_t K, int64_t Batch) {
  auto Size = [](int64_t A, int64_t B) { return double(A) * double(B); };
  double OldA = Size(O.M, O.K) * O.Batch, OldB = Size(O.K, O.N) * O.Batch,
         OldC = Size(O.M, O.N) * O.Batch;
  double NewA = Size(M, K) * Batch, NewB = Size(K, N) * Batch,
         NewC = Size(M, N) * Batch;
  double OldRead = OldA * O.ABytes + OldB * O.BBytes;
  double NewRead = NewA * O.ABytes + NewB * O.BBytes;
  if (OldRead > 0)
    O.BytesRead *= NewRead / OldRead;
  if (OldC > 0)
    O.BytesWritten *= NewC / OldC;
  double OldFlops = 2.0 * O.M * O.N * O.K * O.Batch;
  double NewFlops = 2.0 * M * N * K * Batch;
  if (OldFlops > 0) {
    O.Flops *= NewFlops / OldFlops;
    O.FlopsPerContext *= NewFlops / OldFlops;
    O.BytesPerContext *= NewFlops / OldFlops;
  }
  O.M = M;
  O.N = N;
  O.K = K;
  O.Batch = Batch;
}

/// Makes an op stand for Share of its block's layers (a layer pattern,
/// ir::Op::share): its counts scale by Share.
inline void applyShare(ir::Op &O, double Share) {
  O.Flops *= Share;
  O.BytesRead *= Share;
  O.BytesWritten *= Share;
  O.FlopsPerContext *= Share;
  O.BytesPerContext *= Share;
  O.SavedBytes *= Share;
}

/// Divides one axis of a contraction by Parts (rounding up: a 97-row
/// matrix over 2 devices leaves 49 rows on the busier one).
inline void splitAxis(ir::Op &O, ir::Axis A, int64_t Parts) {
  auto Div = [&](int64_t V) { return (V + Parts - 1) / Parts; };
  switch (A) {
  case ir::Axis::None:
    return;
  case ir::Axis::M:
    return reshape(O, Div(O.M), O.N, O.K, O.Batch);
  case ir::Axis::N:
    return reshape(O, O.M, Div(O.N), O.K, O.Batch);
  case ir::Axis::K:
    return reshape(O, O.M, O.N, Div(O.K), O.Batch);
  case ir::Axis::Batch:
    return reshape(O, O.M, O.N, O.K, Div(O.Batch));
  }
}

/// Sets one axis of a contraction to Value.
inline void setAxis(ir::Op &O, ir::Axis A, int64_t Value) {
  switch (A) {
  case ir::Axis::None:
    return;
  case ir::Axis::M:
    return reshape(O, Value, O.N, O.K, O.Batch);
  case ir::Axis::N:
    return reshape(O, O.M, Value, O.K, O.Batch);
  case ir::Axis::K:
    return reshape(O, O.M, O.N, Value, O.Batch);
  case ir::Axis::Batch:
    return reshape(O, O.M, O.N, O.K, Value);
  }
}

/// What the per-element counts of IR/OpKinds.def's POINTWISE lines read:
/// the model's traits and, for kinds whose traffic a pass works out, that
/// traffic (values per element).
struct PointwiseModel {
  bool RmsNorm = false, GatedMlp = false, Dropout = false;
  bool LearnedPositions = false, Sgd = false;
  bool Routed = false; ///< tokens reach experts (top-k above 0)
  bool Bias = false;   ///< the linear layers add biases (model `bias`)
  bool GluClamp = false; ///< a gated activation clamps its halves first
  double Read = 0, Written = 0;

  /// The MLP activation unfused, values per output element: a gated
  /// unit's activation of the gate half (read 1, write 1) and product with
  /// the up half (read 2, write 1), a plain unit's activation (1 and 1);
  /// with biases, first their add over what the up GEMM wrote (a gated
  /// unit's two halves); with a clamp (model glu_clamp), its passes.
  double activationRead() const {
    return (GatedMlp ? (Bias ? 5 : 3) : (Bias ? 2 : 1)) + clampRead();
  }
  double activationWritten() const {
    return (GatedMlp ? (Bias ? 4 : 2) : (Bias ? 2 : 1)) + clampWritten();
  }
  /// The same fused into one pass: the up GEMM's output read, one value
  /// written.
  double fusedActivationRead() const { return GatedMlp ? 2 : 1; }
  /// A gated activation's clamp outside its kernel, values per output
  /// element: each half clamped (read 1, write 1 each) and the two joined
  /// again (read 2, write 2), as Megatron-LM's
  /// weighted_bias_quick_geglu_impl runs them before its fused kernel.
  double clampRead() const { return GluClamp ? 4 : 0; }
  double clampWritten() const { return GluClamp ? 4 : 0; }
};

/// The model's traits the pointwise counts of IR/OpKinds.def read.
inline PointwiseModel pointwiseModel(const ir::ModelConfig &M, bool Dropout) {
  PointwiseModel C;
  C.RmsNorm = M.RmsNorm;
  C.GatedMlp = M.GatedMlp;
  C.Dropout = Dropout;
  C.LearnedPositions = M.LearnedPositions;
  C.Routed = M.routed();
  C.Bias = M.Bias;
  C.GluClamp = M.GatedMlp && M.GluClamp > 0;
  return C;
}

/// Whether the routed experts' up-projection bias is a pass of its own
/// (expert_bias = unfused: moe.up_bias), which the experts' activation
/// then leaves out of its counts.
inline bool upBiasApart(const ir::ModelConfig &M,
                        const ir::MappingConfig &Map) {
  return M.Bias && M.Moe && Map.ExpertBiasKind == ir::ExpertBias::Unfused;
}

/// FLOPs and values read and written per element of a pointwise kind.
struct PointwiseCounts {
  double Flops = 0, Read = 0, Written = 0;
};

/// FLOPs and bytes (not values) read and written per element of a routed
/// expert GEMM's output (Out bytes an element) by the passes that add its bias after
/// the GEMM (mapping expert_bias), as Megatron-LM's
/// TEGroupedMLP._apply_bias and NeMo AutoModel's
/// GroupedExpertsDeepEP._apply_bias run them (eager PyTorch, a piece per
/// local expert):
///  - moe.down_bias, the bias weighted by each routed copy's probability,
///    in Sum bytes an element (the wider of Out and the probability's):
///    forward, b * p written (Sum), t + b * p (read Out and Sum, write
///    Sum), the pieces joined (torch.cat: read Sum, write Sum) and, when
///    Sum is wider, cast back (read Sum, write Out); backward, that cast's
///    gradient (read Out, write Sum) and the output's gradient cast to the
///    GEMM's format (read Sum, write Out), then the bias's and the
///    probability's gradients, each a product (read Sum, write Sum)
///    summed (read Sum).
///  - moe.up_bias, in the GEMM's format: forward t + b and torch.cat (read
///    and write Out each); backward only the bias's gradient, summed over
///    each expert's tokens (read Out): the output's gradient passes
///    through.
inline PointwiseCounts expertBiasTraffic(ir::OpKind K, double Out, double Sum,
                                         bool Backward) {
  if (K == ir::OpKind::MoeDownBias) {
    double Cast = Sum > Out ? 1 : 0;
    return Backward ? PointwiseCounts{4, 4 * Sum + Cast * (Out + Sum),
                                      2 * Sum + Cast * (Sum + Out)}
                    : PointwiseCounts{2, Out + 2 * Sum + Cast * Sum,
                                      3 * Sum + Cast * Out};
  }
  assert(K == ir::OpKind::MoeUpBias && "not an expert bias kind");
  return Backward ? PointwiseCounts{1, Out, 0}
                  : PointwiseCounts{1, 2 * Out, 2 * Out};
}

/// The counts of a pointwise kind (IR/OpKinds.def's POINTWISE lines).
inline PointwiseCounts pointwiseCounts(ir::OpKind K, const PointwiseModel &C) {
  switch (K) {
  // The .def's expressions name the model `C` (this function's parameter).
#define POINTWISE(Id, FlopsPer, ReadPer, WritePer)                             \
  case ir::OpKind::Id:                                                         \
    return {double(FlopsPer), double(ReadPer), double(WritePer)};
#include "IR/OpKinds.def"
  default:
    break;
  }
  assert(false && "a contraction or collective has no pointwise counts");
  return {};
}

/// An op of a pointwise kind over Elements values, each of Bytes bytes:
/// its category and counts from IR/OpKinds.def.
inline ir::Op pointwise(ir::OpKind Kind, ir::Phase Ph, ir::DType Type,
                        double Bytes, double Elements,
                        const PointwiseModel &C) {
  PointwiseCounts N = pointwiseCounts(Kind, C);
  ir::Op O;
  O.Kind = Kind;
  O.Category = ir::opCategory(Kind);
  O.Ph = Ph;
  O.Type = Type;
  O.Flops = Elements * N.Flops;
  O.BytesRead = Elements * N.Read * Bytes;
  O.BytesWritten = Elements * N.Written * Bytes;
  return O;
}

/// What a fused attention kernel keeps per query row for its backward:
/// the softmax's log-sum-exp, in fp32.
constexpr double FusedAttentionStatsBytes = 4;

/// The bytes of a norm's scale (and shift, but for RMSNorm) over Width
/// values, in weights of WeightBytes each: what a norm reads beside its
/// input.
inline double normScaleBytes(const ir::ModelConfig &M, double Width,
                             double WeightBytes) {
  return (M.RmsNorm ? 1 : 2) * Width * WeightBytes;
}

/// A pass's traffic per element for the kinds whose POINTWISE counts read
/// it (C.Read, C.Written).
inline PointwiseModel traffic(double Read, double Written) {
  PointwiseModel C;
  C.Read = Read;
  C.Written = Written;
  return C;
}

} // namespace passes
} // namespace llmsys

#endif
