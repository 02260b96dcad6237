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

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

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
  /// Per computed field: the axes it reads, at any remove (so a point
  /// computes again only those whose axes changed), its part, and whether
  /// its field accepts the value it last computed.
  std::vector<llvm::BitVector> DerivedAxes;
  std::vector<uint8_t> DerivedPart;
  std::vector<bool> DerivedOk;
  unsigned DerivedBad = 0; ///< how many of DerivedOk are false
  /// Computed fields that read the same axes form a group, whose values
  /// are kept by those axes' choices (when they have at most MemoLimit
  /// combinations): a point whose hardware axes were seen before sets
  /// them without evaluating (a node's figures are a dozen expressions).
  struct DerivedGroup {
    std::vector<unsigned> Axes;
    bool Usable = false;
    /// Per combination: the group's values (nullopt: not accepted), in
    /// W.Derived's order.
    llvm::DenseMap<uint64_t, std::vector<std::optional<spec::Value>>> Seen;
  };
  std::vector<DerivedGroup> Groups;
  std::vector<unsigned> GroupOf; ///< per computed field
  std::vector<uint8_t> AxisPart;
  std::vector<bool> AxisReadByPrefix;
  bool PrefixKeyExact = true;
  passes::PrefixCache Prefix;
  std::vector<uint32_t> Current;
  llvm::BitVector Changed; ///< the axes the last set() changed
  ir::ScenarioConfig Config;
  /// The system and the model of the points read so far, by the choices
  /// of the axes they depend on (when those have at most MemoLimit
  /// combinations): with hardware axes varying fastest, each part is read
  /// once per combination, not at every point.
  template <typename T> struct PartMemo {
    std::vector<unsigned> Axes;
    bool Usable = false;
    llvm::DenseMap<uint64_t, T> Seen;
  };
  static constexpr uint64_t MemoLimit = 4096;
  template <typename T>
  void setUpMemo(PartMemo<T> &M, Part P);
  static std::vector<unsigned> axesOf(const llvm::BitVector &Axes);
  /// Whether the choices of Axes have at most MemoLimit combinations.
  bool keyable(llvm::ArrayRef<unsigned> Axes) const;
  /// The current choices of Axes, in mixed radix (distinct while keyable).
  uint64_t keyOf(llvm::ArrayRef<unsigned> Axes) const;
  template <typename T, typename ReadFn>
  void readPart(PartMemo<T> &M, T &Out, ReadFn Read);
  PartMemo<ir::SystemConfig> SystemMemo;
  PartMemo<ir::ModelConfig> ModelMemo;
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
