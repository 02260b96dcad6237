//===- Trace.h - a serving trace file ---------------------------*- C++ -*-===//
//
// Internal to lib/Sema: serve's `traffic.trace`, a CSV file of requests
// (docs/language.md), read once a scenario is built (ScenarioChecks.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_TRACE_H
#define LLMSYS_SEMA_TRACE_H

#include "Basic/Diagnostics.h"
#include "Basic/SourceFiles.h"
#include "IR/Spec.h"

#include <memory>
#include <vector>

namespace llmsys {
namespace sema {

/// Reads serve's `traffic.trace` (Trace.cpp): the requests of the CSV file
/// Spelled names (relative to the file FromBuffer), each checked against
/// the model's max_seq; null after diagnosing a problem, at the cell.
std::shared_ptr<const std::vector<spec::TraceRequest>>
readTrace(SourceFiles &Sources, DiagnosticEngine &Diags,
          llvm::StringRef Spelled, unsigned FromBuffer, llvm::SMRange Use,
          int64_t MaxSeq, llvm::StringRef ModelName);

} // namespace sema
} // namespace llmsys

#endif
