//===- Features.h - what the language server answers ---------------*- C++ -*-===//
//
// Hover, go-to-definition and completion over one document: its text and
// the last compilation of it that resolved (names, fields, origins).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_LSP_FEATURES_H
#define LLMSYS_LSP_FEATURES_H

#include "Sema/Compilation.h"

#include <optional>
#include <string>
#include <vector>

namespace llmsys {
namespace lsp {

/// A compiled document: the compilation and the document's buffer in it.
struct Analysis {
  std::unique_ptr<Compilation> C;
  unsigned Buffer = 0;
  bool Resolved = false; ///< names and fields are known
};

/// The word (a name, a field or a keyword) at byte Offset of Text, as
/// [Begin, End) offsets; empty when there is none.
std::pair<size_t, size_t> wordAt(llvm::StringRef Text, size_t Offset);

/// Markdown for the thing at Offset: a field written there (its value in
/// base units, and whether it was written, inherited, derived or defaulted,
/// with the field's documentation), an entity's name (its kind, where it
/// is declared, the fields it writes), an entity kind or an enum word.
std::optional<std::string> hover(const Analysis &A, llvm::StringRef Text,
                                 size_t Offset);

struct Location {
  std::string Path;
  size_t Begin = 0, End = 0; ///< byte offsets in the file
  std::string FileText;      ///< the file's text, for positions
};
/// Where the name at Offset is declared: an entity (also one an import
/// brings, in its file), or the file an import names.
std::optional<Location> definition(const Analysis &A, llvm::StringRef Text,
                                   size_t Offset);

struct Completion {
  std::string Label;
  enum Kind { Field, Value, Entity, Keyword } K = Field;
  std::string Detail; ///< the field's type, the entity's kind
  std::string Doc;
};
/// What may be written at Offset: the fields of the block the cursor is
/// in (from the schema), after `FIELD =` the field's enum words, booleans
/// or the entities of the kind it references; at the top level the
/// entity kinds and keywords.
std::vector<Completion> complete(const Analysis &A, llvm::StringRef Text,
                                 size_t Offset);

} // namespace lsp
} // namespace llmsys

#endif
