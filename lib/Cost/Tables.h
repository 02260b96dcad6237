//===- Tables.h - the operator and collective tables of a report -*- C++ -*-===//
//
// Internal to lib/Cost. Rows keyed by an op's name and phase, summed over
// its executions; the training and the serving cost fill them the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_COST_TABLES_H
#define LLMSYS_COST_TABLES_H

#include "Cost/Cost.h"

#include "llvm/ADT/DenseMap.h"
#include <algorithm>

namespace llmsys {
namespace cost {

class OpTables {
public:
  OpTables(std::vector<OpRow> &Ops, std::vector<CollectiveRow> &Colls)
      : Ops(Ops), Colls(Colls) {}

  /// Adds N executions of a collective; returns its row, whose exposed
  /// time the caller decides.
  CollectiveRow &addCollective(const ir::Op &O, const CollectiveTime &C,
                               double N) {
    auto [It, New] = CollIndex.try_emplace(key(O), Colls.size());
    if (New) {
      CollectiveRow Row;
      Row.Name = O.name();
      Row.Ph = O.Ph;
      Row.Kind = O.Collective;
      Row.Group = O.Group;
      Row.GroupSize = O.GroupSize;
      Row.FabricLevel = O.FabricLevel;
      Row.Algorithm = C.Algorithm;
      Colls.push_back(Row);
    }
    CollectiveRow &Row = Colls[It->second];
    Row.Count += N;
    Row.Bytes += N * O.MessageBytes;
    Row.Time += N * C.Time;
    return Row;
  }

  /// Adds N executions of a compute or memory op (FLOPs, bytes and time of
  /// one execution).
  void addOp(const ir::Op &O, bool MemoryBound, double N, double Flops,
             double Bytes, double Time) {
    auto [It, New] = OpIndex.try_emplace(key(O), Ops.size());
    if (New) {
      OpRow Row;
      Row.Name = O.name();
      Row.Ph = O.Ph;
      Row.Category = O.Category;
      Row.MemoryBound = MemoryBound;
      Ops.push_back(Row);
    }
    OpRow &Row = Ops[It->second];
    Row.Count += N;
    Row.Flops += N * Flops;
    Row.Bytes += N * Bytes;
    Row.Time += N * Time;
  }

private:
  // Rows by kind and phase.
  using Key = std::pair<int, int>;
  static Key key(const ir::Op &O) {
    return {static_cast<int>(O.Kind), static_cast<int>(O.Ph)};
  }
  std::vector<OpRow> &Ops;
  std::vector<CollectiveRow> &Colls;
  llvm::DenseMap<Key, size_t> OpIndex, CollIndex;
};

/// Slowest first; rows of equal time keep their program order (an in-place
/// sort: no buffer).
template <typename Row> void sortByTime(std::vector<Row> &Rows) {
  for (size_t I = 0; I < Rows.size(); ++I)
    Rows[I].Order = I;
  std::sort(Rows.begin(), Rows.end(), [](const Row &A, const Row &B) {
    return A.Time != B.Time ? A.Time > B.Time : A.Order < B.Order;
  });
}

} // namespace cost
} // namespace llmsys

#endif
