//===- Instance.h - one thread's copy of a swept scenario ---------*- C++ -*-===//
//
// Internal to lib/Sweep. A private copy of the objects on the axes' paths
// (the scenario, its mapping, a system whose `nodes` is swept, ...), whose
// axis fields are set per point; and the evaluation of `where` conditions
// against a point.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SWEEP_INSTANCE_H
#define LLMSYS_SWEEP_INSTANCE_H

#include "Driver/Evaluate.h"
#include "IR/Scenario.h"
#include "IR/Spec.h"
#include "Passes/PrefixCache.h"

#include <deque>

namespace llmsys {
namespace sweep {

class Instance {
public:
  explicit Instance(const spec::Sweep &W);
  Instance(const Instance &) = delete;
  Instance &operator=(const Instance &) = delete;

  /// Sets every axis field to the chosen value, then computes again the
  /// fields computed from them (spec::Sweep::Derived); false when one of
  /// those comes out a value its field does not accept (a fraction of a
  /// whole number, a division by zero, out of its range): the point is
  /// not a valid one.
  bool set(const std::vector<uint32_t> &Choice);
  const spec::Object &root() const { return *Root; }
  /// The typed scenario of the point: the parts whose axes changed since
  /// the last call are read again (the mapping, the model, the system),
  /// or all of it when another field changed.
  const ir::ScenarioConfig &config();
  /// The program before `partition` of earlier points, and the key of this
  /// point's: the choices of the axes the passes before partition read
  /// (not the layout's mapping fields, not the system).
  passes::PrefixCache &prefixCache() { return Prefix; }
  uint64_t prefixKey() const;
  /// Whether prefixKey tells every choice apart (the choices of those axes
  /// are fewer than 2^64); the cache is not used otherwise.
  bool prefixKeyExact() const { return PrefixKeyExact; }

private:
  enum Part : uint8_t { MappingPart = 1, ModelPart = 2, SystemPart = 4,
                        WholePart = 8 };
  /// The part of the scenario a path from it starts in ("mapping").
  static Part partOf(llvm::StringRef First);
  const spec::Sweep &W;
  std::deque<spec::Object> Copies;
  spec::Object *Root = nullptr;
  std::vector<spec::Field *> AxisFields;
  std::vector<spec::Field *> DerivedFields; ///< parallel to W.Derived
  uint8_t DerivedParts = 0;
  bool DerivedValid = true;
  std::vector<uint8_t> AxisPart;
  std::vector<bool> AxisReadByPrefix;
  bool PrefixKeyExact = true;
  passes::PrefixCache Prefix;
  std::vector<uint32_t> Current;
  ir::ScenarioConfig Config;
  uint8_t Dirty = WholePart;
};

/// Evaluates C for the point whose objects are Root; E is the costed point
/// (null when C needs no figures). A figure this version does not compute
/// makes the condition false.
bool holds(const spec::Condition &C, const spec::Object &Root,
           const driver::Evaluation *E);

/// The value of a computed field at the point whose objects are Root (Old:
/// its value so far, for its unit); nullopt when its field does not accept
/// it.
std::optional<spec::Value> computedValue(const spec::SweepDerived &D,
                                         const spec::Object &Root,
                                         const spec::Value &Old);

} // namespace sweep
} // namespace llmsys

#endif
