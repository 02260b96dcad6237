//===- CompactToken.cpp - tokens at 40 bytes instead of 112 ---------------===//

#include "Parse/CompactToken.h"

#include <stdexcept>

namespace llmsys {

static_assert(sizeof(CompactToken) <= 40, "a token grew");

uint32_t CompactToken::narrow(size_t V) {
  if (V == antlr4::Token::EOF) // also INVALID_INDEX
    return UINT32_MAX;
  if (V >= UINT32_MAX)
    throw std::length_error("a token offset past 32 bits");
  return static_cast<uint32_t>(V);
}

size_t CompactToken::wide(uint32_t V) {
  return V == UINT32_MAX ? antlr4::Token::EOF : V;
}

CompactToken::CompactToken(const Source *Src, size_t Type, size_t Channel,
                           size_t Start, size_t Stop, size_t Line,
                           size_t Column)
    : Src(Src), Start(narrow(Start)),
      // Stop is Start - 1 for an empty token (wrapping at 0, as ANTLR's).
      Length(narrow(Stop + 1 - Start)), Line(narrow(Line)),
      Column(narrow(Column)), Channel(static_cast<uint8_t>(Channel)) {
  setType(Type);
}

void CompactToken::setType(size_t T) {
  if (T == antlr4::Token::EOF)
    Type = UINT16_MAX;
  else if (T >= UINT16_MAX)
    throw std::length_error("a token type past 16 bits");
  else
    Type = static_cast<uint16_t>(T);
}

std::string CompactToken::getText() const {
  if (getType() == antlr4::Token::EOF)
    return "<EOF>";
  if (Length == 0)
    return "";
  return Src->second->getText(
      antlr4::misc::Interval(size_t(Start), size_t(Start) + Length - 1));
}

void CompactToken::setText(const std::string &) {
  throw std::logic_error("a token's text cannot be set");
}

std::string CompactToken::toString() const {
  return "[@" + std::to_string(Index) + "," + std::to_string(Start) + ":" +
         std::to_string(getStopIndex()) + "='" + getText() + "',<" +
         std::to_string(Type) + ">," + std::to_string(Line) + ":" +
         std::to_string(Column) + "]";
}

antlr4::Token *CompactLexer::emit() {
  auto T = std::make_unique<CompactToken>(
      &Src, type, channel, tokenStartCharIndex, getCharIndex() - 1,
      tokenStartLine, tokenStartCharPositionInLine);
  antlr4::Token *Emitted = T.get();
  emit(std::move(T));
  return Emitted;
}

antlr4::Token *CompactLexer::emitEOF() {
  size_t At = _input->index();
  auto T = std::make_unique<CompactToken>(&Src, antlr4::Token::EOF,
                                          antlr4::Token::DEFAULT_CHANNEL, At,
                                          At - 1, getLine(),
                                          getCharPositionInLine());
  antlr4::Token *Emitted = T.get();
  emit(std::move(T));
  return Emitted;
}

} // namespace llmsys
