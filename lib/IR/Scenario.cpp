//===- Scenario.cpp - typed views of mappings, systems, scenarios ----------===//

#include "IR/Scenario.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
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

static int64_t integer(const spec::Object &O, StringRef Path, int64_t Or = 0) {
  std::optional<double> V = O.number(Path);
  return V ? static_cast<int64_t>(*V) : Or;
}

static SMRange loc(const spec::Object &O, StringRef Path) {
  const spec::Field *F = O.path(Path);
  if (!F || F->From == spec::Origin::Default)
    return O.DeclRange;
  return F->Loc;
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

namespace {
int64_t cachedInteger(const spec::Field *F, int64_t Or) {
  return F && F->V.Kind == spec::ValueKind::Number ? int64_t(F->V.Num) : Or;
}

/// Where a field was written, else the object's declaration.
SMRange cachedLoc(const spec::Object &O, const spec::Field *F) {
  return !F || F->From == spec::Origin::Default ? O.DeclRange : F->Loc;
}

StringRef cachedWord(const spec::Field *F) {
  return F && F->V.Kind == spec::ValueKind::Enum ? StringRef(F->V.Str)
                                                 : StringRef();
}
} // namespace

MappingConfig mappingFromSpec(const spec::Object &M) {
  MappingConfig C;
  C.Dp = cachedInteger(LLMSYS_FIELD(M, "dp"), 1);
  C.Tp = cachedInteger(LLMSYS_FIELD(M, "tp"), 1);
  C.Pp = cachedInteger(LLMSYS_FIELD(M, "pp"), 1);
  C.Cp = cachedInteger(LLMSYS_FIELD(M, "cp"), 1);
  C.Ep = cachedInteger(LLMSYS_FIELD(M, "ep"), 1);
  if (const spec::Field *F = LLMSYS_FIELD(M, "sp"))
    C.SequenceParallel = F->V.Bool;
  C.Zero = cachedInteger(LLMSYS_FIELD(M, "zero"), 0);
  if (const spec::Field *F = LLMSYS_FIELD(M, "distributed_optimizer"))
    C.DistributedOptimizer = F->V.Bool;
  C.MicroBatch = cachedInteger(LLMSYS_FIELD(M, "micro_batch"), 1);
  C.GlobalBatch = cachedInteger(LLMSYS_FIELD(M, "global_batch"), 0);
  C.Schedule = checkedEnum<ScheduleKind>(cachedWord(LLMSYS_NESTED_FIELD(M, "schedule", "kind")));
  C.VirtualStages = cachedInteger(LLMSYS_NESTED_FIELD(M, "schedule", "virtual_stages"), 1);
  C.Recomp = checkedEnum<Recompute>(cachedWord(LLMSYS_FIELD(M, "recompute")));
  C.Precision = dtypeFromWord(cachedWord(LLMSYS_FIELD(M, "precision")));
  C.Weights = dtypeFromWord(cachedWord(LLMSYS_FIELD(M, "weights")));
  C.Activations = dtypeFromWord(cachedWord(LLMSYS_FIELD(M, "activations")));
  C.KVCache = dtypeFromWord(cachedWord(LLMSYS_FIELD(M, "kv_cache")));
  C.Gradients = dtypeFromWord(cachedWord(LLMSYS_FIELD(M, "gradients")));
  if (const spec::Field *F = LLMSYS_FIELD(M, "fusion"))
    for (const spec::Value &W : F->V.Elems) {
      StringRef Word = W.Str;
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
  if (const spec::Field *F = LLMSYS_FIELD(M, "ep_overlap"))
    C.EpOverlap = F->V.Bool;
  if (const spec::Field *F = LLMSYS_FIELD(M, "tp_overlap_backward")) {
    C.TpOverlapBackward = F->V.Bool;
    C.TpOverlapBackwardWritten = F->From != spec::Origin::Default;
  }
  if (const spec::Field *F = LLMSYS_FIELD(M, "tp_grad_overlap"))
    C.TpGradOverlap = F->V.Bool;
  if (const spec::Field *F = LLMSYS_FIELD(M, "dp_overlap"))
    C.DpOverlap = F->V.Bool;
  if (const spec::Field *F = LLMSYS_FIELD(M, "grad_accumulation_fusion"))
    C.GradAccumulationFusion = F->V.Bool;
  C.OffloadWeights = cachedWord(LLMSYS_FIELD(M, "offload")) == "weights";
  C.OffloadOptimizer = cachedWord(LLMSYS_FIELD(M, "offload")) == "optimizer";
  if (const spec::Field *F = LLMSYS_FIELD(M, "activations"))
    C.ActivationsWritten = F->From != spec::Origin::Default;
  const spec::Field *RecipeField = LLMSYS_FIELD(M, "recipe");
  if (const spec::Object *R = RecipeField && RecipeField->V.Kind == spec::ValueKind::Object
                                  ? RecipeField->V.Obj
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
  C.Locs.Dp = cachedLoc(M, LLMSYS_FIELD(M, "dp"));
  C.Locs.Tp = cachedLoc(M, LLMSYS_FIELD(M, "tp"));
  C.Locs.Pp = cachedLoc(M, LLMSYS_FIELD(M, "pp"));
  C.Locs.Cp = cachedLoc(M, LLMSYS_FIELD(M, "cp"));
  C.Locs.Ep = cachedLoc(M, LLMSYS_FIELD(M, "ep"));
  C.Locs.MicroBatch = cachedLoc(M, LLMSYS_FIELD(M, "micro_batch"));
  C.Locs.GlobalBatch = cachedLoc(M, LLMSYS_FIELD(M, "global_batch"));
  C.Locs.Schedule = cachedLoc(M, LLMSYS_NESTED_FIELD(M, "schedule", "kind"));
  C.Locs.VirtualStages = cachedLoc(M, LLMSYS_NESTED_FIELD(M, "schedule", "virtual_stages"));
  C.Locs.Offload = cachedLoc(M, LLMSYS_FIELD(M, "offload"));
  C.Locs.Gradients = cachedLoc(M, LLMSYS_FIELD(M, "gradients"));
  C.Locs.Activations = cachedLoc(M, LLMSYS_FIELD(M, "activations"));
  C.Locs.Recipe = cachedLoc(M, LLMSYS_FIELD(M, "recipe"));
  C.Locs.TpOverlapBackward = cachedLoc(M, LLMSYS_FIELD(M, "tp_overlap_backward"));
  C.Locs.EpOverlap = cachedLoc(M, LLMSYS_FIELD(M, "ep_overlap"));
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
  for (int I = 0; I <= static_cast<int>(DType::FP4); ++I)
    C.Peak[I] = A.number("peak." + dtypeName(static_cast<DType>(I)).str())
                    .value_or(0);
  C.HbmCapacity = A.number("hbm.capacity").value_or(0);
  C.HbmBandwidth = A.number("hbm.bandwidth").value_or(0);
  C.L2Capacity = A.number("l2.capacity").value_or(0);
  C.ComputeUnits = static_cast<int64_t>(A.number("compute_units").value_or(0));
  C.Tdp = A.number("tdp").value_or(0);
  if (const spec::Object *Host = A.object("host_link"))
    C.HostLinkBandwidth = Host->number("bandwidth").value_or(0) *
                          Host->number("efficiency").value_or(1);
  C.Price = A.number("price").value_or(0);
  C.ComputeEfficiency = A.number("efficiency.compute").value_or(1);
  C.AttentionEfficiency =
      A.number("efficiency.attention").value_or(C.ComputeEfficiency);
  C.MemoryEfficiency = A.number("efficiency.memory").value_or(1);
  C.ElementwiseEfficiency =
      A.number("efficiency.elementwise").value_or(C.MemoryEfficiency);
  C.KvCacheEfficiency =
      A.number("efficiency.kv_cache").value_or(C.MemoryEfficiency);
  C.TileM = static_cast<int64_t>(A.number("efficiency.tile_m").value_or(128));
  C.TileN = static_cast<int64_t>(A.number("efficiency.tile_n").value_or(128));
  C.TileK = static_cast<int64_t>(A.number("efficiency.tile_k").value_or(32));
  C.KOverhead = A.number("efficiency.k_overhead").value_or(0);
  C.SmallTile = A.number("efficiency.small_tile").value_or(0);
  C.NarrowEfficiency = A.number("efficiency.narrow").value_or(1);
  C.Fp4Efficiency =
      A.number("efficiency.fp4").value_or(C.NarrowEfficiency);
  C.Sustained = A.number("efficiency.sustained").value_or(1);
  C.KernelOverhead = A.number("efficiency.kernel_overhead").value_or(0);
  C.ReservedMemory = A.number("efficiency.reserved_memory").value_or(0);
  return C;
}

static NetworkConfig networkFromSpec(const spec::Object *N) {
  NetworkConfig C;
  if (!N)
    return C;
  C.Name = N->Name;
  C.Bandwidth = N->number("bandwidth").value_or(0);
  C.Latency = N->number("latency").value_or(0);
  C.Efficiency = N->number("efficiency").value_or(1);
  return C;
}

SystemConfig systemFromSpec(const spec::Object &S) {
  SystemConfig C;
  C.Name = S.Name;
  if (const spec::Object *A = S.object("node.accelerator")) {
    C.Accelerator = A->Name;
    C.Device = acceleratorFromSpec(*A);
  }
  C.ScaleUp = networkFromSpec(S.object("node.fabric"));
  C.ScaleOut = networkFromSpec(S.object("fabric"));
  C.DevicesPerNode = integer(S, "node.devices", 1);
  C.Nodes = integer(S, "nodes", 1);
  C.HasScaleOut = S.object("fabric") != nullptr;
  C.Pue = S.number("pue").value_or(1);
  C.EnergyPrice = S.number("energy_price").value_or(0);
  C.Lifetime = S.number("lifetime").value_or(0);
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
  if (C.Training) {
    C.SeqLen = integer(S, "seq_len", C.Model.MaxSeq);
    C.Tokens = S.number("tokens").value_or(0);
    C.Sgd = S.word("optimizer") == "sgd";
  } else {
    // The scenario's own values, else its workload's.
    const spec::Object *W = S.object("workload");
    auto Get = [&](StringRef Path) -> std::optional<double> {
      if (std::optional<double> V = S.number(Path))
        return V;
      return W ? W->number(Path) : std::nullopt;
    };
    C.SeqLen = static_cast<int64_t>(Get("prompt").value_or(0));
    C.OutputLen = static_cast<int64_t>(Get("output").value_or(0));
    C.Batch = static_cast<int64_t>(Get("batch").value_or(1));
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
        T.Trace = F->Trace;
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
