//===- OpListPool.h - operator lists kept for reuse -------------*- C++ -*-===//
//
// The operator lists that programs built with one pass context no longer
// use, emptied and kept for the passes' next lists: a sweep thread (or a
// benchmark) rebuilds one program point after point, and once warm the
// layers' lists and partition's are reused rather than allocated again.
// A copy starts empty (a context copied for another program shares
// nothing with the original).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PASSES_OPLISTPOOL_H
#define LLMSYS_PASSES_OPLISTPOOL_H

#include "IR/Program.h"

#include <vector>

namespace llmsys {
namespace passes {

class OpListPool {
public:
  OpListPool() = default;
  OpListPool(const OpListPool &) {}
  OpListPool &operator=(const OpListPool &) { return *this; }

  /// An empty list, with room for Reserve operators: of the kept lists,
  /// the smallest with that room, else the largest. (The passes hand a
  /// program's lists from block to block; asked for the room each needs,
  /// the pool gives every list back to a need it fits, and once warm no
  /// list grows.)
  std::vector<ir::Op> take(size_t Reserve) {
    std::vector<ir::Op> Ops;
    if (!Spare.empty()) {
      size_t Best = 0;
      for (size_t I = 1; I < Spare.size(); ++I) {
        size_t C = Spare[I].capacity(), B = Spare[Best].capacity();
        if (B >= Reserve ? C >= Reserve && C < B : C > B)
          Best = I;
      }
      Ops.swap(Spare[Best]);
      Spare[Best].swap(Spare.back()); // (the emptied one last)
      Spare.pop_back();
    }
    Ops.reserve(Reserve);
    return Ops;
  }
  /// Keeps a list no longer used (its storage) for take.
  void recycle(std::vector<ir::Op> &&Ops) {
    if (Ops.capacity() == 0 || Spare.size() >= MaxSpare)
      return;
    Ops.clear();
    Spare.push_back(std::move(Ops));
  }
  /// Empties a program's blocks, keeping their lists.
  void recycleBlocks(ir::Program &P) {
    for (ir::Block &B : P.Blocks)
      recycle(std::move(B.Ops));
    P.Blocks.clear();
  }

private:
  /// A program's blocks and the passes' scratch lists need fewer.
  static constexpr size_t MaxSpare = 16;
  std::vector<std::vector<ir::Op>> Spare; ///< each empty
};

} // namespace passes
} // namespace llmsys

#endif
