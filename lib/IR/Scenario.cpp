//===- Scenario.cpp - typed views of mappings, systems, scenarios ----------===//

#include "IR/Scenario.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include <array>
#include <cmath>

using namespace llvm;

namespace llmsys {
namespace ir {

#define LLMSYS_ENUM_WORD(Id, Word) StringLiteral(Word),
#define LLMSYS_WORDS_OF(Type, List)                                            \
  template <> ArrayRef<StringLiteral> enumWords<Type>() {                      \
    static constexpr StringLiteral Words[] = {List(LLMSYS_ENUM_WORD)};         \
    return Words;                                                              \
  }
LLMSYS_WORDS_OF(DType, LLMSYS_DTYPE_WORDS)
LLMSYS_WORDS_OF(Recompute, LLMSYS_RECOMPUTE_WORDS)
LLMSYS_WORDS_OF(ScheduleKind, LLMSYS_SCHEDULE_WORDS)
LLMSYS_WORDS_OF(ArrivalKind, LLMSYS_ARRIVAL_WORDS)
LLMSYS_WORDS_OF(LengthDistribution, LLMSYS_LENGTHS_WORDS)
LLMSYS_WORDS_OF(FinetuneKind, LLMSYS_FINETUNE_WORDS)
LLMSYS_WORDS_OF(Topology, LLMSYS_TOPOLOGY_WORDS)
LLMSYS_WORDS_OF(LoraTarget, LLMSYS_LORA_TARGET_WORDS)
#undef LLMSYS_WORDS_OF
#undef LLMSYS_ENUM_WORD

DType dtypeFromWord(StringRef W) { return checkedEnum<DType>(W); }

StringRef dtypeName(DType T) { return enumWord(T); }

double dtypeBytes(DType T) {
  switch (T) {
  case DType::FP64: return 8;
  case DType::FP32:
  case DType::TF32: return 4;
  case DType::BF16:
  case DType::FP16: return 2;
  case DType::FP8:
  case DType::INT8: return 1;
  case DType::INT4:
  case DType::FP4: return 0.5;
  }
  llvm_unreachable("unknown dtype");
}

StringRef recomputeName(Recompute R) { return enumWord(R); }

StringRef scheduleName(ScheduleKind S) { return enumWord(S); }

using spec::integerOf;
using spec::numberOf;
using spec::wordOf;

/// Where a field was written, else the object's declaration.
static SMRange locOf(const spec::Object &O, const spec::Field *F) {
  return !F || F->From == spec::Origin::Default ? O.DeclRange : F->Loc;
}

static int64_t integer(const spec::Object &O, StringRef Path, int64_t Or = 0) {
  return integerOf(O.path(Path), Or);
}

static SMRange loc(const spec::Object &O, StringRef Path) {
  return locOf(O, O.path(Path));
}

MappingConfig mappingFromSpec(const spec::Object &M) {
  MappingConfig C;
  using MF = MappingField;
  // The fields read for a value and a location, each looked up once.
  const spec::Field *Dp = M.ifSet(MF::Dp), *Tp = M.ifSet(MF::Tp),
                    *Pp = M.ifSet(MF::Pp), *Cp = M.ifSet(MF::Cp),
                    *Ep = M.ifSet(MF::Ep),
                    *MicroBatch = M.ifSet(MF::MicroBatch),
                    *GlobalBatch = M.ifSet(MF::GlobalBatch),
                    *Kind = M.ifSet(MF::Schedule, ScheduleField::Kind),
                    *Virtual =
                        M.ifSet(MF::Schedule, ScheduleField::VirtualStages),
                    *Offload = M.ifSet(MF::Offload),
                    *Gradients = M.ifSet(MF::Gradients),
                    *Activations = M.ifSet(MF::Activations),
                    *Recipe = M.ifSet(MF::Recipe),
                    *TpOverlapBackward = M.ifSet(MF::TpOverlapBackward),
                    *EpOverlap = M.ifSet(MF::EpOverlap),
                    *StageLayers = M.ifSet(MF::StageLayers),
                    *ExpertTp = M.ifSet(MF::ExpertTp),
                    *Sparse = M.ifSet(MF::SparseWeights),
                    *FirstStage = M.ifSet(MF::FirstStageLayers),
                    *LastStage = M.ifSet(MF::LastStageLayers);
  C.Dp = integerOf(Dp, 1);
  C.Tp = integerOf(Tp, 1);
  C.Pp = integerOf(Pp, 1);
  C.Cp = integerOf(Cp, 1);
  C.Ep = integerOf(Ep, 1);
  // Unset, expert_tp follows tp (also where a sweep sets tp).
  C.ExpertTpWritten = ExpertTp != nullptr;
  C.ExpertTp = integerOf(ExpertTp, C.Tp);
  C.SequenceParallel = spec::boolOf(M.ifSet(MF::Sp), C.SequenceParallel);
  C.Zero = integerOf(M.ifSet(MF::Zero), 0);
  C.DistributedOptimizer =
      spec::boolOf(M.ifSet(MF::DistributedOptimizer), C.DistributedOptimizer);
  C.MicroBatch = integerOf(MicroBatch, 1);
  C.GlobalBatch = integerOf(GlobalBatch, 0);
  C.Schedule = checkedEnum<ScheduleKind>(wordOf(Kind));
  C.VirtualStages = integerOf(Virtual, 1);
  if (StageLayers)
    for (const spec::Value &N : StageLayers->V.elems())
      C.StageLayers.push_back(int64_t(N.Num));
  C.FirstStageLayers = integerOf(FirstStage, -1);
  C.LastStageLayers = integerOf(LastStage, -1);
  C.Recomp = checkedEnum<Recompute>(wordOf(M.ifSet(MF::Recompute)));
  C.Precision = dtypeFromWord(wordOf(M.ifSet(MF::Precision)));
  C.Weights = dtypeFromWord(wordOf(M.ifSet(MF::Weights)));
  C.Activations = dtypeFromWord(wordOf(Activations));
  C.KVCache = dtypeFromWord(wordOf(M.ifSet(MF::KvCache)));
  C.Gradients = dtypeFromWord(wordOf(Gradients));
  if (const spec::Field *F = M.ifSet(MF::Fusion))
    for (const spec::Value &W : F->V.elems()) {
      StringRef Word = W.str();
      C.Fusion.FlashAttention |= Word == "flash_attention";
      C.Fusion.BiasGelu |= Word == "bias_gelu";
      C.Fusion.BiasDropoutAdd |= Word == "bias_dropout_add";
      C.Fusion.Norm |= Word == "layernorm" || Word == "rmsnorm";
      C.Fusion.Softmax |= Word == "softmax";
      C.Fusion.SwiGLU |= Word == "swiglu";
      C.Fusion.Rope |= Word == "rope";
    }
  C.TpOverlap = spec::boolOf(M.ifSet(MF::TpOverlap), C.TpOverlap);
  if (EpOverlap)
    C.EpOverlap = EpOverlap->V.Bool;
  if (TpOverlapBackward) {
    C.TpOverlapBackward = TpOverlapBackward->V.Bool;
    C.TpOverlapBackwardWritten =
        TpOverlapBackward->From != spec::Origin::Default;
  }
  C.TpGradOverlap = spec::boolOf(M.ifSet(MF::TpGradOverlap), C.TpGradOverlap);
  C.DpOverlap = spec::boolOf(M.ifSet(MF::DpOverlap), C.DpOverlap);
  C.GradAccumulationFusion = spec::boolOf(M.ifSet(MF::GradAccumulationFusion),
                                          C.GradAccumulationFusion);
  const spec::Field *EpDispatch = M.ifSet(MF::EpDispatch);
  C.EpHierarchical = wordOf(EpDispatch) == "hierarchical";
  C.Locs.EpDispatch = locOf(M, EpDispatch);
  C.OffloadWeights = wordOf(Offload) == "weights";
  C.OffloadOptimizer = wordOf(Offload) == "optimizer";
  C.OffloadActivations = wordOf(Offload) == "activations";
  if (Activations)
    C.ActivationsWritten = Activations->From != spec::Origin::Default;
  if (const spec::Object *R = spec::objectOf(Recipe)) {
    using RF = RecipeField;
    auto Format = [&](RF F) { return wordOf(R->ifSet(F)); };
    auto Flag = [&](RF F, bool Or) { return spec::boolOf(R->ifSet(F), Or); };
    RecipeConfig Rc;
    Rc.Name = R->Name;
    Rc.Forward = dtypeFromWord(Format(RF::Forward));
    Rc.InputGradient = dtypeFromWord(Format(RF::InputGradient));
    Rc.WeightGradient = dtypeFromWord(Format(RF::WeightGradient));
    StringRef Attention = Format(RF::Attention), Head = Format(RF::Head);
    Rc.Attention = Attention.empty() ? C.Precision : dtypeFromWord(Attention);
    Rc.Head = Head.empty() ? C.Precision : dtypeFromWord(Head);
    Rc.Block = integerOf(R->ifSet(RF::Block), 0);
    Rc.Copies = integerOf(R->ifSet(RF::Copies), 1);
    Rc.AmaxPass = Flag(RF::AmaxPass, false);
    Rc.CastPerCopy = Flag(RF::CastPerCopy, false);
    Rc.WeightCache = Flag(RF::WeightCache, true);
    Rc.SaveNarrow = Flag(RF::SaveNarrow, true);
    Rc.FusedInput = Flag(RF::FusedInput, false);
    Rc.NarrowGather = Flag(RF::NarrowGather, true);
    Rc.RescaleBackward = Flag(RF::RescaleBackward, false);
    C.Recipe = std::move(Rc);
  }
  C.Locs.Dp = locOf(M, Dp);
  C.Locs.Tp = locOf(M, Tp);
  C.Locs.Pp = locOf(M, Pp);
  C.Locs.Cp = locOf(M, Cp);
  C.Locs.Ep = locOf(M, Ep);
  C.Locs.MicroBatch = locOf(M, MicroBatch);
  C.Locs.GlobalBatch = locOf(M, GlobalBatch);
  C.Locs.Schedule = locOf(M, Kind);
  C.Locs.VirtualStages = locOf(M, Virtual);
  C.Locs.Offload = locOf(M, Offload);
  C.Locs.Gradients = locOf(M, Gradients);
  // Activations default to the precision: point at what chose them.
  C.Locs.Activations = C.ActivationsWritten ? locOf(M, Activations)
                                            : locOf(M, M.ifSet(MF::Precision));
  C.Locs.Recipe = locOf(M, Recipe);
  C.Locs.TpOverlapBackward = locOf(M, TpOverlapBackward);
  C.Locs.EpOverlap = locOf(M, EpOverlap);
  C.Locs.StageLayers = locOf(M, StageLayers);
  C.Locs.ExpertTp = locOf(M, ExpertTp);
  C.Locs.SparseWeights = locOf(M, Sparse);
  C.SparseWeights = Sparse && Sparse->V.Bool;
  C.Locs.FirstStageLayers = locOf(M, FirstStage);
  C.Locs.LastStageLayers = locOf(M, LastStage);
  C.Locs.Decl = M.DeclRange;
  return C;
}

DType AcceleratorConfig::runsAs(DType T) const {
  // A format the device lacks runs at the next wider one of its kind:
  // floating point through the floating formats, integers through the
  // integer ones, both then through the 16-bit and wider formats.
  static const DType Float[] = {DType::FP4,  DType::FP8,  DType::FP16,
                                DType::BF16, DType::TF32, DType::FP32,
                                DType::FP64};
  static const DType Int[] = {DType::INT4, DType::INT8, DType::FP16,
                              DType::BF16, DType::TF32, DType::FP32,
                              DType::FP64};
  bool Integer = T == DType::INT4 || T == DType::INT8;
  bool Started = false;
  for (DType W : Integer ? Int : Float) {
    Started |= W == T;
    if (Started && Peak[static_cast<int>(W)] > 0)
      return W;
  }
  return T;
}

double AcceleratorConfig::peak(DType T) const {
  return Peak[static_cast<int>(runsAs(T))];
}

AcceleratorConfig::Rate AcceleratorConfig::rate(DType T) const {
  DType R = runsAs(T);
  double Efficiency = R == DType::FP8 || R == DType::INT8   ? NarrowEfficiency
                      : R == DType::FP4 || R == DType::INT4 ? Fp4Efficiency
                                                            : 1.0;
  return {Peak[static_cast<int>(R)], Efficiency};
}

static AcceleratorConfig acceleratorFromSpec(const spec::Object &A) {
  AcceleratorConfig C;
  C.Name = A.Name;
  // The peaks by format: the peak block has a field per DType, in its
  // order (Schema.def makes them from IR/Enums.def's list).
  static_assert(static_cast<int>(PeakField::FP4) + 1 == NumDTypes &&
                    static_cast<int>(PeakField::BF16) ==
                        static_cast<int>(DType::BF16),
                "a peak field per number format, in DType's order");
  for (int I = 0; I < NumDTypes; ++I)
    C.Peak[I] =
        numberOf(A.ifSet(AcceleratorField::Peak, static_cast<PeakField>(I)), 0);
  using AF = AcceleratorField;
  auto Hbm = [&](MemoryLevelField F) { return A.ifSet(AF::Hbm, F); };
  auto L2 = [&](OnChipField F) { return A.ifSet(AF::L2, F); };
  auto Eff = [&](EfficiencyField F, double Or) {
    return numberOf(A.ifSet(AF::Efficiency, F), Or);
  };
  C.HbmCapacity = numberOf(Hbm(MemoryLevelField::Capacity), 0);
  C.HbmBandwidth = numberOf(Hbm(MemoryLevelField::Bandwidth), 0);
  C.HbmLatency = numberOf(Hbm(MemoryLevelField::Latency), 0);
  C.L2Capacity = numberOf(L2(OnChipField::Capacity), 0);
  C.L2Bandwidth = numberOf(L2(OnChipField::Bandwidth), 0);
  C.L2Latency = numberOf(L2(OnChipField::Latency), 0);
  C.Sparsity = numberOf(A.ifSet(AF::Sparsity), 1);
  if (const spec::Object *T = spec::objectOf(Hbm(MemoryLevelField::Technology)))
    C.HbmEnergyPerByte = numberOf(T->ifSet(MemoryField::EnergyPerBit), 0);
  C.ComputeUnits = integerOf(A.ifSet(AF::ComputeUnits), 0);
  C.Tdp = numberOf(A.ifSet(AF::Tdp), 0);
  if (const spec::Object *Host = spec::objectOf(A.ifSet(AF::HostLink)))
    C.HostLinkBandwidth = numberOf(Host->ifSet(NetworkField::Bandwidth), 0) *
                          numberOf(Host->ifSet(NetworkField::Efficiency), 1);
  C.Price = numberOf(A.ifSet(AF::Price), 0);
  using EF = EfficiencyField;
  C.ComputeEfficiency = Eff(EF::Compute, 1);
  C.AttentionEfficiency = Eff(EF::Attention, C.ComputeEfficiency);
  C.MemoryEfficiency = Eff(EF::Memory, 1);
  C.ElementwiseEfficiency = Eff(EF::Elementwise, C.MemoryEfficiency);
  C.KvCacheEfficiency = Eff(EF::KvCache, C.MemoryEfficiency);
  C.TileM = integerOf(A.ifSet(AF::Efficiency, EF::TileM), 128);
  C.TileN = integerOf(A.ifSet(AF::Efficiency, EF::TileN), 128);
  C.TileK = integerOf(A.ifSet(AF::Efficiency, EF::TileK), 32);
  C.KOverhead = Eff(EF::KOverhead, 0);
  C.SmallTile = Eff(EF::SmallTile, 0);
  C.NarrowEfficiency = Eff(EF::Narrow, 1);
  C.Fp4Efficiency = Eff(EF::Fp4, C.NarrowEfficiency);
  C.Sustained = Eff(EF::Sustained, 1);
  C.KernelOverhead = Eff(EF::KernelOverhead, 0);
  C.ReservedMemory = Eff(EF::ReservedMemory, 0);
  return C;
}

static NetworkConfig networkFromSpec(const spec::Object *N) {
  NetworkConfig C;
  if (!N)
    return C;
  C.Name = N->Name;
  C.Bandwidth = numberOf(N->ifSet(NetworkField::Bandwidth), 0);
  C.Latency = numberOf(N->ifSet(NetworkField::Latency), 0);
  C.Efficiency = numberOf(N->ifSet(NetworkField::Efficiency), 1);
  C.EnergyPerByte = numberOf(N->ifSet(NetworkField::EnergyPerBit), 0);
  C.Topo = enumFromWord<Topology>(wordOf(N->ifSet(NetworkField::Topology)))
               .value_or(Topology::Switch);
  C.Dimensions = integerOf(N->ifSet(NetworkField::Dimensions), 2);
  C.Oversubscription = numberOf(N->ifSet(NetworkField::Oversubscription), 1);
  C.LeafNodes = integerOf(N->ifSet(NetworkField::LeafNodes), 0);
  return C;
}

SystemConfig systemFromSpec(const spec::Object &S) {
  SystemConfig C;
  C.Name = S.Name;
  auto Node = [&](NodeField F) { return S.ifSet(SystemField::Node, F); };
  if (const spec::Object *A = spec::objectOf(Node(NodeField::Accelerator))) {
    C.Accelerator = A->Name;
    C.Device = acceleratorFromSpec(*A);
  }
  C.ScaleUp = networkFromSpec(spec::objectOf(Node(NodeField::Fabric)));
  const spec::Object *ScaleOut = spec::objectOf(S.ifSet(SystemField::Fabric));
  C.ScaleOut = networkFromSpec(ScaleOut);
  C.DevicesPerNode = integerOf(Node(NodeField::Devices), 1);
  C.Nodes = integerOf(S.ifSet(SystemField::Nodes), 1);
  C.HasScaleOut = ScaleOut != nullptr;
  C.HostMemoryBandwidth = numberOf(Node(NodeField::HostMemoryBandwidth), 0);
  C.Pue = numberOf(S.ifSet(SystemField::Pue), 1);
  C.EnergyPrice = numberOf(S.ifSet(SystemField::EnergyPrice), 0);
  C.Lifetime = numberOf(S.ifSet(SystemField::Lifetime), 0);
  C.Decl = S.DeclRange;
  return C;
}

double SpeculativeConfig::tokensPerStep() const {
  if (Acceptance >= 1)
    return double(K + 1);
  return (1 - std::pow(Acceptance, double(K + 1))) / (1 - Acceptance);
}

ScenarioConfig scenarioFromSpec(const spec::Object &S) {
  ScenarioConfig C;
  C.Name = S.Name;
  C.Training = S.Type->Name == "train";
  C.Decl = S.DeclRange;
  if (const spec::Object *M = S.object("model"))
    C.Model = modelFromSpec(*M);
  if (const spec::Object *M = S.object("mapping"))
    C.Mapping = mappingFromSpec(*M);
  if (const spec::Field *F = S.path("mapping"))
    C.MappingUse = F->Loc;
  if (const spec::Object *Sys = S.object("system"))
    C.System = systemFromSpec(*Sys);
  if (const spec::Field *F = S.path("devices")) {
    C.Devices = integerOf(F, 0);
    C.DevicesLoc = F->Loc;
  }
  if (const spec::Field *F = S.path("charge_idle"))
    C.ChargeIdle = F->V.Kind == spec::ValueKind::Bool && F->V.Bool;
  if (C.Training) {
    C.SeqLen = integer(S, "seq_len", C.Model.MaxSeq);
    C.Tokens = S.number("tokens").value_or(0);
    C.Sgd = S.word("optimizer") == "sgd";
    if (const spec::Field *F = S.path("finetune")) {
      FinetuneConfig &Ft = C.Finetune;
      Ft.Kind = checkedEnum<FinetuneKind>(S.word("finetune.kind"));
      Ft.Loc = F->Loc;
      if (const spec::Field *R = S.path("finetune.rank")) {
        Ft.Rank = integerOf(R, 0);
        Ft.RankLoc = R->Loc;
      }
      if (const spec::Field *T = S.path("finetune.targets")) {
        for (bool &On : Ft.Targets)
          On = false;
        for (const spec::Value &W : T->V.elems())
          Ft.Targets[static_cast<int>(checkedEnum<LoraTarget>(W.str()))] = true;
      }
    }
  } else {
    // The scenario's own values, else its workload's.
    const spec::Object *W = S.object("workload");
    auto Get = [&](StringRef Path) -> std::optional<double> {
      if (std::optional<double> V = S.number(Path))
        return V;
      return W ? W->number(Path) : std::nullopt;
    };
    // Retrieval-augmented generation: the retrieved passages join each
    // prompt.
    C.Retrieved = static_cast<int64_t>(S.number("retrieved").value_or(0));
    if (const spec::Field *F = S.path("retrieved"))
      C.RetrievedLoc = F->Loc;
    C.SeqLen = static_cast<int64_t>(Get("prompt").value_or(0)) + C.Retrieved;
    C.OutputLen = static_cast<int64_t>(Get("output").value_or(0));
    C.Batch = static_cast<int64_t>(Get("batch").value_or(1));
    if (const spec::Field *F = S.path("beams")) {
      C.Beams = integerOf(F, 1);
      C.BeamsLoc = F->Loc;
    }
    // SLOs: the scenario's block if it has one, else the workload's.
    const spec::Object *Slo = S.object("slo") ? &S : W;
    if (Slo) {
      C.SloTtft = Slo->number("slo.ttft").value_or(0);
      C.SloTpot = Slo->number("slo.tpot").value_or(0);
      C.SloE2E = Slo->number("slo.e2e").value_or(0);
      C.SloThroughput = Slo->number("slo.throughput").value_or(0);
    }
    if (S.object("traffic")) {
      TrafficConfig &T = C.Traffic;
      T.Enabled = true;
      T.Requests = integer(S, "traffic.requests", 0);
      T.Arrival = checkedEnum<ArrivalKind>(S.word("traffic.arrival.kind"));
      if (const spec::Field *F = S.path("traffic.trace"))
        T.Trace = F->trace();
      if (T.Trace && !T.Trace->empty()) {
        // The scenario's prompt and output are the trace's means.
        double Prompts = 0, Outputs = 0;
        for (const spec::TraceRequest &R : *T.Trace) {
          Prompts += double(R.Prompt);
          Outputs += double(R.Output);
        }
        double N = double(T.Trace->size());
        C.SeqLen = std::max<int64_t>(1, int64_t(std::llround(Prompts / N)));
        C.OutputLen = std::max<int64_t>(1, int64_t(std::llround(Outputs / N)));
        int64_t Rows = int64_t(T.Trace->size());
        if (T.Requests <= 0 || T.Requests > Rows)
          T.Requests = Rows;
      }
      T.Clients = integer(S, "traffic.arrival.clients", 0);
      T.Rate = S.number("traffic.arrival.rate").value_or(0);
      T.MaxBatch = integer(S, "traffic.max_batch", 256);
      T.MaxTokens = integer(S, "traffic.max_tokens", 8192);
      if (const spec::Field *F = S.path("traffic.chunked_prefill"))
        T.ChunkedPrefill = F->V.Kind == spec::ValueKind::Bool && F->V.Bool;
      T.KvFraction = S.number("traffic.kv_fraction").value_or(0.9);
      T.PrefixHit = S.number("traffic.prefix_hit").value_or(0);
      T.PrefillFirst = S.word("traffic.policy") == "prefill_first";
      T.Seed = static_cast<uint64_t>(integer(S, "traffic.seed", 1));
      T.Lengths = checkedEnum<LengthDistribution>(S.word("traffic.lengths"));
      T.PromptStdev = S.number("traffic.prompt_stdev").value_or(0);
      T.OutputStdev = S.number("traffic.output_stdev").value_or(0);
      T.Use = loc(S, "traffic");
      T.ArrivalLoc = loc(S, "traffic.arrival");
      T.MaxTokensLoc = loc(S, "traffic.max_tokens");
      auto Written = [&](StringRef Path) {
        const spec::Field *F = S.path(Path);
        return F && F->From != spec::Origin::Default ? F->Loc : SMRange();
      };
      T.ClientsLoc = Written("traffic.arrival.clients");
      T.RateLoc = Written("traffic.arrival.rate");
      T.SeedLoc = Written("traffic.seed");
      T.BatchLoc = Written("batch");
      T.LengthsLoc = Written("traffic.lengths");
    }
    if (const spec::Object *Draft = S.object("speculative.draft")) {
      C.Speculative.Enabled = true;
      C.Speculative.Draft = modelFromSpec(*Draft);
      C.Speculative.K = integer(S, "speculative.k", 1);
      C.Speculative.Acceptance = S.number("speculative.acceptance").value_or(0);
      C.Speculative.DraftUse = loc(S, "speculative.draft");
    }
  }
  return C;
}

bool pipelinesRequests(const ScenarioConfig &S) {
  return !S.Training && S.Mapping.Pp > 1 && !S.Speculative.Enabled &&
         !S.Mapping.OffloadWeights;
}

int64_t servingMicroBatchSize(const ScenarioConfig &S, int64_t Batch) {
  if (!pipelinesRequests(S) || Batch <= 1)
    return Batch;
  return (Batch + S.Mapping.Pp - 1) / S.Mapping.Pp;
}

int64_t servingMicroBatches(const ScenarioConfig &S, int64_t Batch) {
  if (!pipelinesRequests(S) || Batch <= 1)
    return 1;
  int64_t Size = servingMicroBatchSize(S, Batch);
  return (Batch + Size - 1) / Size;
}

} // namespace ir
} // namespace llmsys
