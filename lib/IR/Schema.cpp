//===- Schema.cpp - every entity kind, field and figure ---------------------===//
//
// The one place where entity kinds, their fields and the figures of
// scenarios are declared. Defaults here are structural (kv_heads = heads)
// or conventional (1-way parallelism); hardware and model numbers live in
// stdlib/ with their sources.
//
//===----------------------------------------------------------------------===//

#include "IR/Schema.h"
#include "IR/Scenario.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace llvm;

namespace llmsys {

bool EnumSpec::contains(StringRef W) const {
  return llvm::is_contained(Words, W);
}

int StructSpec::findField(StringRef N) const {
  // Sweeps read a mapping's fields by name at every point: the size and
  // first letter rule out most fields before the names are compared.
  if (N.empty())
    return -1;
  for (size_t I = 0; I < Fields.size(); ++I) {
    const std::string &F = Fields[I].Name;
    if (F.size() == N.size() && F[0] == N[0] && StringRef(F) == N)
      return static_cast<int>(I);
  }
  return -1;
}

const FigureSpec *StructSpec::findFigure(StringRef N) const {
  for (const FigureSpec &F : Figures)
    if (F.Name == N)
      return &F;
  return nullptr;
}

std::vector<std::string> StructSpec::fieldNames() const {
  std::vector<std::string> Names;
  for (const FieldSpec &F : Fields)
    Names.push_back(F.Name);
  return Names;
}

static std::string article(StringRef Word) {
  bool Vowel = !Word.empty() && StringRef("aeiou").contains(Word[0]);
  return (Vowel ? "an " : "a ") + Word.str();
}

std::string TypeSpec::describe() const {
  switch (Kind) {
  case TypeKind::Quantity:
    return AnyDimension ? "a number with a unit" : Dim.describe();
  case TypeKind::Number:
    return "a dimensionless number";
  case TypeKind::Integer:
    return "a whole number";
  case TypeKind::Bool:
    return "true or false";
  case TypeKind::String:
    return "a string";
  case TypeKind::Enum:
    return article(Enum->Name);
  case TypeKind::List:
    return "a list of " + Elem->describe();
  case TypeKind::Ref:
    return Struct ? article(Struct->Name) : "a train or serve scenario";
  case TypeKind::Struct:
    return article(Struct->Name) + " block";
  }
  llvm_unreachable("unknown type kind");
}

double FieldSpec::mostValue() const {
  const TypeSpec &T = Type.Kind == TypeKind::List ? *Type.Elem : Type;
  bool Counted = T.Kind == TypeKind::Integer ||
                 (T.Kind == TypeKind::Quantity && !T.AnyDimension &&
                  T.Dim == dims::tokens());
  if (!Counted)
    return std::numeric_limits<double>::infinity();
  return Most > 0 ? Most : MaxCount;
}

/// A small language for declaring the schema below.
class SchemaBuilder {
public:
  explicit SchemaBuilder(Schema &S) : S(S) {}

  const EnumSpec *enumType(StringRef Name, std::vector<std::string> Words,
                           StringRef Doc) {
    auto E = std::make_unique<EnumSpec>();
    E->Name = Name.str();
    E->Words = std::move(Words);
    E->Doc = Doc.str();
    S.Enums.push_back(E.get());
    S.EnumStorage.push_back(std::move(E));
    return S.EnumStorage.back().get();
  }

  StructSpec *entity(StringRef Name, StringRef Doc) {
    StructSpec *St = make(Name, Doc);
    St->IsEntity = true;
    S.Entities.push_back(St);
    return St;
  }
  StructSpec *block(StringRef Name, StringRef Doc) {
    StructSpec *St = make(Name, Doc);
    S.Blocks.push_back(St);
    return St;
  }

  // Types.
  TypeSpec qty(Dimension D) {
    TypeSpec T;
    T.Kind = TypeKind::Quantity;
    T.Dim = D;
    return T;
  }
  TypeSpec number() { return simple(TypeKind::Number); }
  TypeSpec integer() { return simple(TypeKind::Integer); }
  TypeSpec boolean() { return simple(TypeKind::Bool); }
  TypeSpec string() { return simple(TypeKind::String); }
  TypeSpec enumOf(const EnumSpec *E) {
    TypeSpec T = simple(TypeKind::Enum);
    T.Enum = E;
    return T;
  }
  TypeSpec listOf(TypeSpec Elem) {
    S.TypeStorage.push_back(std::make_unique<TypeSpec>(Elem));
    TypeSpec T = simple(TypeKind::List);
    T.Elem = S.TypeStorage.back().get();
    return T;
  }
  TypeSpec ref(const StructSpec *Entity) {
    TypeSpec T = simple(TypeKind::Ref);
    T.Struct = Entity;
    return T;
  }
  TypeSpec nested(const StructSpec *Block) {
    TypeSpec T = simple(TypeKind::Struct);
    T.Struct = Block;
    return T;
  }

  // Fields.
  FieldSpec &required(StructSpec *St, StringRef Name, TypeSpec T,
                      StringRef Doc) {
    return add(St, Name, T, Presence::Required, "", Doc);
  }
  FieldSpec &optional(StructSpec *St, StringRef Name, TypeSpec T,
                      StringRef Doc) {
    return add(St, Name, T, Presence::Optional, "", Doc);
  }
  FieldSpec &withDefault(StructSpec *St, StringRef Name, TypeSpec T,
                         StringRef Default, StringRef Doc) {
    return add(St, Name, T, Presence::Default, Default, Doc);
  }
  void figure(StructSpec *St, const ir::FigureInfo &F, TypeSpec T) {
    St->Figures.push_back(FigureSpec{F.Name.str(), T, F.Doc.str(), &F});
  }

private:
  TypeSpec simple(TypeKind K) {
    TypeSpec T;
    T.Kind = K;
    return T;
  }
  StructSpec *make(StringRef Name, StringRef Doc) {
    auto St = std::make_unique<StructSpec>();
    St->Name = Name.str();
    St->Doc = Doc.str();
    S.StructStorage.push_back(std::move(St));
    return S.StructStorage.back().get();
  }
  FieldSpec &add(StructSpec *St, StringRef Name, TypeSpec T, Presence P,
                 StringRef Default, StringRef Doc) {
    FieldSpec F;
    F.Name = Name.str();
    F.Type = T;
    F.Pres = P;
    F.Default = Default.str();
    F.Doc = Doc.str();
    if (T.Kind == TypeKind::Integer)
      F.Check = Constraint::Positive;
    St->Fields.push_back(F);
    return St->Fields.back();
  }

  Schema &S;
};

static FieldSpec &nonNegative(FieldSpec &F) {
  F.Check = Constraint::NonNegative;
  return F;
}
static FieldSpec &positive(FieldSpec &F) {
  F.Check = Constraint::Positive;
  return F;
}
/// A field no figure of a scenario reads, and why it is accepted.
static FieldSpec &docOnly(FieldSpec &F, StringRef Why) {
  F.DocOnly = Why.str();
  return F;
}
/// A whole-number field (or a count of tokens) with a limit other than
/// MaxCount.
static FieldSpec &atMost(FieldSpec &F, double Most) {
  F.Most = Most;
  return F;
}
static FieldSpec &within(FieldSpec &F, double Lo, double Hi) {
  F.Check = Constraint::Range;
  F.Min = Lo;
  F.Max = Hi;
  return F;
}

Schema::Schema() {
  SchemaBuilder B(*this);
  using namespace dims;

  // Enumerations.
  // The words of IR/Enums.def's enumerations.
  auto Words = [](auto Tag) {
    std::vector<std::string> Out;
    for (StringRef W : ir::enumWords<decltype(Tag)>())
      Out.push_back(W.str());
    return Out;
  };
  const EnumSpec *Precision = B.enumType(
      "precision", Words(ir::DType()), "number format of a tensor class");
  const EnumSpec *ModelKind =
      B.enumType("model kind", {"decoder", "encoder"},
                 "decoder-only (GPT) or encoder-only (BERT) transformer");
  const EnumSpec *Activation = B.enumType(
      "activation", {"gelu", "relu", "silu", "swiglu", "geglu"},
      "MLP activation; swiglu and geglu are gated (three MLP matrices)");
  const EnumSpec *Norm = B.enumType("norm", {"layernorm", "rmsnorm"},
                                    "normalisation layer");
  const EnumSpec *Positional =
      B.enumType("positional encoding", {"learned", "rotary", "alibi", "none"},
                 "position encoding");
  const EnumSpec *MemoryKind =
      B.enumType("memory kind", {"hbm", "gddr", "lpddr", "ddr"},
                 "DRAM family");
  const EnumSpec *Topology = B.enumType(
      "topology", Words(ir::Topology()),
      "how a fabric connects its devices: switch and fat_tree non-blocking; "
      "ring two links a device; torus 2 x dimensions links a device; mesh "
      "a link to every other device of its domain (docs/cost-model.md, "
      "\"One collective\")");
  const EnumSpec *ScheduleKind =
      B.enumType("pipeline schedule", Words(ir::ScheduleKind()),
                 "pipeline-parallel schedule");
  const EnumSpec *Recompute =
      B.enumType("recompute mode", Words(ir::Recompute()),
                 "activation recomputation (Korthikanti et al. 2022; ops: "
                 "torchtitan's per-op selective checkpointing)");
  const EnumSpec *Fusion = B.enumType(
      "fusion",
      {"flash_attention", "bias_gelu", "bias_dropout_add", "layernorm",
       "rmsnorm", "softmax", "swiglu", "rope"},
      "a fused kernel the mapping uses");
  const EnumSpec *Offload = B.enumType(
      "offload", {"none", "optimizer", "weights", "activations"},
      "what is kept in host memory instead of device memory");
  const EnumSpec *Optimizer =
      B.enumType("optimizer", {"adam", "sgd"}, "training optimizer");
  const EnumSpec *EpDispatch = B.enumType(
      "expert dispatch", {"all_to_all", "hierarchical"},
      "how expert parallelism moves tokens between nodes: all_to_all, each "
      "of a token's top_k copies to its expert's device (NCCL; Megatron-LM's "
      "alltoall dispatcher); hierarchical, a token once to each other node "
      "holding one of its experts, then over that node's fabric (DeepEP's "
      "normal kernels, HybridEP)");

  // Declared first so that references can name them.
  StructSpec *Technology = B.entity(
      "technology", "a logic process node, as factors relative to TSMC N7 = 1");
  StructSpec *Memory =
      B.entity("memory", "a DRAM technology (HBM3e, GDDR7, ...): one stack or "
                         "device");
  StructSpec *Network = B.entity(
      "network", "a fabric or link: bandwidth per device and direction");
  StructSpec *Accelerator = B.entity("accelerator", "one device");
  StructSpec *System = B.entity("system", "devices, nodes and their fabrics");
  StructSpec *Model = B.entity("model", "a transformer");
  StructSpec *Mapping = B.entity(
      "mapping", "how work is split over devices and executed");
  StructSpec *Recipe = B.entity(
      "recipe", "a low-precision training recipe: the formats of the linear "
                "layers' GEMMs and what quantizing their operands costs "
                "(docs/cost-model.md)");
  StructSpec *Train = B.entity("train", "a training scenario");
  StructSpec *Serve = B.entity("serve", "an inference-serving scenario");
  StructSpec *Workload = B.entity(
      "workload", "a use case: prompt and output lengths, batch and SLOs "
                  "that a serve scenario takes as defaults");
  StructSpec *Measurement = B.entity(
      "measurement", "a published measurement of a scenario's figure, with "
                     "its source (validation cases, `llmsys validate`)");
  StructSpec *Sweep = B.entity(
      "sweep", "a grid over fields of a scenario, with constraints and an "
               "objective (axes, where, minimize/maximize, pareto, keep)");
  Train->IsScenario = Serve->IsScenario = true;

  // technology
  docOnly(B.optional(Technology, "year", B.integer(),
                     "year of volume production"),
          "dates the node for trend studies; no cost depends on it");
  docOnly(B.optional(Technology, "feature", B.qty(length()),
                     "the node's marketing name as a length (5 nm)"),
          "a name: the factors below carry what the node changes");
  B.withDefault(Technology, "logic_density", B.number(), "1",
                "logic transistor density relative to N7");
  B.withDefault(Technology, "sram_density", B.number(), "1",
                "SRAM bit density relative to N7");
  B.withDefault(Technology, "speed", B.number(), "1",
                "clock at equal power relative to N7");
  B.withDefault(Technology, "power", B.number(), "1",
                "power at equal clock relative to N7");

  // memory
  B.required(Memory, "kind", B.enumOf(MemoryKind), "DRAM family");
  docOnly(B.optional(Memory, "year", B.integer(), "year of first products"),
          "dates the technology for trend studies; no cost depends on it");
  B.optional(Memory, "bandwidth", B.qty(bandwidth()),
             "peak bandwidth of one stack (HBM) or device");
  B.optional(Memory, "capacity", B.qty(bytes()),
             "capacity of one stack or device");
  docOnly(B.optional(Memory, "pin_rate", B.qty(bandwidth()),
                     "data rate per pin"),
          "describes the interface; `bandwidth` (pin rate x bus width) is "
          "what a stack moves");
  docOnly(B.optional(Memory, "bus_width", B.integer(),
                     "interface width in bits"),
          "describes the interface; `bandwidth` is what a stack moves");
  B.optional(Memory, "energy_per_bit", B.qty(energyPerBit()),
             "access energy per bit transferred");

  // network
  positive(B.required(Network, "bandwidth", B.qty(bandwidth()),
                      "bandwidth per device per direction"));
  B.required(Network, "latency", B.qty(time()),
             "one-way latency of a small message (the alpha term)");
  B.withDefault(Network, "topology", B.enumOf(Topology), "switch",
                "how the fabric connects devices");
  within(B.withDefault(Network, "dimensions", B.integer(), "2",
                       "torus: its dimensions (each device has 2 x "
                       "dimensions links sharing its bandwidth)"),
         1, 6);
  within(B.withDefault(Network, "oversubscription", B.number(), "1",
                "fat_tree: the leaf switches' down- over uplink bandwidth (2: "
                "a 2:1 tapered tree); traffic between nodes under different "
                "leaves crosses the spine at 1/oversubscription of the "
                "devices' bandwidth"),
         1, 1000);
  positive(B.optional(Network, "leaf_nodes", B.integer(),
                      "fat_tree with oversubscription: nodes under one leaf "
                      "switch, non-blocking among themselves"));
  docOnly(B.optional(Network, "domain", B.integer(),
                     "most devices one domain of this fabric connects"),
          "describes the product; a system's `node.devices` is the "
          "scale-up domain a scenario uses");
  B.optional(Network, "energy_per_bit", B.qty(energyPerBit()),
             "energy per bit moved");
  docOnly(B.optional(Network, "year", B.integer(), "year of introduction"),
          "dates the fabric for trend studies; no cost depends on it");
  within(B.withDefault(Network, "efficiency", B.number(), "1",
                       "achieved fraction of the bandwidth in large "
                       "collectives (NCCL bus bandwidth over link bandwidth)"),
         0.001, 1);

  // accelerator
  StructSpec *Peak = B.block(
      "peak", "dense peak throughput per number format (no 2:4 sparsity)");
  for (const std::string &P : Precision->Words)
    B.optional(Peak, P, B.qty(opsRate()), "dense peak in " + P);
  StructSpec *MemLevel = B.block(
      "memory level", "an off-chip memory; `hbm = HBM4 { stacks = 8 }` sets "
                      "its technology");
  positive(B.required(MemLevel, "capacity", B.qty(bytes()),
             "capacity per device; when not written and the block writes "
             "technology or stacks: stacks x the technology's capacity"));
  positive(B.required(MemLevel, "bandwidth", B.qty(bandwidth()),
             "peak bandwidth per device; when not written and the block "
             "writes technology or stacks: stacks x the technology's "
             "bandwidth"));
  B.optional(MemLevel, "technology", B.ref(Memory), "DRAM technology");
  B.optional(MemLevel, "stacks", B.integer(), "number of stacks or devices");
  B.optional(MemLevel, "latency", B.qty(time()),
             "access latency: an operator that moves data to or from this "
             "memory takes one access more than its transfer (bytes / "
             "bandwidth + latency; unset: 0, the kernel's launch overhead "
             "standing in)");
  MemLevel->SourceField = MemLevel->findField("technology");
  StructSpec *OnChip = B.block("on-chip memory", "an on-chip cache or SRAM");
  B.required(OnChip, "capacity", B.qty(bytes()), "capacity per device");
  B.optional(OnChip, "bandwidth", B.qty(bandwidth()), "peak bandwidth");
  B.optional(OnChip, "latency", B.qty(time()),
             "access latency of a serving step resident on chip (as the "
             "device memory's latency; unset: 0)");
  StructSpec *Efficiency = B.block(
      "efficiency", "how close kernels come to the peaks (cost-model knobs)");
  // Defaults are the ideal roofline and a conventional 128 x 128 x 32 GEMM
  // tile (CUTLASS's default threadblock tile); stdlib accelerators set
  // measured or estimated values with their sources.
  // A fraction above 0: an efficiency of 0 would make the device
  // infinitely slow (or, divided out, infinitely fast).
  auto Fraction = [&](const char *Name, const char *Default, const char *Doc) {
    within(B.withDefault(Efficiency, Name, B.number(), Default, Doc), 0.001, 1);
  };
  Fraction("compute", "1",
           "largest achieved fraction of the compute peak (large GEMMs)");
  Fraction("attention", "compute",
           "achieved fraction of the compute peak of a fused attention "
           "kernel (FlashAttention), counting the products it performs");
  Fraction("memory", "1", "largest achieved fraction of memory bandwidth");
  Fraction("elementwise", "memory",
           "achieved fraction of memory bandwidth of normalisation and "
           "element-wise kernels (the rest of the memory-bound work streams "
           "at 'memory')");
  Fraction("kv_cache", "memory",
           "achieved fraction of memory bandwidth of decode attention "
           "reading the KV cache");
  Fraction("sustained", "1",
           "fraction of the short-run compute rate a device sustains "
           "through a long run (power and clock limits), applied to every "
           "scenario");
  B.withDefault(Efficiency, "tile_m", B.integer(), "128", "GEMM tile rows");
  B.withDefault(Efficiency, "tile_n", B.integer(), "128", "GEMM tile columns");
  B.withDefault(Efficiency, "tile_k", B.integer(), "32", "GEMM tile depth");
  Fraction("narrow", "1",
           "achieved fraction of the 8-bit peaks relative to the 16-bit "
           "one's (their efficiency is compute x narrow)");
  Fraction("fp4", "narrow",
           "achieved fraction of the 4-bit peaks relative to the 16-bit "
           "one's");
  within(B.withDefault(Efficiency, "small_tile", B.number(), "0",
                       "efficiency of half-size tiles (tile_m / 2 or "
                       "tile_n / 2) relative to the full tile, chosen per "
                       "shape when they fill more compute units (0: never)"),
         0, 1);
  nonNegative(B.withDefault(Efficiency, "k_overhead", B.number(), "0",
                            "a tile's fixed cost (pipeline fill, epilogue) "
                            "in elements of its K loop: eta x K / (K + k)"));
  nonNegative(B.withDefault(Efficiency, "kernel_overhead", B.qty(time()),
                            "0 s", "fixed time per kernel launch"));
  nonNegative(B.withDefault(Efficiency, "reserved_memory", B.qty(bytes()),
                            "0 B",
                            "device memory the runtime keeps for itself "
                            "(context, workspaces, fragmentation)"));

  B.optional(Accelerator, "vendor", B.string(), "maker");
  docOnly(B.optional(Accelerator, "year", B.integer(),
                     "year of introduction"),
          "dates the part for trend studies; no cost depends on it");
  B.optional(Accelerator, "technology", B.ref(Technology),
             "process node; a child of another accelerator that sets a "
             "different one re-derives the compute, clock and SRAM fields it "
             "inherits (technology.md)");
  B.optional(Accelerator, "compute_units", B.integer(),
             "SMs, CUs or cores that GEMM tiles are spread over");
  docOnly(B.optional(Accelerator, "clock", B.qty(frequency()), "boost clock"),
          "the peaks are written; a part derived at another node scales "
          "them by the clock's ratio, in which this value cancels");
  B.required(Accelerator, "peak", B.nested(Peak), "dense peak throughput");
  B.required(Accelerator, "hbm", B.nested(MemLevel), "device memory");
  B.optional(Accelerator, "l2", B.nested(OnChip), "last-level on-chip cache");
  within(B.withDefault(Accelerator, "sparsity", B.number(), "1",
                       "speedup of 2:4 structured-sparse tensor-core GEMMs "
                       "over the dense peak (NVIDIA Ampere and later: 2, the "
                       "datasheets' \"with sparsity\" figures; 1: none)"),
         1, 8);
  B.optional(Accelerator, "scale_up", B.ref(Network),
             "the device's scale-up link (NVLink, ICI, ...)");
  B.optional(Accelerator, "scale_out", B.ref(Network),
             "the device's scale-out network port");
  B.optional(Accelerator, "host_link", B.ref(Network),
             "link to host memory (PCIe, NVLink-C2C)");
  B.optional(Accelerator, "tdp", B.qty(power()), "board power");
  positive(B.optional(Accelerator, "price", B.qty(currency()),
                      "purchase price per device (a market estimate, with "
                      "its source), for cost"));
  B.withDefault(Accelerator, "efficiency", B.nested(Efficiency), "",
                "cost-model knobs with sources");

  // system
  StructSpec *Node = B.block("node", "the scale-up domain");
  B.required(Node, "accelerator", B.ref(Accelerator), "the device");
  B.required(Node, "devices", B.integer(), "devices per node");
  B.required(Node, "fabric", B.ref(Network), "fabric inside the node");
  positive(B.optional(Node, "host_memory_bandwidth", B.qty(bandwidth()),
                      "bandwidth of the node's host (CPU) memory, shared by "
                      "its devices: the rate of a training optimizer step "
                      "offloaded to the host (offload = optimizer), a pass "
                      "over the optimizer state"));
  B.required(System, "node", B.nested(Node), "one node");
  B.withDefault(System, "nodes", B.integer(), "1", "number of nodes");
  B.optional(System, "fabric", B.ref(Network),
             "fabric between nodes (needed when nodes > 1)");
  positive(B.withDefault(System, "pue", B.number(), "1",
                         "power usage effectiveness of the facility: total "
                         "power over device power (1: devices only)"));
  positive(B.optional(System, "energy_price", B.qty(currency() / energy()),
                      "price of electricity, for cost"));
  positive(B.optional(System, "lifetime", B.qty(time()),
                      "period over which device prices are amortised, for "
                      "cost"));

  // model
  StructSpec *Moe = B.block("moe", "mixture-of-experts layers");
  atMost(B.required(Moe, "experts", B.integer(), "routed experts per MoE layer"), MaxLayers);
  atMost(B.required(Moe, "top_k", B.integer(), "experts each token is routed to"), MaxLayers);
  atMost(nonNegative(B.withDefault(Moe, "shared_experts", B.integer(), "0",
                            "experts every token goes through")), MaxLayers);
  atMost(B.withDefault(Moe, "expert_ffn", B.integer(), "ffn",
                "hidden size of one expert's MLP"), MaxModelDim);
  atMost(nonNegative(B.withDefault(Moe, "dense_layers", B.integer(), "0",
                            "dense layers before the first MoE layer")), MaxLayers);
  positive(B.withDefault(Moe, "capacity_factor", B.number(), "1",
                         "expert capacity relative to an even split"));
  StructSpec *Mla = B.block("mla", "multi-head latent attention (DeepSeek-V2/V3)");
  atMost(nonNegative(B.withDefault(Mla, "q_lora_rank", B.integer(), "0",
                            "query compression rank (0: none)")), MaxModelDim);
  atMost(B.required(Mla, "kv_lora_rank", B.integer(), "latent KV rank (what is cached)"), MaxModelDim);
  atMost(B.required(Mla, "qk_nope_head_dim", B.integer(), "per-head non-rotary QK dim"), MaxModelDim);
  atMost(B.required(Mla, "qk_rope_head_dim", B.integer(), "per-head rotary QK dim"), MaxModelDim);
  atMost(B.required(Mla, "v_head_dim", B.integer(), "per-head value dim"), MaxModelDim);

  B.withDefault(Model, "kind", B.enumOf(ModelKind), "decoder",
                "decoder-only or encoder-only");
  atMost(B.required(Model, "layers", B.integer(), "transformer blocks"), MaxLayers);
  atMost(B.required(Model, "hidden", B.integer(), "model width h"), MaxModelDim);
  atMost(B.required(Model, "heads", B.integer(), "attention (query) heads"), MaxModelDim);
  atMost(B.withDefault(Model, "kv_heads", B.integer(), "heads",
                "key/value heads: = heads for MHA, 1 for MQA, else GQA"), MaxModelDim);
  atMost(B.withDefault(Model, "head_dim", B.integer(), "hidden / heads",
                "dimension of one head"), MaxModelDim);
  atMost(B.withDefault(Model, "ffn", B.integer(), "4 * hidden", "MLP hidden size"), MaxModelDim);
  B.withDefault(Model, "activation", B.enumOf(Activation), "gelu",
                "MLP activation");
  B.withDefault(Model, "norm", B.enumOf(Norm), "layernorm", "normalisation");
  B.withDefault(Model, "positional", B.enumOf(Positional), "learned",
                "position encoding");
  atMost(B.required(Model, "vocab", B.integer(), "vocabulary size (padded)"), MaxModelDim);
  B.required(Model, "max_seq", B.integer(), "longest sequence (context)");
  B.withDefault(Model, "tied_embeddings", B.boolean(), "false",
                "input and output embeddings shared");
  B.withDefault(Model, "bias", B.boolean(), "true",
                "linear layers and norms have biases");
  B.withDefault(Model, "qkv_bias", B.boolean(), "bias",
                "the query, key and value projections have biases (Qwen2 "
                "has them without other biases)");
  within(B.withDefault(Model, "dropout", B.number(), "0",
                       "dropout probability in training (masks are kept for "
                       "backward when above 0)"),
         0, 1);
  B.optional(Model, "sliding_window", B.integer(),
             "attention window in tokens (sliding-window attention)");
  B.optional(Model, "full_attention_every", B.integer(),
             "with sliding_window: every n-th layer (layers n, 2n, ...) "
             "attends over the whole context and the others within the "
             "window (GPT-OSS: 2, Gemma 3: 6; Hugging Face layer_types, "
             "Megatron-LM window_attn_skip_freq); unset: every layer is "
             "windowed");
  within(B.withDefault(
      Model, "mtp_layers", B.integer(), "0",
      "multi-token-prediction modules (DeepSeek-V3 §2.2; Hugging Face "
      "num_nextn_predict_layers, Megatron-LM --mtp-num-layers): in training "
      "each adds, on the last pipeline stage, norms of the hidden state and of "
      "the next token's embedding, a projection of the two (2h to h), one "
      "layer like the model's last, and a second pass of the shared LM head "
      "and loss; serving runs none (their parameters are counted apart)"),
      0, 16);
  B.optional(Model, "moe", B.nested(Moe), "mixture of experts");
  B.optional(Model, "mla", B.nested(Mla), "multi-head latent attention");
  docOnly(positive(B.optional(Model, "reference_params", B.number(),
                              "published total parameter count (with its "
                              "source), compared with the computed count")),
          "checked against the count computed from the shape "
          "(`llmsys-opt --emit=params`: within or OUTSIDE its tolerance); "
          "the cost uses the computed count");
  docOnly(within(B.optional(Model, "reference_tolerance", B.number(),
                            "how far the computed counts may be from the "
                            "references (0.1: 10%; unset: the half-unit of "
                            "the written figure's last digit, at least "
                            "0.5%), for a model published at a nominal size "
                            "(\"8B\" computing to 8.54B)"),
                 0, 1),
          "the band of the reference check (`llmsys-opt --emit=params`); "
          "the cost uses the computed count");
  docOnly(positive(B.optional(Model, "reference_active_params", B.number(),
                              "published parameters active per token "
                              "(MoE)")),
          "checked against the computed active count (`llmsys-opt "
          "--emit=params`)");

  // mapping
  StructSpec *Schedule = B.block(
      "schedule", "pipeline schedule: `schedule = 1f1b` or "
                  "`schedule = interleaved_1f1b { virtual_stages = 3 }`");
  B.withDefault(Schedule, "kind", B.enumOf(ScheduleKind), "1f1b",
                "the schedule");
  B.withDefault(Schedule, "virtual_stages", B.integer(), "1",
                "model chunks per device (interleaved 1F1B)");
  Schedule->TagField = 0;

  for (StringRef P : {"dp", "tp", "pp", "cp", "ep"}) {
    static const char *const Docs[] = {
        "data-parallel replicas", "tensor-parallel group size",
        "pipeline-parallel stages", "context-parallel group size",
        "expert-parallel group size"};
    size_t I = std::string("dp tp pp cp ep").find(P.str()) / 3;
    B.withDefault(Mapping, P, B.integer(), "1", Docs[I]);
  }
  B.optional(Mapping, "expert_tp", B.integer(),
             "tensor-parallel split of each expert's MLP (Megatron-LM "
             "--expert-tensor-parallel-size; unset: tp). MoE parallel "
             "folding: the experts' ep x expert_tp grid is laid over the same "
             "tp x cp x dp devices as attention, independently of its split");
  B.withDefault(Mapping, "sp", B.boolean(), "false",
                "sequence parallelism in the tensor-parallel group");
  within(B.withDefault(Mapping, "zero", B.integer(), "0",
                       "ZeRO stage 0-3 of the data-parallel group"),
         0, 3);
  B.withDefault(Mapping, "distributed_optimizer", B.boolean(), "false",
                "Megatron's distributed optimizer (optimizer state sharded)");
  B.withDefault(Mapping, "micro_batch", B.integer(), "1",
                "sequences per micro-batch");
  B.optional(Mapping, "global_batch", B.integer(),
             "sequences per optimizer step");
  B.withDefault(Mapping, "schedule", B.nested(Schedule), "1f1b",
                "pipeline schedule");
  nonNegative(B.optional(
      Mapping, "stage_layers", B.listOf(B.integer()),
      "transformer layers per pipeline stage, summing to the model's: pp "
      "entries (each a multiple of virtual_stages), or pp x virtual_stages "
      "entries, one per model chunk in model order (chunk c of stage s at "
      "c pp + s, Megatron-LM's pipeline layout); unset: an even split"));
  nonNegative(B.optional(
      Mapping, "first_stage_layers", B.integer(),
      "layers of the first pipeline stage, the other stages sharing the "
      "rest evenly (Megatron-LM --decoder-first-pipeline-num-layers)"));
  nonNegative(B.optional(
      Mapping, "last_stage_layers", B.integer(),
      "layers of the last pipeline stage, the other stages sharing the "
      "rest evenly (Megatron-LM --decoder-last-pipeline-num-layers)"));
  B.withDefault(Mapping, "recompute", B.enumOf(Recompute), "none",
                "activation recomputation");
  B.withDefault(Mapping, "precision", B.enumOf(Precision), "bf16",
                "base number format: the residual stream, its norms and "
                "residual adds, and the collectives that carry it; the "
                "default of the three below");
  B.withDefault(Mapping, "weights", B.enumOf(Precision), "precision",
                "number format of weights");
  B.withDefault(Mapping, "activations", B.enumOf(Precision), "precision",
                "number format of GEMM and attention inputs (the compute "
                "peak used) and the tensors between them");
  B.withDefault(Mapping, "kv_cache", B.enumOf(Precision), "precision",
                "number format of the KV cache");
  B.withDefault(Mapping, "gradients", B.enumOf(Precision), "fp32",
                "number format in which training accumulates gradients and "
                "the data-parallel reduction carries them (Megatron-LM: "
                "fp32 main gradients with bf16; the parameters' format with "
                "fp16 unless --accumulate-allreduce-grads-in-fp32)");
  B.withDefault(Mapping, "fusion", B.listOf(B.enumOf(Fusion)), "[]",
                "fused kernels in use");
  B.withDefault(Mapping, "tp_overlap", B.boolean(), "false",
                "tensor-parallel communication overlapped with compute");
  B.withDefault(Mapping, "tp_overlap_backward", B.boolean(), "true",
                "with tp_overlap: the backward's tensor-parallel "
                "communication is hidden too (Megatron-LM's userbuffers); "
                "false: the forward's only (PyTorch's async TP, whose "
                "micro-pipelining speeds up the forward)");
  B.withDefault(Mapping, "ep_dispatch", B.enumOf(EpDispatch), "all_to_all",
                "how the expert all-to-alls cross nodes (inside one node the "
                "two are the same); hierarchical sends a token's bytes across "
                "the scale-out fabric once per other node holding one of its "
                "experts: for uniform routing nodes x (1 - C(E - E/nodes, k) / "
                "C(E, k)) / k of all_to_all's");
  B.withDefault(Mapping, "ep_overlap", B.boolean(), "false",
                "train: expert-parallel all-to-alls run beside the compute "
                "of another micro-batch and show only where they outlast "
                "the layer's (Megatron-LM's overlap_moe_expert_parallel_comm); "
                "false: exposed");
  B.withDefault(Mapping, "tp_grad_overlap", B.boolean(), "false",
                "the input-gradient all-reduce (reduce-scatter with SP) of "
                "column-parallel layers runs during their weight-gradient "
                "GEMMs (Megatron-LM's asynchronous tensor-parallel "
                "all-reduce)");
  B.withDefault(Mapping, "grad_accumulation_fusion", B.boolean(), "true",
                "weight-gradient GEMMs add into the gradient buffer in "
                "their epilogue (Megatron-LM --gradient-accumulation-fusion, "
                "on by default); false: each weight gradient is written in "
                "the weights' format and added into the buffer by a kernel "
                "of its own, every micro-batch");
  B.withDefault(Mapping, "dp_overlap", B.boolean(), "false",
                "data-parallel gradient reduction overlapped with backward "
                "(Megatron-LM --overlap-grad-reduce; off by default there)");
  B.optional(Mapping, "recipe", B.ref(Recipe),
             "train: a low-precision recipe for the linear layers' GEMMs "
             "(instead of `activations`)");
  B.withDefault(Mapping, "sparse_weights", B.boolean(), "false",
                "serve: the layers' linear weights are 2:4 structured-sparse "
                "(two of every four zero): stored compressed (half the values "
                "and 2-bit indices) and multiplied at the accelerator's "
                "`sparsity` speedup; the embedding and head stay dense");
  B.withDefault(Mapping, "offload", B.enumOf(Offload), "none",
                "host-memory offload (serve: weights streamed over the host "
                "link for every forward; train: activations, each layer's "
                "saved tensors sent to host memory in forward and brought "
                "back in backward, beside the layer's compute; train: "
                "optimizer, the optimizer state in host memory and the "
                "update run on the host: gradients to the host and "
                "parameters back over the host link, the update at the "
                "node's host_memory_bandwidth, after the gradient reduction)");

  // recipe
  B.required(Recipe, "forward", B.enumOf(Precision),
             "format of the forward GEMMs' operands (input and weight)");
  B.withDefault(Recipe, "input_gradient", B.enumOf(Precision), "forward",
                "format of the input-gradient GEMMs' operands (output "
                "gradient and weight)");
  B.withDefault(Recipe, "weight_gradient", B.enumOf(Precision),
                "input_gradient",
                "format of the weight-gradient GEMMs' operands (output "
                "gradient and input)");
  B.optional(Recipe, "attention", B.enumOf(Precision),
             "format of the attention products (default: the mapping's "
             "precision; Transformer Engine keeps attention in 16 bits "
             "unless asked for FP8 attention)");
  B.optional(Recipe, "head", B.enumOf(Precision),
             "format of the LM head's GEMMs (default: the mapping's "
             "precision)");
  within(B.withDefault(Recipe, "block", B.integer(), "0",
                       "elements that share one 1-byte scale factor (MXFP8: "
                       "32, NVFP4: 16); 0: one scale per tensor or row"),
         0, 65536);
  within(B.withDefault(Recipe, "copies", B.integer(), "1",
                       "quantized copies written of each input, output "
                       "gradient and weight: 2 where the backward GEMMs need "
                       "another layout or scale direction (Hopper's "
                       "transposes, MX column-scaled copies)"),
         1, 4);
  // A yes/no choice of the recipe's.
  auto RecipeFlag = [&](const char *Name, const char *Default,
                        const char *Doc) {
    B.withDefault(Recipe, Name, B.boolean(), Default, Doc);
  };
  RecipeFlag("amax_pass", "false",
             "each cast first reads its input once more to find the "
             "scale (current scaling, dynamic scaling)");
  RecipeFlag("cast_per_copy", "false",
             "each copy is a pass of its own over the input (torchao); "
             "false: one kernel writes every copy (Transformer Engine's "
             "cast-transpose)");
  RecipeFlag("weight_cache", "true",
             "weights are quantized once per step and kept (Transformer "
             "Engine with Megatron-LM's first-micro-batch flag): memory "
             "for the copies; false: quantized in every micro-batch's "
             "forward and backward");
  RecipeFlag("save_narrow", "true",
             "backward keeps the quantized input of each linear layer "
             "(Transformer Engine); false: the wide input, quantized "
             "again in backward (torchao)");
  RecipeFlag("fused_input", "false",
             "the norm or activation before a GEMM writes its quantized "
             "input (Transformer Engine's fused LayerNormLinear with "
             "delayed scaling): those inputs are not cast again, only "
             "their further copies written");
  RecipeFlag("narrow_gather", "true",
             "with sequence parallelism, a column-parallel layer's input "
             "is cast on the device's shard and all-gathered quantized "
             "(FP8 all-gather); false: all-gathered in 16 bits and cast "
             "after the gather, on every device (torchao row-wise and "
             "MXFP8)");
  RecipeFlag("rescale_backward", "false",
             "the backward GEMMs run with per-tensor scales and a pass "
             "of their own applies the row scales to each output (torchao "
             "row-wise)");

  // train
  B.required(Train, "model", B.ref(Model), "the model");
  B.required(Train, "system", B.ref(System), "the system");
  B.required(Train, "mapping", B.ref(Mapping), "the parallel mapping");
  // Up to 2^53 tokens: a double counts them exactly.
  atMost(B.optional(Train, "tokens", B.qty(tokens()), "tokens to train on"),
         MaxExact);
  B.withDefault(Train, "seq_len", B.integer(), "model.max_seq",
                "training sequence length");
  // A part of the system (train and serve alike).
  auto PartOfSystem = [&](StructSpec *K) {
    B.optional(K, "devices", B.integer(),
               "devices of the system the scenario uses (the mapping's "
               "dp x tp x pp x cp), when it uses fewer than the system has: "
               "placed on whole nodes first, the rest idle (unset: a train "
               "mapping must use every device; a serve mapping using fewer "
               "is warned about)");
    B.withDefault(K, "charge_idle", B.boolean(), "false",
                  "energy and cost count the system's idle devices too (a "
                  "reserved system); false: the devices used only");
  };
  PartOfSystem(Train);
  // Fine-tuning.
  const EnumSpec *FinetuneKindE = B.enumType(
      "fine-tuning", Words(ir::FinetuneKind()),
      "full: every parameter trains; lora: frozen base weights and rank-r "
      "adapters beside the targeted linear layers (Hu et al. 2021); qlora: "
      "the same with the frozen base weights stored in 4-bit NormalFloat "
      "(Dettmers et al. 2023)");
  const EnumSpec *LoraTargetE = B.enumType(
      "LoRA target", Words(ir::LoraTarget()),
      "qkv: the query, key and value projections (MLA's down- and "
      "up-projections too); out: the attention output projection; up: the "
      "MLP's up (and gate) projection; down: its down projection (dense "
      "MLPs and shared experts; routed experts are not adapted)");
  StructSpec *Finetune = B.block(
      "finetune", "what training updates: `finetune = full` or "
                  "`finetune = lora { rank = 16 }`");
  B.withDefault(Finetune, "kind", B.enumOf(FinetuneKindE), "full",
                "what trains");
  within(B.optional(Finetune, "rank", B.integer(),
                    "lora, qlora: the adapters' rank r (required)"),
         1, 65536);
  B.withDefault(Finetune, "targets", B.listOf(B.enumOf(LoraTargetE)),
                "[qkv, out, up, down]",
                "lora, qlora: the linear layers adapted (QLoRA adapts every "
                "linear layer)");
  Finetune->TagField = 0;
  B.withDefault(Train, "finetune", B.nested(Finetune), "full",
                "what training updates: every parameter, or LoRA/QLoRA "
                "adapters beside frozen weights");
  B.withDefault(Train, "optimizer", B.enumOf(Optimizer), "adam",
                "mixed-precision optimizer (adam: 12 bytes of state a "
                "parameter; sgd, with momentum: 8)");

  // serve
  StructSpec *Slo = B.block("slo", "service-level objectives");
  Slo->IsLimits = true;
  B.optional(Slo, "ttft", B.qty(time()), "time to first token").BoundOp = "<=";
  B.optional(Slo, "tpot", B.qty(time()), "time per output token").BoundOp = "<=";
  B.optional(Slo, "e2e", B.qty(time()), "end-to-end latency").BoundOp = "<=";
  B.optional(Slo, "throughput", B.qty(tokenRate()),
             "output tokens per second, system")
      .BoundOp = ">=";
  StructSpec *Spec = B.block("speculative", "speculative decoding");
  B.required(Spec, "draft", B.ref(Model), "draft model");
  within(B.required(Spec, "k", B.integer(), "tokens proposed per step"), 1,
         256);
  within(B.required(Spec, "acceptance", B.number(),
                    "probability that a proposed token is accepted"),
         0, 1);

  // In-flight batching (serve's `traffic`).
  const EnumSpec *ArrivalKind = B.enumType(
      "arrival process", Words(ir::ArrivalKind()),
      "offline: every request queued at the start; concurrency: a fixed "
      "number of clients, each sending its next request when the last "
      "completes; poisson: requests at random times at a mean rate; "
      "trace: at the times of the traffic's trace");
  StructSpec *Arrival = B.block(
      "arrival", "how requests arrive: `arrival = offline`, "
                 "`arrival = concurrency { clients = 64 }` or "
                 "`arrival = poisson { rate = 5 requests/s }`");
  B.withDefault(Arrival, "kind", B.enumOf(ArrivalKind), "offline",
                "the arrival process");
  within(B.optional(Arrival, "clients", B.integer(),
                    "concurrency: requests in flight at once"),
         1, 1e7);
  positive(B.optional(Arrival, "rate", B.qty(frequency()),
                      "poisson: mean requests per second (`5 requests/s`)"));
  Arrival->TagField = 0;
  StructSpec *Traffic = B.block(
      "traffic", "requests served by in-flight (continuous) batching");
  within(B.optional(Traffic, "requests", B.integer(),
                    "requests served (required without a trace; with one, "
                    "its first requests)"),
         1, 1e7);
  B.optional(Traffic, "trace", B.string(),
             "a CSV file of recorded requests, relative to this file: "
             "`prompt,output[,arrival]` a row (tokens, tokens, seconds); "
             "it gives each request's lengths (the scenario's prompt and "
             "output are then its means), and its arrival times with "
             "`arrival = trace`");
  B.withDefault(Traffic, "arrival", B.nested(Arrival), "offline",
                "the arrival process");
  const EnumSpec *Lengths = B.enumType(
      "length distribution", Words(ir::LengthDistribution()),
      "how request lengths spread around the scenario's prompt and output "
      "(their means)");
  B.withDefault(Traffic, "lengths", B.enumOf(Lengths), "normal",
                "the distribution of prompt and output lengths around the "
                "scenario's prompt and output, with the standard deviations "
                "below (normal, as trtllm-bench's token-norm-dist; each "
                "length rounded, at least 1 token)");
  nonNegative(B.withDefault(Traffic, "prompt_stdev", B.qty(tokens()),
                            "0 tokens",
                            "standard deviation of the prompt lengths (0: "
                            "every prompt is the scenario's)"));
  nonNegative(B.withDefault(Traffic, "output_stdev", B.qty(tokens()),
                            "0 tokens",
                            "standard deviation of the output lengths (0: "
                            "every output is the scenario's)"));
  within(B.withDefault(Traffic, "max_batch", B.integer(), "256",
                       "the engine's largest batch: sequences in one step"),
         1, 1e6);
  within(B.withDefault(Traffic, "max_tokens", B.integer(), "8192",
                       "the engine's token budget per step: prompt tokens "
                       "admitted plus one per decoding sequence"),
         1, 1e8);
  B.withDefault(Traffic, "chunked_prefill", B.boolean(), "false",
                "prompts read in chunks over several steps, as much of each "
                "as the step's token budget leaves (vLLM's chunked prefill, "
                "TensorRT-LLM's context chunking); false: a prompt is read "
                "whole in the step that admits it");
  const EnumSpec *Policy = B.enumType(
      "step policy", {"mixed", "prefill_first"},
      "mixed: every step runs the generating sequences and the prompts "
      "admitted beside them (TensorRT-LLM, vLLM with chunked prefill); "
      "prefill_first: while prompts can run, a step runs prompts only "
      "(vLLM's scheduler without chunked prefill)");
  B.withDefault(Traffic, "policy", B.enumOf(Policy), "mixed",
                "what an engine step runs");
  within(B.withDefault(Traffic, "prefix_hit", B.number(), "0",
                       "the share of each prompt already in the KV cache "
                       "from earlier requests (vLLM's automatic prefix "
                       "caching, TensorRT-LLM's KV cache reuse): not "
                       "computed again, still attended to and held"),
         0, 0.999);
  within(B.withDefault(Traffic, "kv_fraction", B.number(), "0.9",
                       "the share of the memory left after weights and "
                       "activations that holds the KV cache "
                       "(TensorRT-LLM's free_gpu_memory_fraction, vLLM's "
                       "gpu_memory_utilization applies to all)"),
         0.01, 1);
  within(B.withDefault(Traffic, "seed", B.integer(), "1",
                       "seed of the random arrival times (poisson)"),
         0, 4294967295.0);

  B.withDefault(Workload, "batch", B.integer(), "1", "concurrent sequences");
  positive(B.required(Workload, "prompt", B.qty(tokens()), "prompt length"));
  positive(B.required(Workload, "output", B.qty(tokens()), "generated tokens"));
  B.optional(Workload, "slo", B.nested(Slo), "service-level objectives");

  B.required(Serve, "model", B.ref(Model), "the model");
  B.required(Serve, "system", B.ref(System), "the system");
  B.required(Serve, "mapping", B.ref(Mapping), "the parallel mapping");
  PartOfSystem(Serve);
  B.optional(Serve, "workload", B.ref(Workload),
             "a use case whose batch, lengths and SLOs are the defaults");
  // Required unless the workload has them (Sema checks the pair).
  B.optional(Serve, "batch", B.integer(),
             "concurrent sequences (default: the workload's, else 1)");
  positive(B.optional(Serve, "prompt", B.qty(tokens()),
                      "prompt length (required here or in the workload)"));
  positive(B.optional(Serve, "output", B.qty(tokens()),
                      "generated tokens (required here or in the workload)"));
  nonNegative(B.withDefault(
      Serve, "retrieved", B.qty(tokens()), "0 tokens",
      "retrieval-augmented generation: retrieved passages added to each "
      "prompt (the prefill and the cache hold prompt + retrieved tokens)"));
  B.optional(Serve, "slo", B.nested(Slo),
             "service-level objectives (default: the workload's)");
  within(B.withDefault(Serve, "beams", B.integer(), "1",
                       "beam search: sequences each request decodes (its "
                       "prompt prefilled once, its cache shared by the "
                       "beams; the best beam returned)"),
         1, 256);
  B.optional(Serve, "speculative", B.nested(Spec), "speculative decoding");
  B.optional(Serve, "traffic", B.nested(Traffic),
             "requests served by in-flight batching (instead of one static "
             "batch: docs/cost-model.md)");
  (void)Sweep;

  // The figures of each scenario kind (Figures.def).
  auto FigureType = [&](ir::FigureType T) {
    switch (T) {
    case ir::FigureType::Time: return B.qty(time());
    case ir::FigureType::TokenRate: return B.qty(tokenRate());
    case ir::FigureType::OpsRate: return B.qty(opsRate());
    case ir::FigureType::Number: return B.number();
    case ir::FigureType::Count: return B.integer();
    case ir::FigureType::Bool: return B.boolean();
    case ir::FigureType::Bytes: return B.qty(bytes());
    case ir::FigureType::Energy: return B.qty(energy());
    case ir::FigureType::EnergyPerToken: return B.qty(energy() / tokens());
    case ir::FigureType::Currency: return B.qty(currency());
    case ir::FigureType::CurrencyPerToken: return B.qty(currency() / tokens());
    case ir::FigureType::Frequency: return B.qty(frequency());
    }
    llvm_unreachable("unknown figure type");
  };
  for (const ir::FigureInfo &F : ir::figures())
    B.figure(F.Training ? Train : Serve, F, FigureType(F.Type));

  // measurement: figures are words of the union of the scenario kinds'
  // figures; Sema checks the word and the value's dimension against the
  // scenario's kind.
  std::vector<std::string> FigureWords;
  for (const StructSpec *K : {Train, Serve})
    for (const FigureSpec &F : K->Figures)
      if (!llvm::is_contained(FigureWords, F.Name))
        FigureWords.push_back(F.Name);
  const EnumSpec *Figure =
      B.enumType("figure", FigureWords, "a result figure of a scenario");
  TypeSpec AnyScenario = B.ref(nullptr);
  B.required(Measurement, "scenario", AnyScenario, "the scenario measured");
  B.required(Measurement, "figure", B.enumOf(Figure), "what was measured");
  TypeSpec AnyQuantity = B.qty(Dimension());
  AnyQuantity.AnyDimension = true;
  B.required(Measurement, "value", AnyQuantity,
             "the measured value, in the figure's dimension");
  B.required(Measurement, "source", B.string(),
             "source group, e.g. \"korthikanti2022\"");
  B.optional(Measurement, "case", B.string(),
             "the row of the measurement table (measured_dev.csv id)");
  B.optional(Measurement, "note", B.string(), "how the value was read");
  B.withDefault(Measurement, "calibrates", B.boolean(), "true",
                "a training measurement the fitted parameters "
                "(efficiency.sustained) are fitted on; false: predicted and "
                "reported like any case, in-sample and held out, but not "
                "fitted on, for a run whose time holds a cost llmsys knows it "
                "does not model (the note says which)");
}

const Schema &Schema::get() {
  static const Schema S;
  return S;
}

const StructSpec *Schema::entity(StringRef Kind) const {
  for (const StructSpec *E : Entities)
    if (E->Name == Kind)
      return E;
  return nullptr;
}

std::vector<std::string> Schema::entityKindNames() const {
  std::vector<std::string> Names;
  for (const StructSpec *E : Entities)
    Names.push_back(E->Name);
  return Names;
}

static void printFields(raw_ostream &OS, const StructSpec &St) {
  if (St.Fields.empty())
    return;
  OS << "| field | type | required / default | meaning |\n";
  OS << "| --- | --- | --- | --- |\n";
  for (const FieldSpec &F : St.Fields) {
    OS << "| `" << F.Name << "` | " << F.Type.describe();
    switch (F.Check) {
    case Constraint::Positive:
      OS << ", > 0";
      break;
    case Constraint::NonNegative:
      OS << ", >= 0";
      break;
    case Constraint::Range:
      OS << ", " << spec::formatNumber(F.Min) << " .. "
         << spec::formatNumber(F.Max);
      break;
    case Constraint::None:
      break;
    }
    if (F.Check != Constraint::Range && std::isfinite(F.mostValue()))
      OS << ", <= " << spec::formatNumber(F.mostValue());
    OS << " | ";
    switch (F.Pres) {
    case Presence::Required:
      OS << "required";
      break;
    case Presence::Optional:
      OS << "optional";
      break;
    case Presence::Default:
      OS << "`" << F.Default << "`";
      break;
    }
    if (!F.BoundOp.empty())
      OS << " (written `" << F.Name << " " << F.BoundOp << " value`)";
    OS << " | " << F.Doc;
    if (!F.DocOnly.empty())
      OS << " (documentation only: " << F.DocOnly << ")";
    OS << " |\n";
  }
  OS << "\n";
}

void Schema::printMarkdown(raw_ostream &OS) const {
  OS << "# Schema of .llmsys entities\n\n"
     << "Generated by `llmsys schema` from lib/IR/Schema.cpp; do not edit.\n"
     << "A test checks that this file matches the tool.\n\n";
  OS << "## Entities\n\n";
  for (const StructSpec *E : Entities) {
    OS << "### `" << E->Name << "` — " << E->Doc << "\n\n";
    printFields(OS, *E);
    if (!E->Figures.empty()) {
      OS << "Figures (by name in `expect`, `where` and sweep objectives; by "
            "key in JSON, CSV and Markdown; `diff --fail-if` takes either; "
            "better: the direction a Pareto front ranks by):\n\n"
         << "| figure | key | type | better | meaning |\n"
         << "| --- | --- | --- | --- | --- |\n";
      for (const FigureSpec &F : E->Figures)
        OS << "| `" << F.Name << "` | `" << F.key() << "` | "
           << F.Type.describe() << " | "
           << (F.Info->HigherIsBetter ? "higher" : "lower") << " | " << F.Doc
           << " |\n";
      OS << "\n";
    }
  }
  OS << "## Blocks\n\n";
  for (const StructSpec *B : Blocks) {
    OS << "### `" << B->Name << "` — " << B->Doc << "\n\n";
    printFields(OS, *B);
  }
  OS << "## Enumerations\n\n| name | words | meaning |\n| --- | --- | --- |\n";
  for (const EnumSpec *E : Enums) {
    OS << "| " << E->Name << " | ";
    for (size_t I = 0; I < E->Words.size(); ++I)
      OS << (I ? ", " : "") << "`" << E->Words[I] << "`";
    OS << " | " << E->Doc << " |\n";
  }
}

} // namespace llmsys
