//===- SweepConditions.cpp - a sweep's `where`, lowered and typed ---------===//
//
// A `where` condition names figures of the swept scenario (known once a
// point is costed) and fields of the scenario (known before). It is lowered
// to a spec::Condition: parts without names are evaluated here, names become
// Figure or Field nodes, and every operator is checked against the types of
// its operands (dimensions of quantities, booleans, words of enumerations),
// so that a point only computes.
//
//===----------------------------------------------------------------------===//

#include "Sema/SemaImpl.h"

#include "Basic/Suggest.h"

using namespace llvm;

namespace llmsys {
namespace sema {

namespace {

using Cond = spec::Condition;

/// The type of a lowered sub-condition.
struct CondType {
  enum Kind { Number, Bool, Word } K = Number;
  Dimension Dim;
  const EnumSpec *Enum = nullptr; ///< Word: the field's enumeration
  std::string Field;              ///< Word: the field's path
  std::string describe() const {
    switch (K) {
    case Number:
      return Dim.describe();
    case Bool:
      return "true or false";
    case Word:
      return "a word";
    }
    return "";
  }
};

class Lowering {
public:
  Lowering(Resolver &R, const StructSpec &Scenario, StringRef ScenarioName,
           Cond &Out)
      : R(R), Scenario(Scenario), ScenarioName(ScenarioName), Out(Out) {}

  /// Lowers E; returns its node, or -1 after a diagnostic.
  int lower(const ast::Expr &E, CondType &T);

private:
  int add(Cond::Node N) {
    Out.Nodes.push_back(std::move(N));
    return static_cast<int>(Out.Nodes.size()) - 1;
  }
  int binary(Cond::Op Op, int L, int Rt) {
    Cond::Node N;
    N.Kind = Op;
    N.L = L;
    N.R = Rt;
    return add(std::move(N));
  }
  /// Whether E names a figure or a field of the scenario; with Unknown,
  /// also a name that is neither (and not an entity), to be diagnosed as
  /// an unknown figure.
  bool mentionsNames(const ast::Expr &E, bool Unknown = false) const;
  int constant(const ast::Expr &E, CondType &T);
  int name(const ast::NameExpr &E, CondType &T);
  int lowerBinary(const ast::BinaryExpr &E, CondType &T);
  int lowerIn(const ast::BinaryExpr &E, CondType &T);
  std::optional<std::string> bareWord(const ast::Expr &E) const;

  Resolver &R;
  const StructSpec &Scenario;
  StringRef ScenarioName;
  Cond &Out;
};

} // namespace

bool Lowering::mentionsNames(const ast::Expr &E, bool Unknown) const {
  switch (E.getKind()) {
  case ast::Expr::Kind::Name: {
    StringRef First = cast<ast::NameExpr>(E).Name.Parts[0].Name;
    return Scenario.findFigure(First) || Scenario.findField(First) >= 0 ||
           (Unknown && !R.isEntity(First));
  }
  case ast::Expr::Kind::Unary:
    return mentionsNames(*cast<ast::UnaryExpr>(E).Operand, Unknown);
  case ast::Expr::Kind::Binary:
    return mentionsNames(*cast<ast::BinaryExpr>(E).LHS, Unknown) ||
           mentionsNames(*cast<ast::BinaryExpr>(E).RHS, Unknown);
  case ast::Expr::Kind::Call:
    for (const ast::Expr *A : cast<ast::CallExpr>(E).Args)
      if (mentionsNames(*A, Unknown))
        return true;
    return false;
  case ast::Expr::Kind::List:
    for (const ast::Expr *A : cast<ast::ListExpr>(E).Elements)
      if (mentionsNames(*A, Unknown))
        return true;
    return false;
  default:
    return false;
  }
}

int Lowering::constant(const ast::Expr &E, CondType &T) {
  std::optional<Value> V = R.eval(E, nullptr, nullptr);
  if (!V)
    return -1;
  Cond::Node N;
  N.C = *V;
  switch (V->Kind) {
  case spec::ValueKind::Number:
    T.K = CondType::Number;
    T.Dim = V->Dim;
    break;
  case spec::ValueKind::Bool:
    T.K = CondType::Bool;
    break;
  case spec::ValueKind::Enum:
    T.K = CondType::Word;
    break;
  default:
    R.Diags.report<DiagID::err_operand_type>(E.getRange(), "where",
                   "a number, true or false, or a word", V->describe());
    return -1;
  }
  return add(std::move(N));
}

int Lowering::name(const ast::NameExpr &E, CondType &T) {
  const ast::DottedName &DN = E.Name;
  const ast::Ident &First = DN.Parts[0];
  if (const FigureSpec *F = Scenario.findFigure(First.Name)) {
    if (DN.Parts.size() == 1) {
      Cond::Node N;
      N.Kind = Cond::Op::Figure;
      N.Name = F->Name;
      N.BoolFigure = F->Type.Kind == TypeKind::Bool;
      N.Figure = F->id();
      Out.NeedsFigures = true;
      if (N.BoolFigure)
        T.K = CondType::Bool;
      else {
        T.K = CondType::Number;
        T.Dim = F->Type.Dim;
      }
      return add(std::move(N));
    }
  }
  const StructSpec *St = &Scenario;
  const FieldSpec *FS = nullptr;
  std::vector<unsigned> FieldPath;
  for (size_t I = 0; I < DN.Parts.size(); ++I) {
    const ast::Ident &Part = DN.Parts[I];
    int Idx = St ? St->findField(Part.Name) : -1;
    if (Idx < 0) {
      if (I == 0) {
        std::vector<std::string> Names;
        for (const FigureSpec &F : Scenario.Figures)
          Names.push_back(F.Name);
        for (const FieldSpec &F : Scenario.Fields)
          Names.push_back(F.Name);
        R.Diags.report<DiagID::err_unknown_figure>(Part.Range,
                       Scenario.Name + " '" + ScenarioName.str() + "'",
                       Part.Name, didYouMean(Part.Name, Names));
      } else if (!St) {
        R.Diags.report<DiagID::err_not_a_block_field>(DN.Parts[I - 1].Range,
                       DN.Parts[I - 1].Name, FS->Type.describe());
      } else {
        R.Diags.report<DiagID::err_unknown_field>(Part.Range, "a " + St->Name,
                       Part.Name, didYouMean(Part.Name, St->fieldNames()));
      }
      return -1;
    }
    FS = &St->Fields[Idx];
    FieldPath.push_back(static_cast<unsigned>(Idx));
    St = (FS->Type.Kind == TypeKind::Ref || FS->Type.Kind == TypeKind::Struct)
             ? FS->Type.Struct
             : nullptr;
  }
  switch (FS->Type.Kind) {
  case TypeKind::Quantity:
    T.K = CondType::Number;
    T.Dim = FS->Type.Dim;
    break;
  case TypeKind::Number:
  case TypeKind::Integer:
    T.K = CondType::Number;
    T.Dim = Dimension();
    break;
  case TypeKind::Bool:
    T.K = CondType::Bool;
    break;
  case TypeKind::Enum:
    T.K = CondType::Word;
    T.Enum = FS->Type.Enum;
    T.Field = DN.str();
    break;
  default:
    R.Diags.report<DiagID::err_operand_type>(E.getRange(), "where",
                   "a number, true or false, or a word", FS->Type.describe());
    return -1;
  }
  Cond::Node N;
  N.Kind = Cond::Op::Field;
  N.Name = DN.str();
  N.FieldPath = std::move(FieldPath);
  return add(std::move(N));
}

/// `recompute == none`: a single name that is neither a figure nor a field.
std::optional<std::string> Lowering::bareWord(const ast::Expr &E) const {
  const auto *N = dyn_cast<ast::NameExpr>(&E);
  if (!N || N->Name.Parts.size() != 1)
    return std::nullopt;
  StringRef W = N->Name.Parts[0].Name;
  if (Scenario.findFigure(W) || Scenario.findField(W) >= 0 || R.isEntity(W))
    return std::nullopt;
  return W.str();
}

int Lowering::lowerIn(const ast::BinaryExpr &E, CondType &T) {
  CondType LT;
  int L = lower(*E.LHS, LT);
  if (L < 0)
    return -1;
  if (mentionsNames(*E.RHS)) {
    R.Diags.report<DiagID::err_operand_type>(E.RHS->getRange(), "in",
                   "a list or a range of values", "a figure or a field");
    return -1;
  }
  auto Compare = [&](Cond::Op Op, const Value &V, SMRange At) -> int {
    bool Ok = (LT.K == CondType::Number && V.Kind == spec::ValueKind::Number &&
               V.Dim == LT.Dim) ||
              (LT.K == CondType::Bool && V.Kind == spec::ValueKind::Bool) ||
              (LT.K == CondType::Word && V.Kind == spec::ValueKind::Enum);
    if (!Ok) {
      R.Diags.report<DiagID::err_dimension_compare>(At, LT.describe(),
                     V.describe());
      return -1;
    }
    Cond::Node C;
    C.C = V;
    return binary(Op, L, add(std::move(C)));
  };
  T.K = CondType::Bool;
  if (const auto *Rg = dyn_cast<ast::RangeExpr>(E.RHS); Rg && !Rg->Step) {
    std::optional<Value> Lo = R.eval(*Rg->Lo, nullptr, nullptr);
    std::optional<Value> Hi = R.eval(*Rg->Hi, nullptr, nullptr);
    if (!Lo || !Hi)
      return -1;
    int A = Compare(Cond::Op::Ge, *Lo, Rg->Lo->getRange());
    int B = A < 0 ? -1 : Compare(Cond::Op::Le, *Hi, Rg->Hi->getRange());
    return B < 0 ? -1 : binary(Cond::Op::And, A, B);
  }
  std::optional<Value> List;
  const auto *Elems = dyn_cast<ast::ListExpr>(E.RHS);
  if (LT.K == CondType::Word && Elems) {
    // `recompute in [none, full]`: bare words are words of the enum.
    List = Value();
    List->Kind = spec::ValueKind::List;
    for (const ast::Expr *X : Elems->Elements) {
      std::optional<std::string> W = bareWord(*X);
      if (W && LT.Enum && !LT.Enum->contains(*W)) {
        R.Diags.report<DiagID::err_unknown_enum>(X->getRange(), *W,
                       LT.Enum->Name, LT.Field,
                       didYouMean(*W, LT.Enum->Words));
        return -1;
      }
      std::optional<Value> V =
          W ? std::optional<Value>(Value::enumWord(*W)) : R.eval(*X, nullptr, nullptr);
      if (!V)
        return -1;
      List->elemsToChange().push_back(*V);
    }
  } else {
    List = R.eval(*E.RHS, nullptr, nullptr);
  }
  if (!List)
    return -1;
  if (List->Kind != spec::ValueKind::List || List->elems().empty()) {
    R.Diags.report<DiagID::err_operand_type>(E.RHS->getRange(), "in",
                   "a list or a range of values", List->describe());
    return -1;
  }
  int Any = -1;
  for (const Value &V : List->elems()) {
    int Eq = Compare(Cond::Op::Eq, V, E.RHS->getRange());
    if (Eq < 0)
      return -1;
    Any = Any < 0 ? Eq : binary(Cond::Op::Or, Any, Eq);
  }
  return Any;
}

int Lowering::lowerBinary(const ast::BinaryExpr &E, CondType &T) {
  using ast::BinaryOp;
  if (E.Op == BinaryOp::In)
    return lowerIn(E, T);
  bool Equality = E.Op == BinaryOp::Eq || E.Op == BinaryOp::Ne;
  CondType LT, RT;
  int L = -1, Rt = -1;
  std::optional<std::string> LWord = Equality ? bareWord(*E.LHS) : std::nullopt;
  std::optional<std::string> RWord = Equality ? bareWord(*E.RHS) : std::nullopt;
  // A bare word compared with a field's enumeration must be one of its
  // words.
  auto Word = [&](const std::string &W, CondType &WT, const CondType &Other,
                  const ast::Expr &At) -> int {
    if (Other.Enum && !Other.Enum->contains(W)) {
      R.Diags.report<DiagID::err_unknown_enum>(At.getRange(), W,
                     Other.Enum->Name, Other.Field,
                     didYouMean(W, Other.Enum->Words));
      return -1;
    }
    Cond::Node N;
    N.C = Value::enumWord(W);
    WT.K = CondType::Word;
    return add(std::move(N));
  };
  if (LWord && !RWord) {
    Rt = lower(*E.RHS, RT);
    if (Rt < 0)
      return -1;
    L = RT.K == CondType::Word ? Word(*LWord, LT, RT, *E.LHS)
                               : lower(*E.LHS, LT);
  } else {
    L = lower(*E.LHS, LT);
    if (L < 0)
      return -1;
    Rt = RWord && LT.K == CondType::Word ? Word(*RWord, RT, LT, *E.RHS)
                                         : lower(*E.RHS, RT);
  }
  if (L < 0 || Rt < 0)
    return -1;

  switch (E.Op) {
  case BinaryOp::And:
  case BinaryOp::Or:
    for (const CondType *X : {&LT, &RT})
      if (X->K != CondType::Bool) {
        R.Diags.report<DiagID::err_operand_type>(E.OpRange, spelling(E.Op),
                       "true or false", X->describe());
        return -1;
      }
    T.K = CondType::Bool;
    return binary(E.Op == BinaryOp::And ? Cond::Op::And : Cond::Op::Or, L, Rt);
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
  case BinaryOp::Eq:
  case BinaryOp::Ne: {
    bool Ordered = !Equality;
    if (LT.K != RT.K || (LT.K == CondType::Number && LT.Dim != RT.Dim) ||
        (Ordered && LT.K != CondType::Number)) {
      R.Diags.report<DiagID::err_dimension_compare>(E.getRange(),
                     LT.describe(), RT.describe());
      return -1;
    }
    T.K = CondType::Bool;
    static const Cond::Op Ops[] = {Cond::Op::Lt, Cond::Op::Le, Cond::Op::Gt,
                                   Cond::Op::Ge, Cond::Op::Eq, Cond::Op::Ne};
    return binary(Ops[static_cast<int>(E.Op) - static_cast<int>(BinaryOp::Lt)],
                  L, Rt);
  }
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::Mul:
  case BinaryOp::Div: {
    for (const CondType *X : {&LT, &RT})
      if (X->K != CondType::Number) {
        R.Diags.report<DiagID::err_operand_type>(E.OpRange, spelling(E.Op),
                       "numbers", X->describe());
        return -1;
      }
    bool Additive = E.Op == BinaryOp::Add || E.Op == BinaryOp::Sub;
    if (Additive && LT.Dim != RT.Dim) {
      R.Diags.report<DiagID::err_dimension_add>(E.getRange(),
                     E.Op == BinaryOp::Add ? "add" : "subtract",
                     LT.describe(), RT.describe());
      return -1;
    }
    if (!Additive && !(E.Op == BinaryOp::Mul ? LT.Dim.canMultiply(RT.Dim)
                                             : LT.Dim.canDivide(RT.Dim))) {
      R.Diags.report<DiagID::err_dimension_exponent>(
          E.getRange(), E.Op == BinaryOp::Mul ? "product" : "quotient",
          Dimension::MaxExponent, LT.describe(), RT.describe());
      return -1;
    }
    T.K = CondType::Number;
    T.Dim = Additive                  ? LT.Dim
            : E.Op == BinaryOp::Mul ? LT.Dim * RT.Dim
                                      : LT.Dim / RT.Dim;
    static const Cond::Op Ops[] = {Cond::Op::Add, Cond::Op::Sub, Cond::Op::Mul,
                                   Cond::Op::Div};
    return binary(Ops[static_cast<int>(E.Op)], L, Rt);
  }
  default:
    break;
  }
  return -1;
}

int Lowering::lower(const ast::Expr &E, CondType &T) {
  if (!mentionsNames(E, /*Unknown=*/true))
    return constant(E, T);
  switch (E.getKind()) {
  case ast::Expr::Kind::Name:
    return name(cast<ast::NameExpr>(E), T);
  case ast::Expr::Kind::Unary: {
    const auto &U = cast<ast::UnaryExpr>(E);
    int X = lower(*U.Operand, T);
    if (X < 0)
      return -1;
    bool Not = U.Op == ast::UnaryOp::Not;
    if ((Not && T.K != CondType::Bool) || (!Not && T.K != CondType::Number)) {
      R.Diags.report<DiagID::err_operand_type>(SMRange(U.OpLoc, U.OpLoc),
                     spelling(U.Op), Not ? "true or false" : "a number",
                     T.describe());
      return -1;
    }
    if (U.Op == ast::UnaryOp::Plus)
      return X;
    Cond::Node N;
    N.Kind = Not ? Cond::Op::Not : Cond::Op::Neg;
    N.L = X;
    return add(std::move(N));
  }
  case ast::Expr::Kind::Binary:
    return lowerBinary(cast<ast::BinaryExpr>(E), T);
  default:
    R.Diags.report<DiagID::err_operand_type>(E.getRange(), "where",
                   "figures, fields and constants combined by operators",
                   "a call or a list of them");
    return -1;
  }
}

bool Resolver::lowerCondition(const ast::Expr &E, const StructSpec &Scenario,
                              StringRef ScenarioName, spec::Condition &Out) {
  Out.Range = E.getRange();
  Lowering L(*this, Scenario, ScenarioName, Out);
  CondType T;
  int Root = L.lower(E, T);
  if (Root < 0)
    return false;
  if (T.K != CondType::Bool) {
    Diags.report<DiagID::err_operand_type>(E.getRange(), "where",
                 "a condition (true or false)", T.describe());
    return false;
  }
  // The evaluator reads the root as the last node.
  if (Root != static_cast<int>(Out.Nodes.size()) - 1) {
    spec::Condition::Node Copy = Out.Nodes[Root];
    Out.Nodes.push_back(std::move(Copy));
  }
  return true;
}

} // namespace sema
} // namespace llmsys
