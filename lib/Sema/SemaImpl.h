//===- SemaImpl.h - the resolver shared by lib/Sema's files -------*- C++ -*-===//
//
// Internal to lib/Sema. One Resolver runs per compilation:
//   Declarations.cpp  entities, `extends`, blocks of members, defaults,
//                     required fields;
//   Evaluate.cpp      expressions, names and fields, cycles;
//   Derive.cpp        values derived rather than written: inherited figures
//                     carried to another process node, memory levels from
//                     stacks x a memory technology (docs/technology.md);
//   CheckValue.cpp    a value against its field's type and constraints;
//   Scenarios.cpp     expectations, sweeps and measurements;
//   SweepConditions.cpp  a sweep's `where`, lowered and type-checked;
//   SweepDerived.cpp  fields a sweep point computes again from its axes;
//   HFConfig.cpp      `hf_config("...")`: a config.json as model fields;
//   Trace.cpp         a serving trace file (traffic.trace);
//   Sema.cpp          the order in which these run.
// Compilation.cpp drives parse and resolve for a set of files. Every field
// of every object has a Slot here while it is resolved (16 bytes; the rare
// parts in SlotExtra), kept apart from spec::Field, which outlives Sema.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_SEMAIMPL_H
#define LLMSYS_SEMA_SEMAIMPL_H

#include "Sema/Sema.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include <deque>
#include <map>
#include <optional>
#include <memory>
#include <unordered_map>

namespace llmsys {
namespace sema {

using spec::Object;
using spec::Value;

/// The system fields that only an owned system reads (docs/cost-model.md,
/// "Energy and cost"); `rent` only a rented one.
inline constexpr SystemField CostsOfOwning[] = {
    SystemField::HostPrice,        SystemField::NetworkPrice,
    SystemField::FacilityPrice,    SystemField::FacilityLifetime,
    SystemField::Lifetime,         SystemField::EnergyPrice};

/// How a field of an object gets its value: an expression (and/or a block
/// refining it), evaluated on demand in the context of the object.
struct Slot {
  enum class State : uint8_t { Idle, Evaluating, Done, Failed };
  /// A value derived rather than evaluated from E (Derive.cpp). Node*: the
  /// parent's value times a process-node factor; Copy: the parent's derived
  /// value as it is; Stacks: stacks x the memory technology's figure.
  enum class DeriveKind : uint8_t { None, NodeUnits, NodeClock, NodeCompute,
                                    NodeSram, Copy, Stacks };
  const ast::Expr *E = nullptr;
  /// What few slots have (SlotExtra), as an index into the resolver's
  /// store plus one; 0: none. Every field of every object has a slot, so
  /// the common part stays at 16 bytes (issue 21's memory target).
  uint32_t Extra = 0;
  DeriveKind Derive = DeriveKind::None;
  State St = State::Idle;
};

/// The rarer parts of a slot.
struct SlotExtra {
  const ast::Block *Refine = nullptr;        ///< `= X { ... }` or `f { ... }`
  const ast::DottedName *RefineParent = nullptr; ///< `f extends X { ... }`
  /// A value read from a file rather than written (hf_config); checked
  /// against the field like an evaluated expression.
  std::optional<spec::Value> Constant;
  /// Derive Node* and Copy: the parent's object holding the same field.
  Object *DeriveFrom = nullptr;
};

/// How an accelerator's inherited figures scale when it moves its parent to
/// another process node (Derive.cpp, docs/technology.md). Ratios are
/// new / old.
struct NodeScaling {
  bool Ok = false;
  bool Identity = false; ///< Same technology as the parent: nothing scales.
  std::string OldNode, NewNode;
  double LogicDensity = 1, SramDensity = 1, Speed = 1, Power = 1;
  double Units = 1;   ///< compute units: logic_density, or as written
  double Clock = 1;   ///< within the power budget, at most speed
  double Compute = 1; ///< dense peaks: Units x Clock
  bool ClockWritten = false, UnitsWritten = false, ClockAtSpeed = false;
};

struct EntityInfo {
  const ast::EntityDecl *Decl = nullptr;
  const StructSpec *Type = nullptr;
  Object *Obj = nullptr;
  enum class State { Unbuilt, Building, Built, Failed } St = State::Unbuilt;
  bool Used = false;     ///< Referenced by a field somewhere.
  bool Extended = false; ///< Some entity extends it.
};

/// Reads serve's `traffic.trace` (Trace.cpp): the requests of the CSV file
/// Spelled names (relative to the file FromBuffer), each checked against
/// the model's max_seq; null after diagnosing a problem, at the cell.
std::shared_ptr<const std::vector<spec::TraceRequest>>
readTrace(SourceFiles &Sources, DiagnosticEngine &Diags,
          llvm::StringRef Spelled, unsigned FromBuffer, llvm::SMRange Use,
          int64_t MaxSeq, llvm::StringRef ModelName);

/// The objects a scenario reaches through object-valued fields, each with
/// its path of field indices from it (the first found, breadth first).
using ObjectPaths = llvm::DenseMap<const Object *, std::vector<unsigned>>;
ObjectPaths objectPaths(const Object &Root);
/// For each object a scenario reaches: how many fields of the reached
/// objects hold it (more than one: shared by several routes).
llvm::DenseMap<const Object *, unsigned> objectHolders(const ObjectPaths &Paths);

/// A step of evaluation, for cycle reports.
struct EvalFrame {
  Object *Obj;
  unsigned Field;
  llvm::SMRange Use;
};

class Resolver {
public:
  Resolver(SourceFiles &Sources, DiagnosticEngine &Diags, ast::ASTContext &Ctx,
           spec::Spec &S)
      : Sources(Sources), Diags(Diags), Ctx(Ctx), S(S),
        SM(Diags.getSourceMgr()) {}

  void run(llvm::ArrayRef<ast::File *> Files);

  // Declarations.cpp
  void declare(const ast::File &F);
  Object *build(EntityInfo &EI);
  Object *newObject(const StructSpec *Type, std::string Name,
                    llvm::SMRange Range, unsigned Buffer);
  void cloneInto(Object *Dst, const Object *Src);
  void applyBlock(Object *O, const ast::Block &B, EntityInfo *Sweep);
  /// `model m = hf_config("path")`: the fields the config maps to.
  bool applyInitializer(Object *O, const EntityInfo &EI);
  void applyDefaults(Object *O);
  Object *nested(Object *O, unsigned Field, llvm::SMRange Range);
  /// The required fields O lacks, as dotted paths.
  void missingFields(const Object *O, const std::string &Prefix,
                     std::vector<std::string> &Out);
  /// Diagnoses an incomplete entity at Use (or its declaration).
  bool checkComplete(const Object *O, llvm::SMRange Use);
  EntityInfo *findEntity(const ast::DottedName &N, unsigned &Consumed);

  // Evaluate.cpp
  std::optional<Value> eval(const ast::Expr &E, Object *Self,
                            const TypeSpec *Expected);
  std::optional<Value> evalName(const ast::NameExpr &E, Object *Self,
                                const TypeSpec *Expected);
  std::optional<Value> evalNumber(const ast::NumberExpr &E,
                                  const TypeSpec *Expected);
  std::optional<Value> evalBinary(const ast::BinaryExpr &E, Object *Self);
  std::optional<Value> evalCall(const ast::CallExpr &E, Object *Self);
  std::optional<Value> evalRange(const ast::RangeExpr &E, Object *Self,
                                 const TypeSpec *Elem);
  /// The value of a field, evaluated on first use; the field being
  /// evaluated (if any) is recorded as its reader. Through: the field is
  /// only a step on a dotted name's way (`system` in `system.node.devices`).
  std::optional<Value> fieldValue(Object *O, unsigned Field, llvm::SMRange Use,
                                  bool Through = false);
  bool evaluateSlot(Object *O, unsigned Field, llvm::SMRange Use);
  void evaluateAll(Object *O);
  Object *makeInline(Object *Owner, unsigned Field, const Slot &Sl);
  std::string fieldPath(const Object *O, unsigned Field) const;
  /// The name of the field being evaluated, for messages.
  std::string currentField() const;
  /// Where to report a problem found in E: default expressions live in
  /// synthetic buffers, so their problems go to the entity using them.
  llvm::SMRange at(llvm::SMRange R) const;

  // Derive.cpp
  /// After O's own members: marks the fields of O that are derived rather
  /// than inherited as written (Parent: O's `extends` parent, or null).
  void markDerivations(Object *O, Object *Parent);
  void markNodeScaling(Object *O, Object *Parent);
  void markMemoryLevel(Object *Level);
  /// Evaluates a derived field into V; false when the field is to be
  /// evaluated as written after all (same process node as the parent).
  bool derive(Object *O, unsigned Field, std::optional<Value> &V);
  bool deriveFromStacks(Object *Level, unsigned Field,
                        std::optional<Value> &V);
  const NodeScaling &nodeScaling(Object *Root, Object *ParentRoot);
  /// A node's K-th factor (NodeFactors), positive, or nullopt after a
  /// diagnostic at Use (Carried: the part being carried to another node).
  std::optional<double> nodeFactor(Object *Node, unsigned K,
                                   llvm::SMRange Use, llvm::StringRef Carried);
  /// Whether a memory technology has the per-stack figure (its field
  /// Figure) that LevelField is derived from; diagnosed at Use if not.
  bool memoryHasFigure(Object *Memory, int Figure, llvm::SMRange Use,
                       const std::string &LevelField);
  std::unordered_map<const Object *, NodeScaling> NodeScales;

  // CheckValue.cpp
  /// V a whole number (rounded in place); else err_not_integer.
  bool wholeNumber(Value &V, llvm::SMRange R, const std::string &Name,
                   double Most);
  bool checkValue(const FieldSpec &F, Value &V, llvm::SMRange R,
                  const std::string &Name);

  // Scenarios.cpp
  void resolveExpect(const ast::ExpectDecl &D);
  void resolveSweep(EntityInfo &EI);
  /// A sweep axis's field and the fields of the scenario computed from it.
  struct AxisReaders {
    llvm::SMRange Range;
    std::string Path;
    std::pair<const Object *, unsigned> Target;
    std::vector<std::pair<const Object *, unsigned>> Readers;
    /// The fields a derivation computes from the axis field (a process
    /// node's scaled figures, a memory level's capacity from its stacks),
    /// each with the expression a point evaluates (sweepDerivations).
    std::vector<std::pair<std::pair<const Object *, unsigned>,
                          spec::Condition>>
        Derives;
  };
  /// Finds the axis's field in the scenario's objects (Out.Target) and the
  /// fields of those objects (Paths: objectPaths of the scenario) that read
  /// it (Out.Readers); false after a diagnostic (a block on the way not
  /// set, or read itself).
  /// Sweep axes over a system's costs checked against its ownership at
  /// the points; false after a diagnostic.
  bool checkSweepCosts(const std::vector<AxisReaders> &Axes,
                       const spec::Sweep &W);
  bool axisReaders(const Object &Scenario, const ObjectPaths &Paths,
                   const llvm::DenseMap<const Object *, unsigned> &Holders,
                   const ast::AxisMember &A, AxisReaders &Out);
  /// When Axis sets the input of a derivation (an accelerator's
  /// `technology`, a memory level's `stacks` or `technology`), lowers what
  /// a point derives from it again into A.Derives, as `X { technology = T }`
  /// and `hbm { stacks = N }` would (Derive.cpp, docs/technology.md); false
  /// after a diagnostic (an axis value a derivation cannot use, an axis
  /// that derives nothing and is read by nothing else).
  bool sweepDerivations(const ObjectPaths &Paths, const spec::SweepAxis &Axis,
                        AxisReaders &A);

  // SweepDerived.cpp
  /// Lowers the fields computed from the axes, at any remove, into
  /// W.Derived, each after those it reads; false after a diagnostic (one
  /// a point cannot compute again).
  bool deriveSweepFields(const Object &Scenario, const ObjectPaths &Paths,
                         llvm::ArrayRef<AxisReaders> Axes, spec::Sweep &W);

  // SweepConditions.cpp
  /// Lowers a sweep's `where` into Out; false after a diagnostic.
  bool lowerCondition(const ast::Expr &E, const StructSpec &Scenario,
                      llvm::StringRef ScenarioName, spec::Condition &Out);
  void resolveMeasurement(EntityInfo &EI);

  SourceFiles &Sources;
  DiagnosticEngine &Diags;
  ast::ASTContext &Ctx;
  spec::Spec &S;
  llvm::SourceMgr &SM;

  llvm::StringMap<EntityInfo> Entities;
  std::vector<EntityInfo *> DeclOrder;
  std::vector<const ast::ExpectDecl *> Expects;
  /// Each object's slots, parallel to its fields: SlotStore from
  /// SlotBase[O] on (a deque: a reference to a slot stays valid while
  /// evaluating it creates objects).
  std::deque<Slot> SlotStore;
  llvm::DenseMap<const Object *, size_t> SlotBase;
  std::deque<SlotExtra> SlotExtras;
  Slot &slot(const Object *O, unsigned Field) {
    auto It = SlotBase.find(O);
    assert(It != SlotBase.end() && "an object not made by newObject");
    return SlotStore[It->second + Field];
  }
  /// The slot's rarer parts; null when it has none.
  const SlotExtra *extraOf(const Slot &Sl) const {
    return Sl.Extra ? &SlotExtras[Sl.Extra - 1] : nullptr;
  }
  /// The same, made when missing (a slot's extra is its own: a copied slot
  /// gets a copy, see cloneInto).
  SlotExtra &extraFor(Slot &Sl);
  std::unordered_map<const Object *, EntityInfo *> InfoOf;
  std::vector<EvalFrame> EvalStack;
  /// The sweep axis whose values are being evaluated (no frame holds it).
  std::string AxisPath;
  /// For each field read while another was evaluated: the readers (sweep
  /// axes must not be read; see checkAxisUnread).
  std::map<std::pair<const Object *, unsigned>,
           std::vector<std::pair<const Object *, unsigned>>>
      ReadBy;
  /// The reads of ReadBy that took the field's value itself, not only went
  /// through it to a field of what it holds: a sweep axis under a block
  /// that was read whole cannot be set in it (axisReaders).
  llvm::DenseSet<std::pair<std::pair<const Object *, unsigned>,
                            std::pair<const Object *, unsigned>>>
      WholeReads;
  std::vector<EntityInfo *> ExtendsStack;
  llvm::DenseSet<const Object *> ReportedIncomplete;
  /// Models and networks whose fields were checked against each other (once each,
  /// however many scenarios reach them).
  llvm::DenseSet<const Object *> FieldsChecked;
  void checkModelFields(const Object &M);
  void checkNetworkFields(const Object &N);
  void checkSystemFields(const Object &S);
  void checkTrendFields(const Object &T);

  /// Parsed default expressions, by field.
  std::unordered_map<const FieldSpec *, const ast::Expr *> Defaults;
  llvm::DenseSet<unsigned> DefaultBuffers;
  /// While evaluating a default: the object whose declaration takes its
  /// diagnostics, and the field.
  struct DefaultContext {
    const Object *Obj;
    const FieldSpec *Field;
  };
  std::vector<DefaultContext> DefaultStack;
  const ast::Expr *defaultExpr(const FieldSpec &F);
};

} // namespace sema
} // namespace llmsys

#endif
