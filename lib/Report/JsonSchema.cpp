//===- JsonSchema.cpp - the JSON Schema of `eval --format=json` --------------===//
//
// The layout Json.cpp writes, as a JSON Schema (draft 2020-12): every
// object closed (no key it does not list) with every key required, the
// figures from Figures.def under their keys. docs/report-schema.json is
// generated from it (`llmsys schema --json`), and test/Driver/report-
// schema.test checks eval's documents against it.
//
//===----------------------------------------------------------------------===//

#include "Report/Report.h"

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
Value words(std::initializer_list<const char *> Words) {
  Array A;
  for (const char *W : Words)
    A.push_back(W);
  return Object{{"enum", std::move(A)}};
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
  I.key("offload", words({"none", "weights", "optimizer"}));
  I.key("optimizer", Training ? words({"adam", "sgd"}) : words({"none"}));
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
  for (const char *K : {"requests", "max_batch", "max_tokens", "steps",
                        "peak_batch"})
    Traffic.key(K, integer());
  for (const char *K :
       {"mean_prompt_tokens", "mean_output_tokens", "duration_s",
        "kv_cache_tokens", "peak_kv_cache_tokens", "ttft_mean_s",
        "tpot_mean_s", "e2e_mean_s"})
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

llvm::json::Value evalJsonSchema() {
  Closed Doc;
  Doc.key("schema_version", Object{{"const", JsonSchemaVersion}})
      .key("scenarios",
           arrayOf(Object{{"oneOf", Array{training(), serving()}}}));
  Value V = Doc.build();
  Object &O = *V.getAsObject();
  O["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  O["title"] = "llmsys eval --format=json";
  O["description"] =
      "The document `llmsys eval --format=json` prints "
      "(docs/report-format.md); generated by `llmsys schema --json` from "
      "lib/Report/JsonSchema.cpp and lib/IR/Figures.def.";
  return V;
}

} // namespace report
} // namespace llmsys
