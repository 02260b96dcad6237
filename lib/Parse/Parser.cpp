//===- Parser.cpp - from source buffers to the AST ------------------------===//
//
// Stages, each of which may stop the file with diagnostics:
//   1. the bytes: NUL bytes (binary files) and invalid UTF-8;
//   2. the tokens: stray characters, unterminated strings and comments,
//      unbalanced or too deeply nested brackets (ANTLR's parser recurses once
//      per level, so depth is checked before it runs);
//   3. the ANTLR parse (SLL first, full LL on failure), syntax errors
//      reported through our own listener;
//   4. the AST builder, which walks ANTLR's contexts into arena nodes.
//
//===----------------------------------------------------------------------===//

#include "Parse/Parser.h"
#include "Parse/CompactToken.h"
#include "Parse/OffsetMap.h"
#include "Parse/SourceStream.h"

#include "LLMSysLexer.h"
#include "LLMSysParser.h"
#include "antlr4-runtime.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"

using namespace llvm;
using namespace llmsys_antlr;

namespace llmsys {
namespace {

/// Thrown by the error listener to stop a parse past the error limit.
struct StopParsing {};

class SourceView {
public:
  SourceView(const MemoryBuffer &Buf) : Buf(Buf), Offsets(Buf.getBuffer()) {}
  SMLoc locAtByte(size_t Byte) const {
    return SMLoc::getFromPointer(Buf.getBufferStart() +
                                 std::min(Byte, Buf.getBufferSize()));
  }
  /// The range of a token (ANTLR stop indices are inclusive).
  SMRange range(const antlr4::Token *T) const {
    if (!T || T->getType() == antlr4::Token::EOF) {
      SMLoc End = locAtByte(Buf.getBufferSize());
      return SMRange(End, End);
    }
    size_t Start = Offsets.byteOf(T->getStartIndex());
    size_t Stop = Offsets.byteOf(T->getStopIndex() + 1);
    if (Stop < Start)
      Stop = Start;
    return SMRange(locAtByte(Start), locAtByte(Stop));
  }
  SMRange range(const antlr4::Token *First, const antlr4::Token *Last) const {
    SMRange A = range(First), B = range(Last);
    if (B.End.getPointer() < A.Start.getPointer())
      return A;
    return SMRange(A.Start, B.End);
  }
  SMRange range(antlr4::ParserRuleContext *Ctx) const {
    return range(Ctx->getStart(), Ctx->getStop() ? Ctx->getStop()
                                                 : Ctx->getStart());
  }
  StringRef text(SMRange R) const {
    return StringRef(R.Start.getPointer(),
                     R.End.getPointer() - R.Start.getPointer());
  }

private:
  const MemoryBuffer &Buf;
  OffsetMap Offsets;
};

//===----------------------------------------------------------------------===//
// Stage 1: bytes
//===----------------------------------------------------------------------===//

bool checkBytes(const MemoryBuffer &Buf, const SourceView &View,
                DiagnosticEngine &Diags) {
  StringRef Text = Buf.getBuffer();
  size_t Nul = Text.find('\0');
  if (Nul != StringRef::npos) {
    Diags.report<DiagID::err_file_binary>(View.locAtByte(Nul),
                 Buf.getBufferIdentifier(), Nul);
    return false;
  }
  const UTF8 *P = reinterpret_cast<const UTF8 *>(Text.data());
  const UTF8 *End = P + Text.size();
  while (P < End) {
    if (*P < 0x80) {
      ++P;
      continue;
    }
    unsigned Len = getNumBytesForUTF8(*P);
    if (P + Len > End || !isLegalUTF8Sequence(P, P + Len)) {
      Diags.report<DiagID::err_invalid_utf8>(View.locAtByte(reinterpret_cast<const char *>(P) -
                                  Text.data()),
                   static_cast<unsigned>(*P));
      return false;
    }
    P += Len;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Stage 2: tokens
//===----------------------------------------------------------------------===//

std::string describeChar(StringRef Bytes) {
  if (Bytes.size() == 1 && isPrint(Bytes[0]))
    return "'" + Bytes.str() + "'";
  UTF32 CP = 0;
  const UTF8 *Src = reinterpret_cast<const UTF8 *>(Bytes.data());
  UTF32 *Dst = &CP;
  if (ConvertUTF8toUTF32(&Src, Src + Bytes.size(), &Dst, Dst + 1,
                         strictConversion) != conversionOK)
    CP = static_cast<unsigned char>(Bytes[0]);
  std::string S;
  raw_string_ostream OS(S);
  OS << "U+" << format_hex_no_prefix(CP, 4, /*Upper=*/true);
  if (CP >= 0x80)
    OS << " '" << Bytes << "'";
  return OS.str();
}

bool stringIsTerminated(StringRef Text) {
  // Text starts with '"'; walk escapes to find an unescaped closing quote.
  for (size_t I = 1; I < Text.size(); ++I) {
    if (Text[I] == '\\') {
      ++I;
      continue;
    }
    if (Text[I] == '"')
      return I == Text.size() - 1;
  }
  return false;
}

char closerOf(size_t Type) {
  switch (Type) {
  case LLMSysLexer::LBRACE:
    return '}';
  case LLMSysLexer::LPAREN:
    return ')';
  default:
    return ']';
  }
}

bool checkTokens(antlr4::CommonTokenStream &Tokens, const SourceView &View,
                 const ParseLimits &Limits, DiagnosticEngine &Diags) {
  bool Ok = true;
  std::vector<antlr4::Token *> Open;
  unsigned PrefixRun = 0;
  for (antlr4::Token *T : Tokens.getTokens()) {
    size_t Type = T->getType();
    switch (Type) {
    case LLMSysLexer::BAD_CHAR: {
      SMRange R = View.range(T);
      Diags.report<DiagID::err_bad_char>(R, describeChar(View.text(R)));
      Ok = false;
      break;
    }
    case LLMSysLexer::STRING:
      if (!stringIsTerminated(View.text(View.range(T)))) {
        Diags.report<DiagID::err_unterminated_string>(View.range(T).Start);
        Ok = false;
      }
      break;
    case LLMSysLexer::BLOCK_COMMENT: {
      StringRef C = View.text(View.range(T));
      if (C.size() < 4 || !C.endswith("*/")) {
        Diags.report<DiagID::err_unterminated_comment>(View.range(T).Start);
        Ok = false;
      }
      break;
    }
    case LLMSysLexer::LBRACE:
    case LLMSysLexer::LPAREN:
    case LLMSysLexer::LBRACK:
      Open.push_back(T);
      if (Open.size() > Limits.MaxNesting) {
        Diags.report<DiagID::err_nesting_too_deep>(View.range(T),
                     Limits.MaxNesting);
        return false;
      }
      break;
    case LLMSysLexer::RBRACE:
    case LLMSysLexer::RPAREN:
    case LLMSysLexer::RBRACK: {
      std::string Found(1, T->getText()[0]);
      if (Open.empty()) {
        Diags.report<DiagID::err_unbalanced_close>(View.range(T), Found);
        return false;
      }
      char Want = closerOf(Open.back()->getType());
      if (Found[0] != Want) {
        Diags.report<DiagID::err_mismatched_close>(View.range(T),
                     std::string(1, Want), Found)
            .note<DiagID::note_opened_here>(View.range(Open.back()),
                  Open.back()->getText());
        return false;
      }
      Open.pop_back();
      break;
    }
    default:
      break;
    }
    if (T->getChannel() == antlr4::Token::DEFAULT_CHANNEL) {
      bool Prefix = Type == LLMSysLexer::MINUS || Type == LLMSysLexer::PLUS ||
                    Type == LLMSysLexer::NOT;
      PrefixRun = Prefix ? PrefixRun + 1 : 0;
      if (PrefixRun > Limits.MaxNesting) {
        Diags.report<DiagID::err_expr_too_deep>(View.range(T),
                     Limits.MaxNesting);
        return false;
      }
    }
  }
  if (!Open.empty() && Ok) {
    antlr4::Token *Last = Open.back();
    // Point just after the last token, not at an empty line after it.
    const antlr4::Token *LastTok = Tokens.getTokens().back();
    for (antlr4::Token *T : Tokens.getTokens())
      if (T->getChannel() == antlr4::Token::DEFAULT_CHANNEL &&
          T->getType() != antlr4::Token::EOF)
        LastTok = T;
    Diags.report<DiagID::err_unterminated_block>(View.range(LastTok).End,
                 std::string(1, closerOf(Last->getType())))
        .note<DiagID::note_opened_here>(View.range(Last), Last->getText());
    return false;
  }
  return Ok;
}

//===----------------------------------------------------------------------===//
// Stage 3: syntax errors
//===----------------------------------------------------------------------===//

std::string tokenName(const antlr4::dfa::Vocabulary &Vocab, size_t Type) {
  switch (Type) {
  case antlr4::Token::EOF:
    return "end of file";
  case LLMSysLexer::IDENT:
    return "a name";
  case LLMSysLexer::NUMBER:
  case LLMSysLexer::NUMWORD:
    return "a number";
  case LLMSysLexer::STRING:
    return "a string";
  default:
    return Vocab.getLiteralName(Type);
  }
}

class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  SyntaxErrorListener(const SourceView &View, DiagnosticEngine &Diags)
      : View(View), Diags(Diags) {}

  void syntaxError(antlr4::Recognizer *Rec, antlr4::Token *Offending,
                   size_t, size_t, const std::string &,
                   std::exception_ptr) override {
    ++Count;
    auto *P = dynamic_cast<antlr4::Parser *>(Rec);
    std::string Found = Offending && Offending->getType() != antlr4::Token::EOF
                            ? "'" + Offending->getText() + "'"
                            : std::string("end of file");
    std::string Msg;
    if (P) {
      antlr4::misc::IntervalSet Expected;
      try {
        Expected = P->getExpectedTokens();
      } catch (...) {
      }
      std::vector<std::string> Names;
      for (size_t Type : Expected.toList()) {
        std::string N = tokenName(P->getVocabulary(), Type);
        if (!N.empty() && std::find(Names.begin(), Names.end(), N) == Names.end())
          Names.push_back(N);
      }
      if (!Names.empty() && Names.size() <= 4) {
        Msg = "expected ";
        for (size_t I = 0; I < Names.size(); ++I) {
          if (I)
            Msg += I + 1 == Names.size() ? " or " : ", ";
          Msg += Names[I];
        }
        Msg += ", found " + Found;
      }
    }
    if (Msg.empty())
      Msg = "unexpected " + Found;
    Diags.report<DiagID::err_syntax>(View.range(Offending), Msg);
    if (Diags.reachedLimit())
      throw StopParsing();
  }

  unsigned Count = 0;

private:
  const SourceView &View;
  DiagnosticEngine &Diags;
};

//===----------------------------------------------------------------------===//
// Stage 4: the AST
//===----------------------------------------------------------------------===//

class Builder {
public:
  Builder(ast::ASTContext &Ctx, const SourceView &View, DiagnosticEngine &Diags,
          const ParseLimits &Limits)
      : Ctx(Ctx), View(View), Diags(Diags), Limits(Limits) {}

  bool failed() const { return Failed; }

  ast::File *file(LLMSysParser::FileContext *F, unsigned BufferID) {
    for (auto *Top : F->topDecl())
      topDecl(Top);
    return finish(BufferID);
  }

  /// One declaration of a file, kept until finish().
  void topDecl(LLMSysParser::TopDeclContext *Top) {
    if (auto *I = Top->importDecl()) {
      SMRange R = View.range(I);
      if (SeenDecl) {
        Diags.report<DiagID::err_import_after_decl>(R);
        Failed = true;
        return;
      }
      ast::Import Imp;
      Imp.Range = R;
      if (auto *S = I->STRING()) {
        Imp.IsStd = false;
        Imp.Spec = unescape(S->getSymbol());
      } else {
        ast::DottedName N = dotted(I->dottedName());
        if (N.Parts.size() < 2 || N.Parts[0].Name != "std") {
          Diags.report<DiagID::err_import_form>(N.range(), N.str());
          Failed = true;
          return;
        }
        Imp.IsStd = true;
        Imp.Spec = View.text(SMRange(N.Parts[1].Range.Start, N.range().End));
      }
      Imports.push_back(Imp);
    } else if (auto *E = Top->entityDecl()) {
      SeenDecl = true;
      Entities.push_back(entity(E));
    } else if (auto *X = Top->expectDecl()) {
      SeenDecl = true;
      auto *D = Ctx.create<ast::ExpectDecl>();
      D->Range = View.range(X);
      D->Condition = expr(X->expr(), 0);
      Expects.push_back(D);
    }
  }

  /// The file of the declarations seen.
  ast::File *finish(unsigned BufferID) {
    auto *Out = Ctx.create<ast::File>();
    Out->BufferID = BufferID;
    Out->Imports = Ctx.copy(ArrayRef<ast::Import>(Imports));
    Out->Entities = Ctx.copy(ArrayRef<ast::EntityDecl *>(Entities));
    Out->Expects = Ctx.copy(ArrayRef<ast::ExpectDecl *>(Expects));
    return Out;
  }

  ast::Expr *exprOnly(LLMSysParser::ExprOnlyContext *E) {
    return expr(E->expr(), 0);
  }

private:
  ast::Ident ident(antlr4::tree::TerminalNode *N) {
    SMRange R = View.range(N->getSymbol());
    return ast::Ident{View.text(R), R};
  }

  ast::DottedName dotted(LLMSysParser::DottedNameContext *D) {
    std::vector<ast::Ident> Parts;
    for (auto *I : D->IDENT())
      Parts.push_back(ident(I));
    return ast::DottedName{Ctx.copy(ArrayRef<ast::Ident>(Parts))};
  }

  const ast::DottedName *dottedPtr(LLMSysParser::DottedNameContext *D) {
    if (!D)
      return nullptr;
    return Ctx.create<ast::DottedName>(dotted(D));
  }

  ast::EntityDecl *entity(LLMSysParser::EntityDeclContext *E) {
    auto *D = Ctx.create<ast::EntityDecl>();
    D->Range = View.range(E);
    SMRange KR = View.range(E->kind);
    D->KindWord = ast::Ident{View.text(KR), KR};
    SMRange NR = View.range(E->name);
    D->Name = ast::Ident{View.text(NR), NR};
    D->Parent = dottedPtr(E->parent);
    D->Over = dottedPtr(E->target);
    if (E->init)
      D->Init = expr(E->init, 0);
    if (auto *B = E->block())
      D->Body = block(B);
    return D;
  }

  ast::Block *block(LLMSysParser::BlockContext *B) {
    std::vector<ast::Member *> Members;
    for (auto *M : B->member())
      if (ast::Member *Built = member(M))
        Members.push_back(Built);
    auto *Out = Ctx.create<ast::Block>();
    Out->Range = View.range(B);
    Out->Members = Ctx.copy(ArrayRef<ast::Member *>(Members));
    return Out;
  }

  static ast::BinaryOp compareOp(size_t Type) {
    switch (Type) {
    case LLMSysLexer::LT:
      return ast::BinaryOp::Lt;
    case LLMSysLexer::LE:
      return ast::BinaryOp::Le;
    case LLMSysLexer::GT:
      return ast::BinaryOp::Gt;
    case LLMSysLexer::GE:
      return ast::BinaryOp::Ge;
    case LLMSysLexer::EQ:
      return ast::BinaryOp::Eq;
    default:
      return ast::BinaryOp::Ne;
    }
  }

  ast::Member *member(LLMSysParser::MemberContext *M) {
    SMRange R = View.range(M);
    if (auto *A = dynamic_cast<LLMSysParser::AssignMemberContext *>(M)) {
      auto *V = A->value();
      ast::Expr *Value = V->expr() ? expr(V->expr(), 0) : nullptr;
      ast::Block *Refine = V->block() ? block(V->block()) : nullptr;
      return Ctx.create<ast::AssignMember>(R, dotted(A->dottedName()), Value,
                                           Refine);
    }
    if (auto *B = dynamic_cast<LLMSysParser::BlockMemberContext *>(M))
      return Ctx.create<ast::BlockMember>(R, dotted(B->path),
                                          dottedPtr(B->parent),
                                          block(B->block()));
    if (auto *B = dynamic_cast<LLMSysParser::BoundMemberContext *>(M))
      return Ctx.create<ast::BoundMember>(R, dotted(B->dottedName()),
                                          compareOp(B->op->getType()),
                                          expr(B->expr(), 0));
    if (auto *A = dynamic_cast<LLMSysParser::AxisMemberContext *>(M))
      return Ctx.create<ast::AxisMember>(R, dotted(A->dottedName()),
                                         expr(A->expr(), 0));
    if (auto *W = dynamic_cast<LLMSysParser::WhereMemberContext *>(M))
      return Ctx.create<ast::WhereMember>(R, expr(W->expr(), 0));
    if (auto *O = dynamic_cast<LLMSysParser::ObjectiveMemberContext *>(M))
      return Ctx.create<ast::ObjectiveMember>(
          R, O->dir->getType() == LLMSysLexer::MAXIMIZE, expr(O->expr(), 0));
    if (auto *P = dynamic_cast<LLMSysParser::ParetoMemberContext *>(M)) {
      std::vector<ast::Expr *> Figures;
      for (auto *E : P->expr())
        Figures.push_back(expr(E, 0));
      return Ctx.create<ast::ParetoMember>(
          R, Ctx.copy(ArrayRef<ast::Expr *>(Figures)));
    }
    if (auto *K = dynamic_cast<LLMSysParser::KeepMemberContext *>(M))
      return Ctx.create<ast::KeepMember>(R, expr(K->expr(), 0));
    return nullptr; // ';'
  }

  ast::Expr *tooDeep(SMRange R) {
    if (!Failed)
      Diags.report<DiagID::err_expr_too_deep>(R, Limits.MaxExprDepth);
    Failed = true;
    return Ctx.create<ast::BoolExpr>(R, false);
  }

  ast::Expr *expr(LLMSysParser::ExprContext *E, unsigned Depth) {
    SMRange R = View.range(E);
    if (Depth > Limits.MaxExprDepth)
      return tooDeep(R);
    ++Depth;
    if (auto *P = dynamic_cast<LLMSysParser::PrimaryExprContext *>(E))
      return primary(P->primary(), Depth);
    if (auto *P = dynamic_cast<LLMSysParser::ParenExprContext *>(E))
      return expr(P->expr(), Depth);
    if (auto *U = dynamic_cast<LLMSysParser::UnaryExprContext *>(E))
      return Ctx.create<ast::UnaryExpr>(
          R, U->op->getType() == LLMSysLexer::MINUS ? ast::UnaryOp::Neg
                                                    : ast::UnaryOp::Plus,
          View.range(U->op).Start, expr(U->expr(), Depth));
    if (auto *N = dynamic_cast<LLMSysParser::NotExprContext *>(E))
      return Ctx.create<ast::UnaryExpr>(R, ast::UnaryOp::Not,
                                        View.range(N->NOT()->getSymbol()).Start,
                                        expr(N->expr(), Depth));
    if (auto *M = dynamic_cast<LLMSysParser::MulExprContext *>(E))
      return binary(R, M->op->getType() == LLMSysLexer::STAR
                           ? ast::BinaryOp::Mul
                           : ast::BinaryOp::Div,
                    View.range(M->op), M->expr(0), M->expr(1), Depth);
    if (auto *A = dynamic_cast<LLMSysParser::AddExprContext *>(E))
      return binary(R, A->op->getType() == LLMSysLexer::PLUS
                           ? ast::BinaryOp::Add
                           : ast::BinaryOp::Sub,
                    View.range(A->op), A->expr(0), A->expr(1), Depth);
    if (auto *S = dynamic_cast<LLMSysParser::SteppedRangeExprContext *>(E))
      return Ctx.create<ast::RangeExpr>(R, expr(S->expr(0), Depth),
                                        expr(S->expr(1), Depth),
                                        expr(S->expr(2), Depth),
                                        S->mul != nullptr);
    if (auto *G = dynamic_cast<LLMSysParser::RangeExprContext *>(E))
      return Ctx.create<ast::RangeExpr>(R, expr(G->expr(0), Depth),
                                        expr(G->expr(1), Depth), nullptr,
                                        false);
    if (auto *C = dynamic_cast<LLMSysParser::CompareExprContext *>(E))
      return binary(R, compareOp(C->op->getType()), View.range(C->op),
                    C->expr(0), C->expr(1), Depth);
    if (auto *I = dynamic_cast<LLMSysParser::InExprContext *>(E))
      return binary(R, ast::BinaryOp::In, View.range(I->IN()->getSymbol()),
                    I->expr(0), I->expr(1), Depth);
    if (auto *A = dynamic_cast<LLMSysParser::AndExprContext *>(E))
      return binary(R, ast::BinaryOp::And, View.range(A->AND()->getSymbol()),
                    A->expr(0), A->expr(1), Depth);
    auto *O = dynamic_cast<LLMSysParser::OrExprContext *>(E);
    assert(O && "unhandled expression alternative");
    return binary(R, ast::BinaryOp::Or, View.range(O->OR()->getSymbol()),
                  O->expr(0), O->expr(1), Depth);
  }

  ast::Expr *binary(SMRange R, ast::BinaryOp Op, SMRange OpRange,
                    LLMSysParser::ExprContext *L, LLMSysParser::ExprContext *Rt,
                    unsigned Depth) {
    ast::Expr *LHS = expr(L, Depth);
    ast::Expr *RHS = expr(Rt, Depth);
    return Ctx.create<ast::BinaryExpr>(R, Op, OpRange, LHS, RHS);
  }

  /// The text of a unit made of glued tokens, from First to Last.
  SMRange unitRange(antlr4::ParserRuleContext *Ctx) { return View.range(Ctx); }

  ast::Expr *primary(LLMSysParser::PrimaryContext *P, unsigned Depth) {
    SMRange R = View.range(P);
    if (auto *N = dynamic_cast<LLMSysParser::NumberPrimaryContext *>(P)) {
      SMRange NumR = View.range(N->NUMBER()->getSymbol());
      StringRef Unit;
      SMRange UR;
      if (auto *U = N->unit()) {
        UR = View.range(U);
        Unit = View.text(UR);
      }
      return Ctx.create<ast::NumberExpr>(R, View.text(NumR), Unit, UR, false);
    }
    if (auto *N = dynamic_cast<LLMSysParser::NumWordPrimaryContext *>(P)) {
      SMRange WR = View.range(N->NUMWORD()->getSymbol());
      StringRef Word = View.text(WR);
      size_t NumLen = numericPrefixLength(Word);
      SMRange UR(SMLoc::getFromPointer(Word.data() + NumLen), R.End);
      return Ctx.create<ast::NumberExpr>(R, Word.take_front(NumLen),
                                         View.text(UR), UR, true);
    }
    if (auto *S = dynamic_cast<LLMSysParser::StringPrimaryContext *>(P))
      return Ctx.create<ast::StringExpr>(R, unescape(S->STRING()->getSymbol()));
    if (auto *B = dynamic_cast<LLMSysParser::BoolPrimaryContext *>(P))
      return Ctx.create<ast::BoolExpr>(R, B->TRUE() != nullptr);
    if (auto *C = dynamic_cast<LLMSysParser::CallPrimaryContext *>(P)) {
      std::vector<ast::Expr *> Args;
      for (auto *E : C->expr())
        Args.push_back(expr(E, Depth));
      return Ctx.create<ast::CallExpr>(R, ident(C->IDENT()),
                                       Ctx.copy(ArrayRef<ast::Expr *>(Args)));
    }
    if (auto *N = dynamic_cast<LLMSysParser::NamePrimaryContext *>(P))
      return Ctx.create<ast::NameExpr>(R, dotted(N->dottedName()));
    auto *L = dynamic_cast<LLMSysParser::ListPrimaryContext *>(P);
    assert(L && "unhandled primary alternative");
    std::vector<ast::Expr *> Elements;
    for (auto *E : L->expr())
      Elements.push_back(expr(E, Depth));
    return Ctx.create<ast::ListExpr>(R,
                                     Ctx.copy(ArrayRef<ast::Expr *>(Elements)));
  }

  /// "80GiB" -> 2, "1e9tokens" -> 3, "2.5e-3ms" -> 6, "1f1b" -> 1.
  static size_t numericPrefixLength(StringRef W) {
    size_t I = 0;
    while (I < W.size() && isDigit(W[I]))
      ++I;
    if (I + 1 < W.size() && W[I] == '.' && isDigit(W[I + 1])) {
      ++I;
      while (I < W.size() && isDigit(W[I]))
        ++I;
    }
    if (I < W.size() && (W[I] == 'e' || W[I] == 'E')) {
      size_t J = I + 1;
      if (J < W.size() && (W[J] == '+' || W[J] == '-'))
        ++J;
      if (J < W.size() && isDigit(W[J])) {
        while (J < W.size() && isDigit(W[J]))
          ++J;
        I = J;
      }
    }
    return I;
  }

  StringRef unescape(antlr4::Token *T) {
    SMRange R = View.range(T);
    StringRef Raw = View.text(R);
    Raw = Raw.drop_front(); // opening quote
    if (Raw.endswith("\""))
      Raw = Raw.drop_back();
    if (Raw.find('\\') == StringRef::npos)
      return Raw;
    std::string Out;
    for (size_t I = 0; I < Raw.size(); ++I) {
      if (Raw[I] != '\\' || I + 1 == Raw.size()) {
        Out += Raw[I];
        continue;
      }
      char C = Raw[++I];
      switch (C) {
      case 'n':
        Out += '\n';
        break;
      case 't':
        Out += '\t';
        break;
      case '\\':
      case '"':
        Out += C;
        break;
      default:
        Diags.report<DiagID::err_bad_escape>(SMLoc::getFromPointer(Raw.data() + I - 1),
                     std::string(1, C));
        Failed = true;
      }
    }
    return Ctx.save(Out);
  }

  ast::ASTContext &Ctx;
  const SourceView &View;
  DiagnosticEngine &Diags;
  const ParseLimits &Limits;
  bool Failed = false;
  // The file's declarations so far (topDecl).
  std::vector<ast::Import> Imports;
  std::vector<ast::EntityDecl *> Entities;
  std::vector<ast::ExpectDecl *> Expects;
  bool SeenDecl = false;
};

/// Runs the stages on one buffer; Entry picks the start rule and builds.
template <typename EntryFn>
auto runParser(unsigned BufferID, SourceMgr &SM, DiagnosticEngine &Diags,
               const ParseLimits &Limits, EntryFn Entry)
    -> decltype(Entry(std::declval<LLMSysParser &>(),
                      std::declval<const SourceView &>(), false)) {
  const MemoryBuffer &Buf = *SM.getMemoryBuffer(BufferID);
  SourceView View(Buf);
  if (!checkBytes(Buf, View, Diags))
    return nullptr;
  try {
    SourceStream Input(Buf.getBuffer());
    CompactLexer Lexer(&Input);
    Lexer.removeErrorListeners();
    antlr4::CommonTokenStream Tokens(&Lexer);
    Tokens.fill();
    if (!checkTokens(Tokens, View, Limits, Diags))
      return nullptr;

    LLMSysParser Parser(&Tokens);
    Parser.removeErrorListeners();
    // Two-stage parsing: the fast SLL mode with bail-out first, then full LL
    // with error recovery and our listener only if SLL fails.
    Parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    Parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    // The fast pass may stream: build each declaration and free its parse
    // tree. If it fails, what it reported is forgotten and the slow pass
    // parses the whole file again.
    DiagnosticEngine::Checkpoint Before = Diags.checkpoint();
    try {
      return Entry(Parser, View, /*Streaming=*/true);
    } catch (antlr4::ParseCancellationException &) {
    }
    Diags.rollback(Before);
    Parser.getTreeTracker().reset();
    Tokens.seek(0);
    Parser.reset();
    SyntaxErrorListener Listener(View, Diags);
    Parser.addErrorListener(&Listener);
    Parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    Parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    auto Result = Entry(Parser, View, /*Streaming=*/false);
    if (Listener.Count)
      return nullptr;
    return Result;
  } catch (StopParsing &) {
    return nullptr;
  } catch (std::exception &E) {
    Diags.report<DiagID::err_parser_internal>(SMLoc::getFromPointer(Buf.getBufferStart()), E.what());
    return nullptr;
  } catch (...) {
    Diags.report<DiagID::err_parser_internal>(SMLoc::getFromPointer(Buf.getBufferStart()),
                 "unknown exception");
    return nullptr;
  }
}

} // namespace

ast::File *parseFile(unsigned BufferID, SourceMgr &SM, ast::ASTContext &Ctx,
                     DiagnosticEngine &Diags, const ParseLimits &Limits) {
  return runParser(
      BufferID, SM, Diags, Limits,
      [&](LLMSysParser &P, const SourceView &View,
          bool Streaming) -> ast::File * {
        Builder B(Ctx, View, Diags, Limits);
        if (Streaming) {
          // One declaration at a time (file : topDecl* EOF), its parse tree
          // freed once built: a file's parse trees are never all held.
          while (P.getTokenStream()->LA(1) != antlr4::Token::EOF) {
            B.topDecl(P.topDecl());
            P.getTreeTracker().reset();
          }
          ast::File *F = B.finish(BufferID);
          return B.failed() ? nullptr : F;
        }
        LLMSysParser::FileContext *Tree = P.file();
        if (P.getNumberOfSyntaxErrors())
          return nullptr;
        ast::File *F = B.file(Tree, BufferID);
        return B.failed() ? nullptr : F;
      });
}

ast::Expr *parseExpression(unsigned BufferID, SourceMgr &SM,
                           ast::ASTContext &Ctx, DiagnosticEngine &Diags) {
  ParseLimits Limits;
  return runParser(BufferID, SM, Diags, Limits,
                   [&](LLMSysParser &P, const SourceView &View,
                       bool /*Streaming*/) -> ast::Expr * {
                     LLMSysParser::ExprOnlyContext *Tree = P.exprOnly();
                     if (P.getNumberOfSyntaxErrors())
                       return nullptr;
                     Builder B(Ctx, View, Diags, Limits);
                     ast::Expr *E = B.exprOnly(Tree);
                     return B.failed() ? nullptr : E;
                   });
}

} // namespace llmsys
