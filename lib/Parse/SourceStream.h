//===- SourceStream.h - a source buffer as ANTLR's character stream -*- C++ -*-===//
//
// Internal to lib/Parse. ANTLR's own ANTLRInputStream copies a buffer into
// UTF-32 by way of a string five times the input's size (20 bytes a byte at
// its peak); this stream reads an ASCII buffer in place and keeps one
// 4-byte code point a character of any other (valid UTF-8: the parser's
// first stage checked it).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PARSE_SOURCESTREAM_H
#define LLMSYS_PARSE_SOURCESTREAM_H

#include "antlr4-runtime.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace llmsys {

class SourceStream : public antlr4::CharStream {
public:
  /// Text must outlive the stream and be valid UTF-8.
  explicit SourceStream(llvm::StringRef Text);

  void consume() override;
  size_t LA(ssize_t I) override;
  ssize_t mark() override { return -1; }
  void release(ssize_t) override {}
  size_t index() override { return P; }
  void seek(size_t Index) override;
  size_t size() override { return Size; }
  std::string getSourceName() const override {
    return antlr4::IntStream::UNKNOWN_SOURCE_NAME;
  }
  std::string getText(const antlr4::misc::Interval &I) override;
  std::string toString() const override { return Text.str(); }

private:
  llvm::StringRef Text;
  /// Code points of a non-ASCII text; empty for ASCII, read in place.
  std::vector<uint32_t> Wide;
  size_t Size = 0; ///< code points
  size_t P = 0;    ///< the next code point
};

} // namespace llmsys

#endif
