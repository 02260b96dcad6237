//===- Spec.h - the resolved specification -----------------------*- C++ -*-===//
//
// What Sema produces and every later stage reads: entities with every field
// evaluated to a value in base units, each with where it came from (the file,
// a schema default, or an `extends` parent), plus expectations and sweeps.
// No AST and no ANTLR here; source locations are llvm::SMRange into the
// SourceMgr that loaded the files.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_IR_SPEC_H
#define LLMSYS_IR_SPEC_H

#include "IR/Schema.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/SMLoc.h"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace llmsys {
namespace spec {

struct Object;

enum class ValueKind : uint8_t { None, Number, Bool, String, Enum, List, Object };

struct Value {
  // (32 bytes: every field of every object holds one, set or not; the kind
  // and the boolean share a byte beside the dimension's seven.)
  Value() : Kind(ValueKind::None), Bool(false) {}
  double Num = 0;        ///< Number, in base units
  Object *Obj = nullptr; ///< Object: an entity or a nested block
  Dimension Dim;         ///< Number
  ValueKind Kind : 7;
  bool Bool : 1;

  /// String: the text; Enum: the word; empty for other kinds.
  const std::string &str() const;
  /// List: the elements; empty for other kinds.
  llvm::ArrayRef<Value> elems() const;
  /// List: the elements to change in place (copied first when another
  /// value shares them).
  std::vector<Value> &elemsToChange();

  static Value number(double N, Dimension D = Dimension()) {
    Value V;
    V.Kind = ValueKind::Number;
    V.Num = N;
    V.Dim = D;
    return V;
  }
  static Value boolean(bool B) {
    Value V;
    V.Kind = ValueKind::Bool;
    V.Bool = B;
    return V;
  }
  static Value string(std::string S) {
    Value V;
    V.Kind = ValueKind::String;
    V.P = new Payload{std::move(S), {}};
    return V;
  }
  static Value enumWord(std::string W) {
    Value V;
    V.Kind = ValueKind::Enum;
    V.P = new Payload{std::move(W), {}};
    return V;
  }
  static Value object(Object *O) {
    Value V;
    V.Kind = ValueKind::Object;
    V.Obj = O;
    return V;
  }
  static Value list(std::vector<Value> E) {
    Value V;
    V.Kind = ValueKind::List;
    V.P = new Payload{{}, std::move(E)};
    return V;
  }
  /// "a number of bandwidth (B/s)", "a string", "the model 'gpt3'" ...
  std::string describe() const;

private:
  /// Text and elements are held aside, shared between copies: most values
  /// are numbers, and every field of every object holds a value, set or
  /// not (32 bytes a value; issue 21's memory target). The count is kept
  /// here rather than by LLVM's ThreadSafeRefCountedBase, which does not
  /// tell it: copy-on-write needs it (elemsToChange).
  struct Payload {
    std::string Str;
    std::vector<Value> Elems;
    mutable std::atomic<unsigned> Refs{0};
    void Retain() const { Refs.fetch_add(1, std::memory_order_relaxed); }
    void Release() const {
      if (Refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        delete this;
    }
  };
  llvm::IntrusiveRefCntPtr<Payload> P;
};

/// Where a field's value comes from. Derived: computed by Sema from other
/// values rather than written (an inherited figure carried to another
/// process node, a memory level's stacks x per-stack figure); see
/// docs/technology.md.
enum class Origin : uint8_t { Unset, File, Default, Inherited, Derived };

/// A recorded request of a serving trace (serve's `traffic.trace`).
struct TraceRequest {
  int64_t Prompt = 0, Output = 0; ///< tokens
  double Arrival = -1;            ///< seconds from the start; -1: none
};

/// What a few fields carry beyond their value (a derivation, a trace read
/// from a file). Owned by the Spec; fields point to it, so a field stays
/// small (every field of every object exists, set or not).
struct FieldNote {
  /// Derived: how, e.g. "technology N4 -> N2, x2.09 (logic_density x clock)".
  std::string Derivation;
  /// A field naming a data file (traffic.trace): what Sema read from it,
  /// in file order.
  std::shared_ptr<const std::vector<TraceRequest>> Trace;
};

struct Field {
  const FieldSpec *Spec = nullptr;
  Value V;
  /// Where the value was written (File/Inherited); Derived: where the value
  /// it was derived from was written, or what it was derived from.
  llvm::SMRange Loc;
  /// Inherited: the entity that wrote it. Derived: the parent whose value
  /// was re-derived, or null when derived from fields of its own entity.
  const Object *InheritedFrom = nullptr;
  /// Null for most fields (Spec::note).
  const FieldNote *Note = nullptr;
  Origin From = Origin::Unset;
  bool isSet() const { return From != Origin::Unset; }
  /// Set by a spec (the entity's own text, a parent's, or derived from
  /// them), not filled in from the schema's default.
  bool isWritten() const { return isSet() && From != Origin::Default; }
  llvm::StringRef derivation() const {
    return Note ? llvm::StringRef(Note->Derivation) : llvm::StringRef();
  }
  const std::shared_ptr<const std::vector<TraceRequest>> &trace() const;
};

struct Object {
  const StructSpec *Type = nullptr;
  std::string Name;    ///< "H100_SXM", "H100_SXM.hbm", "pretrain.mapping"
  bool IsEntity = false;   ///< A declared entity or an inline one.
  bool IsAnonymous = false; ///< Written inline where a reference was expected.
  llvm::SMRange DeclRange;
  const Object *Parent = nullptr;   ///< `extends` parent.
  Object *Enclosing = nullptr;      ///< Nested blocks: the object holding them.
  std::string Module;  ///< "std.hardware.nvidia" for stdlib entities.
  unsigned BufferID = 0;
  std::vector<Field> Fields; ///< Parallel to Type->Fields.

  const Field *field(llvm::StringRef N) const {
    int I = Type->findField(N);
    return I < 0 ? nullptr : &Fields[I];
  }
  /// A field by its enumerator of Schema.def (MappingField::Dp): its
  /// index, no name compared. Null when unset. The object must be of the
  /// enumerator's struct (checked: a reader naming the wrong struct stops).
  template <typename FieldEnum> const Field *ifSet(FieldEnum F) const {
    requireType(StructOfField<FieldEnum>::Struct);
    const Field &Fd = Fields[static_cast<size_t>(F)];
    return Fd.isSet() ? &Fd : nullptr;
  }
  /// The same, null also when the schema's default filled it in: the
  /// field was written (Field::isWritten).
  template <typename FieldEnum> const Field *ifWritten(FieldEnum F) const {
    const Field *Fd = ifSet(F);
    return Fd && Fd->isWritten() ? Fd : nullptr;
  }
  /// The same through the block or entity a field holds: `hbm.capacity`
  /// is ifSet(AcceleratorField::Hbm, MemoryLevelField::Capacity).
  template <typename OuterEnum, typename FieldEnum>
  const Field *ifSet(OuterEnum Outer, FieldEnum F) const;
  /// Stops when the object is not of kind S (a reader's bug).
  void requireType(StructID S) const {
    if (LLVM_UNLIKELY(!Type || Type->Id != S))
      wrongType(S);
  }
  [[noreturn]] void wrongType(StructID S) const;
};

/// A field's value (Object::ifSet's) as a number, a whole number, a word,
/// a truth value or an object; Or (or nothing) when the field is null or
/// holds another kind.
inline std::optional<double> numberOf(const Field *F) {
  if (!F || F->V.Kind != ValueKind::Number)
    return std::nullopt;
  return F->V.Num;
}
inline double numberOf(const Field *F, double Or) {
  return numberOf(F).value_or(Or);
}
inline int64_t integerOf(const Field *F, int64_t Or) {
  return F && F->V.Kind == ValueKind::Number ? int64_t(F->V.Num) : Or;
}
inline llvm::StringRef wordOf(const Field *F) {
  return F && F->V.Kind == ValueKind::Enum ? llvm::StringRef(F->V.str())
                                           : llvm::StringRef();
}
inline bool boolOf(const Field *F, bool Or) {
  return F && F->V.Kind == ValueKind::Bool ? F->V.Bool : Or;
}
inline const Object *objectOf(const Field *F) {
  return F && F->V.Kind == ValueKind::Object ? F->V.Obj : nullptr;
}

template <typename OuterEnum, typename FieldEnum>
const Field *Object::ifSet(OuterEnum Outer, FieldEnum F) const {
  const Field *O = ifSet(Outer);
  if (!O || O->V.Kind != ValueKind::Object || !O->V.Obj)
    return nullptr;
  return O->V.Obj->ifSet(F);
}

/// A comparison of a figure against a bound: `expect`'s, `diff
/// --fail-if`'s and a sweep `where`'s, one evaluation for all three.
enum class Compare : uint8_t { Lt, Le, Gt, Ge, Eq, Ne, In };
/// "<", "<=", ">", ">=", "==", "!=", "in".
llvm::StringRef spelling(Compare C);
/// Whether two numbers are equal for `==`, `!=` and `in` (of a list): to
/// 1e-12 relative, the twelve significant digits a spec's decimal values
/// carry, so that a value converted from another unit (100 ms against
/// 0.1 s) equals its decimal writing despite binary rounding.
inline bool sameNumber(double A, double B) {
  return A == B ||
         std::fabs(A - B) <= 1e-12 * std::max(std::fabs(A), std::fabs(B));
}
/// Whether V meets the comparison with Lo (In: Lo <= V <= Hi).
inline bool compareHolds(Compare C, double V, double Lo, double Hi = 0) {
  switch (C) {
  case Compare::Lt: return V < Lo;
  case Compare::Le: return V <= Lo;
  case Compare::Gt: return V > Lo;
  case Compare::Ge: return V >= Lo;
  case Compare::Eq: return sameNumber(V, Lo);
  case Compare::Ne: return !sameNumber(V, Lo);
  case Compare::In: return V >= Lo && V <= Hi;
  }
  return false;
}

/// The arithmetic of numbers, defined once for every evaluator: a field's
/// expression (Sema) and what a sweep point computes again from a lowered
/// Condition (a `where`, a computed field). Min, Max: of L and R; Neg,
/// Ceil, Floor, Round: of L (halves round away from zero).
enum class Arith : uint8_t {
  Neg, Add, Sub, Mul, Div, Min, Max, Ceil, Floor, Round
};
/// Op applied to L (and R); nullopt where the result is not a finite number
/// (a division by zero, an overflow), which no evaluator takes as a value.
inline std::optional<double> arith(Arith Op, double L, double R = 0) {
  double V = 0;
  switch (Op) {
  case Arith::Neg: V = -L; break;
  case Arith::Add: V = L + R; break;
  case Arith::Sub: V = L - R; break;
  case Arith::Mul: V = L * R; break;
  case Arith::Div:
    if (R == 0)
      return std::nullopt;
    V = L / R;
    break;
  case Arith::Min: V = R < L ? R : L; break;
  case Arith::Max: V = R > L ? R : L; break;
  case Arith::Ceil: V = std::ceil(L); break;
  case Arith::Floor: V = std::floor(L); break;
  case Arith::Round: V = std::round(L); break;
  }
  if (!std::isfinite(V))
    return std::nullopt;
  return V;
}

struct Expectation {
  llvm::SMRange Range;
  const Object *Scenario = nullptr;
  const FigureSpec *Figure = nullptr;
  /// Either a comparison against Lo, or `in Lo .. Hi` (Compare::In).
  Compare Op = Compare::Eq;
  Value Lo, Hi;
  /// The units the bounds were written in ("day", "GWh"; empty for none),
  /// with their scales to base units: messages show values in them.
  std::string LoUnit, HiUnit;
  double LoScale = 1, HiScale = 1;
};

/// A published measurement a validation case compares with.
struct Measurement {
  const Object *Decl = nullptr;
  const Object *Scenario = nullptr;
  const FigureSpec *Figure = nullptr;
  Value Measured;
  std::string Source; ///< group id, e.g. "korthikanti2022"
  std::string Case;   ///< row id of the measurement table
  /// Fitted on (`calibrates`); false: reported only.
  bool Calibrates = true;
  /// The measurement this one is compared with (`baseline`), its entity;
  /// null when none.
  const Object *Baseline = nullptr;
};

struct SweepAxis {
  llvm::SMRange Range;
  std::string Path; ///< "mapping.tp"
  const FieldSpec *Field = nullptr;
  std::vector<Value> Values;
};

/// An expression a sweep point evaluates, lowered and type-checked by Sema:
/// a `where` condition, or the expression of a field computed from an axis
/// (SweepDerived). A tree of nodes in one vector (children before parents;
/// Root is the last). Names are figures of the scenario (known once a point
/// is costed) or field paths of the scenario (known before).
struct Condition {
  enum class Op : uint8_t {
    Const, Figure, Field, Neg, Not, Add, Sub, Mul, Div,
    Lt, Le, Gt, Ge, Eq, Ne, And, Or,
    Min, Max,           ///< of L and R
    Ceil, Floor, Round, ///< of L
  };
  struct Node {
    Op Kind = Op::Const;
    Value C;          ///< Const: a number (base units), a bool or a word
    std::string Name; ///< Figure: "step_time"; Field: "mapping.tp"
    /// Field: the field index at each step of the path (resolved per point,
    /// since an axis may change a reference on the way).
    std::vector<unsigned> FieldPath;
    bool BoolFigure = false; ///< Figure: true or false (0 or 1 when costed)
    ir::FigureID Figure = ir::FigureID::StepTime; ///< Figure: which
    int L = -1, R = -1;
  };
  llvm::SMRange Range;
  std::vector<Node> Nodes;
  bool NeedsFigures = false; ///< false: decidable before costing

  /// The arithmetic an op of numbers is (nullopt: not one).
  static std::optional<Arith> arithOf(Op K) {
    switch (K) {
    case Op::Neg: return Arith::Neg;
    case Op::Add: return Arith::Add;
    case Op::Sub: return Arith::Sub;
    case Op::Mul: return Arith::Mul;
    case Op::Div: return Arith::Div;
    case Op::Min: return Arith::Min;
    case Op::Max: return Arith::Max;
    case Op::Ceil: return Arith::Ceil;
    case Op::Floor: return Arith::Floor;
    case Op::Round: return Arith::Round;
    default: return std::nullopt;
    }
  }
  /// The comparison an op is (nullopt: not one).
  static std::optional<Compare> compareOf(Op K) {
    switch (K) {
    case Op::Lt: return Compare::Lt;
    case Op::Le: return Compare::Le;
    case Op::Gt: return Compare::Gt;
    case Op::Ge: return Compare::Ge;
    case Op::Eq: return Compare::Eq;
    case Op::Ne: return Compare::Ne;
    default: return std::nullopt;
    }
  }
};

/// A field of the swept scenario computed from an axis (`dp = 64 / (tp *
/// pp)` with tp swept): its expression, evaluated at each point after the
/// axes are set, in an order where a field comes after those it reads.
struct SweepDerived {
  std::string Path;                ///< "mapping.dp"
  std::vector<unsigned> FieldPath; ///< the field index at each step
  const FieldSpec *Field = nullptr;
  Condition Expr; ///< a number in the field's base unit
};

struct Sweep {
  const Object *Decl = nullptr; ///< The sweep entity (no fields of its own).
  const Object *Scenario = nullptr;
  std::vector<SweepAxis> Axes;
  std::vector<SweepDerived> Derived;
  std::vector<Condition> Where;
  std::vector<std::pair<std::string, bool>> Objectives; ///< figure, maximize
  bool Pareto = false;
  std::optional<unsigned> Keep;
  /// The grid's size (SIZE_MAX when it is that or more: too many to count).
  size_t points() const;
  /// The same for messages: exact, or "about 1e+24" past 64 bits.
  std::string pointsText() const;
};

/// Everything a compilation resolved.
class Spec {
public:
  Object *create() {
    Storage.emplace_back();
    return &Storage.back();
  }
  /// Keeps N for as long as the Spec lives (Field::Note).
  const FieldNote *note(FieldNote N) {
    Notes.push_back(std::move(N));
    return &Notes.back();
  }
  std::vector<Object *> Entities; ///< Declared entities, in load order.
  llvm::StringMap<Object *> ByName;
  std::vector<Object *> Scenarios; ///< train and serve entities, in order.
  std::vector<Expectation> Expectations;
  std::vector<Sweep> Sweeps;
  std::vector<Measurement> Measurements; ///< From the top-level files.
  std::vector<unsigned> TopLevelBuffers; ///< Files named on the command line.

  const Object *lookup(llvm::StringRef Name) const {
    auto It = ByName.find(Name);
    return It == ByName.end() ? nullptr : It->second;
  }
  bool isTopLevel(const Object &O) const;

private:
  std::deque<Object> Storage;
  std::deque<FieldNote> Notes;
};

/// Formats a number as the spec printer does: shortest round-trip form.
std::string formatNumber(double V);
/// "85899345920 B", "0.5", "bf16", "[a, b]", "H100_SXM".
std::string formatValue(const Value &V);

/// Whether two values are equal: the same kind, numbers by sameNumber and
/// their dimension, words and strings by their text, lists element by
/// element, entities and blocks by identity.
bool sameValue(const Value &A, const Value &B);

/// A where condition, fully parenthesised, values in base units:
/// "(peak_memory <= 85899345920 B)".
std::string formatCondition(const Condition &C);

/// llmsys-opt --emit=spec: every field of every entity of the top-level
/// files with its value in base units and its origin.
void printSpec(const Spec &S, const llvm::SourceMgr &SM, llvm::raw_ostream &OS,
               bool IncludeImported = false);

} // namespace spec
} // namespace llmsys

#endif
