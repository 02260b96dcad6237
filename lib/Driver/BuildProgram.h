//===- BuildProgram.h - a scenario's programs --------------------*- C++
//-*-===//
//
// A scenario's program through the default pipeline, and the programs it
// needs beside it: a pipelined serving batch's micro-batch of requests,
// and speculative decoding's draft and verification (checked first: both
// models generate, over one vocabulary).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_DRIVER_BUILDPROGRAM_H
#define LLMSYS_DRIVER_BUILDPROGRAM_H

#include "Passes/Passes.h"

#include <optional>

namespace llmsys {
namespace driver {

/// Into P (which may hold an earlier program, as in a sweep); false after
/// a diagnosed failure.
bool buildProgram(const ir::ScenarioConfig &Scenario, passes::PassContext &Ctx,
                  ir::Program &P);
/// The same, returning the program.
std::optional<ir::Program> buildProgram(const ir::ScenarioConfig &Scenario,
                                        passes::PassContext &Ctx);
/// Disaggregated serving: the scenario on its prefill pool's mapping (the
/// pool's engines' memory and steps).
ir::ScenarioConfig prefillPool(const ir::ScenarioConfig &Scenario);

} // namespace driver
} // namespace llmsys

#endif
