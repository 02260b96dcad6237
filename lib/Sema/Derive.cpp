//===- Derive.cpp - values derived rather than written ---------------------===//
//
// Two kinds of field get a value computed from other values instead of the
// expression that was written (docs/technology.md has the rules and their
// sources):
//
// - Process-node scaling. An accelerator that `extends` another and sets a
//   different `technology` re-derives the compute and on-chip figures it
//   inherits from the parent's values: at equal die area and equal board
//   power, compute units scale with logic density, the clock with what the
//   power budget allows (never above the node's speed gain), dense peaks
//   with both, on-chip SRAM with SRAM density. Memory and network fields,
//   and everything the child writes itself, are left alone.
// - Memory from a memory technology. A memory level whose own block writes
//   `technology` or `stacks` (`hbm = HBM4 { stacks = 8 }`) derives the
//   capacity and bandwidth it does not write as stacks x the technology's
//   per-stack figure.
//
// A sweep axis over either input (an accelerator's `technology`, a memory
// level's `stacks` or `technology`) derives again at each point: the
// fields above are lowered to expressions over the point's values
// (sweepDerivations), which lib/Sweep evaluates like any computed field.
//
// Marking happens when an object is built (so required-field checks see the
// derived fields as set); the values are computed on demand like any other
// field, and each keeps how it was derived for `llmsys-opt --emit=spec`.
//
//===----------------------------------------------------------------------===//

#include "Sema/SemaImpl.h"

#include "llvm/Support/SourceMgr.h"
#include <algorithm>
#include <cmath>
#include <iterator>
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace sema {

using DeriveKind = Slot::DeriveKind;

namespace {
/// The accelerator fields a process node re-derives, and by which factor.
/// Block "" is the accelerator itself; field "*" is every field of the block.
struct NodeRule {
  const char *Block;
  const char *Field;
  DeriveKind Kind;
};
constexpr NodeRule NodeRules[] = {
    {"", "compute_units", DeriveKind::NodeUnits},
    {"", "clock", DeriveKind::NodeClock},
    {"peak", "*", DeriveKind::NodeCompute},
    {"l2", "capacity", DeriveKind::NodeSram},
    // On-chip bandwidth is provisioned per unit of compute: it keeps the
    // parent's bytes per FLOP.
    {"l2", "bandwidth", DeriveKind::NodeCompute},
};

/// The technology factors a node is described by (stdlib/technology).
constexpr const char *NodeFactors[] = {"logic_density", "sram_density",
                                       "speed", "power"};

std::string factor(double X) { return fmt::format("x{:.4g}", X); }
} // namespace

namespace {
/// Builds the expression a sweep point evaluates for a derived field: the
/// same arithmetic as a spec read does on numbers, over spec::Condition
/// nodes whose inputs are the point's field values.
struct PointExpr {
  spec::Condition *C = nullptr;
  int N = -1;
};

PointExpr make(spec::Condition &C, spec::Condition::Node Node) {
  C.Nodes.push_back(std::move(Node));
  return {&C, static_cast<int>(C.Nodes.size()) - 1};
}
PointExpr constant(spec::Condition &C, double X, Dimension D = Dimension()) {
  spec::Condition::Node Node;
  Node.C = Value::number(X, D);
  return make(C, std::move(Node));
}
/// The field at Path from the scenario (Name: for messages).
PointExpr fieldAt(spec::Condition &C, std::vector<unsigned> Path,
                  std::string Name) {
  spec::Condition::Node Node;
  Node.Kind = spec::Condition::Op::Field;
  Node.FieldPath = std::move(Path);
  Node.Name = std::move(Name);
  return make(C, std::move(Node));
}
PointExpr apply(spec::Condition::Op Op, PointExpr L, PointExpr R = {}) {
  spec::Condition::Node Node;
  Node.Kind = Op;
  Node.L = L.N;
  Node.R = R.N;
  return make(*L.C, std::move(Node));
}
PointExpr operator*(PointExpr L, PointExpr R) {
  return apply(spec::Condition::Op::Mul, L, R);
}
PointExpr operator/(PointExpr L, PointExpr R) {
  return apply(spec::Condition::Op::Div, L, R);
}
PointExpr minOf(PointExpr L, PointExpr R) {
  return apply(spec::Condition::Op::Min, L, R);
}
PointExpr roundOf(PointExpr X) { return apply(spec::Condition::Op::Round, X); }
} // namespace

/// The clock a node allows at equal power (technology.md): what the budget
/// leaves for units x power, never above the node's speed gain. One rule
/// for a spec read (numbers) and a sweep point (PointExpr).
static double minOf(double L, double R) { return std::min(L, R); }
template <typename T> static T nodeClock(T Units, T Speed, T Power, T Budget) {
  return minOf(Speed, Budget / (Units * Power));
}

static Object *rootOf(Object *O) {
  while (O->Enclosing)
    O = O->Enclosing;
  return O;
}

void Resolver::markDerivations(Object *O, Object *Parent) {
  if (Parent)
    markNodeScaling(O, Parent);
  for (spec::Field &F : O->Fields)
    if (F.Spec->Type.Kind == TypeKind::Struct && F.isSet() && F.V.Obj &&
        F.Spec->Type.Struct->SourceField >= 0)
      markMemoryLevel(F.V.Obj);
}

void Resolver::markNodeScaling(Object *O, Object *Parent) {
  if (O->Type->Id != StructID::Accelerator)
    return;
  int TechIdx = static_cast<int>(AcceleratorField::Technology);
  spec::Field &Tech = O->Fields[TechIdx];
  bool NewNode = Tech.From == spec::Origin::File;
  if (NewNode && !Parent->Fields[TechIdx].isSet()) {
    Diags.report<DiagID::err_derive_parent_no_technology>(Tech.Loc,
                 O->Type->Name, O->Name, Parent->Name, Parent->Name)
        .note<DiagID::note_entity_declared>(Parent->DeclRange, Parent->Name);
    return;
  }
  for (const NodeRule &R : NodeRules) {
    Object *Mine = O, *Theirs = Parent;
    if (*R.Block) {
      const spec::Field *MyBlock = O->field(R.Block);
      const spec::Field *TheirBlock = Parent->field(R.Block);
      if (!MyBlock || !MyBlock->isSet() || !TheirBlock ||
          !TheirBlock->isSet())
        continue;
      Mine = MyBlock->V.Obj;
      Theirs = TheirBlock->V.Obj;
    }
    for (unsigned I = 0; I < Mine->Fields.size(); ++I) {
      spec::Field &F = Mine->Fields[I];
      if (StringRef(R.Field) != "*" && F.Spec->Name != R.Field)
        continue;
      if (F.From == spec::Origin::Derived && !NewNode) {
        // Derived in the parent, same node here: the parent's value as is.
        Slot &Sl = slot(Mine, I);
        Sl.Derive = DeriveKind::Copy;
        extraFor(Sl).DeriveFrom = Theirs;
        continue;
      }
      if (!NewNode || (F.From != spec::Origin::Inherited &&
                       F.From != spec::Origin::Derived))
        continue;
      F.From = spec::Origin::Derived;
      Slot &Sl = slot(Mine, I);
      Sl.Derive = R.Kind;
      extraFor(Sl).DeriveFrom = Theirs;
    }
  }
}

void Resolver::markMemoryLevel(Object *Level) {
  Level->requireType(StructID::MemoryLevel);
  int TechIdx = Level->Type->SourceField;
  int StacksIdx = static_cast<int>(MemoryLevelField::Stacks);
  const spec::Field &Tech = Level->Fields[TechIdx];
  const spec::Field &Stacks = Level->Fields[StacksIdx];
  bool TechWritten = Tech.From == spec::Origin::File;
  if (!TechWritten && Stacks.From != spec::Origin::File)
    return;
  for (MemoryLevelField Which :
       {MemoryLevelField::Capacity, MemoryLevelField::Bandwidth}) {
    spec::Field &F = Level->Fields[size_t(Which)];
    if (F.From == spec::Origin::File)
      continue;
    F.From = spec::Origin::Derived;
    F.Loc = TechWritten ? Tech.Loc : Stacks.Loc;
    F.InheritedFrom = nullptr;
    F.V = Value();
    Slot &Sl = slot(Level, static_cast<unsigned>(Which));
    Sl = Slot();
    Sl.Derive = DeriveKind::Stacks;
  }
}

std::optional<double> Resolver::nodeFactor(Object *Node, unsigned K,
                                           SMRange Use, StringRef Carried) {
  int Idx = Node->Type->findField(NodeFactors[K]);
  std::optional<Value> V = fieldValue(Node, Idx, Use);
  if (!V)
    return std::nullopt;
  if (!(V->Num > 0)) {
    Diags.report<DiagID::err_technology_factor>(Use, Node->Name,
                 NodeFactors[K], spec::formatNumber(V->Num), Carried)
        .note<DiagID::note_entity_declared>(Node->DeclRange, Node->Name);
    return std::nullopt;
  }
  return V->Num;
}

bool Resolver::memoryHasFigure(Object *Memory, int Figure, SMRange Use,
                               const std::string &LevelField) {
  if (Memory->Fields[Figure].isSet())
    return true;
  const std::string &Name = Memory->Type->Fields[Figure].Name;
  Diags.report<DiagID::err_memory_tech_lacks_figure>(Use, Memory->Name, Name,
               LevelField, Name, Name)
      .note<DiagID::note_entity_declared>(Memory->DeclRange, Memory->Name);
  return false;
}

const NodeScaling &Resolver::nodeScaling(Object *Root, Object *ParentRoot) {
  auto [It, Inserted] = NodeScales.try_emplace(Root);
  NodeScaling &NS = It->second;
  if (!Inserted)
    return NS;
  Root->requireType(StructID::Accelerator);
  int TechIdx = static_cast<int>(AcceleratorField::Technology);
  SMRange TechLoc = Root->Fields[TechIdx].Loc;
  std::optional<Value> New = fieldValue(Root, TechIdx, TechLoc);
  std::optional<Value> Old =
      fieldValue(ParentRoot, TechIdx, ParentRoot->Fields[TechIdx].Loc);
  if (!New || !Old || New->Kind != spec::ValueKind::Object ||
      Old->Kind != spec::ValueKind::Object)
    return NS;
  NS.NewNode = New->Obj->Name;
  NS.OldNode = Old->Obj->Name;
  if (New->Obj == Old->Obj) {
    NS.Ok = NS.Identity = true;
    return NS;
  }
  double Ratio[std::size(NodeFactors)];
  for (unsigned K = 0; K < std::size(NodeFactors); ++K) {
    double Side[2];
    Object *Nodes[2] = {New->Obj, Old->Obj};
    for (unsigned S = 0; S < 2; ++S) {
      std::optional<double> V = nodeFactor(Nodes[S], K, TechLoc, Root->Name);
      if (!V)
        return NS;
      Side[S] = *V;
    }
    Ratio[K] = Side[0] / Side[1];
  }
  NS.LogicDensity = Ratio[0];
  NS.SramDensity = Ratio[1];
  NS.Speed = Ratio[2];
  NS.Power = Ratio[3];

  // A figure the child writes itself replaces the node's ratio for it.
  auto Written = [&](StringRef Name) -> std::optional<double> {
    int Idx = Root->Type->findField(Name);
    if (Root->Fields[Idx].From != spec::Origin::File ||
        !ParentRoot->Fields[Idx].isSet())
      return std::nullopt;
    std::optional<Value> Mine = fieldValue(Root, Idx, Root->Fields[Idx].Loc);
    std::optional<Value> Theirs =
        fieldValue(ParentRoot, Idx, ParentRoot->Fields[Idx].Loc);
    if (!Mine || !Theirs || Theirs->Num <= 0)
      return std::nullopt;
    return Mine->Num / Theirs->Num;
  };
  // Equal die area: as many more units as the logic density allows.
  NS.Units = NS.LogicDensity;
  if (std::optional<double> U = Written("compute_units")) {
    NS.Units = *U;
    NS.UnitsWritten = true;
  }
  // Equal board power (or the child's tdp over the parent's): switching
  // power ~ units x power-at-equal-clock x clock, so the clock that fits is
  // budget / (units x power), and never more than the node's speed gain.
  double Budget = Written("tdp").value_or(1.0);
  NS.Clock = nodeClock(NS.Units, NS.Speed, NS.Power, Budget);
  NS.ClockAtSpeed = NS.Clock == NS.Speed;
  if (std::optional<double> C = Written("clock")) {
    NS.Clock = *C;
    NS.ClockWritten = true;
  }
  NS.Compute = NS.Units * NS.Clock;
  NS.Ok = true;
  return NS;
}

bool Resolver::sweepDerivations(const ObjectPaths &Paths,
                                const spec::SweepAxis &Axis, AxisReaders &A) {
  Object *O = const_cast<Object *>(A.Target.first);
  if (!O)
    return true;
  unsigned Idx = A.Target.second;
  std::vector<unsigned> Base = Paths.lookup(O);
  auto Path = [&](std::initializer_list<unsigned> Steps) {
    std::vector<unsigned> P = Base;
    P.insert(P.end(), Steps);
    return P;
  };
  auto Add = [&](Object *Holder, unsigned Field, spec::Condition C) {
    A.Derives.push_back({{Holder, Field}, std::move(C)});
  };
  // The axis's values, each an entity of the derivation's source kind.
  auto Entities = [&] {
    std::vector<Object *> Out;
    for (const Value &V : Axis.Values)
      if (V.Kind == spec::ValueKind::Object && V.Obj)
        Out.push_back(const_cast<Object *>(V.Obj));
    return Out;
  };

  if (O->Type->Id == StructID::Accelerator &&
      Idx == static_cast<unsigned>(AcceleratorField::Technology)) {
    // A point at node T is `X { technology = T }`: X's design moved to T
    // from its own node (technology.md), every figure a node scales
    // scaled, since the point writes none of them.
    std::optional<Value> Own;
    if (O->Fields[Idx].isSet())
      Own = fieldValue(O, Idx, O->Fields[Idx].Loc);
    if (!Own || Own->Kind != spec::ValueKind::Object || !Own->Obj) {
      Diags.report<DiagID::err_sweep_node_baseline>(A.Range, A.Path, O->Name,
                                                    O->Name);
      return false;
    }
    Object *Old = const_cast<Object *>(Own->Obj);
    double OldFactor[std::size(NodeFactors)];
    std::vector<Object *> Nodes = Entities();
    Nodes.push_back(Old);
    for (unsigned K = 0; K < std::size(NodeFactors); ++K)
      for (Object *Node : Nodes) {
        std::optional<double> V = nodeFactor(Node, K, A.Range, O->Name);
        if (!V)
          return false;
        if (Node == Old)
          OldFactor[K] = *V;
      }
    const StructSpec &Tech = *O->Type->Fields[Idx].Type.Struct;
    for (const NodeRule &R : NodeRules) {
      Object *Holder = O;
      if (*R.Block) {
        const spec::Field *Block = O->field(R.Block);
        if (!Block || !Block->isSet() ||
            Block->V.Kind != spec::ValueKind::Object)
          continue;
        Holder = Block->V.Obj;
      }
      for (unsigned I = 0; I < Holder->Fields.size(); ++I) {
        if (StringRef(R.Field) != "*" && Holder->Fields[I].Spec->Name != R.Field)
          continue;
        if (!Holder->Fields[I].isSet())
          continue;
        std::optional<Value> Was = fieldValue(Holder, I, A.Range);
        if (!Was)
          return false;
        if (Was->Kind != spec::ValueKind::Number)
          continue;
        spec::Condition C;
        auto Ratio = [&](unsigned K) {
          int F = Tech.findField(NodeFactors[K]);
          return fieldAt(C, Path({Idx, static_cast<unsigned>(F)}),
                         A.Path + "." + NodeFactors[K]) /
                 constant(C, OldFactor[K]);
        };
        PointExpr Units = Ratio(0);
        PointExpr Clock =
            nodeClock(Units, Ratio(2), Ratio(3), constant(C, 1.0));
        // The point's value is the last node: the parent's value (X's, at
        // its own node) times the rule's factor.
        PointExpr From = constant(C, Was->Num, Was->Dim);
        switch (R.Kind) {
        case DeriveKind::NodeUnits: (void)roundOf(From * Units); break;
        case DeriveKind::NodeClock: (void)(From * Clock); break;
        case DeriveKind::NodeCompute: (void)(From * (Units * Clock)); break;
        case DeriveKind::NodeSram: (void)(From * Ratio(1)); break;
        default: llvm_unreachable("not a process-node rule");
        }
        Add(Holder, I, std::move(C));
      }
    }
    return true;
  }

  if (O->Type->Id != StructID::MemoryLevel ||
      (Idx != static_cast<unsigned>(MemoryLevelField::Stacks) &&
       Idx != static_cast<unsigned>(MemoryLevelField::Technology)))
    return true;
  // A point is the part written `X { hbm = M { stacks = N } }`: the level
  // writes neither capacity nor bandwidth, so each is stacks x the
  // technology's per-stack figure, also where X writes its own (a child
  // replaces inherited figures: section 2 of technology.md).
  unsigned StacksIdx = static_cast<unsigned>(MemoryLevelField::Stacks);
  // The level's path from the scenario (the axis's, less its field).
  std::string Level = StringRef(A.Path).rsplit('.').first.str();
  unsigned TechIdx = static_cast<unsigned>(O->Type->SourceField);
  bool TechAxis = Idx == TechIdx;
  for (MemoryLevelField Which :
       {MemoryLevelField::Capacity, MemoryLevelField::Bandwidth}) {
    unsigned F = static_cast<unsigned>(Which);
    const std::string &Name = O->Type->Fields[F].Name;
    for (unsigned Needed : {StacksIdx, TechIdx})
      if (Needed != Idx && !O->Fields[Needed].isSet()) {
        const std::string &Missing = O->Type->Fields[Needed].Name;
        Diags.report<DiagID::err_derive_needs_field>(A.Range,
                     fieldPath(O, F), Missing, Missing, Name);
        return false;
      }
    std::vector<Object *> Memories;
    if (TechAxis) {
      Memories = Entities();
    } else if (std::optional<Value> T =
                   fieldValue(O, TechIdx, O->Fields[TechIdx].Loc);
               T && T->Kind == spec::ValueKind::Object && T->Obj) {
      Memories.push_back(const_cast<Object *>(T->Obj));
    }
    const StructSpec &Memory = *O->Type->Fields[TechIdx].Type.Struct;
    int PerStack = Memory.findField(Name);
    assert(PerStack >= 0 && "memory technology lacks a memory-level field");
    for (Object *M : Memories)
      if (!memoryHasFigure(M, PerStack, A.Range, fieldPath(O, F)))
        return false;
    spec::Condition C;
    fieldAt(C, Path({StacksIdx}), Level + ".stacks") *
        fieldAt(C, Path({TechIdx, static_cast<unsigned>(PerStack)}),
                Level + ".technology." + Name);
    Add(O, F, std::move(C));
  }
  return true;
}

bool Resolver::derive(Object *O, unsigned Field, std::optional<Value> &V) {
  spec::Field &F = O->Fields[Field];
  Slot &Sl = slot(O, Field);
  if (Sl.Derive == DeriveKind::Stacks)
    return deriveFromStacks(O, Field, V);
  const SlotExtra *Extra = extraOf(Sl);
  assert(Extra && "a derived slot without the object it derives from");
  Object *DeriveFrom = Extra->DeriveFrom;

  std::optional<Value> From = fieldValue(DeriveFrom, Field, F.Loc);
  if (!From)
    return true;
  const spec::Field &Theirs = DeriveFrom->Fields[Field];
  if (Sl.Derive == DeriveKind::Copy) {
    F.From = Theirs.From;
    F.Loc = Theirs.Loc;
    F.InheritedFrom = Theirs.InheritedFrom;
    F.Note = Theirs.Note;
    V = From;
    return true;
  }

  Object *Root = rootOf(O);
  Object *ParentRoot = rootOf(DeriveFrom);
  const NodeScaling &NS = nodeScaling(Root, ParentRoot);
  if (!NS.Ok)
    return true;
  if (NS.Identity) {
    // The parent's node again: inherited as written, or as the parent
    // derived it.
    if (Theirs.From == spec::Origin::Derived) {
      Sl.Derive = DeriveKind::Copy;
      return derive(O, Field, V);
    }
    F.From = spec::Origin::Inherited;
    return false;
  }
  if (From->Kind != spec::ValueKind::Number) {
    V = From;
    return true;
  }
  double X = 1;
  std::string Why;
  switch (Sl.Derive) {
  case DeriveKind::NodeUnits:
    X = NS.Units;
    Why = "logic_density, rounded";
    break;
  case DeriveKind::NodeClock:
    X = NS.Clock;
    Why = NS.ClockAtSpeed ? "speed" : "power budget / (units x power)";
    break;
  case DeriveKind::NodeCompute:
    X = NS.Compute;
    Why = std::string(NS.UnitsWritten ? "compute_units as written"
                                      : "logic_density") +
          " x " + (NS.ClockWritten ? "clock as written" : "clock");
    break;
  case DeriveKind::NodeSram:
    X = NS.SramDensity;
    Why = "sram_density";
    break;
  case DeriveKind::None:
  case DeriveKind::Copy:
  case DeriveKind::Stacks:
    llvm_unreachable("not a process-node derivation");
  }
  double Scaled = From->Num * X;
  if (Sl.Derive == DeriveKind::NodeUnits)
    Scaled = std::round(Scaled);
  V = Value::number(Scaled, From->Dim);
  F.From = spec::Origin::Derived;
  F.Loc = Theirs.Loc;
  F.InheritedFrom = ParentRoot;
  F.Note = S.note({"technology " + NS.OldNode + " -> " + NS.NewNode + ", " +
                        factor(X) + " (" + Why + ")",
                    nullptr});
  return true;
}

bool Resolver::deriveFromStacks(Object *Level, unsigned Field,
                                std::optional<Value> &V) {
  spec::Field &F = Level->Fields[Field];
  const std::string &Name = F.Spec->Name;
  int TechIdx = Level->Type->SourceField;
  int StacksIdx = static_cast<int>(MemoryLevelField::Stacks);
  for (int Needed : {StacksIdx, TechIdx})
    if (!Level->Fields[Needed].isSet()) {
      const std::string &Missing = Level->Type->Fields[Needed].Name;
      Diags.report<DiagID::err_derive_needs_field>(F.Loc,
                   fieldPath(Level, Field), Missing, Missing, Name);
      return true;
    }
  std::optional<Value> Stacks =
      fieldValue(Level, StacksIdx, Level->Fields[StacksIdx].Loc);
  std::optional<Value> Tech =
      fieldValue(Level, TechIdx, Level->Fields[TechIdx].Loc);
  if (!Stacks || !Tech || Tech->Kind != spec::ValueKind::Object)
    return true;
  Object *Memory = Tech->Obj;
  int PerStackIdx = Memory->Type->findField(Name);
  assert(PerStackIdx >= 0 && "memory technology lacks a memory-level field");
  if (!memoryHasFigure(Memory, PerStackIdx, F.Loc, fieldPath(Level, Field)))
    return true;
  std::optional<Value> PerStack = fieldValue(Memory, PerStackIdx, F.Loc);
  if (!PerStack)
    return true;
  V = Value::number(Stacks->Num * PerStack->Num, PerStack->Dim);
  F.Note = S.note({spec::formatNumber(Stacks->Num) + " stacks x " +
                        Memory->Name + "." + Name + " " +
                        spec::formatValue(*PerStack),
                    nullptr});
  return true;
}

} // namespace sema
} // namespace llmsys
