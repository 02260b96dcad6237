//===- SourceTokens.h - a file's tokens and comments, for tools --*- C++ -*-===//
//
// The formatter (lib/Format) lays out a file from its AST and its tokens,
// comments included; this is how it gets the tokens without seeing ANTLR.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PARSE_SOURCETOKENS_H
#define LLMSYS_PARSE_SOURCETOKENS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llmsys {

enum class TokenKind : uint8_t {
  Ident,   ///< a name, or a word of a unit
  Keyword, ///< import, extends, over, expect, in, where, minimize, maximize,
           ///< pareto, keep, step, true, false, and, or, not
  Number,  ///< 80, 3.35, 1e9, .5
  NumWord, ///< a number glued to letters: 80GiB, 1f1b
  String,
  LBrace,
  RBrace,
  LParen,
  RParen,
  LBrack,
  RBrack,
  Semi,
  Comma,
  DotDot,
  Dot,
  Assign,  ///< =
  Compare, ///< < <= > >= == !=
  Plus,
  Minus,
  Star,
  Slash,
  Caret,
  Percent,
  LineComment,  ///< // ... (without the line break)
  BlockComment, ///< /* ... */
  Bad,          ///< a stray character (the parser reports it)
};

struct SourceToken {
  TokenKind Kind;
  llvm::StringRef Text; ///< Points into the text that was lexed.
  bool isComment() const {
    return Kind == TokenKind::LineComment || Kind == TokenKind::BlockComment;
  }
};

/// Every token of Text in order, comments included, whitespace and the end
/// of file not. Text must be valid UTF-8 (a file that parsed is). Nullopt
/// only if the lexer failed inside (a bug: it has no error on any input).
std::optional<std::vector<SourceToken>> lexSourceTokens(llvm::StringRef Text);

} // namespace llmsys

#endif
