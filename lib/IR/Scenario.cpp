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

namespace {
/// A field's value read as a number, a whole number or a word; Or (or
/// nothing) when it is unset or of another kind.
double numberOf(const spec::Field *F, double Or) {
  return F && F->V.Kind == spec::ValueKind::Number ? F->V.Num : Or;
}

int64_t integerOf(const spec::Field *F, int64_t Or) {
  return F && F->V.Kind == spec::ValueKind::Number ? int64_t(F->V.Num) : Or;
}

/// Where a field was written, else the object's declaration.
SMRange locOf(const spec::Object &O, const spec::Field *F) {
  return !F || F->From == spec::Origin::Default ? O.DeclRange : F->Loc;
}

StringRef wordOf(const spec::Field *F) {
  return F && F->V.Kind == spec::ValueKind::Enum ? StringRef(F->V.str())
                                                 : StringRef();
}
} // namespace

static int64_t integer(const spec::Object &O, StringRef Path, int64_t Or = 0) {
  return integerOf(O.path(Path), Or);
}

static SMRange loc(const spec::Object &O, StringRef Path) {
  return locOf(O, O.path(Path));
}

namespace {
/// A field of an object by its index, null when unset.
const spec::Field *setField(const spec::Object &O, int I) {
  if (I < 0)
    return nullptr;
  const spec::Field &F = O.Fields[size_t(I)];
  return F.isSet() ? &F : nullptr;
}
} // namespace

/// A field of an object by a name written as a literal: the name's index
/// is found once per call site (its objects share one type, the schema's)
/// and kept, so that a sweep reading a mapping at every point compares no
/// names. Another type looks the name up.
#define LLMSYS_FIELD(O, NAME)                                                  \
  ([](const spec::Object &Obj) {                                               \
    static const StructSpec *const Type = Obj.Type;                            \
    static const int Index = Obj.Type->findField(NAME);                        \
    return setField(Obj, Obj.Type == Type ? Index                              \
                                          : Obj.Type->findField(NAME));        \
  })(O)

/// The same through a nested block: `OUTER.NAME`.
#define LLMSYS_NESTED_FIELD(O, OUTER, NAME)                                    \
  ([](const spec::Object &Outer) -> const spec::Field * {                      \
    const spec::Field *F = LLMSYS_FIELD(Outer, OUTER);                         \
    if (!F || F->V.Kind != spec::ValueKind::Object || !F->V.Obj)               \
      return nullptr;                                                          \
    return LLMSYS_FIELD(*F->V.Obj, NAME);                                      \
  })(O)


MappingConfig mappingFromSpec(const spec::Object &M) {
  MappingConfig C;
  // The fields read for a value and a location, each looked up once.
  const spec::Field *Dp = LLMSYS_FIELD(M, "dp"), *Tp = LLMSYS_FIELD(M, "tp"),
                    *Pp = LLMSYS_FIELD(M, "pp"), *Cp = LLMSYS_FIELD(M, "cp"),
                    *Ep = LLMSYS_FIELD(M, "ep"),
                    *MicroBatch = LLMSYS_FIELD(M, "micro_batch"),
                    *GlobalBatch = LLMSYS_FIELD(M, "global_batch"),
                    *Kind = LLMSYS_NESTED_FIELD(M, "schedule", "kind"),
                    *Virtual = LLMSYS_NESTED_FIELD(M, "schedule", "virtual_stages"),
                    *Offload = LLMSYS_FIELD(M, "offload"),
                    *Gradients = LLMSYS_FIELD(M, "gradients"),
                    *Activations = LLMSYS_FIELD(M, "activations"),
                    *Recipe = LLMSYS_FIELD(M, "recipe"),
                    *TpOverlapBackward = LLMSYS_FIELD(M, "tp_overlap_backward"),
                    *EpOverlap = LLMSYS_FIELD(M, "ep_overlap"),
                    *StageLayers = LLMSYS_FIELD(M, "stage_layers"),
                    *ExpertTp = LLMSYS_FIELD(M, "expert_tp"),
                    *Sparse = LLMSYS_FIELD(M, "sparse_weights"),
                    *FirstStage = LLMSYS_FIELD(M, "first_stage_layers"),
                    *LastStage = LLMSYS_FIELD(M, "last_stage_layers");
  C.Dp = integerOf(Dp, 1);
  C.Tp = integerOf(Tp, 1);
  C.Pp = integerOf(Pp, 1);
  C.Cp = integerOf(Cp, 1);
  C.Ep = integerOf(Ep, 1);
  // Unset, expert_tp follows tp (also where a sweep sets tp).
  C.ExpertTpWritten = ExpertTp != nullptr;
  C.ExpertTp = integerOf(ExpertTp, C.Tp);
  if (const spec::Field *F = LLMSYS_FIELD(M, "sp"))
    C.SequenceParallel = F->V.Bool;
  C.Zero = integerOf(LLMSYS_FIELD(M, "zero"), 0);
  if (const spec::Field *F = LLMSYS_FIELD(M, "distributed_optimizer"))
    C.DistributedOptimizer = F->V.Bool;
  C.MicroBatch = integerOf(MicroBatch, 1);
  C.GlobalBatch = integerOf(GlobalBatch, 0);
  C.Schedule = checkedEnum<ScheduleKind>(wordOf(Kind));
  C.VirtualStages = integerOf(Virtual, 1);
  if (StageLayers)
    for (const spec::Value &N : StageLayers->V.elems())
      C.StageLayers.push_back(int64_t(N.Num));
  C.FirstStageLayers = integerOf(FirstStage, -1);
  C.LastStageLayers = integerOf(LastStage, -1);
  C.Recomp = checkedEnum<Recompute>(wordOf(LLMSYS_FIELD(M, "recompute")));
  C.Precision = dtypeFromWord(wordOf(LLMSYS_FIELD(M, "precision")));
  C.Weights = dtypeFromWord(wordOf(LLMSYS_FIELD(M, "weights")));
  C.Activations = dtypeFromWord(wordOf(Activations));
  C.KVCache = dtypeFromWord(wordOf(LLMSYS_FIELD(M, "kv_cache")));
  C.Gradients = dtypeFromWord(wordOf(Gradients));
  if (const spec::Field *F = LLMSYS_FIELD(M, "fusion"))
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
  if (const spec::Field *F = LLMSYS_FIELD(M, "tp_overlap"))
    C.TpOverlap = F->V.Bool;
  if (EpOverlap)
    C.EpOverlap = EpOverlap->V.Bool;
  if (TpOverlapBackward) {
    C.TpOverlapBackward = TpOverlapBackward->V.Bool;
    C.TpOverlapBackwardWritten = TpOverlapBackward->From != spec::Origin::Default;
  }
  if (const spec::Field *F = LLMSYS_FIELD(M, "tp_grad_overlap"))
    C.TpGradOverlap = F->V.Bool;
  if (const spec::Field *F = LLMSYS_FIELD(M, "dp_overlap"))
    C.DpOverlap = F->V.Bool;
  if (const spec::Field *F = LLMSYS_FIELD(M, "grad_accumulation_fusion"))
    C.GradAccumulationFusion = F->V.Bool;
  const spec::Field *EpDispatch = LLMSYS_FIELD(M, "ep_dispatch");
  C.EpHierarchical = wordOf(EpDispatch) == "hierarchical";
  C.Locs.EpDispatch = locOf(M, EpDispatch);
  C.OffloadWeights = wordOf(Offload) == "weights";
  C.OffloadOptimizer = wordOf(Offload) == "optimizer";
  C.OffloadActivations = wordOf(Offload) == "activations";
  if (Activations)
    C.ActivationsWritten = Activations->From != spec::Origin::Default;
  if (const spec::Object *R = Recipe && Recipe->V.Kind == spec::ValueKind::Object
                                  ? Recipe->V.Obj
                                  : nullptr) {
    RecipeConfig Rc;
    Rc.Name = R->Name;
    Rc.Forward = dtypeFromWord(R->word("forward"));
    Rc.InputGradient = dtypeFromWord(R->word("input_gradient"));
    Rc.WeightGradient = dtypeFromWord(R->word("weight_gradient"));
    StringRef Attention = R->word("attention"), Head = R->word("head");
    Rc.Attention = Attention.empty() ? C.Precision : dtypeFromWord(Attention);
    Rc.Head = Head.empty() ? C.Precision : dtypeFromWord(Head);
    Rc.Block = integer(*R, "block", 0);
    Rc.Copies = integer(*R, "copies", 1);
    auto Flag = [&](StringRef Name, bool Or) {
      const spec::Field *F = R->path(Name);
      return F ? F->V.Bool : Or;
    };
    Rc.AmaxPass = Flag("amax_pass", false);
    Rc.CastPerCopy = Flag("cast_per_copy", false);
    Rc.WeightCache = Flag("weight_cache", true);
    Rc.SaveNarrow = Flag("save_narrow", true);
    Rc.FusedInput = Flag("fused_input", false);
    Rc.NarrowGather = Flag("narrow_gather", true);
    Rc.RescaleBackward = Flag("rescale_backward", false);
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
  C.Locs.Activations = C.ActivationsWritten
                           ? locOf(M, Activations)
                           : locOf(M, LLMSYS_FIELD(M, "precision"));
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
  static const DType Float[] = {DType::FP4, DType::FP8, DType::FP16,
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
  double Efficiency = R == DType::FP8 || R == DType::INT8 ? NarrowEfficiency
                      : R == DType::FP4 || R == DType::INT4 ? Fp4Efficiency
                                                            : 1.0;
  return {Peak[static_cast<int>(R)], Efficiency};
}

static AcceleratorConfig acceleratorFromSpec(const spec::Object &A) {
  AcceleratorConfig C;
  C.Name = A.Name;
  // The peaks by format, their fields' indices found once.
  if (const spec::Field *Peak = LLMSYS_FIELD(A, "peak");
      Peak && Peak->V.Kind == spec::ValueKind::Object && Peak->V.Obj) {
    const spec::Object &P = *Peak->V.Obj;
    static const StructSpec *const PeakType = P.Type;
    static const std::array<int, NumDTypes> Index = [&] {
      std::array<int, NumDTypes> Out;
      for (int I = 0; I < NumDTypes; ++I)
        Out[size_t(I)] = P.Type->findField(dtypeName(static_cast<DType>(I)));
      return Out;
    }();
    for (int I = 0; I < NumDTypes; ++I)
      C.Peak[I] = numberOf(
          setField(P, P.Type == PeakType
                          ? Index[size_t(I)]
                          : P.Type->findField(dtypeName(static_cast<DType>(I)))),
          0);
  }
  C.HbmCapacity = numberOf(LLMSYS_NESTED_FIELD(A, "hbm", "capacity"), 0);
  C.HbmBandwidth = numberOf(LLMSYS_NESTED_FIELD(A, "hbm", "bandwidth"), 0);
  C.L2Capacity = numberOf(LLMSYS_NESTED_FIELD(A, "l2", "capacity"), 0);
  C.L2Bandwidth = numberOf(LLMSYS_NESTED_FIELD(A, "l2", "bandwidth"), 0);
  C.HbmLatency = numberOf(LLMSYS_NESTED_FIELD(A, "hbm", "latency"), 0);
  C.L2Latency = numberOf(LLMSYS_NESTED_FIELD(A, "l2", "latency"), 0);
  C.Sparsity = numberOf(LLMSYS_FIELD(A, "sparsity"), 1);
  if (const spec::Field *T = LLMSYS_NESTED_FIELD(A, "hbm", "technology"))
    if (T->V.Kind == spec::ValueKind::Object && T->V.Obj)
      C.HbmEnergyPerByte =
          numberOf(LLMSYS_FIELD(*T->V.Obj, "energy_per_bit"), 0);
  C.ComputeUnits = static_cast<int64_t>(numberOf(LLMSYS_FIELD(A, "compute_units"), 0));
  C.Tdp = numberOf(LLMSYS_FIELD(A, "tdp"), 0);
  if (const spec::Field *Host = LLMSYS_FIELD(A, "host_link");
      Host && Host->V.Kind == spec::ValueKind::Object && Host->V.Obj)
    C.HostLinkBandwidth = numberOf(LLMSYS_FIELD(*Host->V.Obj, "bandwidth"), 0) *
                          numberOf(LLMSYS_FIELD(*Host->V.Obj, "efficiency"), 1);
  C.Price = numberOf(LLMSYS_FIELD(A, "price"), 0);
  C.ComputeEfficiency = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "compute"), 1);
  C.AttentionEfficiency =
      numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "attention"), C.ComputeEfficiency);
  C.MemoryEfficiency = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "memory"), 1);
  C.ElementwiseEfficiency =
      numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "elementwise"), C.MemoryEfficiency);
  C.KvCacheEfficiency =
      numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "kv_cache"), C.MemoryEfficiency);
  C.TileM = static_cast<int64_t>(numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "tile_m"), 128));
  C.TileN = static_cast<int64_t>(numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "tile_n"), 128));
  C.TileK = static_cast<int64_t>(numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "tile_k"), 32));
  C.KOverhead = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "k_overhead"), 0);
  C.SmallTile = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "small_tile"), 0);
  C.NarrowEfficiency = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "narrow"), 1);
  C.Fp4Efficiency =
      numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "fp4"), C.NarrowEfficiency);
  C.Sustained = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "sustained"), 1);
  C.KernelOverhead = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "kernel_overhead"), 0);
  C.ReservedMemory = numberOf(LLMSYS_NESTED_FIELD(A, "efficiency", "reserved_memory"), 0);
  return C;
}

static NetworkConfig networkFromSpec(const spec::Object *N) {
  NetworkConfig C;
  if (!N)
    return C;
  C.Name = N->Name;
  C.Bandwidth = numberOf(LLMSYS_FIELD(*N, "bandwidth"), 0);
  C.Latency = numberOf(LLMSYS_FIELD(*N, "latency"), 0);
  C.Efficiency = numberOf(LLMSYS_FIELD(*N, "efficiency"), 1);
  C.EnergyPerByte = numberOf(LLMSYS_FIELD(*N, "energy_per_bit"), 0);
  C.Topo = enumFromWord<Topology>(wordOf(LLMSYS_FIELD(*N, "topology")))
               .value_or(Topology::Switch);
  C.Dimensions = integerOf(LLMSYS_FIELD(*N, "dimensions"), 2);
  C.Oversubscription = numberOf(LLMSYS_FIELD(*N, "oversubscription"), 1);
  C.LeafNodes = integerOf(LLMSYS_FIELD(*N, "leaf_nodes"), 0);
  return C;
}

SystemConfig systemFromSpec(const spec::Object &S) {
  SystemConfig C;
  C.Name = S.Name;
  const spec::Field *Acc = LLMSYS_NESTED_FIELD(S, "node", "accelerator");
  if (const spec::Object *A =
          Acc && Acc->V.Kind == spec::ValueKind::Object ? Acc->V.Obj : nullptr) {
    C.Accelerator = A->Name;
    C.Device = acceleratorFromSpec(*A);
  }
  auto ObjectOf = [](const spec::Field *F) -> const spec::Object * {
    return F && F->V.Kind == spec::ValueKind::Object ? F->V.Obj : nullptr;
  };
  C.ScaleUp = networkFromSpec(ObjectOf(LLMSYS_NESTED_FIELD(S, "node", "fabric")));
  const spec::Object *ScaleOut = ObjectOf(LLMSYS_FIELD(S, "fabric"));
  C.ScaleOut = networkFromSpec(ScaleOut);
  C.DevicesPerNode = integerOf(LLMSYS_NESTED_FIELD(S, "node", "devices"), 1);
  C.Nodes = integerOf(LLMSYS_FIELD(S, "nodes"), 1);
  C.HasScaleOut = ScaleOut != nullptr;
  C.HostMemoryBandwidth =
      numberOf(LLMSYS_NESTED_FIELD(S, "node", "host_memory_bandwidth"), 0);
  C.Pue = numberOf(LLMSYS_FIELD(S, "pue"), 1);
  C.EnergyPrice = numberOf(LLMSYS_FIELD(S, "energy_price"), 0);
  C.Lifetime = numberOf(LLMSYS_FIELD(S, "lifetime"), 0);
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
