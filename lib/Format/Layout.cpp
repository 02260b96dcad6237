//===- Layout.cpp - the layout rules of llmsys fmt ------------------------===//
//
// The formatter decides the whitespace between a file's tokens; it never
// adds, drops or reorders a token or a comment. The AST says where the
// declarations and members start, which signs are unary and which tokens
// make up a number with its unit. The rules (docs/cli.md, "llmsys fmt"):
//
// Lines. The file's line breaks are kept; a run of blank lines becomes one;
// no blank line stays at the start of the file, after '{' or before '}'. A
// block written on one line stays on one line; a block written over several
// ends its first line with '{' (and a comment written there) and puts '}'
// on a line of its own; an empty block is "{ }". Every declaration starts a
// line.
//
// Indentation. IndentWidth spaces a block level. A line inside brackets
// aligns after the bracket when the bracket's line goes on after it, or is
// indented IndentWidth past the bracket's line otherwise (and the closing
// bracket then lines up with that line). A line that continues a statement
// outside brackets is indented ContinuationIndent more.
//
// Spaces. One space between tokens on a line, except none: before ',' ';'
// ')' ']'; after '(' '['; around '.'; between a function's name and its
// '('; after a sign ('-1'); between 'step *' and its factor; and inside a
// number with its unit, which keeps its spelling ("80 GiB", "3.35TB/s").
//
// Comments. A comment on a line of its own is indented as code would be
// there. A trailing line comment starts at CommentColumn (the stdlib's), so
// that the comments of consecutive lines line up, or CommentGap spaces
// after code that reaches past it. Trailing whitespace is dropped.
//
//===----------------------------------------------------------------------===//

#include "Format/Format.h"

#include "AST/AST.h"
#include "Parse/Parser.h"
#include "Parse/SourceTokens.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace llvm;

namespace llmsys {

// Defined in Check.cpp: the check of the formatted text against the tree
// the formatter worked from.
bool checkFormattedTree(unsigned BufferID, SourceMgr &SM, const ast::File &F,
                        StringRef Formatted, DiagnosticEngine &Diags);

namespace {

/// What the AST says about tokens, each known by its first byte.
struct Annotations {
  DenseSet<const char *> DeclStarts, MemberStarts, UnaryOps;
  /// Numbers with their units, [start, end) in the buffer, in source order.
  std::vector<std::pair<const char *, const char *>> Numbers;
};

class Annotator {
public:
  explicit Annotator(Annotations &A) : A(A) {}

  void file(const ast::File &F) {
    for (const ast::Import &I : F.Imports)
      A.DeclStarts.insert(I.Range.Start.getPointer());
    for (const ast::EntityDecl *E : F.Entities) {
      A.DeclStarts.insert(E->Range.Start.getPointer());
      if (E->Init)
        expr(E->Init);
      if (E->Body)
        block(*E->Body);
    }
    for (const ast::ExpectDecl *E : F.Expects) {
      A.DeclStarts.insert(E->Range.Start.getPointer());
      expr(E->Condition);
    }
    llvm::sort(A.Numbers);
  }

private:
  void block(const ast::Block &B) {
    for (const ast::Member *M : B.Members)
      member(*M);
  }

  void member(const ast::Member &M) {
    A.MemberStarts.insert(M.getRange().Start.getPointer());
    switch (M.getKind()) {
    case ast::Member::Kind::Assign: {
      const auto &AM = cast<ast::AssignMember>(M);
      if (AM.Value)
        expr(AM.Value);
      if (AM.Refine)
        block(*AM.Refine);
      return;
    }
    case ast::Member::Kind::Block:
      block(*cast<ast::BlockMember>(M).Body);
      return;
    case ast::Member::Kind::Bound:
      expr(cast<ast::BoundMember>(M).Value);
      return;
    case ast::Member::Kind::Axis:
      expr(cast<ast::AxisMember>(M).Values);
      return;
    case ast::Member::Kind::Where:
      expr(cast<ast::WhereMember>(M).Cond);
      return;
    case ast::Member::Kind::Objective:
      expr(cast<ast::ObjectiveMember>(M).Figure);
      return;
    case ast::Member::Kind::Pareto:
      for (const ast::Expr *E : cast<ast::ParetoMember>(M).Figures)
        expr(E);
      return;
    case ast::Member::Kind::Keep:
      expr(cast<ast::KeepMember>(M).Count);
      return;
    }
  }

  void expr(const ast::Expr *E) {
    switch (E->getKind()) {
    case ast::Expr::Kind::Number:
      A.Numbers.push_back(
          {E->getRange().Start.getPointer(), E->getRange().End.getPointer()});
      return;
    case ast::Expr::Kind::String:
    case ast::Expr::Kind::Bool:
    case ast::Expr::Kind::Name:
      return;
    case ast::Expr::Kind::Call:
      for (const ast::Expr *Arg : cast<ast::CallExpr>(E)->Args)
        expr(Arg);
      return;
    case ast::Expr::Kind::List:
      for (const ast::Expr *Elt : cast<ast::ListExpr>(E)->Elements)
        expr(Elt);
      return;
    case ast::Expr::Kind::Unary: {
      const auto *U = cast<ast::UnaryExpr>(E);
      A.UnaryOps.insert(U->OpLoc.getPointer());
      expr(U->Operand);
      return;
    }
    case ast::Expr::Kind::Binary: {
      const auto *B = cast<ast::BinaryExpr>(E);
      expr(B->LHS);
      expr(B->RHS);
      return;
    }
    case ast::Expr::Kind::Range: {
      const auto *R = cast<ast::RangeExpr>(E);
      expr(R->Lo);
      expr(R->Hi);
      if (R->Step)
        expr(R->Step);
      return;
    }
    }
  }

  Annotations &A;
};

/// Columns a text takes: its code points (names may hold 'µ').
unsigned widthOf(StringRef S) {
  unsigned W = 0;
  for (char C : S)
    if ((static_cast<unsigned char>(C) & 0xC0) != 0x80)
      ++W;
  return W;
}

bool isClosingBracket(TokenKind K) {
  return K == TokenKind::RBrack || K == TokenKind::RParen;
}

class Layout {
public:
  Layout(StringRef Text, ArrayRef<SourceToken> Toks, const Annotations &A,
         const FormatStyle &Style)
      : Text(Text), Toks(Toks), A(A), Style(Style) {}

  std::string run() {
    if (Toks.empty())
      return "";
    decideBreaks();
    numberTokens();
    placeTokens();
    alignTrailingComments();
    return render();
  }

private:
  struct Line {
    bool Blank = false;
    unsigned Indent = 0;
    std::string Code;   ///< Tokens after the indentation.
    StringRef Trailing; ///< A line comment after the code, or empty.
    unsigned CommentColumn = 0;
  };
  struct Bracket {
    unsigned Align;      ///< Where the lines inside start.
    unsigned LineIndent; ///< The indentation of the bracket's line.
  };

  /// Break[I]: 0 when token I goes on the line of token I - 1, 1 when it
  /// starts a line, 2 when a blank line comes before it.
  void decideBreaks() {
    size_t N = Toks.size();
    std::vector<unsigned> Newlines(N);
    const char *End = Text.begin();
    for (size_t I = 0; I < N; ++I) {
      Newlines[I] = std::count(End, Toks[I].Text.begin(), '\n');
      End = Toks[I].Text.end();
    }
    Break.resize(N);
    for (size_t I = 1; I < N; ++I)
      Break[I] = std::min(Newlines[I], 2u);
    // Blocks written over several lines.
    std::vector<size_t> Open;
    std::vector<size_t> LinesUpTo(N + 1, 0); // breaks before tokens < I
    for (size_t I = 0; I < N; ++I)
      LinesUpTo[I + 1] = LinesUpTo[I] + (Newlines[I] ? 1 : 0);
    for (size_t I = 0; I < N; ++I) {
      if (Toks[I].Kind == TokenKind::LBrace) {
        Open.push_back(I);
        continue;
      }
      if (Toks[I].Kind != TokenKind::RBrace || Open.empty())
        continue;
      size_t L = Open.back();
      Open.pop_back();
      if (I == L + 1) {
        Break[I] = 0; // an empty block: "{ }"
        continue;
      }
      if (LinesUpTo[I + 1] == LinesUpTo[L + 1])
        continue; // written on one line
      size_t First = L + 1;
      while (First < I && Toks[First].isComment() && Newlines[First] == 0)
        ++First;
      Break[First] = 1;
      Break[I] = 1;
    }
    for (size_t I = 1; I < N; ++I)
      if (A.DeclStarts.count(Toks[I].Text.data()) &&
          !(Toks[I - 1].Kind == TokenKind::BlockComment && Newlines[I] == 0))
        Break[I] = std::max(Break[I], 1u);
  }

  /// NumberOf[I]: the number (with its unit) token I belongs to, or -1.
  void numberTokens() {
    NumberOf.assign(Toks.size(), -1);
    size_t J = 0;
    for (size_t I = 0; I < Toks.size(); ++I) {
      const char *P = Toks[I].Text.data();
      while (J < A.Numbers.size() && A.Numbers[J].second <= P)
        ++J;
      if (J < A.Numbers.size() && A.Numbers[J].first <= P)
        NumberOf[I] = static_cast<int>(J);
    }
  }

  bool spaceBefore(size_t I) const {
    const SourceToken &Prev = Toks[I - 1], &Tok = Toks[I];
    if (NumberOf[I] >= 0 && NumberOf[I] == NumberOf[I - 1])
      return Prev.Text.end() != Tok.Text.begin();
    switch (Tok.Kind) {
    case TokenKind::Comma:
    case TokenKind::Semi:
    case TokenKind::RParen:
    case TokenKind::RBrack:
    case TokenKind::Dot:
      return false;
    default:
      break;
    }
    switch (Prev.Kind) {
    case TokenKind::LParen:
    case TokenKind::LBrack:
    case TokenKind::Dot:
      return false;
    case TokenKind::Ident:
      return Tok.Kind != TokenKind::LParen;
    case TokenKind::Minus:
    case TokenKind::Plus:
      return !A.UnaryOps.count(Prev.Text.data());
    case TokenKind::Star:
      return !(I >= 2 && Toks[I - 2].Kind == TokenKind::Keyword &&
               Toks[I - 2].Text == "step");
    default:
      return true;
    }
  }

  /// The column after the last character of a line so far.
  static unsigned endColumn(const Line &L) {
    size_t NL = L.Code.rfind('\n');
    if (NL != std::string::npos)
      return widthOf(StringRef(L.Code).drop_front(NL + 1));
    return L.Indent + widthOf(L.Code);
  }

  unsigned indentOf(size_t I) const {
    const SourceToken &Tok = Toks[I];
    if (!Brackets.empty())
      return isClosingBracket(Tok.Kind) ? Brackets.back().LineIndent
                                        : Brackets.back().Align;
    unsigned Base = Depth * Style.IndentWidth;
    if (Tok.Kind == TokenKind::RBrace)
      return Base >= Style.IndentWidth ? Base - Style.IndentWidth : 0;
    const char *P = Tok.Text.data();
    if (Tok.isComment() || Tok.Kind == TokenKind::LBrace ||
        Tok.Kind == TokenKind::Semi || A.MemberStarts.count(P) ||
        A.DeclStarts.count(P))
      return Base;
    return Base + Style.ContinuationIndent;
  }

  static StringRef textOf(const SourceToken &T) {
    return T.Kind == TokenKind::LineComment ? T.Text.rtrim(" \t\f\v")
                                            : T.Text;
  }

  void placeTokens() {
    for (size_t I = 0; I < Toks.size(); ++I) {
      const SourceToken &Tok = Toks[I];
      if (I == 0 || Break[I]) {
        if (Break[I] == 2) {
          Lines.emplace_back();
          Lines.back().Blank = true;
        }
        Line L;
        L.Indent = indentOf(I);
        L.Code = textOf(Tok).str();
        Lines.push_back(std::move(L));
      } else if (Tok.Kind == TokenKind::LineComment) {
        Lines.back().Trailing = textOf(Tok);
        continue;
      } else {
        if (spaceBefore(I))
          Lines.back().Code += ' ';
        Lines.back().Code += Tok.Text;
      }
      switch (Tok.Kind) {
      case TokenKind::LBrace:
        ++Depth;
        break;
      case TokenKind::RBrace:
        Depth = Depth ? Depth - 1 : 0;
        break;
      case TokenKind::LBrack:
      case TokenKind::LParen: {
        const Line &L = Lines.back();
        bool GoesOn = I + 1 < Toks.size() && !Break[I + 1] &&
                      Toks[I + 1].Kind != TokenKind::LineComment;
        Brackets.push_back({GoesOn ? endColumn(L) : L.Indent + Style.IndentWidth,
                            L.Indent});
        break;
      }
      case TokenKind::RBrack:
      case TokenKind::RParen:
        if (!Brackets.empty())
          Brackets.pop_back();
        break;
      default:
        break;
      }
    }
  }

  /// Trailing comments line up at CommentColumn; code that reaches past
  /// it pushes its own comment CommentGap spaces after it (as Emacs's
  /// comment-column does), not its neighbours'.
  void alignTrailingComments() {
    for (Line &L : Lines)
      if (!L.Trailing.empty())
        L.CommentColumn =
            std::max(Style.CommentColumn, endColumn(L) + Style.CommentGap);
  }

  std::string render() const {
    std::string Out;
    Out.reserve(Text.size() + Text.size() / 8);
    for (const Line &L : Lines) {
      if (!L.Blank) {
        Out.append(L.Indent, ' ');
        Out += L.Code;
        if (!L.Trailing.empty()) {
          Out.append(L.CommentColumn - endColumn(L), ' ');
          Out += L.Trailing;
        }
      }
      Out += '\n';
    }
    return Out;
  }

  StringRef Text;
  ArrayRef<SourceToken> Toks;
  const Annotations &A;
  const FormatStyle &Style;
  std::vector<unsigned> Break;
  std::vector<int> NumberOf;
  std::vector<Line> Lines;
  unsigned Depth = 0;
  std::vector<Bracket> Brackets;
};

} // namespace

std::optional<std::string> formatBuffer(unsigned BufferID, SourceMgr &SM,
                                        DiagnosticEngine &Diags,
                                        const FormatStyle &Style) {
  ast::ASTContext Ctx;
  ast::File *F = parseFile(BufferID, SM, Ctx, Diags);
  if (!F)
    return std::nullopt;
  StringRef Text = SM.getMemoryBuffer(BufferID)->getBuffer();
  std::optional<std::vector<SourceToken>> Toks = lexSourceTokens(Text);
  if (!Toks) {
    Diags.report<DiagID::err_format_internal>(
        SMLoc::getFromPointer(Text.data()), "the lexer failed");
    return std::nullopt;
  }
  Annotations A;
  Annotator(A).file(*F);
  std::string Formatted = Layout(Text, *Toks, A, Style).run();
  if (!checkFormattedTree(BufferID, SM, *F, Formatted, Diags))
    return std::nullopt;
  return Formatted;
}

} // namespace llmsys
