//===- EvalTrace.h - which field is evaluated, and what it read -*- C++ -*-===//
//
// Internal to lib/Sema. Fields are evaluated on demand, so one field's
// evaluation starts another's: the trace keeps the stack of fields being
// evaluated (a field met again on it is a reference cycle) and, for every
// field read while another was evaluated, its readers. Sweeps use the
// readers: an axis's field must be one a point can set again, and the fields
// computed from it are computed again at each point (SweepDerived.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_EVALTRACE_H
#define LLMSYS_SEMA_EVALTRACE_H

#include "IR/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/SMLoc.h"
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace llmsys {
namespace sema {

/// A field of an object.
using FieldRef = std::pair<const spec::Object *, unsigned>;

/// A step of evaluation, for cycle reports.
struct EvalFrame {
  spec::Object *Obj;
  unsigned Field;
  llvm::SMRange Use; ///< where the field was asked for
};

class EvalTrace {
public:
  /// The fields being evaluated, outermost first.
  llvm::ArrayRef<EvalFrame> frames() const { return Stack; }
  bool evaluating() const { return !Stack.empty(); }
  const EvalFrame &innermost() const { return Stack.back(); }
  void enter(EvalFrame F) { Stack.push_back(F); }
  void leave() { Stack.pop_back(); }
  /// The frames from Field's on: the cycle that meets Field again (empty
  /// when Field is not being evaluated).
  llvm::ArrayRef<EvalFrame> cycleFrom(const spec::Object *O,
                                      unsigned Field) const {
    for (size_t I = 0; I < Stack.size(); ++I)
      if (Stack[I].Obj == O && Stack[I].Field == Field)
        return llvm::ArrayRef<EvalFrame>(Stack).drop_front(I);
    return {};
  }

  /// Records that the innermost field being evaluated (if any) reads F;
  /// Through: only on its way to a field of the block F holds.
  void read(FieldRef F, bool Through) {
    if (Stack.empty())
      return;
    FieldRef Reader{Stack.back().Obj, Stack.back().Field};
    ReadBy[F].push_back(Reader);
    if (!Through)
      WholeReads.insert({F, Reader});
  }
  /// The fields that read F, in the order they did (repeats kept). Valid
  /// until the next read() of F: a caller that evaluates while it walks
  /// them must copy them first.
  llvm::ArrayRef<FieldRef> readersOf(FieldRef F) const {
    auto It = ReadBy.find(F);
    return It == ReadBy.end() ? llvm::ArrayRef<FieldRef>()
                              : llvm::ArrayRef<FieldRef>(It->second);
  }
  /// Whether Reader took F's value itself, not only went through it.
  bool readWhole(FieldRef F, FieldRef Reader) const {
    return WholeReads.count({F, Reader});
  }

  /// The sweep axis whose values are being evaluated (no frame holds it),
  /// for messages about the field being evaluated; empty: none.
  const std::string &axis() const { return Axis; }
  void setAxis(std::string Path) { Axis = std::move(Path); }

private:
  std::vector<EvalFrame> Stack;
  std::map<FieldRef, std::vector<FieldRef>> ReadBy;
  llvm::DenseSet<std::pair<FieldRef, FieldRef>> WholeReads;
  std::string Axis;
};

} // namespace sema
} // namespace llmsys

#endif
