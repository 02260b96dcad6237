//===- SweepDerived.cpp - fields a sweep point computes again ---------------===//
//
// A sweep point sets its axis fields in a copy of the scenario. A field
// of the scenario computed from an axis field (`dp = 64 / (tp * pp)`, a
// default such as `weights = precision`) is computed again at each point:
// its expression, as Sema evaluated it, is lowered here to the same
// spec::Condition nodes a `where` uses, with every name resolved to a
// field path from the scenario, and the fields are put in an order where
// each comes after those it reads (docs/language.md, Sweeps). An
// expression that a point cannot evaluate again (a list, a comparison, a
// name outside the scenario's objects) keeps the axis refused.
//
//===----------------------------------------------------------------------===//

#include "Sema/SemaImpl.h"

using namespace llvm;

namespace llmsys {
namespace sema {

namespace {

using Cond = spec::Condition;

class DerivedLowering {
public:
  DerivedLowering(Resolver &R, const ObjectPaths &Paths, Cond &Out)
      : R(R), Paths(Paths), Out(Out) {}

  /// Lowers E, evaluated in the context of Self; the node, or -1 with
  /// Why saying what a point cannot evaluate.
  int lower(const ast::Expr &E, Object *Self);
  std::string Why;

private:
  int add(Cond::Node N) {
    Out.Nodes.push_back(std::move(N));
    return static_cast<int>(Out.Nodes.size()) - 1;
  }
  int node(Cond::Op Op, int L, int Rt = -1) {
    if (L < 0 || (Rt < 0 && Op != Cond::Op::Neg && Op != Cond::Op::Ceil &&
                  Op != Cond::Op::Floor && Op != Cond::Op::Round))
      return -1;
    Cond::Node N;
    N.Kind = Op;
    N.L = L;
    N.R = Rt;
    return add(std::move(N));
  }
  int constant(const ast::Expr &E, Object *Self);
  int name(const ast::NameExpr &E, Object *Self);
  int fail(std::string Reason) {
    if (Why.empty())
      Why = std::move(Reason);
    return -1;
  }

  Resolver &R;
  const ObjectPaths &Paths;
  Cond &Out;
};

int DerivedLowering::constant(const ast::Expr &E, Object *Self) {
  std::optional<Value> V = R.eval(E, Self, nullptr);
  if (!V)
    return fail("its value");
  if (V->Kind != spec::ValueKind::Number && V->Kind != spec::ValueKind::Bool &&
      V->Kind != spec::ValueKind::Enum)
    return fail(V->describe());
  Cond::Node N;
  N.C = *V;
  return add(std::move(N));
}

int DerivedLowering::name(const ast::NameExpr &E, Object *Self) {
  const ast::DottedName &DN = E.Name;
  // As evaluation resolves it: the first enclosing object with the field.
  Object *Holder = nullptr;
  int Idx = -1;
  for (Object *O = Self; O && Idx < 0; O = O->Enclosing) {
    Idx = O->Type->findField(DN.Parts[0].Name);
    if (Idx >= 0)
      Holder = O;
  }
  if (!Holder) // An entity, or an enumeration's word: the same at every point.
    return constant(E, Self);
  auto It = Paths.find(Holder);
  if (It == Paths.end())
    return fail("'" + DN.str() + "' is not in the scenario's objects");
  std::vector<unsigned> Path = It->second;
  const Object *O = Holder;
  const spec::Field *F = &O->Fields[Idx];
  Path.push_back(static_cast<unsigned>(Idx));
  for (size_t I = 1; I < DN.Parts.size(); ++I) {
    if (F->V.Kind != spec::ValueKind::Object || !F->V.Obj)
      return fail("'" + DN.str() + "' goes through a field that is not set");
    O = F->V.Obj;
    int Next = O->Type->findField(DN.Parts[I].Name);
    if (Next < 0)
      return fail("'" + DN.str() + "' is not a field");
    F = &O->Fields[Next];
    Path.push_back(static_cast<unsigned>(Next));
  }
  switch (F->Spec->Type.Kind) {
  case TypeKind::Quantity:
  case TypeKind::Number:
  case TypeKind::Integer:
  case TypeKind::Bool:
  case TypeKind::Enum:
    break;
  default:
    return fail("'" + DN.str() + "' holds " + F->Spec->Type.describe());
  }
  Cond::Node N;
  N.Kind = Cond::Op::Field;
  N.Name = DN.str();
  N.FieldPath = std::move(Path);
  return add(std::move(N));
}

int DerivedLowering::lower(const ast::Expr &E, Object *Self) {
  switch (E.getKind()) {
  case ast::Expr::Kind::Number:
  case ast::Expr::Kind::Bool:
    return constant(E, Self);
  case ast::Expr::Kind::Name:
    return name(cast<ast::NameExpr>(E), Self);
  case ast::Expr::Kind::Unary: {
    const auto &U = cast<ast::UnaryExpr>(E);
    if (U.Op == ast::UnaryOp::Plus)
      return lower(*U.Operand, Self);
    if (U.Op == ast::UnaryOp::Neg)
      return node(Cond::Op::Neg, lower(*U.Operand, Self));
    return fail("'not'");
  }
  case ast::Expr::Kind::Binary: {
    const auto &B = cast<ast::BinaryExpr>(E);
    Cond::Op Op;
    switch (B.Op) {
    case ast::BinaryOp::Add: Op = Cond::Op::Add; break;
    case ast::BinaryOp::Sub: Op = Cond::Op::Sub; break;
    case ast::BinaryOp::Mul: Op = Cond::Op::Mul; break;
    case ast::BinaryOp::Div: Op = Cond::Op::Div; break;
    default:
      return fail("'" + spelling(B.Op).str() + "'");
    }
    int L = lower(*B.LHS, Self);
    return node(Op, L, L < 0 ? -1 : lower(*B.RHS, Self));
  }
  case ast::Expr::Kind::Call: {
    const auto &C = cast<ast::CallExpr>(E);
    StringRef F = C.Callee.Name;
    if ((F == "min" || F == "max") && !C.Args.empty()) {
      int Acc = lower(*C.Args[0], Self);
      for (const ast::Expr *A : C.Args.drop_front())
        Acc = node(F == "min" ? Cond::Op::Min : Cond::Op::Max, Acc,
                   Acc < 0 ? -1 : lower(*A, Self));
      return Acc;
    }
    if ((F == "ceil" || F == "floor" || F == "round") && C.Args.size() == 1)
      return node(F == "ceil"    ? Cond::Op::Ceil
                  : F == "floor" ? Cond::Op::Floor
                                 : Cond::Op::Round,
                  lower(*C.Args[0], Self));
    return fail("'" + F.str() + "(...)'");
  }
  case ast::Expr::Kind::String:
    return fail("a string");
  case ast::Expr::Kind::List:
    return fail("a list");
  case ast::Expr::Kind::Range:
    return fail("a range");
  }
  return fail("an expression");
}

} // namespace

ObjectPaths objectPaths(const Object &Root) {
  ObjectPaths Paths;
  std::vector<const Object *> Work{&Root};
  Paths[&Root] = {};
  for (size_t I = 0; I < Work.size(); ++I) {
    const Object *O = Work[I];
    for (unsigned F = 0; F < O->Fields.size(); ++F) {
      const spec::Field &Fd = O->Fields[F];
      if (Fd.V.Kind != spec::ValueKind::Object || !Fd.V.Obj ||
          Paths.count(Fd.V.Obj))
        continue;
      std::vector<unsigned> P = Paths[O];
      P.push_back(F);
      Paths[Fd.V.Obj] = std::move(P);
      Work.push_back(Fd.V.Obj);
    }
  }
  return Paths;
}

DenseMap<const Object *, unsigned> objectHolders(const ObjectPaths &Paths) {
  DenseMap<const Object *, unsigned> Holders;
  for (const auto &[O, Path] : Paths)
    for (const spec::Field &F : O->Fields)
      if (F.V.Kind == spec::ValueKind::Object && F.V.Obj)
        ++Holders[F.V.Obj];
  return Holders;
}

bool Resolver::deriveSweepFields(const Object &Scenario,
                                 const ObjectPaths &Paths,
                                 ArrayRef<AxisReaders> Axes,
                                 spec::Sweep &W) {
  // The fields computed from the axes, at any remove; an axis field itself
  // takes its axis value, whatever it was computed from.
  DenseSet<FieldRef> IsAxis;
  for (const AxisReaders &A : Axes)
    IsAxis.insert(A.Target);
  DenseMap<FieldRef, const AxisReaders *> Reached; // and by which axis
  // What a derivation computes from an axis (the same expression whichever
  // of its inputs is swept: the first is kept).
  DenseMap<FieldRef, const spec::Condition *> Rederived;
  std::vector<FieldRef> Work;
  for (const AxisReaders &A : Axes)
    for (const auto &[F, Expr] : A.Derives)
      if (!IsAxis.count(F) && Reached.try_emplace(F, &A).second) {
        Rederived[F] = &Expr;
        Work.push_back(F);
      }
  // A field derived again for one axis's node cannot also follow another
  // axis: the derivation reads the part's values as the spec has them.
  auto Conflict = [&](const FieldRef &F, const AxisReaders &By) {
    const AxisReaders *Deriving = Reached.lookup(F);
    if (!Rederived.count(F) || Deriving == &By ||
        any_of(By.Derives, [&](const auto &D) { return D.first == F; }))
      return false;
    std::string Name = fieldPath(F.first, F.second);
    Diags.report<DiagID::err_sweep_axis_read>(
        By.Range, By.Path, Name,
        "it is derived again at each point from the axis '" +
            Deriving->Path + "'",
        Name);
    return true;
  };
  // The figures a node derives from (a written compute_units or tdp
  // replaces the node's ratio, technology.md) are the part's own at every
  // point: an axis on one of them beside a node axis is refused.
  for (const AxisReaders &A : Axes) {
    const auto [Acc, Field] = A.Target;
    if (A.Derives.empty() || !Acc || Acc->Type->Id != StructID::Accelerator)
      continue;
    for (const AxisReaders &B : Axes)
      if (&B != &A && B.Target.first == Acc &&
          (B.Target.second == unsigned(AcceleratorField::ComputeUnits) ||
           B.Target.second == unsigned(AcceleratorField::Tdp))) {
        Diags.report<DiagID::err_sweep_node_axis>(
            B.Range, B.Path, A.Path,
            Acc->Type->Fields[B.Target.second].Name);
        return false;
      }
  }
  for (const AxisReaders &A : Axes)
    for (const FieldRef &F : A.Readers) {
      if (IsAxis.count(F))
        continue;
      if (Conflict(F, A))
        return false;
      if (Reached.try_emplace(F, &A).second)
        Work.push_back(F);
    }
  for (size_t I = 0; I < Work.size(); ++I) {
    const AxisReaders *By = Reached[Work[I]];
    for (const FieldRef &F : Trace.readersOf(Work[I])) {
      if (!Paths.count(F.first) || IsAxis.count(F))
        continue;
      if (Conflict(F, *By))
        return false;
      if (Reached.try_emplace(F, By).second)
        Work.push_back(F);
    }
  }
  // Each after the fields it reads (Sema evaluated them without a cycle).
  DenseMap<FieldRef, unsigned> Inputs;
  for (const FieldRef &F : Work)
    Inputs[F];
  for (const FieldRef &F : Work) {
    for (const FieldRef &Reader : Trace.readersOf(F))
      if (Inputs.count(Reader))
        ++Inputs[Reader];
  }
  std::vector<FieldRef> Order;
  for (const FieldRef &F : Work)
    if (Inputs[F] == 0)
      Order.push_back(F);
  for (size_t I = 0; I < Order.size(); ++I) {
    for (const FieldRef &Reader : Trace.readersOf(Order[I]))
      if (Inputs.count(Reader) && --Inputs[Reader] == 0)
        Order.push_back(Reader);
  }
  for (const FieldRef &F : Order) {
    Object *O = const_cast<Object *>(F.first);
    const Slot &Sl = slot(O, F.second);
    const SlotExtra *X = extraOf(Sl);
    spec::SweepDerived D;
    DerivedLowering L(*this, Paths, D.Expr);
    std::string Name = fieldPath(O, F.second);
    if (const spec::Condition *Expr = Rederived.lookup(F))
      D.Expr = *Expr;
    else if (!Sl.E || Sl.Derive != Slot::DeriveKind::None ||
        (X && (X->Refine || X->Constant)))
      L.Why = "a value derived from other entities";
    else if (L.lower(*Sl.E, O) >= 0)
      L.Why.clear();
    if (!L.Why.empty() || D.Expr.Nodes.empty()) {
      const AxisReaders &A = *Reached[F];
      Diags.report<DiagID::err_sweep_axis_read>(A.Range, A.Path, Name,
                                                L.Why, Name);
      return false;
    }
    D.FieldPath = Paths.lookup(O);
    D.FieldPath.push_back(F.second);
    const Object *At = &Scenario;
    for (unsigned Step : D.FieldPath) {
      D.Path += (D.Path.empty() ? "" : ".") + At->Type->Fields[Step].Name;
      const spec::Field &Fd = At->Fields[Step];
      At = Fd.V.Kind == spec::ValueKind::Object ? Fd.V.Obj : nullptr;
    }
    D.Field = O->Fields[F.second].Spec;
    W.Derived.push_back(std::move(D));
  }
  return true;
}

} // namespace sema
} // namespace llmsys
