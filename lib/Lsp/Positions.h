//===- Positions.h - LSP positions and URIs ------------------------*- C++ -*-===//
//
// LSP positions count lines from 0 and characters in UTF-16 code units;
// llvm::SourceMgr counts bytes. And documents are named by file:// URIs.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_LSP_POSITIONS_H
#define LLMSYS_LSP_POSITIONS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace llmsys {
namespace lsp {

struct Position {
  unsigned Line = 0;
  unsigned Character = 0; ///< UTF-16 code units
};

/// The byte offset of P in Text (clamped to the line's end and the text's).
size_t offsetOf(llvm::StringRef Text, Position P);
/// The position of byte Offset of Text.
Position positionOf(llvm::StringRef Text, size_t Offset);

/// "file:///a%20b/c.llmsys" -> "/a b/c.llmsys"; other schemes: empty.
std::string pathFromUri(llvm::StringRef Uri);
/// The reverse, percent-encoding what a URI path may not hold.
std::string uriFromPath(llvm::StringRef Path);

} // namespace lsp
} // namespace llmsys

#endif
