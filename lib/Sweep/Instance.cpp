//===- Instance.cpp - one thread's copy of a swept scenario -----------------===//

#include "Sweep/Instance.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace llmsys {
namespace sweep {

Instance::Part Instance::partOf(StringRef First) {
  return First == "mapping"  ? MappingPart
         : First == "model"  ? ModelPart
         : First == "system" ? SystemPart
                             : WholePart;
}

Instance::Instance(const spec::Sweep &W) : W(W) {
  Copies.push_back(*W.Scenario);
  Root = &Copies.back();
  std::vector<const spec::Object *> Owned{Root};
  // The field at a path of field indices, in this instance's copy: a block
  // or entity on the way is copied once, so that setting the field changes
  // this point only.
  auto Own = [&](ArrayRef<unsigned> Path) {
    spec::Object *O = Root;
    spec::Field *F = nullptr;
    for (size_t I = 0; I < Path.size(); ++I) {
      F = &O->Fields[Path[I]];
      if (I + 1 == Path.size())
        break;
      if (!is_contained(Owned, F->V.Obj)) {
        Copies.push_back(*F->V.Obj);
        F->V.Obj = &Copies.back();
        Owned.push_back(F->V.Obj);
      }
      O = F->V.Obj;
    }
    return F;
  };
  // A field computed from an axis is set per point too.
  for (const spec::SweepDerived &D : W.Derived) {
    DerivedFields.push_back(Own(D.FieldPath));
    DerivedPart.push_back(partOf(StringRef(D.Path).split('.').first));
  }
  std::vector<SmallVector<unsigned, 4>> AxisPaths;
  for (const spec::SweepAxis &A : W.Axes) {
    SmallVector<StringRef, 4> Parts;
    StringRef(A.Path).split(Parts, '.');
    // The path by field index (Sema checked it).
    SmallVector<unsigned, 4> Path;
    const spec::Object *O = Root;
    for (size_t I = 0; I < Parts.size(); ++I) {
      Path.push_back(static_cast<unsigned>(O->Type->findField(Parts[I])));
      if (I + 1 < Parts.size())
        O = O->Fields[Path.back()].V.Obj;
    }
    AxisPaths.push_back(Path);
    spec::Field *F = Own(Path);
    AxisFields.push_back(F);
    // Schema.def's Read column: whether the passes before partition read
    // the field, or a field of what it holds.
    AxisReadByPrefix.push_back(F->Spec->ReachesBuild);
    AxisPart.push_back(partOf(Parts[0]));
  }
  // A computed field the operator-building passes read makes every axis
  // part of the cache's key (conservatively: not only those it reads).
  if (any_of(W.Derived, [](const spec::SweepDerived &D) {
        return D.Field->ReachesBuild;
      }))
    AxisReadByPrefix.assign(AxisReadByPrefix.size(), true);
  // What each computed field reads: a field an axis sets, or a value
  // reached through it (`technology.logic_density` under a technology
  // axis), or an earlier computed field (W.Derived is in reading order).
  auto Under = [](ArrayRef<unsigned> Prefix, ArrayRef<unsigned> Path) {
    return Prefix.size() <= Path.size() &&
           std::equal(Prefix.begin(), Prefix.end(), Path.begin());
  };
  for (size_t D = 0; D < W.Derived.size(); ++D) {
    BitVector Reads(W.Axes.size());
    for (const spec::Condition::Node &N : W.Derived[D].Expr.Nodes) {
      if (N.Kind != spec::Condition::Op::Field)
        continue;
      for (size_t A = 0; A < AxisPaths.size(); ++A)
        if (Under(AxisPaths[A], N.FieldPath))
          Reads.set(A);
      for (size_t E = 0; E < D; ++E)
        if (Under(W.Derived[E].FieldPath, N.FieldPath))
          Reads |= DerivedAxes[E];
    }
    DerivedAxes.push_back(std::move(Reads));
  }
  DerivedOk.assign(W.Derived.size(), true);
  std::vector<const BitVector *> GroupAxes;
  for (size_t D = 0; D < W.Derived.size(); ++D) {
    unsigned G = 0;
    while (G < GroupAxes.size() && *GroupAxes[G] != DerivedAxes[D])
      ++G;
    if (G == GroupAxes.size()) {
      GroupAxes.push_back(&DerivedAxes[D]);
      DerivedGroup &New = Groups.emplace_back();
      New.Axes = axesOf(DerivedAxes[D]);
      New.Usable = keyable(New.Axes);
    }
    GroupOf.push_back(G);
  }
  Current.assign(W.Axes.size(), UINT32_MAX);
  setUpMemo(SystemMemo, SystemPart);
  setUpMemo(ModelMemo, ModelPart);
  uint64_t Choices = 1;
  for (size_t I = 0; I < W.Axes.size(); ++I) {
    uint64_t N = W.Axes[I].Values.size();
    if (!AxisReadByPrefix[I] || N == 0)
      continue;
    if (Choices > UINT64_MAX / N)
      PrefixKeyExact = false;
    else
      Choices *= N;
  }
}

bool Instance::set(const std::vector<uint32_t> &Choice) {
  Changed.resize(AxisFields.size());
  Changed.reset();
  for (size_t I = 0; I < AxisFields.size(); ++I) {
    if (Current[I] == Choice[I])
      continue;
    spec::Field &F = *AxisFields[I];
    F.V = W.Axes[I].Values[Choice[I]];
    F.From = spec::Origin::File;
    Current[I] = Choice[I];
    Dirty |= AxisPart[I];
    Changed.set(I);
  }
  // Per group whose axes changed: its values seen before, or a new entry
  // to fill (every field of a group reads the same axes, so all of them
  // are computed, in the same order, whenever one is).
  SmallVector<std::vector<std::optional<spec::Value>> *, 4> Entry(
      Groups.size(), nullptr);
  SmallVector<bool, 4> Fresh(Groups.size(), true);
  SmallVector<unsigned, 4> Next(Groups.size(), 0);
  for (size_t G = 0; G < Groups.size(); ++G) {
    DerivedGroup &Gr = Groups[G];
    if (!Gr.Usable ||
        none_of(Gr.Axes, [&](unsigned A) { return Changed.test(A); }))
      continue;
    auto [It, New] = Gr.Seen.try_emplace(keyOf(Gr.Axes));
    Entry[G] = &It->second;
    Fresh[G] = New;
  }
  // Only the computed fields that read a changed axis, in reading order
  // (one that reads an earlier one reads its axes too). A field whose
  // value is not one it accepts keeps its last one and marks the point
  // invalid until its axes change again.
  for (size_t I = 0; I < W.Derived.size(); ++I) {
    if (!DerivedAxes[I].anyCommon(Changed))
      continue;
    unsigned G = GroupOf[I];
    std::optional<spec::Value> V;
    if (Entry[G] && !Fresh[G]) {
      V = (*Entry[G])[Next[G]++];
    } else {
      V = computedValue(W.Derived[I], *Root, DerivedFields[I]->V);
      if (Entry[G])
        Entry[G]->push_back(V);
    }
    if (V)
      DerivedFields[I]->V = std::move(*V);
    if (DerivedOk[I] != V.has_value()) {
      DerivedOk[I] = V.has_value();
      if (V)
        --DerivedBad;
      else
        ++DerivedBad;
    }
    Dirty |= DerivedPart[I];
  }
  return DerivedBad == 0;
}

uint64_t Instance::prefixKey() const {
  // Mixed radix over the axes the prefix reads: distinct for distinct
  // choices (a sweep's points are counted in 64 bits).
  uint64_t Key = 0;
  for (size_t I = 0; I < Current.size(); ++I)
    if (AxisReadByPrefix[I])
      Key = Key * W.Axes[I].Values.size() + Current[I];
  return Key;
}

template <typename T> void Instance::setUpMemo(PartMemo<T> &M, Part P) {
  // The part is a function of the axes in it and of those its computed
  // fields read.
  BitVector Reads(W.Axes.size());
  for (size_t I = 0; I < W.Axes.size(); ++I)
    if (AxisPart[I] == P)
      Reads.set(I);
  for (size_t D = 0; D < W.Derived.size(); ++D)
    if (DerivedPart[D] == P)
      Reads |= DerivedAxes[D];
  M.Axes = axesOf(Reads);
  M.Usable = keyable(M.Axes);
}

std::vector<unsigned> Instance::axesOf(const BitVector &Axes) {
  std::vector<unsigned> Out;
  for (unsigned A : Axes.set_bits())
    Out.push_back(A);
  return Out;
}

bool Instance::keyable(ArrayRef<unsigned> Axes) const {
  uint64_t Combinations = 1;
  for (unsigned A : Axes) {
    Combinations *= std::max<size_t>(W.Axes[A].Values.size(), 1);
    if (Combinations > MemoLimit)
      return false;
  }
  return true;
}

uint64_t Instance::keyOf(ArrayRef<unsigned> Axes) const {
  uint64_t Key = 0;
  for (unsigned A : Axes)
    Key = Key * W.Axes[A].Values.size() + Current[A];
  return Key;
}

template <typename T, typename ReadFn>
void Instance::readPart(PartMemo<T> &M, T &Out, ReadFn Read) {
  if (!M.Usable) {
    Out = Read();
    return;
  }
  auto [It, New] = M.Seen.try_emplace(keyOf(M.Axes));
  if (New)
    It->second = Read();
  Out = It->second;
}

const ir::ScenarioConfig &Instance::config() {
  if (Dirty & WholePart) {
    Config = ir::scenarioFromSpec(*Root);
  } else {
    // The part a train or serve scenario holds (Sema checked it is set).
    bool Train = Root->Type->Id == StructID::Train;
    auto Part = [&](TrainField T, ServeField S) -> const spec::Object & {
      return *spec::objectOf(Train ? Root->ifSet(T) : Root->ifSet(S));
    };
    if (Dirty & MappingPart)
      Config.Mapping =
          ir::mappingFromSpec(Part(TrainField::Mapping, ServeField::Mapping));
    if (Dirty & ModelPart)
      readPart(ModelMemo, Config.Model, [&] {
        return ir::modelFromSpec(Part(TrainField::Model, ServeField::Model));
      });
    if (Dirty & SystemPart)
      readPart(SystemMemo, Config.System, [&] {
        return ir::systemFromSpec(
            Part(TrainField::System, ServeField::System));
      });
  }
  Dirty = 0;
  return Config;
}

namespace {
struct Val {
  enum Kind : uint8_t { Unknown, Number, Bool, Word } K = Unknown;
  double N = 0;
  bool B = false;
  StringRef W;
};
} // namespace

static Val fromValue(const spec::Value &V) {
  Val X;
  switch (V.Kind) {
  case spec::ValueKind::Number:
    X.K = Val::Number;
    X.N = V.Num;
    break;
  case spec::ValueKind::Bool:
    X.K = Val::Bool;
    X.B = V.Bool;
    break;
  case spec::ValueKind::Enum:
    X.K = Val::Word;
    X.W = V.str();
    break;
  default:
    break;
  }
  return X;
}

/// The value of C's root at the point whose objects are Root.
static Val evaluate(const spec::Condition &C, const spec::Object &Root,
                    const driver::Evaluation *E) {
  using Op = spec::Condition::Op;
  SmallVector<Val, 16> Vals(C.Nodes.size());
  for (size_t I = 0; I < C.Nodes.size(); ++I) {
    const spec::Condition::Node &N = C.Nodes[I];
    Val &Out = Vals[I];
    const Val *L = N.L >= 0 ? &Vals[N.L] : nullptr;
    const Val *R = N.R >= 0 ? &Vals[N.R] : nullptr;
    if ((L && L->K == Val::Unknown) || (R && R->K == Val::Unknown))
      continue; // stays Unknown
    auto Bool = [&](bool B) {
      Out.K = Val::Bool;
      Out.B = B;
    };
    auto Num = [&](double X) {
      Out.K = Val::Number;
      Out.N = X;
    };
    switch (N.Kind) {
    case Op::Const:
      Out = fromValue(N.C);
      break;
    case Op::Field: {
      // Followed by index: an axis may have changed a reference on the way.
      const spec::Object *O = &Root;
      const spec::Field *F = nullptr;
      for (unsigned Idx : N.FieldPath) {
        if (!O) {
          F = nullptr; // a block or reference on the way is not set
          break;
        }
        F = &O->Fields[Idx];
        O = F->V.Kind == spec::ValueKind::Object ? F->V.Obj : nullptr;
      }
      if (F && F->isSet())
        Out = fromValue(F->V);
      break;
    }
    case Op::Figure:
      if (E)
        if (std::optional<double> V = E->figure(N.Figure)) {
          // `fits` and other boolean figures come as 0 or 1.
          if (N.BoolFigure)
            Bool(*V != 0);
          else
            Num(*V);
        }
      break;
    case Op::Not: Bool(!L->B); break;
    case Op::And: Bool(L->B && R->B); break;
    case Op::Or: Bool(L->B || R->B); break;
    case Op::Eq:
    case Op::Ne:
      if (L->K != Val::Number) {
        bool Eq = L->K == Val::Bool ? L->B == R->B : L->W == R->W;
        Bool(N.Kind == Op::Eq ? Eq : !Eq);
        break;
      }
      [[fallthrough]];
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      // Numbers, by the comparisons Sema evaluates a field's expression
      // with (spec::compareHolds).
      Bool(spec::compareHolds(*spec::Condition::compareOf(N.Kind), L->N, R->N));
      break;
    case Op::Neg:
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Min:
    case Op::Max:
    case Op::Ceil:
    case Op::Floor:
    case Op::Round:
      // By Sema's arithmetic (spec::arith). What is not a finite number (a
      // division by zero) stays Unknown: a computed field without a value,
      // a condition that does not hold.
      if (std::optional<double> X = spec::arith(
              *spec::Condition::arithOf(N.Kind), L->N, R ? R->N : 0))
        Num(*X);
      break;
    }
  }
  return Vals.empty() ? Val() : Vals.back();
}

bool holds(const spec::Condition &C, const spec::Object &Root,
           const driver::Evaluation *E) {
  Val V = evaluate(C, Root, E);
  return V.K == Val::Bool && V.B;
}

/// Whether a number is one the field accepts, by the rules Sema checks a
/// written value with (a whole number where the field counts, within its
/// limits).
static bool accepts(const FieldSpec &F, double X) {
  return std::isfinite(X) &&
         (!F.counted() || (isWholeNumber(X) && X <= F.mostValue())) &&
         F.meetsConstraint(X);
}

std::optional<spec::Value> computedValue(const spec::SweepDerived &D,
                                         const spec::Object &Root,
                                         const spec::Value &Old) {
  Val V = evaluate(D.Expr, Root, nullptr);
  switch (V.K) {
  case Val::Number:
    if (!accepts(*D.Field, V.N))
      return std::nullopt;
    return spec::Value::number(D.Field->counted() ? std::round(V.N) : V.N,
                               Old.Dim);
  case Val::Bool:
    return spec::Value::boolean(V.B);
  case Val::Word:
    return spec::Value::enumWord(V.W.str());
  case Val::Unknown:
    break;
  }
  return std::nullopt;
}

} // namespace sweep
} // namespace llmsys
