//===- Spec.cpp - the resolved specification --------------------------------===//

#include "IR/Spec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace spec {

const std::shared_ptr<const std::vector<TraceRequest>> &Field::trace() const {
  static const std::shared_ptr<const std::vector<TraceRequest>> None;
  return Note ? Note->Trace : None;
}

const std::string &Value::str() const {
  static const std::string Empty;
  return P && (Kind == ValueKind::String || Kind == ValueKind::Enum) ? P->Str
                                                                     : Empty;
}

ArrayRef<Value> Value::elems() const {
  return P && Kind == ValueKind::List ? ArrayRef<Value>(P->Elems)
                                      : ArrayRef<Value>();
}

std::vector<Value> &Value::elemsToChange() {
  assert(Kind == ValueKind::List && "elements of a value that is no list");
  if (!P)
    P = new Payload;
  else if (P->Refs.load(std::memory_order_acquire) > 1)
    P = new Payload{{}, P->Elems};
  return P->Elems;
}

std::string Value::describe() const {
  switch (Kind) {
  case ValueKind::None:
    return "nothing";
  case ValueKind::Number:
    if (Dim.isDimensionless())
      return "a dimensionless number";
    return "a value of " + Dim.describe();
  case ValueKind::Bool:
    return "true or false";
  case ValueKind::String:
    return "a string";
  case ValueKind::Enum:
    return "the word '" + str() + "'";
  case ValueKind::List:
    return "a list";
  case ValueKind::Object:
    if (Obj->IsEntity && !Obj->IsAnonymous)
      return Obj->Type->Name + " '" + Obj->Name + "'";
    return "a " + Obj->Type->Name + " block";
  }
  llvm_unreachable("unknown value kind");
}

void Object::wrongType(StructID S) const {
  report_fatal_error(Twine("a reader takes ") + Name + " (a " +
                     (Type ? Type->Name : "?") + ") for a " +
                     Schema::get().of(S).Name);
}

StringRef spelling(Compare C) {
  switch (C) {
  case Compare::Lt: return "<";
  case Compare::Le: return "<=";
  case Compare::Gt: return ">";
  case Compare::Ge: return ">=";
  case Compare::Eq: return "==";
  case Compare::Ne: return "!=";
  case Compare::In: return "in";
  }
  llvm_unreachable("unknown comparison");
}

std::string Sweep::pointsText() const {
  size_t N = points();
  if (N != SIZE_MAX)
    return std::to_string(N);
  // Too many to count in 64 bits: the product in a double, said as such.
  double D = 1;
  for (const SweepAxis &A : Axes)
    D *= double(A.Values.size());
  return fmt::format("about {:.2g}", D);
}

size_t Sweep::points() const {
  // Saturates: a grid too large to count is refused by --max-points.
  size_t N = 1;
  for (const SweepAxis &A : Axes) {
    if (A.Values.empty())
      return 0;
    if (N > SIZE_MAX / A.Values.size())
      return SIZE_MAX;
    N *= A.Values.size();
  }
  return N;
}

bool Spec::isTopLevel(const Object &O) const {
  return is_contained(TopLevelBuffers, O.BufferID);
}

std::string formatNumber(double V) {
  if (V == 0)
    return "0";
  // Twelve significant digits: exact for every spec value written in
  // decimal, and free of binary noise such as 5 us -> 4.9999999999999996e-06.
  // Whole numbers below 1e18 print in full, as datasheets write them.
  if (std::fabs(V) < 1e18 && V == std::floor(V))
    return fmt::format("{:.0f}", V);
  return fmt::format("{:.12g}", V);
}

bool sameValue(const Value &A, const Value &B) {
  if (A.Kind != B.Kind)
    return false;
  switch (A.Kind) {
  case ValueKind::None:
    return true;
  case ValueKind::Number:
    return A.Dim == B.Dim && sameNumber(A.Num, B.Num);
  case ValueKind::Bool:
    return A.Bool == B.Bool;
  case ValueKind::String:
  case ValueKind::Enum:
    return A.str() == B.str();
  case ValueKind::List: {
    ArrayRef<Value> X = A.elems(), Y = B.elems();
    if (X.size() != Y.size())
      return false;
    for (size_t I = 0; I < X.size(); ++I)
      if (!sameValue(X[I], Y[I]))
        return false;
    return true;
  }
  case ValueKind::Object:
    return A.Obj == B.Obj;
  }
  llvm_unreachable("unknown value kind");
}

std::string formatValue(const Value &V) {
  switch (V.Kind) {
  case ValueKind::None:
    return "<none>";
  case ValueKind::Number: {
    std::string S = formatNumber(V.Num);
    std::string U = V.Dim.unitString();
    return U.empty() ? S : S + " " + U;
  }
  case ValueKind::Bool:
    return V.Bool ? "true" : "false";
  case ValueKind::String: {
    std::string S;
    raw_string_ostream OS(S);
    OS << '"';
    OS.write_escaped(V.str());
    OS << '"';
    return OS.str();
  }
  case ValueKind::Enum:
    return V.str();
  case ValueKind::List: {
    std::string S = "[";
    for (const Value &E : V.elems())
      S += (&E == V.elems().data() ? "" : ", ") + formatValue(E);
    return S + "]";
  }
  case ValueKind::Object:
    return V.Obj->Name;
  }
  llvm_unreachable("unknown value kind");
}

namespace {
class SpecPrinter {
public:
  SpecPrinter(const SourceMgr &SM, raw_ostream &OS) : SM(SM), OS(OS) {}

  void entity(const Object &O) {
    OS << O.Type->Name << ' ' << O.Name;
    if (O.Parent)
      OS << " extends " << O.Parent->Name;
    OS << "  # " << where(O.DeclRange.Start) << '\n';
    fields(O, "");
    OS << '\n';
  }

private:
  std::string where(SMLoc L) {
    if (!L.isValid())
      return "<builtin>";
    unsigned Buf = SM.FindBufferContainingLoc(L);
    auto LC = SM.getLineAndColumn(L, Buf);
    return (SM.getMemoryBuffer(Buf)->getBufferIdentifier() + ":" +
            Twine(LC.first) + ":" + Twine(LC.second))
        .str();
  }

  std::string origin(const Field &F) {
    switch (F.From) {
    case Origin::File:
      return where(F.Loc.Start);
    case Origin::Default:
      return "default";
    case Origin::Inherited:
      return "extends " + F.InheritedFrom->Name + " (" + where(F.Loc.Start) +
             ")";
    case Origin::Derived:
      if (F.InheritedFrom)
        return "derived: extends " + F.InheritedFrom->Name + " (" +
               where(F.Loc.Start) + "), " + F.derivation().str();
      return "derived: " + F.derivation().str() + " (" + where(F.Loc.Start) + ")";
    case Origin::Unset:
      break;
    }
    return "";
  }

  void fields(const Object &O, const std::string &Prefix) {
    for (const Field &F : O.Fields) {
      if (!F.isSet())
        continue;
      std::string Path = Prefix + F.Spec->Name;
      bool Nested = F.V.Kind == ValueKind::Object &&
                    (F.Spec->Type.Kind == TypeKind::Struct ||
                     F.V.Obj->IsAnonymous);
      if (Nested) {
        if (F.V.Obj->IsAnonymous) {
          OS << "  " << Path << " = " << F.V.Obj->Type->Name;
          if (F.V.Obj->Parent)
            OS << " extends " << F.V.Obj->Parent->Name;
          OS << " { ... }  # " << origin(F) << '\n';
        }
        fields(*F.V.Obj, Path + ".");
        continue;
      }
      OS << "  " << Path << " = " << formatValue(F.V) << "  # " << origin(F)
         << '\n';
    }
  }

  const SourceMgr &SM;
  raw_ostream &OS;
};
} // namespace

static std::string formatNode(const Condition &C, int I) {
  const Condition::Node &N = C.Nodes[I];
  using Op = Condition::Op;
  auto Bin = [&](StringRef Sym) {
    return "(" + formatNode(C, N.L) + " " + Sym.str() + " " +
           formatNode(C, N.R) + ")";
  };
  switch (N.Kind) {
  case Op::Const: return formatValue(N.C);
  case Op::Figure: return N.Name;
  case Op::Field: return N.Name;
  case Op::Neg: return "-" + formatNode(C, N.L);
  case Op::Not: return "not " + formatNode(C, N.L);
  case Op::Add: return Bin("+");
  case Op::Sub: return Bin("-");
  case Op::Mul: return Bin("*");
  case Op::Div: return Bin("/");
  case Op::Lt: return Bin("<");
  case Op::Le: return Bin("<=");
  case Op::Gt: return Bin(">");
  case Op::Ge: return Bin(">=");
  case Op::Eq: return Bin("==");
  case Op::Ne: return Bin("!=");
  case Op::And: return Bin("and");
  case Op::Or: return Bin("or");
  case Op::Min:
  case Op::Max:
    return (N.Kind == Op::Min ? "min(" : "max(") + formatNode(C, N.L) + ", " +
           formatNode(C, N.R) + ")";
  case Op::Ceil: return "ceil(" + formatNode(C, N.L) + ")";
  case Op::Floor: return "floor(" + formatNode(C, N.L) + ")";
  case Op::Round: return "round(" + formatNode(C, N.L) + ")";
  }
  llvm_unreachable("unknown condition node");
}

std::string formatCondition(const Condition &C) {
  return C.Nodes.empty() ? "" : formatNode(C, C.Nodes.size() - 1);
}

void printSpec(const Spec &S, const SourceMgr &SM, raw_ostream &OS,
               bool IncludeImported) {
  SpecPrinter P(SM, OS);
  for (const Object *O : S.Entities)
    if ((IncludeImported || S.isTopLevel(*O)) && O->Type->Name != "sweep")
      P.entity(*O);
  for (const Expectation &E : S.Expectations) {
    OS << "expect " << E.Scenario->Name << '.' << E.Figure->Name << ' '
       << spelling(E.Op) << ' ' << formatValue(E.Lo);
    if (E.Op == Compare::In)
      OS << " .. " << formatValue(E.Hi);
    OS << '\n';
  }
  for (const Sweep &W : S.Sweeps) {
    OS << "sweep " << W.Decl->Name << " over " << W.Scenario->Name << ": "
       << W.pointsText() << " points\n";
    for (const SweepAxis &A : W.Axes) {
      OS << "  " << A.Path << " in [";
      for (size_t I = 0; I < A.Values.size(); ++I)
        OS << (I ? ", " : "") << formatValue(A.Values[I]);
      OS << "]\n";
    }
    for (const SweepDerived &D : W.Derived)
      OS << "  computed " << D.Path << " = " << formatCondition(D.Expr)
         << '\n';
    for (const Condition &C : W.Where)
      OS << "  where " << formatCondition(C) << '\n';
    if (W.Pareto && W.Objectives.size() == 2)
      OS << "  pareto " << W.Objectives[0].first << ", "
         << W.Objectives[1].first << '\n';
    else
      for (const auto &Obj : W.Objectives)
        OS << "  " << (Obj.second ? "maximize " : "minimize ") << Obj.first
           << '\n';
    if (W.Keep)
      OS << "  keep " << *W.Keep << '\n';
  }
}

} // namespace spec
} // namespace llmsys
