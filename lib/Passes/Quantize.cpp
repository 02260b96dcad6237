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
// Beside LoRA adapters (`finetune = lora`, the `adapt` pass) the base
// weights are frozen: their layers run no weight-gradient GEMM, so no
// copy of an input or an output gradient is made for one; with
// `narrow_params` the weights are quantized once before training, not
// every step; and the adapters' own GEMMs stay in the mapping's precision
// (NeMo's and Megatron-Bridge's ParallelLinearAdapter builds them from
// Megatron-Core's tensor_parallel linear layers, outside Transformer
// Engine's FP8 autocast).
//
//===----------------------------------------------------------------------===//

#include "Passes/OpBuilder.h"
#include "Passes/Passes.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <optional>

namespace llmsys {
namespace passes {

using namespace ir;

namespace {

bool modelBlock(const Block &B) { return B.inModel(); }

class Quantizer {
public:
  explicit Quantizer(Program &P)
      : P(P), Map(P.Scenario.Mapping), R(*Map.Recipe),
        Wide(dtypeBytes(Map.Precision)), WeightBytes(dtypeBytes(Map.Weights)),
        SP(Map.SequenceParallel && Map.Tp > 1),
        Frozen(P.Scenario.Finetune.adapters()) {}

  void run() {
    BlockElements.assign(P.Blocks.size(), 0);
    for (size_t I = 0; I < P.Blocks.size(); ++I)
      if (modelBlock(P.Blocks[I]))
        block(I);
    cacheWeights();
  }

private:
  /// A format the recipe quantizes into: narrower than the wide tensors,
  /// scales included.
  bool narrow(DType T) const { return R.copyBytes(T) < Wide; }

  /// A frozen linear layer with a LoRA adapter beside it.
  bool adapted(const Op &O) const {
    if (!Frozen)
      return false;
    std::optional<LoraTarget> T = loraTarget(O.Kind);
    return T && P.Scenario.Finetune.targets(*T);
  }

  /// The formats of a linear layer's three GEMMs.
  struct Roles {
    DType Fwd, Dgrad, Wgrad;
  };
  Roles roles(const Op &O) const {
    if (O.Kind == OpKind::LmHead)
      return {R.Head, R.Head, R.Head};
    return {R.Forward, R.InputGradient, R.WeightGradient};
  }
  static DType role(const Roles &F, Phase Ph) {
    switch (Ph) {
    case Phase::BackwardData: return F.Dgrad;
    case Phase::BackwardWeight: return F.Wgrad;
    default: return F.Fwd;
    }
  }

  /// A cast of Elements values from the wide format into one copy in
  /// format First and, if Second is set, one more in Second (at most the
  /// recipe's copies in all); nothing when no copy is needed.
  void cast(std::vector<Op> &Out, OpKind Kind, Phase Ph,
            std::optional<DType> First, std::optional<DType> Second,
            double Elements, double FromBytes, bool Fused) {
    std::vector<DType> Formats;
    for (std::optional<DType> T : {First, Second})
      if (T)
        Formats.push_back(*T);
    if (Formats.empty() || Elements <= 0)
      return;
    // Two GEMMs reading the tensor narrow need the recipe's copies (a
    // layout or scale direction each); one GEMM, one copy.
    int64_t Copies = Formats.size() == 2 ? R.Copies : 1;
    auto CopyBytes = [&](int64_t I) {
      return R.copyBytes(Formats[std::min<size_t>(I, Formats.size() - 1)]);
    };
    double Read = 0, Written = 0;
    for (int64_t I = 0; I < Copies; ++I)
      Written += CopyBytes(I);
    if (Fused) {
      // The producer wrote the first copy; the others are made from it.
      if (Copies < 2)
        return;
      Read = CopyBytes(0);
      Written -= CopyBytes(0);
    } else {
      Read = (R.CastPerCopy ? double(Copies) : 1.0) * FromBytes;
      if (R.AmaxPass)
        Read += FromBytes;
    }
    Out.push_back(
        pointwise(Kind, Ph, Formats[0], 1, Elements, traffic(Read, Written)));
  }

  /// The all-gather of kind Kind that partition put right before the GEMM
  /// at hand, if any, carries Bytes an element instead of the wide format's.
  bool narrowGather(OpKind Kind, double Bytes) {
    for (auto I = Out.rbegin(); I != Out.rend() && I->isCollective(); ++I)
      if (I->Kind == Kind) {
        I->MessageBytes *= Bytes / Wide;
        return true;
      }
    return false;
  }

  static std::optional<DType> when(bool Narrow, DType T) {
    return Narrow ? std::optional<DType>(T) : std::nullopt;
  }

  /// The MLP activations activation_store acts on (Megatron-Core passes the
  /// flag to the dense MLP's, the experts' and the shared experts', an MLP
  /// of their own), and the slot of an activation or of the up-projection
  /// feeding it.
  static constexpr int Slots = 3;
  static bool isActivation(OpKind K) {
    return K == OpKind::MlpAct || K == OpKind::MoeExpertAct ||
           K == OpKind::MoeSharedAct;
  }
  static bool feedsActivation(OpKind K) {
    return K == OpKind::MlpUp || K == OpKind::MoeExpertUp ||
           K == OpKind::MoeSharedUp;
  }
  static int slot(OpKind K) {
    switch (K) {
    case OpKind::MlpAct:
    case OpKind::MlpUp:
      return 0;
    case OpKind::MoeExpertAct:
    case OpKind::MoeExpertUp:
      return 1;
    case OpKind::MoeSharedAct:
    case OpKind::MoeSharedUp:
      return 2;
    default:
      llvm_unreachable("not an MLP activation nor the GEMM feeding it");
    }
  }

  /// The MLP activation O with its input kept in FP8 E4M3, one byte an
  /// element (activation_store; Megatron-Core's
  /// activation_func_fp8_input_store): each forward run of it (and a
  /// recomputation's) casts its input, the up-projection's output (read
  /// wide, write the copy; fp8_current reads it once more first for its
  /// amax, Transformer Engine's Float8CurrentScalingQuantizer), a forward
  /// under a recomputation's no_grad too (both implementations cast before
  /// asking whether anything is saved); backward casts it back (read the
  /// copy, write wide) before the activation's backward reads it. What the
  /// forward keeps becomes the copy, unless the activation is recomputed
  /// (a checkpoint keeps its wide input then). The copy is FP8 whatever
  /// the recipe's formats (both implementations hard-code E4M3).
  void activation(const Op &O, bool Recomputed) {
    const int K = slot(O.Kind);
    const double Copy = dtypeBytes(DType::FP8);
    const double Read =
        Wide * (R.StoreActivation == ActivationStore::Fp8Current ? 2 : 1);
    if ((O.Ph == Phase::Forward || O.Ph == Phase::Recompute) &&
        UpElements[K] > 0) {
      const double Elements = UpElements[K];
      SavedActivation[K] = Elements;
      Op A = O;
      if (A.SavedBytes > 0 && !Recomputed)
        A.SavedBytes *= Copy / Wide;
      Out.push_back(A);
      Op C = pointwise(OpKind::QuantActivation, O.Ph, DType::FP8, 1, Elements,
                       traffic(Read, Copy));
      C.TpAxis = Axis::None;
      C.SequenceRegion = O.SequenceRegion;
      Out.push_back(C);
      return;
    }
    if (O.Ph == Phase::BackwardData && SavedActivation[K] > 0) {
      Op C = pointwise(OpKind::QuantActivation, O.Ph, Map.Precision, 1,
                       SavedActivation[K], traffic(Copy, Wide));
      C.TpAxis = Axis::None;
      C.SequenceRegion = O.SequenceRegion;
      Out.push_back(C);
    }
    Out.push_back(O);
  }

  void block(size_t Index) {
    Block &B = P.Blocks[Index];
    Out.clear();
    Out.reserve(B.Ops.size() * 2);
    Cache = ExpertCache = CacheTotals();
    const bool Store = R.StoreActivation != ActivationStore::Wide;
    // (Per block: the activations' inputs and whether they are recomputed.)
    bool Recomputed[Slots] = {};
    std::fill(UpElements, UpElements + Slots, 0.0);
    std::fill(SavedActivation, SavedActivation + Slots, 0.0);
    if (Store)
      for (const Op &O : B.Ops)
        if (O.Ph == Phase::Recompute && isActivation(O.Kind))
          Recomputed[slot(O.Kind)] = true;
    for (const Op &O : B.Ops) {
      if (Store && feedsActivation(O.Kind) &&
          (O.Ph == Phase::Forward || O.Ph == Phase::Recompute))
        UpElements[slot(O.Kind)] =
            double(O.M) * double(O.N) * double(std::max<int64_t>(1, O.Batch));
      if (Store && isActivation(O.Kind)) {
        activation(O, Recomputed[slot(O.Kind)]);
        continue;
      }
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
      if (O.Kind == OpKind::MoeRouter || O.Kind == OpKind::LoraA ||
          O.Kind == OpKind::LoraB) {
        Out.push_back(O);
        continue;
      }
      linear(O);
    }
    B.Ops.swap(Out);
    // With ZeRO-3 a device keeps (and quantizes) its shard of the weights,
    // as it keeps its shard of the wide ones; the gathers then carry the
    // first quantized copy (FP8 parameter gather; Megatron-LM makes the
    // transposes after the gather).
    // (ZeRO-3 shards the routed experts over the devices holding the same
    // experts, the rest over those holding the same weights, as the memory
    // report does.)
    double Shard = Map.Zero >= 3 ? double(Map.weightReplicas()) : 1.0;
    double ExpertShard = Map.Zero >= 3 ? double(Map.expertReplicas()) : 1.0;
    auto Held = [&](double CacheTotals::*F) {
      return (Cache.*F - ExpertCache.*F) / Shard + ExpertCache.*F / ExpertShard;
    };
    B.QuantizedWeightBytes = Held(&CacheTotals::Bytes);
    BlockElements[Index] = Held(&CacheTotals::Elements);
    // Kept only quantized (narrow_params): no copy in the weights' format.
    B.NarrowWeights = R.NarrowParams ? BlockElements[Index] : 0;
    if (Map.Zero >= 3 && Cache.Elements > 0) {
      // Each gather carries its own group's weights: with the routed
      // experts gathered apart (the expert-data-parallel group, `edp`),
      // the experts' cache goes with theirs and the rest with the other.
      bool Apart = false;
      for (const Op &O : B.Ops)
        Apart |= O.Kind == OpKind::DpParamAllgather &&
                 O.Group == ParallelDim::EDP;
      for (Op &O : B.Ops)
        if (O.Kind == OpKind::DpParamAllgather && O.MessageBytes > 0) {
          // This gather's share of the cache: all of it, the experts', or
          // the rest.
          auto Own = [&](double CacheTotals::*F) {
            return !Apart ? Cache.*F
                   : O.Group == ParallelDim::EDP ? ExpertCache.*F
                                                 : Cache.*F - ExpertCache.*F;
          };
          double Cached = Own(&CacheTotals::Elements);
          double Carried = Own(&CacheTotals::GatherBytes);
          double Gathered = O.MessageBytes / WeightBytes; // elements
          double Rest = std::max(0.0, Gathered - Cached);
          O.MessageBytes = Rest * WeightBytes + Carried;
        }
    }
  }

  /// The weights a device holds of a linear layer's GEMM (experts: all its
  /// experts, not only those this micro-batch reaches).
  double weightElements(const Op &O) const {
    double W = double(O.K) * double(O.N);
    if (O.routedExpert() && P.Scenario.Model.Moe)
      return W * double(Map.expertsPerDevice(P.Scenario.Model.Moe->Experts));
    return W * double(O.Batch);
  }

  void linear(const Op &O) {
    Roles F = roles(O);
    // (Frozen weights: no weight-gradient GEMM reads a copy.)
    bool Fwd = narrow(F.Fwd), Dgrad = narrow(F.Dgrad),
         Wgrad = !Frozen && narrow(F.Wgrad);
    DType T = role(F, O.Ph);
    double Batch = double(O.Batch);
    double A = double(O.M) * double(O.K) * Batch; // input / output gradient
    double W = double(O.K) * double(O.N) * Batch; // weight / output gradient
    bool Forward = O.Ph == Phase::Forward || O.Ph == Phase::Recompute;
    if (Forward && (Fwd || Wgrad)) {
      // The input, for this GEMM and (a copy kept or made again) for the
      // weight gradient. With SP a column-parallel input is cast on its
      // shard before the all-gather, which then carries the copy.
      double Elements = A;
      DType First = Fwd ? F.Fwd : F.Wgrad;
      // (A parallel block's shared norm: the MLP's up-projection reads the
      // input the attention's projection cast; no cast, no gather of its
      // own.)
      bool Shared = O.Kind == OpKind::MlpUp && P.Scenario.Model.SharedNorm;
      // (An adapted layer's gather without userbuffers carries the norm's
      // output wide, the adapter's input too: Transformer Engine's
      // return_layernorm_output_gathered, which LoRA sets then.)
      bool WideGather = adapted(O) && !Map.TpOverlap;
      if (!Shared && !WideGather && R.NarrowGather && SP &&
          narrowGather(OpKind::TpAllgather, R.copyBytes(First)))
        Elements /= double(Map.Tp);
      // (An adapted layer's norm returns its output wide for the adapter,
      // and the input is cast apart: Transformer Engine's LayerNormLinear
      // with return_layernorm_output, which LoRA's adapters set.)
      if (!Shared)
        cast(Out, OpKind::QuantInput, O.Ph, First,
             Fwd ? when(Wgrad, F.Wgrad) : std::nullopt, Elements, Wide,
             Fwd && R.FusedInput && hasKindTrait(O.Kind, KindNormedInput) &&
                 !adapted(O));
      if (!R.WeightCache)
        cast(Out, OpKind::QuantWeight, O.Ph, when(Fwd, F.Fwd), std::nullopt,
             W, WeightBytes, false);
    } else if (O.Ph == Phase::BackwardData && (Dgrad || Wgrad)) {
      // The output gradient, for this GEMM and the weight gradient.
      cast(Out, OpKind::QuantGrad, O.Ph, Dgrad ? F.Dgrad : F.Wgrad,
           Dgrad ? when(Wgrad, F.Wgrad) : std::nullopt, A, Wide, false);
      if (!R.WeightCache)
        cast(Out, OpKind::QuantWeight, O.Ph, when(Dgrad, F.Dgrad),
             std::nullopt, W, WeightBytes, false);
      // Weights kept only in their first copy: the second (Hopper's
      // transpose) made from it for this GEMM, and dropped after.
      if (Dgrad && Fwd && R.WeightCache && !R.CacheTransposes)
        Out.push_back(pointwise(OpKind::QuantWeight, O.Ph, F.Dgrad, 1, W,
                                traffic(R.copyBytes(F.Fwd),
                                        R.copyBytes(F.Dgrad))));
    } else if (O.Ph == Phase::BackwardWeight && Wgrad && R.SaveNarrow &&
               R.NarrowGather && SP) {
      // The kept input is the quantized shard: its re-gather carries it.
      narrowGather(OpKind::TpAllgatherInput, R.copyBytes(F.Wgrad));
    }
    if (R.WeightCache && O.Ph == Phase::Forward && (Fwd || Dgrad)) {
      // The weights the step's cache keeps: one copy per GEMM that reads
      // them narrow (frozen ones too when only their input gradient does).
      double Elements = weightElements(O);
      std::optional<DType> Copy1 = when(Fwd, F.Fwd), Copy2 = when(Dgrad, F.Dgrad);
      if (!Copy1)
        std::swap(Copy1, Copy2);
      int64_t Copies = Copy2 && R.CacheTransposes ? R.Copies : 1;
      double Bytes = Elements * (R.copyBytes(*Copy1) +
                                 double(Copies - 1) *
                                     R.copyBytes(Copy2 ? *Copy2 : *Copy1));
      double GatherBytes = Elements * R.copyBytes(*Copy1);
      Cache.add(Elements, Bytes, GatherBytes);
      if (O.routedExpert())
        ExpertCache.add(Elements, Bytes, GatherBytes);
    }
    if (!narrow(T)) {
      Out.push_back(O);
      return;
    }
    Op G = O;
    double Operands = Batch * (double(O.M) * double(O.K) * O.ABytes +
                               double(O.K) * double(O.N) * O.BBytes);
    G.BytesRead += A * R.copyBytes(T) + W * R.copyBytes(T) - Operands;
    G.BytesRead = std::max(0.0, G.BytesRead);
    G.Type = T;
    G.ABytes = G.BBytes = float(R.copyBytes(T));
    // (Under recompute = ops or dots a GEMM keeps its output, in 16 bits,
    // not its input.)
    if (O.Ph == Phase::Forward && G.SavedBytes > 0 && O.ABytes > 0 &&
        !Map.keepsOutputs()) {
      double Kept = R.SaveNarrow && Wgrad ? R.copyBytes(F.Wgrad) : O.ABytes;
      G.SavedBytes *= Kept / O.ABytes;
    }
    Out.push_back(G);
    // Row scales applied after a backward GEMM run with per-tensor ones:
    // its output read and written again.
    if (R.RescaleBackward &&
        (O.Ph == Phase::BackwardData || O.Ph == Phase::BackwardWeight))
      Out.push_back(pointwise(OpKind::QuantRescale, O.Ph, Map.Precision, Wide,
                              double(O.M) * double(O.N) * Batch,
                              PointwiseModel()));
  }

  /// Cached weights: quantized once per step, after the optimizer has
  /// updated them, for the stage holding the most (its shard with ZeRO-3).
  void cacheWeights() {
    Block *Opt = P.block(BlockKind::Optimizer);
    if (!Opt || !R.WeightCache)
      return;
    // Frozen weights kept only quantized (LoRA over weights created in the
    // recipe's format, Transformer Engine's fp8_model_init): the cache is
    // the weights themselves, quantized once before training, never again.
    if (Frozen && R.NarrowParams)
      return;
    double Bytes = 0, Elements = 0;
    for (const Stage &St : P.Stages) {
      double HereBytes = 0, HereElements = 0;
      for (const Block &B : P.Blocks)
        if (modelBlock(B) && B.QuantizedWeightBytes > 0) {
          HereBytes += double(St.holds(B.Kind)) * B.QuantizedWeightBytes;
          HereElements +=
              double(St.holds(B.Kind)) * BlockElements[&B - P.Blocks.data()];
        }
      if (HereBytes > Bytes) {
        Bytes = HereBytes;
        Elements = HereElements;
      }
    }
    if (Bytes <= 0)
      return;
    Op C = pointwise(OpKind::QuantWeight, Phase::Optimizer, R.Forward, 1,
                     Elements,
                     traffic(WeightBytes * (R.AmaxPass ? 2 : 1), 0));
    C.BytesWritten = Bytes; // the cache, in the recipe's formats
    Opt->Ops.push_back(C);
  }

  Program &P;
  const MappingConfig &Map;
  const RecipeConfig &R;
  double Wide, WeightBytes;
  bool SP;
  /// The base weights are frozen (LoRA adapters beside them).
  bool Frozen;
  /// Elements a device keeps of the last forward MLP activation's input
  /// (dense, routed experts, shared experts), for its backward cast
  /// (activation_store).
  double SavedActivation[Slots] = {};
  /// The up-projections' outputs (by slot) a device computes
  /// last in forward: the activations' inputs.
  double UpElements[Slots] = {};
  std::vector<Op> Out;
  /// What a block's weight cache keeps per repeat (before ZeRO-3's
  /// sharding): elements, bytes (every copy), and of those the first
  /// copy's, which a ZeRO-3 gather carries (the other layouts are made
  /// from it after the gather).
  struct CacheTotals {
    double Elements = 0, Bytes = 0, GatherBytes = 0;
    void add(double E, double B, double G) {
      Elements += E;
      Bytes += B;
      GatherBytes += G;
    }
  };
  /// The block at hand's, and of it the routed experts' (sharded apart
  /// under ZeRO-3).
  CacheTotals Cache, ExpertCache;
  /// Per block of the program: the weight elements a device caches per
  /// repeat.
  std::vector<double> BlockElements;
};

} // namespace

// After partition (the pass's contract): the casts are sized from the
// shapes one device runs.
bool quantize(Program &P, PassContext & /*Ctx*/) {
  for (Block &B : P.Blocks)
    B.QuantizedWeightBytes = B.NarrowWeights = 0;
  const MappingConfig &Map = P.Scenario.Mapping;
  if (!P.Scenario.Training || !Map.Recipe)
    return true;
  Quantizer(P).run();
  return true;
}

} // namespace passes
} // namespace llmsys
