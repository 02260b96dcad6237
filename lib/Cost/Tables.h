//===- Tables.h - the operator and collective tables of a report -*- C++ -*-===//
//
// Internal to lib/Cost. Rows keyed by an op's name and phase, summed over
// its executions; the training and the serving cost fill them the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_COST_TABLES_H
#define LLMSYS_COST_TABLES_H

#include "Cost/Cost.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace llmsys {
namespace cost {

class OpTables {
public:
  OpTables(std::vector<OpRow> &Ops, std::vector<CollectiveRow> &Colls)
      : Ops(Ops), Colls(Colls) {
    OpIndex.fill(None);
    CollIndex.fill(None);
  }

  /// Adds N executions of a collective; returns its row, whose exposed
  /// time the caller decides.
  CollectiveRow &addCollective(const ir::Op &O, const CollectiveTime &C,
                               double N) {
    uint32_t &Index = CollIndex[key(O)];
    if (Index == None) {
      Index = uint32_t(Colls.size());
      CollectiveRow &Row = Colls.emplace_back();
      Row.Name = O.name();
      Row.Ph = O.Ph;
      Row.Kind = O.Collective;
      Row.Group = O.Group;
      Row.GroupSize = O.GroupSize;
      Row.FabricLevel = O.FabricLevel;
      Row.Algorithm = C.Algorithm;
    }
    CollectiveRow &Row = Colls[Index];
    Row.Count += N;
    Row.Bytes += N * O.MessageBytes;
    Row.Time += N * C.Time;
    return Row;
  }

  /// Adds N executions of a compute or memory op (FLOPs, bytes and time of
  /// one execution).
  void addOp(const ir::Op &O, bool MemoryBound, double N, double Flops,
             double Bytes, double Time) {
    uint32_t &Index = OpIndex[key(O)];
    if (Index == None) {
      Index = uint32_t(Ops.size());
      OpRow &Row = Ops.emplace_back();
      Row.Name = O.name();
      Row.Ph = O.Ph;
      Row.Category = O.Category;
      Row.MemoryBound = MemoryBound;
    }
    OpRow &Row = Ops[Index];
    Row.Count += N;
    Row.Flops += N * Flops;
    Row.Bytes += N * Bytes;
    Row.Time += N * Time;
  }

private:
  // Rows by kind and phase: a row's index in a table over both.
  static constexpr size_t NumPhases = size_t(ir::Phase::Last) + 1;
  static constexpr size_t NumKeys =
      size_t(ir::OpKind::NumOpKinds) * NumPhases;
  static constexpr uint32_t None = ~uint32_t(0);
  static size_t key(const ir::Op &O) {
    return size_t(O.Kind) * NumPhases + size_t(O.Ph);
  }
  std::vector<OpRow> &Ops;
  std::vector<CollectiveRow> &Colls;
  std::array<uint32_t, NumKeys> OpIndex, CollIndex;
};

/// Slowest first; rows of equal time keep their program order. Sorts
/// (time, index) keys, then copies each row once into a buffer the thread
/// keeps (the two buffers trade places from call to call).
template <typename Row> void sortByTime(std::vector<Row> &Rows) {
  thread_local std::vector<std::pair<double, uint32_t>> Keys;
  thread_local std::vector<Row> Sorted;
  const size_t N = Rows.size();
  Keys.resize(N);
  std::pair<double, uint32_t> *K = Keys.data();
  Row *From = Rows.data();
  for (size_t I = 0; I < N; ++I) {
    From[I].Order = I;
    K[I] = {-From[I].Time, uint32_t(I)};
  }
  std::sort(K, K + N);
  Sorted.resize(N);
  Row *To = Sorted.data();
  for (size_t I = 0; I < N; ++I)
    To[I] = From[K[I].second];
  Rows.swap(Sorted);
}

} // namespace cost
} // namespace llmsys

#endif
