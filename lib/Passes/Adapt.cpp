//===- Adapt.cpp - fine-tuning: frozen weights and LoRA adapters ------------===//
//
// With `finetune = lora` or `qlora` (Hu et al. 2021; Dettmers et al. 2023)
// the model's weights are frozen: no weight-gradient GEMM runs for them
// (the data gradients still flow through every layer), no linear layer
// keeps its input for one, and the embedding table gets no gradient.
// Beside each targeted linear layer W (in x out) a rank-r adapter adds
// B(A(x)): forward two GEMMs (x A: rows x in x r, then rows x r x out),
// backward four (dB = (xA)^T dY, d(xA) = dY B^T, dA = x^T d(xA), and
// d(xA) A^T added to dX). Only the adapters train: their parameters are
// the blocks' trainable ones (gradients, optimizer state and the
// data-parallel reduction count them alone). Every adapter of a layer TP
// splits has B's outputs split over the TP group (NeMo's linear_out is
// column-parallel); a row-parallel layer's adapter splits A's inputs too,
// as the layer does, and a column-parallel one's A is whole on every
// device (its collectives: partition). QLoRA keeps the frozen weights in 4-bit NormalFloat and
// dequantizes each to 16 bits before every GEMM that reads it (forward and
// data gradient; bitsandbytes' Linear4bit), except the LM head, which
// QLoRA keeps in 16 bits.
//
//===----------------------------------------------------------------------===//

#include "Passes/OpBuilder.h"
#include "Passes/Passes.h"

#include <optional>

namespace llmsys {
namespace passes {

using namespace ir;

namespace {

class Adapter {
public:
  Adapter(const ScenarioConfig &S) : S(S), F(S.Finetune), R(F.Rank) {}

  void run(Block &B) {
    std::vector<Op> Out;
    Out.reserve(B.Ops.size() + B.Ops.size() / 2);
    double Trainable = 0;
    for (const Op &O : B.Ops) {
      bool Weights = hasWeightMatrix(O.Kind); // a contraction (OpKinds.def)
      std::optional<LoraTarget> T = loraTarget(O.Kind);
      bool Adapted = Weights && T && F.targets(*T) && O.Batch >= 1;
      // Frozen: no weight gradient, for the linear layers and the
      // embedding table.
      if (O.Ph == Phase::BackwardWeight &&
          (Weights || O.Kind == OpKind::EmbedLookup))
        continue;
      if (Weights && F.Kind == FinetuneKind::Qlora && O.Kind != OpKind::LmHead &&
          (O.Ph == Phase::Forward || O.Ph == Phase::BackwardData))
        Out.push_back(dequantize(O));
      if (O.Ph == Phase::Forward && Weights) {
        Op Base = O;
        // Its input was kept for its weight gradient; an adapter's A
        // needs it still.
        if (!Adapted)
          Base.SavedBytes = 0;
        Out.push_back(Base);
        if (Adapted) {
          forward(O, Out);
          Trainable += double(R) * double(O.K + O.N) * double(O.Batch);
        }
        continue;
      }
      Out.push_back(O);
      if (O.Ph == Phase::BackwardData && Adapted)
        backward(O, Out);
    }
    B.Ops = std::move(Out);
    // The adapters are parameters of the block too.
    B.Params += Trainable;
    B.Trainable = Trainable;
  }

private:
  /// The 16-bit copy of a 4-bit weight (K x N, Batch of them) that the
  /// GEMM then reads.
  Op dequantize(const Op &G) const {
    // The weight is the GEMM's B operand in forward (K x N) and in the
    // data gradient (dX = dY W^T: its K x N is the forward's N x K).
    double Elements = double(G.K) * double(G.N) * double(G.Batch);
    Op D = pointwise(OpKind::QloraDequant, G.Ph, DType::BF16, 1, Elements,
                     traffic(F.baseBytes(), G.BBytes));
    D.TpAxis = Axis::None;
    // Split over the TP group as the weight is.
    D.SequenceRegion = G.SequenceRegion;
    return D;
  }

  /// A (in x r) and B (r x out) after the forward GEMM G (rows x in x out).
  void forward(const Op &G, std::vector<Op> &Out) const {
    bool Column = G.TpAxis == Axis::N, Row = G.TpAxis == Axis::K;
    Op A = gemm(OpKind::LoraA, Phase::Forward, G.Type, G.ABytes, G.ABytes,
                G.M, R, G.K);
    A.TpAxis = Row ? Axis::K : Axis::None;
    Op B = gemm(OpKind::LoraB, Phase::Forward, G.Type, G.ABytes, G.ABytes,
                G.M, G.N, R);
    // (B's outputs split over the TP group for both kinds of layer, as
    // NeMo's linear_out is column-parallel; a row-parallel layer's adapter
    // then hands them back to the sequence shards: partition.)
    B.TpAxis = Column || Row ? Axis::N : Axis::None;
    // B's output is added to the base GEMM's in its epilogue.
    B.BytesRead += double(G.M) * G.N * G.ABytes;
    B.SavedBytes = double(G.M) * R * G.ABytes; // x A, for dB
    for (Op *X : {&A, &B}) {
      X->TokenAxis = Axis::M;
      X->SequenceRegion = G.SequenceRegion;
      X->SavedInSequenceRegion = false;
    }
    Out.push_back(A);
    Out.push_back(B);
  }

  /// The adapter's backward after the base data gradient DX of a layer
  /// whose forward was rows x in x out (DX is rows x out x in).
  void backward(const Op &DX, std::vector<Op> &Out) const {
    int64_t Rows = DX.M, In = DX.N, OutF = DX.K;
    // The forward's TP split: DX's axes are the forward's swapped.
    bool Column = DX.TpAxis == Axis::K, Row = DX.TpAxis == Axis::N;
    // An adapter GEMM in DX's format, split over TP on Tp when Split.
    auto Gemm = [&](OpKind Kind, Phase Ph, int64_t M, int64_t N, int64_t K,
                    bool Split, Axis Tp, Axis Tokens) {
      Op G = gemm(Kind, Ph, DX.Type, DX.ABytes, DX.ABytes, M, N, K);
      G.TpAxis = Split ? Tp : Axis::None;
      G.TokenAxis = Tokens;
      return G;
    };
    Op DB = Gemm(OpKind::LoraB, Phase::BackwardWeight, R, OutF, Rows,
                 Column || Row, Axis::N, Axis::K);
    Op DXA = Gemm(OpKind::LoraB, Phase::BackwardData, Rows, R, OutF,
                  Column || Row, Axis::K, Axis::M);
    Op DA = Gemm(OpKind::LoraA, Phase::BackwardWeight, In, R, Rows, Row,
                 Axis::M, Axis::K);
    Op DXIn = Gemm(OpKind::LoraA, Phase::BackwardData, Rows, In, R, Row,
                   Axis::N, Axis::M);
    // Added into the base layer's input gradient in its epilogue.
    DXIn.BytesRead += double(Rows) * In * DX.ABytes;
    for (Op *X : {&DB, &DXA, &DA, &DXIn}) {
      X->SequenceRegion = DX.SequenceRegion;
      Out.push_back(*X);
    }
  }

  const ScenarioConfig &S;
  const FinetuneConfig &F;
  int64_t R;
};

template <DiagID ID, typename... Args>
bool fail(PassContext &Ctx, llvm::SMRange R, const Args &...A) {
  if (Ctx.Diags)
    Ctx.Diags->report<ID>(R, A...);
  return false;
}

} // namespace

bool adapt(Program &P, PassContext &Ctx) {
  const ScenarioConfig &S = P.Scenario;
  const FinetuneConfig &F = S.Finetune;
  if (!S.Training)
    return true;
  std::string Kind = finetuneName(F.Kind).str();
  if (!F.adapters()) {
    if (F.Rank > 0)
      return fail<DiagID::err_finetune_field>(Ctx, F.RankLoc, "rank", Kind);
    if (F.AllToAll)
      return fail<DiagID::err_finetune_field>(Ctx, F.AllToAllLoc,
                                              "all_to_all", Kind);
    return true;
  }
  if (F.Rank <= 0)
    return fail<DiagID::err_finetune_rank>(Ctx, F.Loc, Kind);
  // (LoRA beside a recipe: the quantize pass runs the frozen layers'
  // GEMMs in its formats and leaves the adapters wide.)
  if (S.Mapping.Recipe && F.Kind == FinetuneKind::Qlora)
    return fail<DiagID::err_finetune_recipe>(Ctx, S.Mapping.Locs.Recipe, Kind,
                                             S.Mapping.Recipe->Name);
  Adapter A(S);
  for (Block &B : P.Blocks)
    if (B.inModel())
      A.run(B);
  return true;
}

} // namespace passes
} // namespace llmsys
