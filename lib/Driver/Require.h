//===- Require.h - the least hardware that meets a scenario's SLOs -*- C++ -*-===//
//
// GenZ's inverse question for a serve scenario: for each resource of the
// device (compute, memory bandwidth, memory capacity, interconnect
// bandwidth), the least value that alone would meet every SLO with the
// others held at the system's values, and which resource binds (docs/
// cost-model.md#requirements). Times fall monotonically as a resource
// grows, so each is found by bisection on a scale factor of the resource.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_DRIVER_REQUIRE_H
#define LLMSYS_DRIVER_REQUIRE_H

#include "Cost/Cost.h"

#include <string>
#include <vector>

namespace llmsys {
namespace driver {

struct Requirement {
  enum class Kind {
    Needed,      ///< Need is the least value that meets the SLOs
    AnyValue,    ///< met at 1/10000 of the system's value (not a constraint)
    Unreachable, ///< not met even at 10000 x: the others bind
  };
  std::string Resource; ///< "compute", "memory bandwidth", ...
  std::string Unit;     ///< "FLOP/s", "B/s", "B"
  Kind K = Kind::Needed;
  double Have = 0; ///< per device
  double Need = 0; ///< per device (Needed)
  double ratio() const { return Have > 0 ? Need / Have : 0; }
};

struct RequireReport {
  cost::ServingReport AsIs; ///< the scenario on its system
  bool MetNow = false;
  std::vector<Requirement> Rows;
  /// When the SLOs are met: the Needed row with the largest Need / Have
  /// (the tightest). When missed: the smallest single upgrade that meets
  /// them (memory capacity if the batch does not fit); -1 when no single
  /// resource can.
  int Binding = -1;
};

/// The search range of the scale factors, each way.
constexpr double RequireRange = 1e4;

/// P: a serving program with at least one SLO.
/// With traffic (in-flight batching), AtBatch gives the scenario's programs
/// at other batches and each system tried runs the whole simulation; the
/// SLOs hold for the 99th percentiles.
/// Disaggregated serving: Prefill is the prefill pool's program and
/// AtPrefill its programs at other batches; both pools run on each system
/// tried.
struct PrefillPool {
  const ir::Program *Prefill = nullptr;
  const cost::ProgramAtBatch *AtPrefill = nullptr;
};
RequireReport require(const ir::Program &P,
                      const cost::ProgramAtBatch *AtBatch = nullptr,
                      const PrefillPool &Pool = {});

} // namespace driver
} // namespace llmsys

#endif
