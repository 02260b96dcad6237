//===- Program.cpp - printing, totals and verification of programs --------===//

#include "IR/Program.h"

#include "llvm/Support/ErrorHandling.h"
#include <bitset>
#include <cmath>
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace ir {

StringRef opName(OpKind K) {
  // Lengths counted at compile time: the report tables ask for every op's
  // name at every evaluation.
  static constexpr StringRef Names[] = {
#define OP_KIND(Id, Name, Category, Traits, Lora) Name,
#include "IR/OpKinds.def"
  };
  return Names[static_cast<unsigned>(K)];
}

std::optional<LoraTarget> loraTarget(OpKind K) {
  // Index 0: not adapted; otherwise the target's enumerator plus one.
  enum : uint8_t { None = 0, Qkv, Out, Up, Down };
  static_assert(Qkv - 1 == uint8_t(LoraTarget::Qkv) &&
                    Out - 1 == uint8_t(LoraTarget::Out) &&
                    Up - 1 == uint8_t(LoraTarget::Up) &&
                    Down - 1 == uint8_t(LoraTarget::Down),
                "OpKinds.def's Lora column follows LoraTarget");
  static const uint8_t Targets[] = {
#define OP_KIND(Id, Name, Category, Traits, Lora) Lora,
#include "IR/OpKinds.def"
  };
  uint8_t T = Targets[static_cast<unsigned>(K)];
  if (T == None)
    return std::nullopt;
  return static_cast<LoraTarget>(T - 1);
}

std::optional<QuantizedPart> quantizedPart(OpKind K) {
  switch (K) {
#define QUANTIZED_PART(Id, Part)                                               \
  case OpKind::Id:                                                             \
    return QuantizedPart::Part;
#include "IR/OpKinds.def"
  default:
    return std::nullopt;
  }
}

StringRef categoryName(OpCategory C) {
  switch (C) {
  case OpCategory::Contraction: return "contraction";
  case OpCategory::Normalization: return "norm";
  case OpCategory::Elementwise: return "elementwise";
  case OpCategory::Memory: return "memory";
  case OpCategory::Communication: return "comm";
  }
  llvm_unreachable("unknown category");
}

StringRef phaseName(Phase P) {
  switch (P) {
  case Phase::Forward: return "fwd";
  case Phase::BackwardData: return "bwd-data";
  case Phase::BackwardWeight: return "bwd-weight";
  case Phase::Recompute: return "recompute";
  case Phase::Optimizer: return "optimizer";
  case Phase::Prefill: return "prefill";
  case Phase::Decode: return "decode";
  }
  llvm_unreachable("unknown phase");
}

StringRef parallelDimName(ParallelDim D) {
  switch (D) {
  case ParallelDim::None: return "none";
  case ParallelDim::TP: return "tp";
  case ParallelDim::SP: return "sp";
  case ParallelDim::CP: return "cp";
  case ParallelDim::PP: return "pp";
  case ParallelDim::DP: return "dp";
  case ParallelDim::EP: return "ep";
  case ParallelDim::ETP: return "etp";
  case ParallelDim::EDP: return "edp";
  }
  llvm_unreachable("unknown parallel dimension");
}

StringRef collectiveName(CollectiveKind K) {
  switch (K) {
  case CollectiveKind::None: return "none";
  case CollectiveKind::AllReduce: return "all-reduce";
  case CollectiveKind::AllGather: return "all-gather";
  case CollectiveKind::ReduceScatter: return "reduce-scatter";
  case CollectiveKind::AllToAll: return "all-to-all";
  case CollectiveKind::SendRecv: return "send-recv";
  }
  llvm_unreachable("unknown collective");
}

StringRef axisName(Axis A) {
  switch (A) {
  case Axis::None: return "none";
  case Axis::M: return "M";
  case Axis::N: return "N";
  case Axis::K: return "K";
  case Axis::Batch: return "batch";
  }
  llvm_unreachable("unknown axis");
}

StringRef attentionKernelName(AttentionKernel K) {
  switch (K) {
  case AttentionKernel::None:
    return "none";
  case AttentionKernel::Native:
    return "native";
  case AttentionKernel::FlashAttention2:
    return "flash_attention_2";
  }
  llvm_unreachable("unknown attention kernel");
}

StringRef blockKindName(BlockKind K) {
  switch (K) {
  case BlockKind::Embedding: return "embedding";
  case BlockKind::DenseLayer: return "layer";
  case BlockKind::MoELayer: return "moe-layer";
  case BlockKind::Head: return "head";
  case BlockKind::PipelineComm: return "pipeline-comm";
  case BlockKind::Optimizer: return "optimizer";
  }
  llvm_unreachable("unknown block kind");
}

const Block *Program::block(BlockKind K) const {
  for (const Block &B : Blocks)
    if (B.Kind == K)
      return &B;
  return nullptr;
}

Block *Program::block(BlockKind K) {
  for (Block &B : Blocks)
    if (B.Kind == K)
      return &B;
  return nullptr;
}

StageParamCounter::StageParamCounter(const Program &P) {
  for (const Block &B : P.Blocks) {
    Frozen |= B.Trainable >= 0;
    switch (B.Kind) {
    case BlockKind::Embedding:
      Embedding = B.Params;
      EmbeddingTrainable = B.trainable();
      break;
    case BlockKind::DenseLayer:
      Dense = B.Params;
      DenseWide = B.WideParams;
      DenseTrainable = B.trainable();
      break;
    case BlockKind::MoELayer:
      Moe = B.Params;
      MoeExperts = B.ExpertParams;
      MoeWide = B.WideParams;
      MoeTrainable = B.trainable();
      break;
    case BlockKind::Head:
      Head = B.Params;
      HeadTrainable = B.trainable();
      break;
    case BlockKind::PipelineComm:
    case BlockKind::Optimizer: break;
    }
  }
}

void markRepeatedStages(MutableArrayRef<Stage> Stages) {
  for (size_t I = 0; I < Stages.size(); ++I)
    Stages[I].RepeatsPrevious = I > 0 && Stages[I].sameBlocks(Stages[I - 1]);
}

FullestStage fullestStage(const Program &P) {
  StageParamCounter Count(P);
  FullestStage Most;
  for (const Stage &St : P.Stages) {
    // (A stage holding what the one before holds has its parameters.)
    if (St.RepeatsPrevious)
      continue;
    double Params = Count(St);
    if (Params > Most.Params) {
      Most.Params = Params;
      Most.Layers = St.DenseLayers + St.MoELayers;
      Most.DenseLayers = St.DenseLayers;
      Most.MoELayers = St.MoELayers;
      Most.ExpertParams = Count.experts(St);
      Most.Trainable = Count.trainable(St);
      Most.Frozen = Count.Frozen;
    }
  }
  return Most;
}

ProgramTotals totals(const Program &P, bool OnlyPhase, Phase Which) {
  ProgramTotals T;
  for (const Block &B : P.Blocks) {
    double R = static_cast<double>(B.Repeat);
    T.WeightParams += R * B.Params;
    for (const Op &O : B.Ops) {
      if (OnlyPhase && O.Ph != Which)
        continue;
      T.AllFlops += R * O.Flops;
      if (O.Category == OpCategory::Contraction) {
        T.HardwareFlops += R * O.Flops;
        if (O.ModelWork)
          T.ModelFlops += R * O.Flops;
      }
      if (!O.fused())
        T.BytesMoved += R * (O.BytesRead + O.BytesWritten);
      T.CommBytes += R * O.MessageBytes;
      T.SavedBytes += R * O.SavedBytes;
    }
  }
  return T;
}

static std::string num(double V) { return fmt::format("{:.4g}", V); }

static void printOp(const Op &O, raw_ostream &OS) {
  OS << "    " << fmt::format("{:<10} {:<22} {:<12}", phaseName(O.Ph).str(),
                              O.name(), categoryName(O.Category).str());
  if (O.isCollective()) {
    OS << collectiveName(O.Collective) << ' ' << parallelDimName(O.Group) << '/'
       << O.GroupSize << " level " << int(O.FabricLevel);
    if (O.FabricLevel > 0)
      OS << " per-node " << O.GroupPerNode;
    OS << " bytes " << num(O.MessageBytes);
    if (O.Overlappable)
      OS << " overlappable";
    OS << '\n';
    return;
  }
  if (O.Category == OpCategory::Contraction) {
    OS << "M=" << O.M << " N=" << O.N << " K=" << O.K;
    if (O.Batch != 1)
      OS << " x" << O.Batch;
    if (O.FusedAttention == AttentionKernel::Native)
      OS << " in-fused-attention";
    else if (O.inFusedAttention())
      OS << " in-fused-attention " << attentionKernelName(O.FusedAttention);
    if (O.Executed != 1)
      OS << " executed " << num(O.Executed);
    if (O.SparseWeight)
      OS << " sparse-weight";
    if (O.blockScaled())
      OS << " block-scaled";
    OS << ' ';
  }
  if (O.Window)
    OS << (O.chunked() ? "chunk " : "window ") << O.span() << ' ';
  if (double Share = O.share(); Share != 1)
    OS << "share " << num(Share) << ' ';
  OS << dtypeName(O.Type) << " flops " << num(O.Flops) << " read "
     << num(O.BytesRead) << " write " << num(O.BytesWritten);
  if (O.FlopsPerContext || O.BytesPerContext)
    OS << " per-context flops " << num(O.FlopsPerContext) << " bytes "
       << num(O.BytesPerContext);
  if (O.SavedBytes)
    OS << " saved " << num(O.SavedBytes);
  if (O.fused())
    OS << " fused-into " << opName(O.FusedInto);
  if (!O.ModelWork)
    OS << " not-model";
  OS << '\n';
}

void printProgram(const Program &P, raw_ostream &OS, bool ExpandLayers) {
  const ScenarioConfig &S = P.Scenario;
  const MappingConfig &M = S.Mapping;
  OS << "program " << S.Name << " (" << (S.Training ? "train" : "serve")
     << "): model " << S.Model.Name << ", " << (S.Training ? "micro-batch " : "batch ")
     << P.MicroBatch << " x " << P.SeqLen << " tokens";
  if (!S.Training)
    OS << ", output " << S.OutputLen;
  OS << '\n';
  OS << "  passes:";
  for (const std::string &N : P.Passes)
    OS << ' ' << N;
  OS << '\n';
  if (P.has(StatePartitioned)) {
    OS << "  mapping: dp " << M.Dp << " tp " << M.Tp << " pp " << M.Pp << " cp "
       << M.Cp << " ep " << M.Ep << (M.SequenceParallel ? " sp" : "")
       << " zero " << M.Zero
       << (M.DistributedOptimizer ? " distributed-optimizer" : "") << '\n';
    for (size_t I = 0; I < P.Stages.size(); ++I) {
      const Stage &St = P.Stages[I];
      // Stages that hold the same blocks print once, as a range.
      size_t J = I;
      while (J + 1 < P.Stages.size() && P.Stages[J + 1].RepeatsPrevious)
        ++J;
      OS << "  stage " << I;
      if (J != I)
        OS << ".." << J;
      OS << ": " << St.DenseLayers << " layers";
      if (St.MoELayers)
        OS << ", " << St.MoELayers << " moe-layers";
      if (St.MoELayers && !St.MoEChunks.empty()) {
        OS << " (by chunk";
        for (int64_t N : St.MoEChunks)
          OS << ' ' << N;
        OS << ')';
      }
      if (St.HasEmbedding)
        OS << ", embedding";
      if (St.HasHead)
        OS << ", head";
      OS << '\n';
      I = J;
    }
  }
  if (P.has(StateScheduled)) {
    const ScheduleInfo &Sc = P.Schedule;
    OS << "  schedule: " << scheduleName(Sc.Kind) << ", " << Sc.MicroBatches
       << " micro-batches";
    if (Sc.VirtualStages > 1)
      OS << ", " << Sc.VirtualStages << " virtual stages";
    OS << ", bubble " << num(Sc.BubbleFraction) << ", in flight (first stage) "
       << num(P.Stages.empty() ? 1.0 : P.Stages.front().InFlight);
    if (Sc.DecodeSteps)
      OS << ", decode steps " << Sc.DecodeSteps;
    OS << '\n';
  }
  for (const Block &B : P.Blocks) {
    int64_t Shown = ExpandLayers ? B.Repeat : 1;
    for (int64_t I = 0; I < Shown; ++I) {
      OS << "  block " << blockKindName(B.Kind);
      if (ExpandLayers && B.Repeat > 1)
        OS << " #" << I;
      else
        OS << " x" << B.Repeat;
      OS << " params " << num(B.Params);
      if (B.QuantizedWeightBytes > 0)
        OS << " quantized-weights " << num(B.QuantizedWeightBytes) << " B";
      if (B.NarrowWeights > 0)
        OS << " narrow-weights " << num(B.NarrowWeights);
      OS << '\n';
      for (const Op &O : B.Ops)
        printOp(O, OS);
    }
  }
  // Totals with six significant digits: tests compare them with closed
  // forms to 0.1%.
  ProgramTotals T = totals(P);
  auto Six = [](double V) { return fmt::format("{:.6g}", V); };
  OS << "  totals: model-flops " << Six(T.ModelFlops) << " hardware-flops "
     << Six(T.HardwareFlops) << " bytes " << Six(T.BytesMoved)
     << " comm-bytes " << Six(T.CommBytes) << " saved " << Six(T.SavedBytes)
     << " params " << Six(T.WeightParams) << '\n';
  if (P.Scenario.Training) {
    // Per repeat of a layer block: what one layer keeps for backward.
    for (const Block &B : P.Blocks)
      if (B.Kind == BlockKind::DenseLayer || B.Kind == BlockKind::MoELayer) {
        double Saved = 0;
        for (const Op &O : B.Ops)
          Saved += O.SavedBytes;
        OS << "  saved per " << blockKindName(B.Kind) << ": " << Six(Saved)
           << " bytes\n";
      }
  }
}

bool isAttentionProduct(const Op &O) {
  if (O.Category != OpCategory::Contraction)
    return false;
  return hasKindTrait(O.Kind, KindAttentionProduct) || O.inFusedAttention();
}

std::string verifyProgram(const Program &P) {
  const MappingConfig &M = P.Scenario.Mapping;
  // The state the passes claim (ProgramState) against what the program
  // holds.
  if (P.has(StateExpanded) == P.Blocks.empty())
    return P.Blocks.empty() ? "an expanded program has no blocks"
                            : "blocks before expand-layers";
  if (P.has(StatePartitioned) == P.Stages.empty())
    return P.Stages.empty() ? "a partitioned program has no stages"
                            : "stages before partition";
  if ((P.has(StateQuantized) || P.has(StateScheduled)) &&
      !P.has(StatePartitioned))
    return "quantized or scheduled before partition";
  if (P.has(StateScheduled) && P.Schedule.MicroBatches < 1)
    return "a scheduled program has no micro-batches";
  auto Finite = [](double V) { return V >= 0 && std::isfinite(V); };
  // (What a program read from text may say: the passes never write it.)
  if (P.MicroBatch < 1 || P.DecodeBatch < 1 || P.SeqLen < 0)
    return fmt::format("a micro-batch of {} ({} in decode) x {} tokens",
                       P.MicroBatch, P.DecodeBatch, P.SeqLen);
  if (P.Schedule.VirtualStages < 1 || P.Schedule.DecodeSteps < 0 ||
      !Finite(P.Schedule.BubbleFraction))
    return "a schedule with no virtual stage, negative decode steps or a "
           "negative or non-finite bubble";
  for (const Stage &S : P.Stages) {
    if (S.DenseLayers < 0 || S.MoELayers < 0 || !(S.InFlight >= 1) ||
        !std::isfinite(S.InFlight))
      return fmt::format("a stage of {} + {} layers with {} micro-batches in "
                         "flight",
                         S.DenseLayers, S.MoELayers, S.InFlight);
    // Each chunk within the stage's MoE layers (so the sum cannot
    // overflow), one per virtual stage.
    int64_t Chunked = 0;
    for (int64_t N : S.MoEChunks)
      Chunked = N < 0 || N > S.MoELayers || Chunked < 0 ? -1 : Chunked + N;
    if (!S.MoEChunks.empty() &&
        (Chunked != S.MoELayers ||
         int64_t(S.MoEChunks.size()) != P.Scenario.Mapping.VirtualStages))
      return fmt::format("a stage of {} MoE layers whose {} chunks hold {} "
                         "({} virtual stages)",
                         S.MoELayers, S.MoEChunks.size(), Chunked,
                         P.Scenario.Mapping.VirtualStages);
  }
  for (size_t I = 0; I < P.Stages.size(); ++I) {
    const bool Repeats = I > 0 && P.Stages[I].sameBlocks(P.Stages[I - 1]);
    if (P.Stages[I].RepeatsPrevious != Repeats)
      return fmt::format("stage {} {} the blocks of the stage before but is "
                         "{}marked so",
                         I, Repeats ? "holds" : "does not hold",
                         Repeats ? "not " : "");
  }
  // One block of each kind: Program::block finds it, and the cost model
  // keeps one time per kind.
  std::bitset<NumBlockKinds> Seen;
  for (const Block &B : P.Blocks) {
    if (Seen.test(static_cast<size_t>(B.Kind)))
      return fmt::format("block {} appears twice", blockKindName(B.Kind).str());
    Seen.set(static_cast<size_t>(B.Kind));
    if (B.Repeat < 0)
      return fmt::format("block {} repeats {} times", blockKindName(B.Kind).str(),
                         B.Repeat);
    if (!Finite(B.Params) || !Finite(B.ExpertParams) || !Finite(B.WideParams) ||
        !Finite(B.QuantizedWeightBytes) || !Finite(B.NarrowWeights) ||
        !(B.Trainable >= -1) ||
        !std::isfinite(B.Trainable))
      return fmt::format("block {} has a negative or non-finite parameter "
                         "count",
                         blockKindName(B.Kind).str());
    if (B.WideParams > B.Params * (1 + 1e-9))
      return fmt::format("block {} keeps {} parameters in the precision of "
                         "its {}",
                         blockKindName(B.Kind).str(), B.WideParams, B.Params);
    for (const Op &O : B.Ops) {
      if (O.Category != opCategory(O.Kind))
        return fmt::format("op {} is {}, not {} as its kind is", O.name(),
                           categoryName(O.Category).str(),
                           categoryName(opCategory(O.Kind)).str());
      if ((O.Category == OpCategory::Communication) != O.isCollective())
        return fmt::format("op {} is {} but {} a collective", O.name(),
                           categoryName(O.Category).str(),
                           O.isCollective() ? "is" : "is not");
      for (double V : {O.Flops, O.BytesRead, O.BytesWritten, O.FlopsPerContext,
                       O.BytesPerContext, O.SavedBytes, O.MessageBytes,
                       double(O.ABytes), double(O.BBytes)})
        if (!Finite(V))
          return fmt::format("op {} has a negative or non-finite count", O.name());
      // (A windowed kernel may perform more than the window's products:
      // whole key blocks. A negative window is a chunk.)
      if (!Finite(O.Executed) || O.GroupPerNode < 0)
        return fmt::format("op {} executes {} of its work over a window of {}",
                           O.name(), O.Executed, O.Window);
      if (O.Category == OpCategory::Contraction) {
        if (O.M <= 0 || O.N <= 0 || O.K <= 0 || O.Batch <= 0)
          return fmt::format("op {} has a non-positive shape {}x{}x{} x{}",
                             O.name(), O.M, O.N, O.K, O.Batch);
        double Expected = 2.0 * O.M * O.N * O.K * O.Batch;
        // Decode attention scales with the context: its shape is per token
        // of context. Only attention products stand for part of a block's
        // layers (a layer pattern, Op::share).
        double Actual = O.FlopsPerContext > 0 ? O.FlopsPerContext : O.Flops;
        bool Part = isAttentionProduct(O) && Actual > 0 &&
                    Actual <= Expected * (1 + 1e-9);
        if (!Part && std::fabs(Actual - Expected) > 1e-9 * Expected)
          return fmt::format("op {}: {} FLOPs for shape {}x{}x{} x{}", O.name(),
                             O.Flops, O.M, O.N, O.K, O.Batch);
      }
      if (O.isCollective()) {
        int64_t Size = 0;
        switch (O.Group) {
        case ParallelDim::TP:
        case ParallelDim::SP: Size = M.Tp; break;
        case ParallelDim::CP: Size = M.Cp; break;
        case ParallelDim::PP: Size = 2; break; // a send/recv pair
        case ParallelDim::DP: Size = M.weightReplicas(); break;
        case ParallelDim::EP: Size = M.Ep; break;
        case ParallelDim::ETP: Size = M.ExpertTp; break;
        case ParallelDim::EDP: Size = M.expertReplicas(); break;
        case ParallelDim::None: Size = 0; break;
        }
        if (O.GroupSize != Size || Size < 2)
          return fmt::format("collective {} spans {} devices of {} group of {}",
                             O.name(), O.GroupSize, parallelDimName(O.Group).str(),
                             Size);
      }
    }
  }
  if (P.has(StatePartitioned)) {
    int64_t Dense = 0, Moe = 0;
    int Embeddings = 0, Heads = 0;
    for (const Stage &S : P.Stages) {
      Dense += S.DenseLayers;
      Moe += S.MoELayers;
      Embeddings += S.HasEmbedding;
      Heads += S.HasHead;
    }
    // Training adds the multi-token-prediction modules' layers.
    const ModelConfig &Mo = P.Scenario.Model;
    int64_t Layers = Mo.Layers + (P.Scenario.Training ? Mo.MtpLayers : 0);
    if (Dense + Moe != Layers || Embeddings != 1 || Heads != 1)
      return fmt::format("stages hold {} + {} layers, {} embeddings, {} heads",
                         Dense, Moe, Embeddings, Heads);
  }
  return "";
}

} // namespace ir
} // namespace llmsys
