//===- CompactToken.h - tokens at 40 bytes instead of 112 -------*- C++ -*-===//
//
// Internal to lib/Parse. The parser holds a file's tokens at once (its first
// stage checks them all before parsing), and ANTLR's CommonToken takes 112
// bytes each: most of the memory a large spec needs while it is parsed
// (issue 21's target of 40 bytes a byte). A CompactToken keeps offsets in
// 32 bits -- SourceFiles refuses files past 256 MiB -- and its text is read
// from the character stream when asked for.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PARSE_COMPACTTOKEN_H
#define LLMSYS_PARSE_COMPACTTOKEN_H

#include "LLMSysLexer.h"
#include "antlr4-runtime.h"

#include <cstdint>
#include <utility>

namespace llmsys {

class CompactToken : public antlr4::WritableToken {
public:
  using Source = std::pair<antlr4::TokenSource *, antlr4::CharStream *>;
  /// Src must outlive the token (the lexer holds it).
  CompactToken(const Source *Src, size_t Type, size_t Channel, size_t Start,
               size_t Stop, size_t Line, size_t Column);

  std::string getText() const override;
  size_t getType() const override {
    return Type == UINT16_MAX ? antlr4::Token::EOF : Type;
  }
  size_t getLine() const override { return Line; }
  size_t getCharPositionInLine() const override { return wide(Column); }
  size_t getChannel() const override { return Channel; }
  size_t getTokenIndex() const override { return wide(Index); }
  size_t getStartIndex() const override { return Start; }
  /// Inclusive; Start - 1 for an empty token (EOF), as ANTLR has it.
  size_t getStopIndex() const override { return Start + Length - 1; }
  antlr4::TokenSource *getTokenSource() const override { return Src->first; }
  antlr4::CharStream *getInputStream() const override { return Src->second; }
  std::string toString() const override;

  /// Not supported: the text is the source's (throws; no lexer action of
  /// the grammar sets text).
  void setText(const std::string &Text) override;
  void setType(size_t T) override;
  void setLine(size_t L) override { Line = static_cast<uint32_t>(L); }
  void setCharPositionInLine(size_t C) override { Column = narrow(C); }
  void setChannel(size_t C) override { Channel = static_cast<uint8_t>(C); }
  void setTokenIndex(size_t I) override { Index = narrow(I); }

private:
  /// ANTLR's "none" (EOF, INVALID_INDEX: size_t's maximum) in 32 bits.
  static uint32_t narrow(size_t V);
  static size_t wide(uint32_t V);

  const Source *Src;
  uint32_t Start, Length, Line, Column;
  uint32_t Index = UINT32_MAX;
  uint16_t Type;
  uint8_t Channel;
};

/// The grammar's lexer, emitting CompactTokens.
class CompactLexer : public llmsys_antlr::LLMSysLexer {
public:
  explicit CompactLexer(antlr4::CharStream *Input)
      : LLMSysLexer(Input), Src(this, Input) {}
  using LLMSysLexer::emit;
  antlr4::Token *emit() override;
  antlr4::Token *emitEOF() override;

private:
  CompactToken::Source Src;
};

} // namespace llmsys

#endif
