//===- Parser.h - from source buffers to the AST -----------------*- C++ -*-===//
//
// The only interface to the ANTLR-generated parser. Nothing of ANTLR (types,
// headers, exceptions) crosses it. Bad input of every kind becomes a
// diagnostic: binary files, invalid UTF-8, stray characters, unterminated
// strings, comments and blocks, nesting too deep for the recursive parser,
// and syntax errors.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_PARSE_PARSER_H
#define LLMSYS_PARSE_PARSER_H

#include "AST/AST.h"
#include "Basic/Diagnostics.h"

namespace llmsys {

struct ParseLimits {
  /// Brackets and blocks nested deeper than this are rejected before the
  /// (recursive) ANTLR parser sees them.
  unsigned MaxNesting = 256;
  /// Expression trees deeper than this are rejected while building the AST.
  unsigned MaxExprDepth = 512;
};

/// Parses a whole file. Returns null when the file has errors (all of them
/// diagnosed).
ast::File *parseFile(unsigned BufferID, llvm::SourceMgr &SM,
                     ast::ASTContext &Ctx, DiagnosticEngine &Diags,
                     const ParseLimits &Limits = ParseLimits());

/// Parses a buffer holding one expression (schema defaults). Returns null on
/// error.
ast::Expr *parseExpression(unsigned BufferID, llvm::SourceMgr &SM,
                           ast::ASTContext &Ctx, DiagnosticEngine &Diags);

} // namespace llmsys

#endif
