//===- JsonSchema.cpp - the JSON Schemas of the JSON reports ----------------===//
//
// The layouts Json.cpp (eval) and ValidationReport.cpp (validate) write,
// as JSON Schemas (draft 2020-12): every object closed (no key it does
// not list) with every key required but those an option adds, the
// figures from Figures.def under their keys. docs/report-schema.json and
// docs/validate-schema.json are generated from them (`llmsys schema
// --json`, `--json=validate`), and test/Driver/report-schema.test checks
// the commands' documents against them.
//
//===----------------------------------------------------------------------===//

#include "Report/Report.h"
#include "Driver/CrossValidate.h"

#include "llvm/Support/JSON.h"

namespace llmsys {
namespace report {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {
Value type(const char *T) { return Object{{"type", T}}; }
Value number() { return type("number"); }
Value integer() { return type("integer"); }
Value text() { return type("string"); }
Value boolean() { return type("boolean"); }
Value orNull(const char *T) { return Object{{"type", Array{T, "null"}}}; }
Value words(llvm::ArrayRef<llvm::StringRef> Words) {
  Array A;
  for (llvm::StringRef W : Words)
    A.push_back(W.str());
  return Object{{"enum", std::move(A)}};
}
Value words(std::initializer_list<llvm::StringRef> Words) {
  return words(llvm::ArrayRef<llvm::StringRef>(Words));
}
/// An enum's words, from its registry (IR/Enums.def).
template <typename E> Value enumWordsOf() {
  std::vector<llvm::StringRef> Words(ir::enumWords<E>().begin(),
                                     ir::enumWords<E>().end());
  return words(llvm::ArrayRef<llvm::StringRef>(Words));
}
Value arrayOf(Value Items) {
  return Object{{"type", "array"}, {"items", std::move(Items)}};
}

/// A closed object: every key listed and required.
class Closed {
public:
  /// (Keys are copied: a JSON object's StringRef keys are not owned.)
  Closed &key(const std::string &K, Value V) {
    Props[K] = std::move(V);
    Required.push_back(K);
    return *this;
  }
  /// A key the document may leave out (written only with an option).
  Closed &optionalKey(const std::string &K, Value V) {
    Props[K] = std::move(V);
    return *this;
  }
  /// Nullable: the object or null (a part a scenario may lack).
  Value build(bool Nullable = false) {
    Value Type = Nullable ? Value(Array{"object", "null"}) : Value("object");
    return Object{{"type", std::move(Type)},
                  {"properties", std::move(Props)},
                  {"required", std::move(Required)},
                  {"additionalProperties", false}};
  }

private:
  Object Props;
  Array Required;
};

Value inputs(bool Training) {
  Closed I;
  for (const char *K : {"model", "system", "accelerator", "recompute",
                        "schedule", "precision", "weights", "activations",
                        "kv_cache", "gradients"})
    I.key(K, text());
  for (const char *K : {"parameters", "active_parameters", "mtp_parameters"})
    I.key(K, number());
  for (const char *K : {"beams", "devices", "devices_used", "idle_devices",
                        "dp", "tp", "pp", "cp", "ep", "micro_batch",
                        "seq_len", "virtual_stages"})
    I.key(K, integer());
  for (const char *K : {"charge_idle", "sp", "tp_overlap", "tp_grad_overlap",
                        "dp_overlap", "grad_accumulation_fusion"})
    I.key(K, boolean());
  I.key("recompute_modules", arrayOf(enumWordsOf<ir::RecomputeModule>()));
  I.key("offload", words({"none", "weights", "optimizer"}));
  I.key("optimizer",
        Training ? enumWordsOf<ir::OptimizerKind>() : words({"none"}));
  return I.build();
}

Value operatorRow() {
  Closed R;
  R.key("name", text()).key("phase", text()).key("category", text());
  for (const char *K :
       {"count", "flops", "bytes", "intensity_flops_per_byte", "time_s"})
    R.key(K, number());
  R.key("bound", words({"compute", "memory"}));
  return R.build();
}

Value collectiveRow() {
  Closed R;
  for (const char *K : {"name", "phase", "kind", "group", "algorithm"})
    R.key(K, text());
  R.key("group_size", integer()).key("fabric_level", integer());
  for (const char *K : {"count", "bytes", "time_s", "exposed_s"})
    R.key(K, number());
  return R.build();
}

/// The figures of a scenario kind under their keys, null when lacking.
void figures(Closed &O, bool Training) {
  for (const ir::FigureInfo &F : ir::figures()) {
    if (F.Training != Training)
      continue;
    Value T = orNull(F.Type == ir::FigureType::Bool    ? "boolean"
                     : F.Type == ir::FigureType::Count ? "integer"
                                                       : "number");
    T.getAsObject()->try_emplace("description", F.Doc.str());
    O.key(F.Key.str(), std::move(T));
  }
}

Value training() {
  Closed Breakdown;
  for (const char *K :
       {"compute_bound_s", "memory_bound_s", "bubble_s", "optimizer_s"})
    Breakdown.key(K, number());
  for (int K = 0; K < cost::NumCommKinds; ++K)
    Breakdown.key(std::string(cost::commKindName(
                      static_cast<cost::CommKind>(K))) +
                      "_comm_exposed_s",
                  number());
  Closed Pipeline;
  Pipeline.key("slowest_stage", integer())
      .key("stage_layers", arrayOf(integer()))
      .key("stage_times_s", arrayOf(number()));
  Closed Memory;
  for (const char *K : {"weights_bytes", "quantized_weights_bytes",
                        "gradients_bytes", "optimizer_bytes",
                        "activations_bytes", "embedding_logits_bytes",
                        "in_flight_micro_batches", "reserved_bytes",
                        "capacity_bytes"})
    Memory.key(K, number());
  Memory.key("stage", integer()).key("largest", text());
  Closed O;
  O.key("name", text())
      .key("kind", Object{{"const", "train"}})
      .key("inputs", inputs(true))
      .key("micro_batches", number())
      .key("tokens_per_step", number())
      .key("device_hours", number())
      .key("breakdown", Breakdown.build())
      .key("pipeline", Pipeline.build())
      .key("memory", Memory.build())
      .key("operators", arrayOf(operatorRow()))
      .key("collectives", arrayOf(collectiveRow()));
  figures(O, true);
  return O.build();
}

Value roofline() {
  Closed R;
  for (const char *K : {"flops", "bytes", "time_s",
                        "intensity_flops_per_byte",
                        "achieved_compute_fraction",
                        "achieved_bandwidth_fraction"})
    R.key(K, number());
  R.key("bound", text()).key("on_chip", boolean());
  return R.build();
}

Value serving() {
  Closed Speculative;
  Speculative.key("draft", text()).key("k", integer());
  for (const char *K :
       {"acceptance", "tokens_per_step", "draft_step_s", "verify_step_s"})
    Speculative.key(K, number());
  Closed Traffic;
  for (const char *K : {"arrival", "lengths"})
    Traffic.key(K, text());
  Traffic.key("admission", words({"reserve", "on_demand"}));
  for (const char *K : {"requests", "max_batch", "max_tokens", "steps",
                        "peak_batch", "kv_block_tokens", "preemptions",
                        "prefill_engines"})
    Traffic.key(K, integer());
  for (const char *K :
       {"mean_prompt_tokens", "mean_output_tokens", "duration_s",
        "host_time_s", "kv_cache_tokens", "peak_kv_cache_tokens", "ttft_mean_s",
        "tpot_mean_s", "e2e_mean_s", "kv_transfer_mean_s"})
    Traffic.key(K, number());
  Closed Slo;
  Slo.key("name", words({"ttft", "tpot", "e2e", "throughput"}))
      .key("limit", number())
      .key("value", number())
      .key("lower_limit", boolean())
      .key("met", boolean())
      .key("binding", text());
  Closed Memory;
  for (const char *K : {"weights_bytes", "kv_cache_bytes",
                        "activations_bytes", "reserved_bytes",
                        "capacity_bytes"})
    Memory.key(K, number());
  Memory.key("largest", text());
  Closed O;
  O.key("name", text())
      .key("kind", Object{{"const", "serve"}})
      .key("inputs", inputs(false))
      .key("output_tokens", integer())
      .key("micro_batches", number())
      .key("prefill", roofline())
      .key("decode", roofline())
      .key("decode_crossover_batch", number())
      .key("speculative", Speculative.build(/*Nullable=*/true))
      .key("memory", Memory.build())
      .key("traffic", Traffic.build(/*Nullable=*/true))
      .key("slo", arrayOf(Slo.build()))
      .key("operators", arrayOf(operatorRow()))
      .key("collectives", arrayOf(collectiveRow()));
  figures(O, false);
  return O.build();
}
} // namespace

namespace {
/// The root of a document: draft, title and description.
Value document(Closed &Doc, llvm::StringRef Command, llvm::StringRef Source) {
  Value V = Doc.build();
  Object &O = *V.getAsObject();
  O["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  O["title"] = ("llmsys " + Command + " --format=json").str();
  O["description"] =
      ("The document `llmsys " + Command +
       " --format=json` prints (docs/report-format.md); generated by "
       "`llmsys schema --json=" +
       Command + "` from " + Source + ".")
          .str();
  return V;
}

/// Cases, mean and largest |error| over a set of validation cases.
Value summary() {
  return Closed()
      .key("cases", integer())
      .key("mean_abs_error", number())
      .key("max_abs_error", number())
      .build();
}

/// An object whose keys are names (source groups, parameter owners), each
/// holding Item.
Value mapOf(Value Item) {
  return Object{{"type", "object"}, {"additionalProperties", std::move(Item)}};
}
} // namespace

llvm::json::Value validateJsonSchema() {
  using Origin = driver::HeldOutGroup::Origin;
  // With --cross-validate, a case gains its held-out prediction and the
  // document the cross-validation: one schema for both, the keys that
  // only --cross-validate writes left optional.
  Value Case = Closed()
                   .key("source", text())
                   .key("case", text())
                   .key("figure", text())
                   .key("kind", words({"train", "serve"}))
                   .key("accelerator", text())
                   .key("unit", text())
                   .key("predicted", number())
                   .key("measured", number())
                   .key("error", number())
                   .key("calibrates", boolean())
                   .optionalKey("held_out_predicted", number())
                   .optionalKey("held_out_error", number())
                   .build();
  Value Pair = Closed()
                   .key("case", text())
                   .key("kind", words({"train", "serve"}))
                   .key("baseline", text())
                   .key("predicted_ratio", number())
                   .key("measured_ratio", number())
                   .key("error", number())
                   .build();
  Value Parameter = Closed()
                        .key("owner", text())
                        .key("field", text())
                        .key("written", number())
                        .key("fitted", number())
                        .key("cases", integer())
                        .optionalKey("training_cases", integer())
                        .build();
  Value Held = Closed()
                   .key("value", number())
                   .key("from",
                        words({driver::originName(Origin::Fitted),
                               driver::originName(Origin::Pooled),
                               driver::originName(Origin::Written)}))
                   .build();
  Value Engine = Closed()
                     .key("step_overhead", number())
                     .key("sequence_overhead", number())
                     .key("from",
                          words({driver::originName(Origin::Fitted),
                                 driver::originName(Origin::Written)}))
                     .build();
  Value Group = Closed()
                    .key("source", text())
                    .key("in_sample", summary())
                    .key("held_out", summary())
                    .key("sustained", mapOf(std::move(Held)))
                    .optionalKey("engines", mapOf(std::move(Engine)))
                    .build();
  Value Cross = Closed()
                    .key("parameters", arrayOf(std::move(Parameter)))
                    .key("groups", arrayOf(std::move(Group)))
                    .key("train", summary())
                    .key("serve", summary())
                    .key("all", summary())
                    .build();
  Closed Doc;
  Doc.key("schema_version", Object{{"const", JsonSchemaVersion}})
      .key("cases", arrayOf(std::move(Case)))
      .key("groups", mapOf(summary()))
      .key("train", summary())
      .key("serve", summary())
      .key("all", summary())
      .key("pairs", arrayOf(std::move(Pair)))
      .key("pair_summary", summary())
      .key("train_pair_summary", summary())
      .key("serve_pair_summary", summary())
      .optionalKey("cross_validation", std::move(Cross));
  return document(Doc, "validate", "lib/Report/JsonSchema.cpp");
}

namespace {
/// Figure keys a row may hold (sweep columns), each optional, of either
/// scenario kind.
void optionalFigures(Closed &O) {
  for (const ir::FigureInfo &F : ir::figures()) {
    Value T = orNull(F.Type == ir::FigureType::Bool ? "boolean" : "number");
    T.getAsObject()->try_emplace("description", F.Doc.str());
    O.optionalKey(F.Key.str(), std::move(T));
  }
}
Value anyOf(std::initializer_list<const char *> Types) {
  Array A;
  for (const char *T : Types)
    A.push_back(T);
  return Object{{"type", std::move(A)}};
}
} // namespace

llvm::json::Value sweepJsonSchema() {
  Closed Row;
  Row.optionalKey("rank", integer())
      .optionalKey("point", integer())
      .key("inputs", mapOf(anyOf({"number", "boolean", "string"})));
  optionalFigures(Row);
  Closed Doc;
  Doc.key("schema_version", Object{{"const", JsonSchemaVersion}})
      .key("sweep", text())
      .key("scenario", text())
      .key("points", integer())
      .optionalKey("objective", text())
      .key("results", arrayOf(Row.build()))
      .key("accepted", integer())
      .key("rejected_by_where", integer())
      .key("invalid_mappings", integer());
  return document(Doc, "sweep", "lib/Report/JsonSchema.cpp and lib/IR/Figures.def");
}

llvm::json::Value diffJsonSchema() {
  Value Input = Closed()
                    .key("path", text())
                    .key("a", orNull("string"))
                    .key("b", orNull("string"))
                    .optionalKey("derived_a", text())
                    .optionalKey("derived_b", text())
                    .build();
  Value Figure = Closed()
                     .key("figure", text())
                     .key("a", anyOf({"number", "boolean", "null"}))
                     .key("b", anyOf({"number", "boolean", "null"}))
                     .key("ratio", orNull("number"))
                     .build();
  Value Verdict = Closed()
                      .key("verdict", text())
                      .key("a", boolean())
                      .key("b", boolean())
                      .key("shown_a", text())
                      .key("shown_b", text())
                      .build();
  Value Binding = Closed()
                      .key("phase", text())
                      .key("a", text())
                      .key("b", text())
                      .build();
  Value Diff = Closed()
                   .key("a", text())
                   .key("b", text())
                   .key("file_a", text())
                   .key("file_b", text())
                   .key("inputs", arrayOf(std::move(Input)))
                   .key("figures", arrayOf(std::move(Figure)))
                   .key("verdicts", arrayOf(std::move(Verdict)))
                   .key("binding", arrayOf(std::move(Binding)))
                   .build();
  // A chain (three sides or more, or --figure): one figure along them.
  Value Step = Closed()
                   .key("scenario", text())
                   .key("value", orNull("number"))
                   .key("step_ratio", orNull("number"))
                   .key("total_ratio", orNull("number"))
                   .key("changed", arrayOf(text()))
                   .build();
  Value Chain = Closed()
                    .key("figure", text())
                    .key("steps", arrayOf(std::move(Step)))
                    .build();
  Closed Doc;
  Doc.key("schema_version", Object{{"const", JsonSchemaVersion}})
      .key("diffs", arrayOf(std::move(Diff)))
      .optionalKey("chain", std::move(Chain));
  return document(Doc, "diff", "lib/Report/JsonSchema.cpp");
}

llvm::json::Value requireJsonSchema() {
  using Kind = driver::Requirement::Kind;
  Value Slo = Closed()
                  .key("slo", text())
                  .key("bound", words({"min", "max"}))
                  .key("limit", number())
                  .key("predicted", number())
                  .key("met", boolean())
                  .key("binding", text())
                  .build();
  Value Resource = Closed()
                       .key("resource", text())
                       .key("unit", text())
                       .key("kind", words({requirementKindName(Kind::Needed),
                                           requirementKindName(Kind::AnyValue),
                                           requirementKindName(
                                               Kind::Unreachable)}))
                       .key("have_per_device", number())
                       .key("need_per_device", orNull("number"))
                       .optionalKey("ratio", number())
                       .build();
  Value Requirement = Closed()
                          .key("scenario", text())
                          .key("met_now", boolean())
                          .key("slos", arrayOf(std::move(Slo)))
                          .key("resources", arrayOf(std::move(Resource)))
                          .key("binding", orNull("string"))
                          .build();
  Closed Doc;
  Doc.key("schema_version", Object{{"const", JsonSchemaVersion}})
      .key("requirements", arrayOf(std::move(Requirement)));
  return document(Doc, "require", "lib/Report/JsonSchema.cpp");
}

std::optional<llvm::json::Value> jsonSchemaOf(llvm::StringRef Command) {
  if (Command == "eval")
    return evalJsonSchema();
  if (Command == "validate")
    return validateJsonSchema();
  if (Command == "sweep")
    return sweepJsonSchema();
  if (Command == "diff")
    return diffJsonSchema();
  if (Command == "require")
    return requireJsonSchema();
  if (Command == "trends")
    return trendsJsonSchema();
  return std::nullopt;
}

llvm::json::Value trendsJsonSchema() {
  Value Point = Closed()
                    .key("accelerator", text())
                    .key("year", type("integer"))
                    .key("value", type("number"))
                    .key("fitted", type("number"))
                    .build();
  Value Trend = Closed()
                    .key("name", text())
                    .key("quantity", text())
                    .key("unit", text())
                    .key("per_years", type("number"))
                    .key("growth", type("number"))
                    .key("growth_low", orNull("number"))
                    .key("growth_high", orNull("number"))
                    .key("r2", type("number"))
                    .key("reference", orNull("number"))
                    .key("first_year", type("integer"))
                    .key("last_year", type("integer"))
                    .key("points", arrayOf(std::move(Point)))
                    .build();
  Closed Doc;
  Doc.key("schema_version", Object{{"const", JsonSchemaVersion}})
      .key("trends", arrayOf(std::move(Trend)));
  return document(Doc, "trends", "lib/Report/JsonSchema.cpp");
}

llvm::json::Value evalJsonSchema() {
  Closed Doc;
  Doc.key("schema_version", Object{{"const", JsonSchemaVersion}})
      .key("scenarios",
           arrayOf(Object{{"oneOf", Array{training(), serving()}}}));
  return document(Doc, "eval",
                  "lib/Report/JsonSchema.cpp and lib/IR/Figures.def");
}

} // namespace report
} // namespace llmsys
