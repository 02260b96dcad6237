//===- Quantize.cpp - a low-precision recipe's GEMMs and casts -------------===//
//
// A training mapping with a `recipe` runs its linear layers' GEMMs in the
// recipe's formats, per role: forward (input x weight), input gradient
// (output gradient x weight) and weight gradient (output gradient x
// input). Their operands must first be quantized from the 16-bit tensors
// the rest of the layer works in, and that is work of its own, which this
// pass adds as operators (docs/passes.md, docs/cost-model.md):
//
//   quant.input   before a GEMM of the forward (and its recomputation):
//                 the input, in as many copies as the recipe's GEMMs need
//                 (a transposed or column-scaled one for the weight
//                 gradient), with a first read for the scale when the
//                 recipe finds it from the tensor itself (current scaling);
//   quant.grad    before a linear layer's input-gradient GEMM: the output
//                 gradient, in the copies the two backward GEMMs need;
//   quant.weight  the weights, once per step into a cache the recipe keeps
//                 (Transformer Engine with Megatron-LM's first-micro-batch
//                 flag; the optimizer block), or in every micro-batch's
//                 forward and backward (torchao).
//   quant.rescale after each backward GEMM of a recipe that runs them with
//                 per-tensor scales and rescales the output by rows in a
//                 pass of its own (torchao row-wise).
//
// Attention products run in the recipe's `attention` format (the mapping's
// precision unless the recipe asks for FP8 attention), the LM head in its
// `head` format, the MoE router, norms, softmax and the optimizer as they
// were. With sequence parallelism and a recipe that gathers narrow, a
// column-parallel GEMM's input is cast on its sequence shard, before the
// all-gather, which then carries the quantized copy (FP8 all-gather);
// otherwise the gathered wide input is cast on every device. Runs after
// `partition`, on the shapes one device executes.
//
//===----------------------------------------------------------------------===//

#include "Passes/OpBuilder.h"
#include "Passes/Passes.h"

#include <algorithm>

namespace llmsys {
namespace passes {

using namespace ir;

namespace {

bool isAttentionProduct(const Op &O) {
  switch (O.Kind) {
  case OpKind::AttnScore:
  case OpKind::AttnContext:
  case OpKind::AttnFlash:
  case OpKind::AttnFlashRescore:
  case OpKind::AttnScoreDq:
  case OpKind::AttnScoreDk:
  case OpKind::AttnContextDp:
  case OpKind::AttnContextDv:
    return true;
  default:
    return O.InFusedAttention;
  }
}

/// Whether a linear layer's input is written by the norm or activation
/// just before it (the inputs a fused norm-linear or activation-linear
/// kernel quantizes itself).
bool inputFromNormOrActivation(OpKind K) {
  switch (K) {
  case OpKind::AttnQkv:
  case OpKind::AttnQ:
  case OpKind::AttnQDown:
  case OpKind::AttnKvDown:
  case OpKind::MlpUp:
  case OpKind::MlpDown:
  case OpKind::MoeSharedUp:
  case OpKind::MoeSharedDown:
  case OpKind::MoeExpertDown:
  case OpKind::LmHead:
    return true;
  default:
    return false;
  }
}

bool modelBlock(const Block &B) {
  return B.Kind == BlockKind::Embedding || B.Kind == BlockKind::DenseLayer ||
         B.Kind == BlockKind::MoELayer || B.Kind == BlockKind::Head;
}

class Quantizer {
public:
  explicit Quantizer(Program &P)
      : P(P), Map(P.Scenario.Mapping), R(*Map.Recipe),
        Wide(dtypeBytes(Map.Precision)), WeightBytes(dtypeBytes(Map.Weights)),
        SP(Map.SequenceParallel && Map.Tp > 1) {}

  void run() {
    for (Block &B : P.Blocks)
      if (modelBlock(B))
        block(B);
    cacheWeights();
  }

private:
  bool narrow(DType T) const { return dtypeBytes(T) < Wide; }

  /// The format of a linear layer's GEMM in phase Ph.
  DType format(const Op &O) const {
    if (O.Kind == OpKind::LmHead)
      return R.Head;
    switch (O.Ph) {
    case Phase::BackwardData: return R.InputGradient;
    case Phase::BackwardWeight: return R.WeightGradient;
    default: return R.Forward;
    }
  }

  /// A cast of Elements values from the wide format into Copies quantized
  /// copies in format T (nothing when no copy is needed).
  void cast(std::vector<Op> &Out, OpKind Kind, Phase Ph, DType T,
            double Elements, double FromBytes, int64_t Copies, bool Fused) {
    if (Copies <= 0 || Elements <= 0)
      return;
    double Copy = R.copyBytes(T);
    double Read = 0, Written = 0;
    if (Fused) {
      // The producer wrote the first copy; the others are made from it.
      if (Copies < 2)
        return;
      Read = Copy;
      Written = double(Copies - 1) * Copy;
    } else {
      Read = (R.CastPerCopy ? double(Copies) : 1.0) * FromBytes;
      Written = double(Copies) * Copy;
      if (R.AmaxPass)
        Read += FromBytes;
    }
    Op C = pointwise(Kind, Ph, OpCategory::Memory, T, 1, Elements, 1, Read,
                     Written);
    Out.push_back(C);
  }

  /// The copies a tensor needs: one per GEMM that reads it narrow, at most
  /// the recipe's count.
  int64_t copies(bool First, bool Second) const {
    int64_t N = int64_t(First) + int64_t(Second);
    return N == 2 ? R.Copies : N;
  }

  void block(Block &B) {
    Out.clear();
    Out.reserve(B.Ops.size() * 2);
    WeightElements = 0;
    for (const Op &O : B.Ops) {
      if (O.Category != OpCategory::Contraction) {
        Out.push_back(O);
        continue;
      }
      if (isAttentionProduct(O)) {
        Op A = O;
        if (A.Type != R.Attention) {
          double Ratio = dtypeBytes(R.Attention) / dtypeBytes(A.Type);
          A.BytesRead *= Ratio;
          A.Type = R.Attention;
        }
        Out.push_back(A);
        continue;
      }
      DType T = format(O);
      if (O.Kind == OpKind::MoeRouter || !narrow(T)) {
        Out.push_back(O);
        continue;
      }
      linear(O, T);
    }
    B.Ops.swap(Out);
    // With ZeRO-3 a device keeps (and quantizes) its shard of the weights,
    // as it keeps its shard of the wide ones.
    double Shard = Map.Zero >= 3 ? double(Map.weightReplicas()) : 1.0;
    B.QuantizedWeightBytes = R.WeightCache ? WeightElements * WeightCopies *
                                                 R.copyBytes(R.Forward) / Shard
                                           : 0;
  }

  void linear(const Op &O, DType T) {
    double Batch = double(O.Batch);
    double A = double(O.M) * double(O.K) * Batch; // input / output gradient
    double W = double(O.K) * double(O.N) * Batch; // weight / output gradient
    bool Forward = O.Ph == Phase::Forward || O.Ph == Phase::Recompute;
    DType Dgrad = R.InputGradient, Wgrad = R.WeightGradient;
    if (O.Kind == OpKind::LmHead)
      Dgrad = Wgrad = R.Head;
    if (Forward) {
      // The input, for this GEMM and (a copy kept or made again) for the
      // weight gradient. With SP a column-parallel input is cast on its
      // shard before the all-gather, which then carries the copy.
      double Elements = A;
      if (R.NarrowGather && SP && O.SavedInSequenceRegion &&
          !O.SequenceRegion) {
        Elements /= double(Map.Tp);
        for (auto I = Out.rbegin(); I != Out.rend(); ++I) {
          if (!I->isCollective())
            break;
          if (I->Kind == OpKind::TpAllgather)
            I->MessageBytes *= R.copyBytes(T) / Wide;
        }
      }
      cast(Out, OpKind::QuantInput, O.Ph, T, Elements, Wide,
           copies(true, narrow(Wgrad)),
           R.FusedInput && inputFromNormOrActivation(O.Kind));
      if (!R.WeightCache)
        cast(Out, OpKind::QuantWeight, O.Ph, T, W, WeightBytes, 1, false);
      else if (O.Ph == Phase::Forward && O.Kind != OpKind::LmHead) {
        WeightElements += W;
        WeightCopies = copies(true, narrow(Dgrad));
      }
    } else if (O.Ph == Phase::BackwardData) {
      // The output gradient, for this GEMM and the weight gradient.
      cast(Out, OpKind::QuantGrad, O.Ph, T, A, Wide,
           copies(true, narrow(Wgrad)), false);
      if (!R.WeightCache)
        cast(Out, OpKind::QuantWeight, O.Ph, T, W, WeightBytes, 1, false);
    }
    Op G = O;
    double Operands = Batch * (double(O.M) * double(O.K) * O.ABytes +
                               double(O.K) * double(O.N) * O.BBytes);
    G.BytesRead += A * R.copyBytes(T) + W * R.copyBytes(T) - Operands;
    G.BytesRead = std::max(0.0, G.BytesRead);
    G.Type = T;
    if (O.Ph == Phase::Forward && G.SavedBytes > 0 && O.ABytes > 0) {
      double Kept = R.SaveNarrow && narrow(Wgrad) ? R.copyBytes(Wgrad)
                                                  : O.ABytes;
      G.SavedBytes *= Kept / O.ABytes;
    }
    Out.push_back(G);
    // Row scales applied after a backward GEMM run with per-tensor ones:
    // its output read and written again.
    if (R.RescaleBackward &&
        (O.Ph == Phase::BackwardData || O.Ph == Phase::BackwardWeight))
      Out.push_back(pointwise(OpKind::QuantRescale, O.Ph,
                              OpCategory::Elementwise, Map.Precision, Wide,
                              double(O.M) * double(O.N) * Batch, 1, 1, 1));
  }

  /// Cached weights: quantized once per step, after the optimizer has
  /// updated them, for the stage holding the most.
  void cacheWeights() {
    Block *Opt = P.block(BlockKind::Optimizer);
    if (!Opt || !R.WeightCache)
      return;
    double Elements = 0;
    int64_t Copies = 1;
    for (const Stage &St : P.Stages.empty() ? std::vector<Stage>{Stage{}}
                                            : P.Stages) {
      double Here = 0;
      for (const Block &B : P.Blocks)
        if (modelBlock(B) && B.QuantizedWeightBytes > 0)
          Here += double(St.holds(B.Kind)) * B.QuantizedWeightBytes;
      Elements = std::max(Elements, Here);
    }
    Copies = std::max<int64_t>(1, WeightCopies);
    // Bytes to elements: QuantizedWeightBytes counts every copy.
    Elements /= double(Copies) * R.copyBytes(R.Forward);
    std::vector<Op> Ops;
    cast(Ops, OpKind::QuantWeight, Phase::Optimizer, R.Forward, Elements,
         WeightBytes, Copies, false);
    Opt->Ops.insert(Opt->Ops.end(), Ops.begin(), Ops.end());
  }

  Program &P;
  const MappingConfig &Map;
  const RecipeConfig &R;
  double Wide, WeightBytes;
  bool SP;
  std::vector<Op> Out;
  double WeightElements = 0;
  int64_t WeightCopies = 1;
};

} // namespace

bool quantize(Program &P, PassContext &Ctx) {
  for (Block &B : P.Blocks)
    B.QuantizedWeightBytes = 0;
  const MappingConfig &Map = P.Scenario.Mapping;
  if (!P.Scenario.Training || !Map.Recipe)
    return true;
  // The casts are sized from the shapes one device runs.
  if (!P.Partitioned) {
    if (Ctx.Diags)
      Ctx.Diags->report(DiagID::err_recipe_order, Map.Locs.Recipe,
                        Map.Recipe->Name);
    return false;
  }
  Quantizer(P).run();
  return true;
}

} // namespace passes
} // namespace llmsys
