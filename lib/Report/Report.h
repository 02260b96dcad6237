//===- Report.h - printing results ---------------------------------*- C++ -*-===//

#ifndef LLMSYS_REPORT_REPORT_H
#define LLMSYS_REPORT_REPORT_H

#include "Cost/Cost.h"
#include "Driver/CrossValidate.h"
#include "Driver/Evaluate.h"
#include "Driver/Require.h"
#include "Driver/Validate.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>

namespace llmsys {
namespace report {

/// The version of the JSON reports' layout (docs/report-format.md), written
/// as "schema_version" in every JSON document; raised when a key changes
/// meaning or goes away. 2: figures under the keys of Figures.def (was
/// `tokens_per_s`, `cost_per_million_tokens_usd`, ...), null when a result
/// lacks one.
constexpr int JsonSchemaVersion = 2;

/// The JSON Schema of the document `llmsys eval --format=json` prints
/// (docs/report-schema.json), its figures from Figures.def.
llvm::json::Value evalJsonSchema();
/// The JSON Schema of `llmsys validate --format=json`'s document (with or
/// without --cross-validate).
llvm::json::Value validateJsonSchema();
/// The word of a requirement's kind in reports ("needed", "any",
/// "unreachable").
const char *requirementKindName(driver::Requirement::Kind K);
/// The JSON Schemas of `llmsys sweep`, `diff` and `require --format=json`.
llvm::json::Value sweepJsonSchema();
llvm::json::Value diffJsonSchema();
llvm::json::Value requireJsonSchema();
/// The JSON Schema of `llmsys trends --format=json`.
llvm::json::Value trendsJsonSchema();
/// The JSON Schema of the command's document (eval, validate, sweep, diff,
/// require, trends), or null for another word.
std::optional<llvm::json::Value> jsonSchemaOf(llvm::StringRef Command);

/// The text report of a training scenario (llmsys eval): a summary, the
/// memory per device, the step's breakdown, and the operator and collective
/// tables (the TopOps longest operators).
void printTrainingText(const ir::Program &P, const cost::TrainingReport &R,
                       llvm::raw_ostream &OS, unsigned TopOps = 12);

/// The text report of a serving scenario: latency (TTFT, TPOT, e2e),
/// throughput, the roofline position of prefill and decode, memory per
/// device with the largest batch that fits, the SLO verdicts, and the
/// operator and collective tables.
void printServingText(const ir::Program &P, const cost::ServingReport &R,
                      llvm::raw_ostream &OS, unsigned TopOps = 12);

/// One scenario of the JSON report (docs/report-format.md).
llvm::json::Value trainingJson(const ir::Program &P,
                               const cost::TrainingReport &R);
llvm::json::Value servingJson(const ir::Program &P,
                              const cost::ServingReport &R);

/// "1024 x A100_SXM_80GB (128 nodes of 8)"
/// `llmsys require`: per resource, the least value per device that meets
/// every SLO with the others held (docs/cli.md).
void printRequireText(const ir::Program &P, const driver::RequireReport &R,
                      llvm::raw_ostream &OS);
llvm::json::Value requireJson(const ir::Program &P,
                              const driver::RequireReport &R);
/// The same as Markdown: a heading, the SLOs and the resources.
void printRequireMarkdown(const ir::Program &P, const driver::RequireReport &R,
                          llvm::raw_ostream &OS);
/// As CSV: one row per resource of each scenario, base SI units.
void printRequireCsvHeader(llvm::raw_ostream &OS);
void printRequireCsv(const ir::Program &P, const driver::RequireReport &R,
                     llvm::raw_ostream &OS);

/// `llmsys validate`: a line per case, then per group, kind and in all
/// (docs/validation.md); the same as Markdown tables; as CSV; as JSON.
/// With CV (--cross-validate), the fitted parameters and each group's
/// in-sample and held-out error follow (CSV: two more columns per case).
void printValidationText(const driver::ValidationResult &R, llvm::raw_ostream &OS,
                         const driver::CrossValidation *CV = nullptr);
void printValidationMarkdown(const driver::ValidationResult &R,
                             llvm::raw_ostream &OS,
                             const driver::CrossValidation *CV = nullptr);
void printValidationCsv(const driver::ValidationResult &R, llvm::raw_ostream &OS,
                        const driver::CrossValidation *CV = nullptr);
llvm::json::Value validationJson(const driver::ValidationResult &R,
                                 const driver::CrossValidation *CV = nullptr);

/// Evaluates the `expect` statements of a spec (evaluating the scenarios
/// not in Done yet, and adding them). Failures are diagnostics at the
/// expectation; false if any failed.
bool checkExpectations(
    const spec::Spec &S, DiagnosticEngine &Diags,
    std::map<const spec::Object *, std::optional<driver::Evaluation>> &Done);
/// Whether a figure's value V meets an expectation's bound.
bool expectationHolds(const spec::Expectation &X, double V);
/// The bound as written: "in 0.35 .. 0.6", "<= 3 day".
std::string describeBound(const spec::Expectation &X);
/// V in the unit the expectation's bound was written in.
std::string showForExpectation(const spec::Expectation &X, double V);

/// A scenario's JSON report (trainingJson / servingJson) as Markdown.
void printMarkdown(const llvm::json::Value &Scenario, llvm::raw_ostream &OS);

std::string describeSystem(const ir::SystemConfig &S);
/// The system and, where the mapping uses part of it, how many devices
/// it uses and whether the idle rest is charged.
std::string describePlacement(const ir::ScenarioConfig &S);
/// "8.03B parameters", "30.5B parameters (3.34B active)".
/// "671B parameters (37.6B active) + 11.6B multi-token prediction";
/// serving runs no multi-token-prediction module.
std::string describeParameters(const ir::ModelConfig &M, bool Serving);
/// "dp 16 tp 8 pp 8, sp, selective recompute, interleaved_1f1b x3"
std::string describeMapping(const ir::MappingConfig &M);
/// The format whose peak a compute format runs at on the device: "bf16",
/// or "fp16 for fp8" where the device lacks fp8 (warn_format_fallback).
std::string computeFormat(const ir::AcceleratorConfig &A, ir::DType T);

} // namespace report
} // namespace llmsys

#endif
