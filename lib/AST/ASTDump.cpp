//===- ASTDump.cpp - printing the syntax tree -----------------------------===//

#include "AST/AST.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace llmsys {
namespace ast {

std::string DottedName::str() const {
  std::string S;
  for (const Ident &I : Parts) {
    if (!S.empty())
      S += '.';
    S += I.Name.str();
  }
  return S;
}

StringRef spelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Plus: return "+";
  case UnaryOp::Not: return "not";
  }
  llvm_unreachable("unknown unary operator");
}

StringRef spelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::In: return "in";
  case BinaryOp::And: return "and";
  case BinaryOp::Or: return "or";
  }
  llvm_unreachable("unknown binary operator");
}

namespace {
class Dumper {
public:
  Dumper(const SourceMgr &SM, raw_ostream &OS) : SM(SM), OS(OS) {}

  void file(const File &F) {
    OS << "file '" << SM.getMemoryBuffer(F.BufferID)->getBufferIdentifier()
       << "'\n";
    Indent = 1;
    for (const Import &I : F.Imports) {
      line() << "import " << (I.IsStd ? "std." : "\"") << I.Spec
             << (I.IsStd ? "" : "\"") << ' ' << loc(I.Range.Start) << '\n';
    }
    // Entities and expectations in source order.
    size_t E = 0, X = 0;
    while (E < F.Entities.size() || X < F.Expects.size()) {
      bool TakeEntity =
          X == F.Expects.size() ||
          (E < F.Entities.size() &&
           F.Entities[E]->Range.Start.getPointer() <
               F.Expects[X]->Range.Start.getPointer());
      if (TakeEntity)
        entity(*F.Entities[E++]);
      else
        expect(*F.Expects[X++]);
    }
  }

private:
  raw_ostream &line() {
    OS.indent(Indent * 2);
    return OS;
  }
  std::string loc(SMLoc L) {
    if (!L.isValid())
      return "<>";
    auto LC = SM.getLineAndColumn(L);
    return "<" + std::to_string(LC.first) + ":" + std::to_string(LC.second) +
           ">";
  }

  void entity(const EntityDecl &D) {
    line() << D.KindWord.Name << " '" << D.Name.Name << "' "
           << loc(D.Range.Start);
    if (D.Parent)
      OS << " extends " << D.Parent->str();
    if (D.Over)
      OS << " over " << D.Over->str();
    OS << '\n';
    if (D.Init) {
      ++Indent;
      line() << "init\n";
      ++Indent;
      expr(*D.Init);
      Indent -= 2;
    }
    if (D.Body)
      block(*D.Body);
  }

  void expect(const ExpectDecl &D) {
    line() << "expect " << loc(D.Range.Start) << '\n';
    ++Indent;
    expr(*D.Condition);
    --Indent;
  }

  void block(const Block &B) {
    ++Indent;
    for (const Member *M : B.Members)
      member(*M);
    --Indent;
  }

  void member(const Member &M) {
    switch (M.getKind()) {
    case Member::Kind::Assign: {
      const auto &A = cast<AssignMember>(M);
      line() << "assign " << A.Path.str() << ' ' << loc(M.getRange().Start)
             << '\n';
      ++Indent;
      if (A.Value)
        expr(*A.Value);
      if (A.Refine) {
        line() << "refine\n";
        block(*A.Refine);
      }
      --Indent;
      return;
    }
    case Member::Kind::Block: {
      const auto &B = cast<BlockMember>(M);
      line() << "block " << B.Path.str() << ' ' << loc(M.getRange().Start);
      if (B.Parent)
        OS << " extends " << B.Parent->str();
      OS << '\n';
      block(*B.Body);
      return;
    }
    case Member::Kind::Bound: {
      const auto &B = cast<BoundMember>(M);
      line() << "bound " << B.Path.str() << ' ' << spelling(B.Op) << ' '
             << loc(M.getRange().Start) << '\n';
      ++Indent;
      expr(*B.Value);
      --Indent;
      return;
    }
    case Member::Kind::Axis: {
      const auto &A = cast<AxisMember>(M);
      line() << "axis " << A.Path.str() << ' ' << loc(M.getRange().Start)
             << '\n';
      ++Indent;
      expr(*A.Values);
      --Indent;
      return;
    }
    case Member::Kind::Where:
      line() << "where " << loc(M.getRange().Start) << '\n';
      ++Indent;
      expr(*cast<WhereMember>(M).Cond);
      --Indent;
      return;
    case Member::Kind::Objective: {
      const auto &O = cast<ObjectiveMember>(M);
      line() << (O.Maximize ? "maximize " : "minimize ")
             << loc(M.getRange().Start) << '\n';
      ++Indent;
      expr(*O.Figure);
      --Indent;
      return;
    }
    case Member::Kind::Pareto:
      line() << "pareto " << loc(M.getRange().Start) << '\n';
      ++Indent;
      for (const Expr *E : cast<ParetoMember>(M).Figures)
        expr(*E);
      --Indent;
      return;
    case Member::Kind::Keep:
      line() << "keep " << loc(M.getRange().Start) << '\n';
      ++Indent;
      expr(*cast<KeepMember>(M).Count);
      --Indent;
      return;
    }
  }

  void expr(const Expr &E) {
    switch (E.getKind()) {
    case Expr::Kind::Number: {
      const auto &N = cast<NumberExpr>(E);
      line() << "number " << N.Spelling;
      if (!N.Unit.empty())
        OS << " unit '" << N.Unit << "'";
      if (N.GluedWord)
        OS << " glued";
      OS << ' ' << loc(E.getLoc()) << '\n';
      return;
    }
    case Expr::Kind::String:
      line() << "string \"";
      OS.write_escaped(cast<StringExpr>(E).Value);
      OS << "\" " << loc(E.getLoc()) << '\n';
      return;
    case Expr::Kind::Bool:
      line() << "bool " << (cast<BoolExpr>(E).Value ? "true" : "false") << ' '
             << loc(E.getLoc()) << '\n';
      return;
    case Expr::Kind::Name:
      line() << "name " << cast<NameExpr>(E).Name.str() << ' '
             << loc(E.getLoc()) << '\n';
      return;
    case Expr::Kind::Call: {
      const auto &C = cast<CallExpr>(E);
      line() << "call " << C.Callee.Name << ' ' << loc(E.getLoc()) << '\n';
      ++Indent;
      for (const Expr *A : C.Args)
        expr(*A);
      --Indent;
      return;
    }
    case Expr::Kind::List:
      line() << "list " << loc(E.getLoc()) << '\n';
      ++Indent;
      for (const Expr *A : cast<ListExpr>(E).Elements)
        expr(*A);
      --Indent;
      return;
    case Expr::Kind::Unary: {
      const auto &U = cast<UnaryExpr>(E);
      line() << "unary " << spelling(U.Op) << ' ' << loc(E.getLoc()) << '\n';
      ++Indent;
      expr(*U.Operand);
      --Indent;
      return;
    }
    case Expr::Kind::Binary: {
      const auto &B = cast<BinaryExpr>(E);
      line() << "binary " << spelling(B.Op) << ' ' << loc(E.getLoc()) << '\n';
      ++Indent;
      expr(*B.LHS);
      expr(*B.RHS);
      --Indent;
      return;
    }
    case Expr::Kind::Range: {
      const auto &R = cast<RangeExpr>(E);
      line() << "range" << (R.Step ? (R.Geometric ? " step *" : " step") : "")
             << ' ' << loc(E.getLoc()) << '\n';
      ++Indent;
      expr(*R.Lo);
      expr(*R.Hi);
      if (R.Step)
        expr(*R.Step);
      --Indent;
      return;
    }
    }
  }

  const SourceMgr &SM;
  raw_ostream &OS;
  unsigned Indent = 0;
};
} // namespace

void dumpAST(const File &F, const SourceMgr &SM, raw_ostream &OS) {
  Dumper(SM, OS).file(F);
}

} // namespace ast
} // namespace llmsys
