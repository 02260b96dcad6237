//===- PrefixCache.cpp - programs before the layout, reused -----------------===//

#include "Passes/PrefixCache.h"

#include <algorithm>

namespace llmsys {
namespace passes {

const std::vector<ir::Block> *PrefixCache::restore(uint64_t Key,
                                                   ir::Program &P) {
  for (Entry &E : Entries)
    if (E.Key == Key) {
      E.LastUse = ++Clock;
      ++Hits;
      P.MicroBatch = E.MicroBatch;
      P.DecodeBatch = E.DecodeBatch;
      P.SeqLen = E.SeqLen;
      P.Passes = E.Passes;
      P.State = E.State;
      // The pipeline's send/recv block an earlier point's partition added
      // goes last (swaps, no copies), so that the blocks kept have the
      // storage their kind had.
      auto Comm = std::find_if(P.Blocks.begin(), P.Blocks.end(),
                               [](const ir::Block &B) {
                                 return B.Kind == ir::BlockKind::PipelineComm;
                               });
      if (Comm != P.Blocks.end())
        std::rotate(Comm, Comm + 1, P.Blocks.end());
      P.Blocks.resize(E.Blocks.size());
      for (size_t I = 0; I < E.Blocks.size(); ++I) {
        P.Blocks[I].Kind = E.Blocks[I].Kind;
        P.Blocks[I].Repeat = E.Blocks[I].Repeat;
        P.Blocks[I].Params = E.Blocks[I].Params;
        P.Blocks[I].WideParams = E.Blocks[I].WideParams;
        P.Blocks[I].Trainable = E.Blocks[I].Trainable;
      }
      return &E.Blocks;
    }
  ++Misses;
  return nullptr;
}

void PrefixCache::keep(uint64_t Key, const ir::Program &P) {
  Entry *Slot = nullptr;
  if (Entries.size() < Capacity) {
    Slot = &Entries.emplace_back();
  } else {
    Slot = &Entries.front();
    for (Entry &E : Entries)
      if (E.LastUse < Slot->LastUse)
        Slot = &E;
  }
  Slot->Key = Key;
  Slot->LastUse = ++Clock;
  Slot->MicroBatch = P.MicroBatch;
  Slot->DecodeBatch = P.DecodeBatch;
  Slot->SeqLen = P.SeqLen;
  Slot->Blocks = P.Blocks;
  Slot->Passes = P.Passes;
  Slot->State = P.State;
}

} // namespace passes
} // namespace llmsys
