//===- SourceTokens.cpp - a file's tokens and comments, for tools ---------===//

#include "Parse/SourceTokens.h"
#include "Parse/CompactToken.h"
#include "Parse/OffsetMap.h"
#include "Parse/SourceStream.h"

#include "LLMSysLexer.h"
#include "antlr4-runtime.h"

using namespace llvm;
using namespace llmsys_antlr;

namespace llmsys {

static TokenKind kindOf(size_t Type) {
  switch (Type) {
  case LLMSysLexer::IDENT:
    return TokenKind::Ident;
  case LLMSysLexer::NUMBER:
    return TokenKind::Number;
  case LLMSysLexer::NUMWORD:
    return TokenKind::NumWord;
  case LLMSysLexer::STRING:
    return TokenKind::String;
  case LLMSysLexer::LBRACE:
    return TokenKind::LBrace;
  case LLMSysLexer::RBRACE:
    return TokenKind::RBrace;
  case LLMSysLexer::LPAREN:
    return TokenKind::LParen;
  case LLMSysLexer::RPAREN:
    return TokenKind::RParen;
  case LLMSysLexer::LBRACK:
    return TokenKind::LBrack;
  case LLMSysLexer::RBRACK:
    return TokenKind::RBrack;
  case LLMSysLexer::SEMI:
    return TokenKind::Semi;
  case LLMSysLexer::COMMA:
    return TokenKind::Comma;
  case LLMSysLexer::DOTDOT:
    return TokenKind::DotDot;
  case LLMSysLexer::DOT:
    return TokenKind::Dot;
  case LLMSysLexer::ASSIGN:
    return TokenKind::Assign;
  case LLMSysLexer::LT:
  case LLMSysLexer::LE:
  case LLMSysLexer::GT:
  case LLMSysLexer::GE:
  case LLMSysLexer::EQ:
  case LLMSysLexer::NE:
    return TokenKind::Compare;
  case LLMSysLexer::PLUS:
    return TokenKind::Plus;
  case LLMSysLexer::MINUS:
    return TokenKind::Minus;
  case LLMSysLexer::STAR:
    return TokenKind::Star;
  case LLMSysLexer::SLASH:
    return TokenKind::Slash;
  case LLMSysLexer::CARET:
    return TokenKind::Caret;
  case LLMSysLexer::PERCENT:
    return TokenKind::Percent;
  case LLMSysLexer::LINE_COMMENT:
    return TokenKind::LineComment;
  case LLMSysLexer::BLOCK_COMMENT:
    return TokenKind::BlockComment;
  case LLMSysLexer::IMPORT:
  case LLMSysLexer::EXTENDS:
  case LLMSysLexer::OVER:
  case LLMSysLexer::EXPECT:
  case LLMSysLexer::IN:
  case LLMSysLexer::WHERE:
  case LLMSysLexer::MINIMIZE:
  case LLMSysLexer::MAXIMIZE:
  case LLMSysLexer::PARETO:
  case LLMSysLexer::KEEP:
  case LLMSysLexer::STEP:
  case LLMSysLexer::TRUE:
  case LLMSysLexer::FALSE:
  case LLMSysLexer::AND:
  case LLMSysLexer::OR:
  case LLMSysLexer::NOT:
    return TokenKind::Keyword;
  default:
    return TokenKind::Bad;
  }
}

std::optional<std::vector<SourceToken>> lexSourceTokens(StringRef Text) {
  std::vector<SourceToken> Result;
  // The lexer does not throw on any input (errors become BAD_CHAR tokens);
  // the catch keeps ANTLR's exceptions inside this library all the same.
  try {
    SourceStream Input(Text);
    CompactLexer Lexer(&Input);
    Lexer.KeepLineComments = true;
    Lexer.removeErrorListeners();
    OffsetMap Offsets(Text);
    for (;;) {
      std::unique_ptr<antlr4::Token> T = Lexer.nextToken();
      if (T->getType() == antlr4::Token::EOF)
        break;
      size_t Start = Offsets.byteOf(T->getStartIndex());
      size_t Stop = Offsets.byteOf(T->getStopIndex() + 1);
      Result.push_back({kindOf(T->getType()),
                        Text.slice(Start, std::max(Start, Stop))});
    }
  } catch (...) {
    return std::nullopt;
  }
  return Result;
}

} // namespace llmsys
