//===- OffsetMap.h - ANTLR's character indices as byte offsets --*- C++ -*-===//
//
// Internal to lib/Parse. ANTLR counts code points; diagnostics and the AST
// point at bytes of the buffer.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PARSE_OFFSETMAP_H
#define LLMSYS_PARSE_OFFSETMAP_H

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace llmsys {

/// Maps ANTLR's code-point indices to byte offsets in the buffer.
class OffsetMap {
public:
  explicit OffsetMap(llvm::StringRef Text) : Text(Text) {
    bool Ascii = true;
    for (char C : Text)
      if (static_cast<unsigned char>(C) >= 0x80) {
        Ascii = false;
        break;
      }
    if (Ascii)
      return;
    for (size_t I = 0; I < Text.size(); ++I)
      if ((static_cast<unsigned char>(Text[I]) & 0xC0) != 0x80)
        ByteOfCodePoint.push_back(static_cast<uint32_t>(I));
    ByteOfCodePoint.push_back(static_cast<uint32_t>(Text.size()));
  }
  size_t byteOf(size_t CodePoint) const {
    if (ByteOfCodePoint.empty())
      return std::min(CodePoint, Text.size());
    if (CodePoint >= ByteOfCodePoint.size())
      return Text.size();
    return ByteOfCodePoint[CodePoint];
  }

private:
  llvm::StringRef Text;
  std::vector<uint32_t> ByteOfCodePoint;
};

} // namespace llmsys

#endif
