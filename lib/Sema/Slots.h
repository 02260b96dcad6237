//===- Slots.h - how each field of each object gets its value ---*- C++ -*-===//
//
// Internal to lib/Sema. While a compilation is resolved, every field of
// every object has a Slot: the expression (or derivation) that gives it
// its value and how far its evaluation went (16 bytes; the rare parts in a
// SlotExtra). Kept apart from spec::Field, which outlives Sema.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_SLOTS_H
#define LLMSYS_SEMA_SLOTS_H

#include "AST/AST.h"
#include "IR/Spec.h"

#include "llvm/ADT/DenseMap.h"
#include <cassert>
#include <cstdint>
#include <deque>
#include <optional>

namespace llmsys {
namespace sema {

/// How a field of an object gets its value: an expression (and/or a block
/// refining it), evaluated on demand in the context of the object.
struct Slot {
  enum class State : uint8_t { Idle, Evaluating, Done, Failed };
  /// A value derived rather than evaluated from E (Derive.cpp). Node*: the
  /// parent's value times a process-node factor; Copy: the parent's derived
  /// value as it is; Stacks: stacks x the memory technology's figure.
  enum class DeriveKind : uint8_t {
    None,
    NodeUnits,
    NodeClock,
    NodeCompute,
    NodeSram,
    Copy,
    Stacks
  };
  const ast::Expr *E = nullptr;
  /// What few slots have (SlotExtra), as an index into the table's store
  /// plus one; 0: none. Every field of every object has a slot, so the
  /// common part stays at 16 bytes (issue 21's memory target).
  uint32_t Extra = 0;
  DeriveKind Derive = DeriveKind::None;
  State St = State::Idle;
};

/// The rarer parts of a slot.
struct SlotExtra {
  const ast::Block *Refine = nullptr; ///< `= X { ... }` or `f { ... }`
  const ast::DottedName *RefineParent = nullptr; ///< `f extends X { ... }`
  /// A value read from a file rather than written (hf_config); checked
  /// against the field like an evaluated expression.
  std::optional<spec::Value> Constant;
  /// Derive Node* and Copy: the parent's object holding the same field.
  spec::Object *DeriveFrom = nullptr;
};

/// The slots of every object, each object's parallel to its fields.
class SlotTable {
public:
  /// Idle slots for the Fields fields of a new object O.
  void allocate(const spec::Object *O, size_t Fields) {
    Base[O] = Store.size();
    Store.resize(Store.size() + Fields);
  }
  /// A reference to a slot stays valid while evaluating it allocates
  /// others (a deque).
  Slot &slot(const spec::Object *O, unsigned Field) {
    auto It = Base.find(O);
    assert(It != Base.end() && "an object without slots");
    return Store[It->second + Field];
  }
  /// The slot's rarer parts; null when it has none.
  const SlotExtra *extraOf(const Slot &Sl) const {
    return Sl.Extra ? &Extras[Sl.Extra - 1] : nullptr;
  }
  /// The same, made when missing (a slot's extra is its own: a copied slot
  /// gets a copy of its source's).
  SlotExtra &extraFor(Slot &Sl) {
    if (!Sl.Extra) {
      Extras.emplace_back();
      assert(Extras.size() < UINT32_MAX && "more slot extras than fit");
      Sl.Extra = static_cast<uint32_t>(Extras.size());
    }
    return Extras[Sl.Extra - 1];
  }

private:
  std::deque<Slot> Store;
  llvm::DenseMap<const spec::Object *, size_t> Base;
  std::deque<SlotExtra> Extras;
};

} // namespace sema
} // namespace llmsys

#endif
