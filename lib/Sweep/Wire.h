//===- Wire.h - points as bytes ----------------------------------*- C++ -*-===//
//
// Internal to lib/Sweep: the byte form of counts and points that ranks send
// rank 0 (Runner.cpp) and that checkpoints hold (Checkpoint.cpp). Numbers
// are 64-bit little-endian words (the machines llmsys runs on); a figure is
// its IEEE bits, so a point comes back exactly.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SWEEP_WIRE_H
#define LLMSYS_SWEEP_WIRE_H

#include "Sweep/Sweep.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llmsys {
namespace sweep {

void putWord(std::string &B, uint64_t V);
/// The next word of B (0 past its end, which Ok records).
uint64_t getWord(llvm::StringRef &B, bool &Ok);

/// The counts and points of a block of the grid.
struct Block {
  uint64_t Invalid = 0, Rejected = 0, Accepted = 0;
  std::vector<Point> Points;
};
void putBlock(std::string &B, const Block &X);
/// Appends what B holds to X (counts added); false when B is cut short.
bool getBlock(llvm::StringRef &B, Block &X);

} // namespace sweep
} // namespace llmsys

#endif
