//===- Wire.cpp - points as bytes -----------------------------------------===//

#include "Sweep/Wire.h"

#include <cstring>

namespace llmsys {
namespace sweep {

void putWord(std::string &B, uint64_t V) {
  B.append(reinterpret_cast<const char *>(&V), sizeof V);
}

uint64_t getWord(llvm::StringRef &B, bool &Ok) {
  uint64_t V = 0;
  if (B.size() < sizeof V) {
    Ok = false;
    B = llvm::StringRef();
    return 0;
  }
  memcpy(&V, B.data(), sizeof V);
  B = B.drop_front(sizeof V);
  return V;
}

void putBlock(std::string &B, const Block &X) {
  putWord(B, X.Invalid);
  putWord(B, X.Rejected);
  putWord(B, X.Accepted);
  putWord(B, X.Points.size());
  for (const Point &P : X.Points) {
    putWord(B, P.Index);
    putWord(B, P.Choice.size());
    for (uint32_t C : P.Choice)
      putWord(B, C);
    putWord(B, P.Figures.size());
    for (double F : P.Figures) {
      uint64_t Bits;
      memcpy(&Bits, &F, sizeof Bits);
      putWord(B, Bits);
    }
  }
}

bool getBlock(llvm::StringRef &B, Block &X) {
  bool Ok = true;
  X.Invalid += getWord(B, Ok);
  X.Rejected += getWord(B, Ok);
  X.Accepted += getWord(B, Ok);
  uint64_t N = getWord(B, Ok);
  // Each point takes at least three words: a count past that is corrupt.
  if (!Ok || N > B.size() / 24)
    return false;
  for (uint64_t I = 0; I < N && Ok; ++I) {
    Point P;
    P.Index = getWord(B, Ok);
    uint64_t Axes = getWord(B, Ok);
    if (!Ok || Axes > B.size() / 8)
      return false;
    P.Choice.resize(Axes);
    for (uint32_t &C : P.Choice)
      C = uint32_t(getWord(B, Ok));
    uint64_t Figs = getWord(B, Ok);
    if (!Ok || Figs > B.size() / 8)
      return false;
    P.Figures.resize(Figs);
    for (double &F : P.Figures) {
      uint64_t Bits = getWord(B, Ok);
      memcpy(&F, &Bits, sizeof F);
    }
    X.Points.push_back(std::move(P));
  }
  return Ok;
}

} // namespace sweep
} // namespace llmsys
