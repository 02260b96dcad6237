//===- PrefixCache.h - programs before the layout, reused ---------*- C++ -*-===//
//
// The passes before `partition` (expand-layers, adapt, fuse, recompute)
// read the model, the sequence and batch, the optimizer, and a few mapping
// fields (micro-batch, formats, fusion, recomputation); never the parallel
// layout or the system (the fields IR/Schema.def marks LAYOUT). A sweep
// over tp, pp, dp, ZeRO, overlaps or systems would otherwise build the same
// operators at every point. The cache keeps their result under a key the
// caller chooses: equal keys promise equal inputs to those passes (a sweep
// uses the choices of its axes that reach a field marked BUILD).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PASSES_PREFIXCACHE_H
#define LLMSYS_PASSES_PREFIXCACHE_H

#include "IR/Program.h"

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <vector>

namespace llmsys {
namespace passes {


class PrefixCache {
public:
  /// What the prefix passes leave in a program besides its scenario.
  struct Entry {
    uint64_t Key = 0;
    uint64_t LastUse = 0;
    int64_t MicroBatch = 1, DecodeBatch = 1, SeqLen = 0;
    std::vector<ir::Block> Blocks;
    std::vector<std::string> Passes;
    unsigned State = 0; ///< ir::ProgramState bits
  };

  explicit PrefixCache(size_t Capacity = 16) : Capacity(Capacity) {}

  /// Fills P (which holds its scenario) from the entry under Key, its
  /// blocks without their operators: returns the entry's blocks, which
  /// `partitionFrom` reads the operators from (valid until the next keep);
  /// null when there is no entry.
  const std::vector<ir::Block> *restore(uint64_t Key, ir::Program &P);
  /// Keeps what the prefix passes made of P under Key (the least recently
  /// used entry goes when the cache is full).
  void keep(uint64_t Key, const ir::Program &P);

  uint64_t hits() const { return Hits; }
  uint64_t misses() const { return Misses; }

private:
  size_t Capacity;
  std::vector<Entry> Entries;
  uint64_t Clock = 0, Hits = 0, Misses = 0;
};

} // namespace passes
} // namespace llmsys

#endif
