//===- SemaImpl.h - the resolver shared by lib/Sema's files -------*- C++ -*-===//
//
// Internal to lib/Sema. One Resolver runs per compilation. Most of its
// state is in parts, each with its own header and private members:
//   EntityTable.h     the declared entities and their objects;
//   Slots.h           how each field of each object gets its value;
//   EvalTrace.h       the fields being evaluated (cycles) and their readers;
//   DefaultExprs.h    the schema's default expressions, and where their
//                     problems are reported.
// The Resolver keeps the rest (the `extends` chain being built, the objects
// reported incomplete or whose fields were checked together, the process
// nodes' scalings). Free functions with no state: ScenarioChecks.h (a built
// scenario's checks) and Trace.h (a serving trace file).
// The resolver's work, by file:
//   Declarations.cpp  entities, `extends`, blocks of members, defaults,
//                     required fields;
//   DefaultExprs.cpp  the schema's defaults, parsed once;
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
//   ScenarioChecks.cpp  a scenario's lengths, context, idle devices and
//                     requests, once it is built;
//   Sema.cpp          the order in which these run.
// Compilation.cpp drives parse and resolve for a set of files.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_SEMAIMPL_H
#define LLMSYS_SEMA_SEMAIMPL_H

#include "Sema/DefaultExprs.h"
#include "Sema/EntityTable.h"
#include "Sema/EvalTrace.h"
#include "Sema/Sema.h"
#include "Sema/Slots.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

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

/// The comparison a binary operator is (`in` too); nullopt for the others.
inline std::optional<spec::Compare> compareOf(ast::BinaryOp Op) {
  switch (Op) {
  case ast::BinaryOp::Lt: return spec::Compare::Lt;
  case ast::BinaryOp::Le: return spec::Compare::Le;
  case ast::BinaryOp::Gt: return spec::Compare::Gt;
  case ast::BinaryOp::Ge: return spec::Compare::Ge;
  case ast::BinaryOp::Eq: return spec::Compare::Eq;
  case ast::BinaryOp::Ne: return spec::Compare::Ne;
  case ast::BinaryOp::In: return spec::Compare::In;
  default: return std::nullopt;
  }
}

/// The objects a scenario reaches through object-valued fields, each with
/// its path of field indices from it (the first found, breadth first).
using ObjectPaths = llvm::DenseMap<const Object *, std::vector<unsigned>>;
ObjectPaths objectPaths(const Object &Root);
/// For each object a scenario reaches: how many fields of the reached
/// objects hold it (more than one: shared by several routes).
llvm::DenseMap<const Object *, unsigned> objectHolders(const ObjectPaths &Paths);

class Resolver {
public:
  Resolver(SourceFiles &Sources, DiagnosticEngine &Diags, ast::ASTContext &Ctx,
           spec::Spec &S)
      : Diags(Diags), Sources(Sources), Ctx(Ctx), S(S),
        SM(Diags.getSourceMgr()), Defaults(Sources, Diags, Ctx) {}

  void run(llvm::ArrayRef<ast::File *> Files);

  /// What the lowerings of sweeps (SweepConditions.cpp, SweepDerived.cpp)
  /// use: an expression's value in the context of Self (Expected: the
  /// type it is to have, or null), and whether a name is an entity's.
  std::optional<Value> eval(const ast::Expr &E, Object *Self,
                            const TypeSpec *Expected);
  bool isEntity(llvm::StringRef Name) const { return Entities.contains(Name); }
  DiagnosticEngine &Diags;

private:
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
  ast::ASTContext &Ctx;
  spec::Spec &S;
  llvm::SourceMgr &SM;

  EntityTable Entities;
  SlotTable Slots;
  EvalTrace Trace;
  std::vector<const ast::ExpectDecl *> Expects;
  Slot &slot(const Object *O, unsigned Field) { return Slots.slot(O, Field); }
  const SlotExtra *extraOf(const Slot &Sl) const { return Slots.extraOf(Sl); }
  SlotExtra &extraFor(Slot &Sl) { return Slots.extraFor(Sl); }
  /// The entities being built, outermost first (an `extends` cycle).
  std::vector<EntityInfo *> ExtendsStack;
  llvm::DenseSet<const Object *> ReportedIncomplete;
  /// Models and networks whose fields were checked against each other (once each,
  /// however many scenarios reach them).
  llvm::DenseSet<const Object *> FieldsChecked;
  void checkModelFields(const Object &M);
  void checkNetworkFields(const Object &N);
  void checkSystemFields(const Object &S);
  void checkTrendFields(const Object &T);

  DefaultExprs Defaults;
};

} // namespace sema
} // namespace llmsys

#endif
