//===- Format.h - llmsys fmt: the canonical layout of a file -----*- C++ -*-===//
//
// The formatter lays a parsed file out again from its AST and its tokens,
// comments included (docs/cli.md, "llmsys fmt", states the rules). It only
// changes whitespace: before anything is returned, the formatted text is
// checked to hold the same tokens and comments in the same order and to
// parse to the same tree; a difference is an internal error and the file is
// left as it was.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_FORMAT_FORMAT_H
#define LLMSYS_FORMAT_FORMAT_H

#include "Basic/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>
#include <string>

namespace llmsys {

struct FormatStyle {
  /// Spaces per level of blocks.
  unsigned IndentWidth = 2;
  /// Extra indentation of a line that continues a statement outside any
  /// bracket.
  unsigned ContinuationIndent = 4;
  /// The column (0-based) where trailing comments start, as in the stdlib.
  unsigned CommentColumn = 28;
  /// Spaces at least between code and its trailing comment.
  unsigned CommentGap = 2;
};

/// The formatted text of a buffer. Nullopt, after diagnostics, when the
/// buffer does not parse, or when its formatted text failed the check
/// (err_format_internal).
std::optional<std::string> formatBuffer(unsigned BufferID, llvm::SourceMgr &SM,
                                        DiagnosticEngine &Diags,
                                        const FormatStyle &Style = {});

/// The formatter's last step, exposed for tests: true when Formatted has
/// the tokens and comments of buffer BufferID in the same order and parses
/// to the same tree. Otherwise reports err_format_internal (at the first
/// token that differs) and returns false.
bool checkFormatted(unsigned BufferID, llvm::SourceMgr &SM,
                    llvm::StringRef Formatted, DiagnosticEngine &Diags);

/// A unified diff of Before and After (three lines of context), headed
/// "--- BeforeName" and "+++ AfterName"; empty when they are equal.
std::string unifiedDiff(llvm::StringRef Before, llvm::StringRef After,
                        llvm::StringRef BeforeName, llvm::StringRef AfterName);

} // namespace llmsys

#endif
