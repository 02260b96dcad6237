//===- Passes.h - the passes and their manager --------------------*- C++ -*-===//
//
// Each pass is a small transformation of an ir::Program, in a file of its
// own (docs/passes.md):
//   expand-layers  scenario -> operators of one micro-batch (or one serving
//                  step), forward, backward and optimizer, unpartitioned
//   fuse           FlashAttention and fused element-wise kernels
//   recompute      none / selective / full activation recomputation
//   partition      TP, SP, CP, PP, EP, DP/ZeRO: shapes per device and the
//                  collectives they need; invalid mappings diagnosed
//   quantize       a training recipe's GEMM formats and the casts they need
//   schedule       pipeline schedule (GPipe, 1F1B, interleaved) or the
//                  serving step structure
// The default pipeline runs them in that order; llmsys-opt runs any list
// and prints the program after each.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PASSES_PASSES_H
#define LLMSYS_PASSES_PASSES_H

#include "Basic/Diagnostics.h"
#include "IR/Program.h"
#include "Passes/OpListPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace passes {

class PrefixCache;

/// What a pass may use besides the program: diagnostics, reported at the
/// spec's locations (the mapping field at fault, for instance).
struct PassContext {
  DiagnosticEngine *Diags = nullptr; ///< null: fail without reporting
  /// Verify the program after each pass (every sweep point is verified
  /// too; benchmarks of the cost alone turn it off).
  bool Verify = true;
  /// Where buildProgram may find (and keeps) the program as the passes
  /// before `partition` leave it, under PrefixKey: callers that know those
  /// passes' inputs are unchanged (a sweep's points over the layout) skip
  /// them. Null: every pass runs.
  PrefixCache *Prefix = nullptr;
  uint64_t PrefixKey = 0;

  /// The operator lists of programs built with this context, for reuse.
  OpListPool Lists;
};

/// Returns false after diagnosing a problem.
using PassFn = bool (*)(ir::Program &, PassContext &);

/// A pass and its contract over ir::ProgramState bits: the program must
/// hold every state of Requires and none of Forbids (the work of passes
/// that must come after it), and holds Produces after it.
struct PassInfo {
  llvm::StringRef Name;
  llvm::StringRef Description;
  PassFn Run;
  unsigned Requires = 0;
  unsigned Forbids = 0;
  unsigned Produces = 0;
  /// Whether the pass may run on a program in State.
  bool admits(unsigned State) const {
    return !(Requires & ~State) && !(Forbids & State);
  }
};

/// Every pass, in the default pipeline's order.
llvm::ArrayRef<PassInfo> registry();
/// Every pass of the registry, in order: the default pipeline.
llvm::ArrayRef<const PassInfo *> defaultPipeline();
const PassInfo *findPass(llvm::StringRef Name);

/// The pass of the default pipeline that produces the first (lowest) of
/// the States bits: what must run for a program to hold them.
llvm::StringRef producerOf(unsigned States);

/// Why Pass cannot run on a program in State, or "" if it can.
std::string contractViolation(const PassInfo &Pass, unsigned State);

/// The first pass of Passes whose contract the ones before it break
/// (from an empty program), with the reason; nullopt for a valid order.
struct OrderProblem {
  size_t Index = 0;
  std::string Message;
};
std::optional<OrderProblem> checkOrder(llvm::ArrayRef<const PassInfo *> Passes);

/// What the cost model reads: operators per device, scheduled.
inline constexpr unsigned CostRequires =
    ir::StateExpanded | ir::StatePartitioned | ir::StateScheduled;

/// The passes `buildProgram` may take from a sweep's cache: those of the
/// default pipeline before the first that reads the layout (partition).
size_t layoutFreePrefix();

bool expandLayers(ir::Program &P, PassContext &Ctx);
bool adapt(ir::Program &P, PassContext &Ctx);
bool fuse(ir::Program &P, PassContext &Ctx);
bool recompute(ir::Program &P, PassContext &Ctx);
bool partition(ir::Program &P, PassContext &Ctx);
/// `partition` of a layout layoutAccepted has accepted (its checks are not
/// run again), reading the operators from Source (the blocks as the passes
/// before partition left them, one per block of P) instead of P's blocks,
/// which hold their kinds, repeats and parameters only: a sweep's cached
/// prefix is read once, not copied and then rewritten.
bool partitionFrom(ir::Program &P, const std::vector<ir::Block> &Source,
                   PassContext &Ctx);
/// Whether `partition` would accept the scenario's layout (its checks read
/// the scenario only; nothing is reported).
bool layoutAccepted(const ir::ScenarioConfig &S);
bool quantize(ir::Program &P, PassContext &Ctx);
bool schedule(ir::Program &P, PassContext &Ctx);

/// Runs passes in order on a program holding only its scenario, verifying
/// the program after each; the order must pass checkOrder (a pass whose
/// contract fails is a fatal error). After each
/// pass, AfterPass (if set) sees the program. Returns the program, or
/// nullopt after a diagnosed failure.
std::optional<ir::Program>
runPasses(const ir::ScenarioConfig &Scenario, llvm::ArrayRef<const PassInfo *> Passes,
          PassContext &Ctx,
          const std::function<void(const PassInfo &, const ir::Program &)>
              &AfterPass = nullptr);

/// Runs passes in order on P (which holds its scenario and what earlier
/// passes made of it), as runPasses does; false after a diagnosed failure
/// (P is then partly transformed).
bool continuePasses(ir::Program &P, llvm::ArrayRef<const PassInfo *> Passes,
                    PassContext &Ctx,
                    const std::function<void(const PassInfo &,
                                             const ir::Program &)> &AfterPass =
                        nullptr);

/// The default pipeline: every pass of the registry (the first ones from
/// Ctx.Prefix when it holds them), into P; false after a diagnosed failure.
/// P may hold an earlier program: it is reset (its sub-programs too), and
/// a sweep that builds point after point into one program reuses its
/// storage. The programs a scenario needs beside its own (a pipelined
/// batch's micro-batch, speculative decoding's draft and verification)
/// are the driver's (lib/Driver/BuildProgram.h).
bool runDefaultPipeline(const ir::ScenarioConfig &Scenario, PassContext &Ctx,
                        ir::Program &P);

} // namespace passes
} // namespace llmsys

#endif
