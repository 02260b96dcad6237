//===- ScenarioChecks.h - checks of a built scenario ------------*- C++ -*-===//
//
// Internal to lib/Sema. What is checked of a train or serve scenario once
// every field is evaluated: what reads several of its fields (and those of
// the entities it names) together. Free functions over the built object,
// with no access to the resolver's state; Sema.cpp runs each over every
// scenario of the files being checked, in turn.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_SCENARIOCHECKS_H
#define LLMSYS_SEMA_SCENARIOCHECKS_H

#include "Basic/Diagnostics.h"
#include "Basic/SourceFiles.h"
#include "IR/Spec.h"

namespace llmsys {
namespace sema {

/// A serve scenario's prompt and output: its own, its workload's or a
/// trace's; err_incomplete_entity at Name when one has none.
void checkServeLengths(const spec::Object &Serve, llvm::SMRange Name,
                       DiagnosticEngine &Diags);

/// A context longer than the model's max_seq is allowed (what-if studies)
/// but said at Name (warn_context_exceeds_model).
void checkContextLength(const spec::Object &Scenario, llvm::SMRange Name,
                        DiagnosticEngine &Diags);

/// A serving mapping on fewer devices than its system has, without the
/// scenario saying so (`devices`): the rest idle, and said.
void checkIdleDevices(const spec::Object &Serve, DiagnosticEngine &Diags);

/// A mapping that launches every kernel from the host (`cuda_graphs =
/// false`) on an accelerator whose launch_overhead is its kernel_overhead:
/// the choice moves no figure, and is said.
void checkLaunches(const spec::Object &Scenario, DiagnosticEngine &Diags);

/// A train scenario whose mapping launches the routed experts' GEMMs per
/// expert (`expert_gemms = per_expert`) and whose model has no experts:
/// the field would move no figure, an error.
void checkExpertGemms(const spec::Object &Train, DiagnosticEngine &Diags);

/// A train scenario whose mapping adds the routed experts' biases apart
/// (`expert_bias` other than fused) and whose model has no experts or no
/// biases: the field would move no figure, an error.
void checkExpertBias(const spec::Object &Train, DiagnosticEngine &Diags);

/// A scenario whose mapping routes consecutively (`expert_routing =
/// consecutive`) without a model with experts, expert parallelism or a
/// dispatch that sends a token once per place: an error.
void checkExpertRouting(const spec::Object &Scenario, DiagnosticEngine &Diags);

/// A mapping's step_overhead and sequence_overhead are an in-flight
/// batching engine's: a train scenario, or a serve scenario without a
/// traffic block, whose mapping sets either (to a time other than 0) is an
/// error at the field.
void checkStepOverheads(const spec::Object &Scenario, DiagnosticEngine &Diags);

/// Whether the serve scenario's mapping writes a step_overhead or a
/// sequence_overhead (its measurements may then be fitted on).
bool writesStepOverhead(const spec::Object &Serve);

/// A serve scenario's mapping (and its prefill pool's) may not write the
/// fields only training reads: each is an error at the field.
void checkTrainingOnlyFields(const spec::Object &Serve,
                             DiagnosticEngine &Diags);

/// Why a serve scenario does not use the mapping field Name, if it is one
/// only training reads (checkTrainingOnlyFields); else null.
const char *trainingOnlyMappingField(llvm::StringRef Name);

/// In-flight batching's requests: from `requests`, or from the trace file,
/// which is read here and noted on its field; what the trace gives cannot
/// be written as well.
void readRequests(spec::Object &Serve, SourceFiles &Sources,
                  DiagnosticEngine &Diags, spec::Spec &S);

} // namespace sema
} // namespace llmsys

#endif
