//===- Check.cpp - the formatted text holds what the file held ------------===//
//
// The formatter's promise is that it changes whitespace alone. Before a
// formatted text is used it is lexed and parsed again: the same tokens and
// comments in the same order (a line comment's trailing whitespace aside),
// and the same tree (locations aside). Anything else is a bug in the
// formatter, reported as an internal error; the file is left as it is.
//
//===----------------------------------------------------------------------===//

#include "Format/Format.h"

#include "AST/AST.h"
#include "Parse/Parser.h"
#include "Parse/SourceTokens.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace llmsys {

namespace {

StringRef comparable(const SourceToken &T) {
  return T.Kind == TokenKind::LineComment ? T.Text.rtrim(" \t\f\v") : T.Text;
}

/// The dump of a tree without its file name and locations.
std::string shapeOf(const ast::File &F, const SourceMgr &SM) {
  std::string Dump;
  raw_string_ostream OS(Dump);
  ast::dumpAST(F, SM, OS);
  OS.flush();
  // Drop the file's name (the first line) and every location " <L:C>".
  StringRef Rest = StringRef(Dump).split('\n').second;
  std::string Shape;
  Shape.reserve(Rest.size());
  for (size_t I = 0; I < Rest.size(); ++I) {
    if (Rest[I] == ' ' && Rest.substr(I + 1, 1) == "<") {
      size_t J = I + 2;
      while (J < Rest.size() && (isDigit(Rest[J]) || Rest[J] == ':'))
        ++J;
      if (J > I + 2 && J < Rest.size() && Rest[J] == '>') {
        I = J;
        continue;
      }
    }
    Shape += Rest[I];
  }
  return Shape;
}

std::string quoted(StringRef Text) {
  StringRef First = Text.split('\n').first;
  return "'" + (First.size() > 40 ? First.take_front(40).str() + "..."
                                   : First.str()) +
         "'";
}

} // namespace

bool checkFormattedTree(unsigned BufferID, SourceMgr &SM, const ast::File &F,
                        StringRef Formatted, DiagnosticEngine &Diags) {
  StringRef Original = SM.getMemoryBuffer(BufferID)->getBuffer();
  auto Fail = [&](const char *At, const std::string &Why) {
    Diags.report<DiagID::err_format_internal>(SMLoc::getFromPointer(At), Why);
    return false;
  };
  std::optional<std::vector<SourceToken>> Before = lexSourceTokens(Original);
  std::optional<std::vector<SourceToken>> After = lexSourceTokens(Formatted);
  if (!Before || !After)
    return Fail(Original.data(), "the lexer failed");
  size_t Common = std::min(Before->size(), After->size());
  for (size_t I = 0; I < Common; ++I) {
    const SourceToken &B = (*Before)[I], &A = (*After)[I];
    if (B.Kind != A.Kind || comparable(B) != comparable(A))
      return Fail(B.Text.data(), "the formatted text would have " +
                                     quoted(A.Text) + " in place of " +
                                     quoted(B.Text));
  }
  if (Before->size() > Common)
    return Fail((*Before)[Common].Text.data(),
                "the formatted text would drop " +
                    quoted((*Before)[Common].Text));
  if (After->size() > Common)
    return Fail(Original.end(), "the formatted text would add " +
                                    quoted((*After)[Common].Text));
  // The same tokens may still group differently where lines matter (a
  // unit must stay on its number's line): the trees must be the same too.
  SourceMgr FormattedSM;
  DiagnosticEngine FormattedDiags(FormattedSM);
  unsigned FormattedID = FormattedSM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(Formatted, "<formatted>"), SMLoc());
  ast::ASTContext Ctx;
  ast::File *G = parseFile(FormattedID, FormattedSM, Ctx, FormattedDiags);
  if (!G)
    return Fail(Original.data(), "the formatted text does not parse");
  if (shapeOf(F, SM) != shapeOf(*G, FormattedSM))
    return Fail(Original.data(),
                "the formatted text parses to a different tree");
  return true;
}

bool checkFormatted(unsigned BufferID, SourceMgr &SM, StringRef Formatted,
                    DiagnosticEngine &Diags) {
  ast::ASTContext Ctx;
  ast::File *F = parseFile(BufferID, SM, Ctx, Diags);
  if (!F)
    return false;
  return checkFormattedTree(BufferID, SM, *F, Formatted, Diags);
}

} // namespace llmsys
