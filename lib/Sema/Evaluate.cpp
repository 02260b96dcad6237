//===- Evaluate.cpp - expressions, names, fields and cycles ----------------===//
//
// Every value is a constant expression evaluated on demand, in the object
// that owns the field: a bare name is first a field of that object (or of
// the blocks enclosing it), then an entity, then an enum word where the field
// expects one. Dimensions follow arithmetic; results must stay finite.
//
//===----------------------------------------------------------------------===//

#include "Sema/SemaImpl.h"
#include "IR/Scenario.h"

#include "Basic/Suggest.h"

#include "llvm/Support/SourceMgr.h"
#include <cmath>
#include <cstdlib>

using namespace llvm;

namespace llmsys {
namespace sema {

SMRange Resolver::at(SMRange R) const { return Defaults.at(R); }

std::string Resolver::fieldPath(const Object *O, unsigned Field) const {
  return O->Name + "." + O->Type->Fields[Field].Name;
}

std::string Resolver::currentField() const {
  if (!Trace.evaluating())
    return Trace.axis();
  const EvalFrame &F = Trace.innermost();
  // The word of a block chosen by a word (`schedule = 1f1b`) belongs to the
  // field holding the block.
  if (F.Obj->Type->TagField == static_cast<int>(F.Field) && F.Obj->Enclosing)
    for (const spec::Field &Outer : F.Obj->Enclosing->Fields)
      if (Outer.V.Obj == F.Obj)
        return Outer.Spec->Name;
  return F.Obj->Type->Fields[F.Field].Name;
}

static bool isFinite(double V) { return std::isfinite(V); }

std::optional<Value> Resolver::evalNumber(const ast::NumberExpr &E,
                                          const TypeSpec *Expected) {
  // A glued word such as "1f1b" is an enum word where one is expected.
  if (E.GluedWord && Expected && Expected->Kind == TypeKind::Enum &&
      Expected->Enum->contains(E.wholeText()))
    return Value::enumWord(E.wholeText().str());
  std::string Digits = E.Spelling.str();
  errno = 0;
  char *End = nullptr;
  double V = std::strtod(Digits.c_str(), &End);
  if (!isFinite(V) || (errno == ERANGE && std::fabs(V) > 1)) {
    Diags.report<DiagID::err_number_overflow>(at(E.getRange()), Digits);
    return std::nullopt;
  }
  Dimension D;
  if (!E.Unit.empty()) {
    UnitParse U = parseUnit(E.Unit);
    if (!U.Ok) {
      if (E.GluedWord && Expected && Expected->Kind == TypeKind::Enum) {
        Diags.report<DiagID::err_unknown_enum>(at(E.getRange()),
                     E.wholeText(), Expected->Enum->Name, currentField(),
                     didYouMean(E.wholeText(), Expected->Enum->Words));
        return std::nullopt;
      }
      if (U.ExponentOverflow)
        Diags.report<DiagID::err_dimension_exponent>(
            at(E.UnitRange), "unit", Dimension::MaxExponent, E.Unit,
            U.BadAtom);
      else if (U.BinaryPrefixMisuse)
        Diags.report<DiagID::err_binary_prefix>(at(E.UnitRange), U.Prefix,
                     U.BadAtom.substr(U.Prefix.size()));
      else
        Diags.report<DiagID::err_unknown_unit>(at(E.UnitRange), E.Unit,
                     U.Suggestion.empty()
                         ? std::string()
                         : "; did you mean '" + U.Suggestion + "'?");
      return std::nullopt;
    }
    V *= U.Scale;
    D = U.Dim;
    if (!isFinite(V)) {
      Diags.report<DiagID::err_number_overflow>(at(E.getRange()),
                   E.wholeText());
      return std::nullopt;
    }
  }
  return Value::number(V, D);
}

bool Resolver::evaluateSlot(Object *O, unsigned Field, SMRange Use) {
  spec::Field &F = O->Fields[Field];
  Slot &Sl = slot(O, Field);
  switch (Sl.St) {
  case Slot::State::Done:
    return true;
  case Slot::State::Failed:
    return false;
  case Slot::State::Evaluating: {
    ArrayRef<EvalFrame> Cycle = Trace.cycleFrom(O, Field);
    assert(!Cycle.empty() && "a slot being evaluated is on the stack");
    std::string Chain;
    for (const EvalFrame &Fr : Cycle)
      Chain += fieldPath(Fr.Obj, Fr.Field) + " -> ";
    Chain += fieldPath(O, Field);
    SMRange Where = F.From == spec::Origin::Default ? O->DeclRange : F.Loc;
    auto D = Diags.report<DiagID::err_reference_cycle>(at(Where), Chain);
    for (size_t I = 1; I < Cycle.size(); ++I)
      D.note<DiagID::note_reference_chain>(
          at(Cycle[I].Use), fieldPath(Cycle[I - 1].Obj, Cycle[I - 1].Field),
          fieldPath(Cycle[I].Obj, Cycle[I].Field));
    D.note<DiagID::note_reference_chain>(
        at(Use), fieldPath(Cycle.back().Obj, Cycle.back().Field),
        fieldPath(O, Field));
    for (const EvalFrame &Fr : Cycle)
      slot(Fr.Obj, Fr.Field).St = Slot::State::Failed;
    return false;
  }
  case Slot::State::Idle:
    break;
  }
  const FieldSpec &FS = *F.Spec;
  if (FS.Type.Kind == TypeKind::Struct) {
    Sl.St = Slot::State::Done;
    return true;
  }
  Sl.St = Slot::State::Evaluating;
  Trace.enter({O, Field, Use});
  bool IsDefault = F.From == spec::Origin::Default;
  if (IsDefault) {
    Defaults.enter(O);
    Diags.pushContextNote<DiagID::note_default_expr>(SMRange(), FS.Name,
                          FS.Default);
  }

  std::optional<Value> V;
  const SlotExtra *X = extraOf(Sl);
  if (Sl.Derive != Slot::DeriveKind::None && derive(O, Field, V)) {
    // Derive.cpp computed V (or reported why it could not).
  } else if (X && X->Constant) {
    V = *X->Constant;
  } else if (FS.Type.Kind == TypeKind::Ref && ((X && X->Refine) || !Sl.E)) {
    if (Object *Inline = makeInline(O, Field, Sl))
      V = Value::object(Inline);
  } else if (Sl.E) {
    V = eval(*Sl.E, O, &FS.Type);
    if (V && FS.Type.Kind == TypeKind::Ref && V->Kind == spec::ValueKind::Object &&
        V->Obj->IsEntity &&
        (V->Obj->Type == FS.Type.Struct ||
         (!FS.Type.Struct && V->Obj->Type->IsScenario))) {
      if (EntityInfo *EI = Entities.of(V->Obj))
        EI->Used = true;
      if (!checkComplete(V->Obj, at(Sl.E->getRange())))
        V.reset();
    }
  }
  SMRange Where = Sl.E ? Sl.E->getRange() : F.Loc;
  bool Ok = V && checkValue(FS, *V, at(Where), fieldPath(O, Field));
  if (IsDefault) {
    Diags.popContextNote();
    Defaults.leave();
  }
  Trace.leave();
  if (Sl.St == Slot::State::Failed) // a cycle through this slot
    return false;
  if (!Ok) {
    Sl.St = Slot::State::Failed;
    return false;
  }
  F.V = std::move(*V);
  Sl.St = Slot::State::Done;
  return true;
}

Object *Resolver::makeInline(Object *Owner, unsigned Field, const Slot &Sl) {
  const FieldSpec &FS = Owner->Type->Fields[Field];
  const StructSpec *Kind = FS.Type.Struct;
  Object *Base = nullptr;
  const SlotExtra *X = extraOf(Sl);
  if (Sl.E) {
    std::optional<Value> B = eval(*Sl.E, Owner, &FS.Type);
    if (!B)
      return nullptr;
    if (!Kind && B->Kind == spec::ValueKind::Object && B->Obj->IsEntity &&
        B->Obj->Type->IsScenario)
      Kind = B->Obj->Type; // any scenario: the one refined
    if (B->Kind != spec::ValueKind::Object || !B->Obj->IsEntity ||
        B->Obj->Type != Kind) {
      checkValue(FS, *B, at(Sl.E->getRange()), fieldPath(Owner, Field));
      return nullptr;
    }
    Base = B->Obj;
  } else if (X && X->RefineParent) {
    unsigned Consumed = 0;
    EntityInfo *P = findEntity(*X->RefineParent, Consumed);
    if (!P || Consumed != X->RefineParent->Parts.size() || !build(*P)) {
      if (!P)
        Diags.report<DiagID::err_undefined_name>(X->RefineParent->range(),
                     X->RefineParent->str(), "");
      return nullptr;
    }
    if (P->Type != Kind) {
      Diags.report<DiagID::err_wrong_entity_kind>(X->RefineParent->range(),
                   P->Obj->Name,
                   TypeSpec{TypeKind::Ref, Dimension(), nullptr, nullptr,
                            P->Type}
                       .describe(),
                   fieldPath(Owner, Field), FS.Type.describe());
      return nullptr;
    }
    P->Extended = true;
    Base = P->Obj;
  }
  if (!Kind) {
    // A block alone cannot say which kind of scenario it is.
    Diags.report<DiagID::err_type_mismatch>(at(Owner->Fields[Field].Loc),
                 fieldPath(Owner, Field), FS.Type.describe(), "a block");
    return nullptr;
  }
  const Object *Root = Owner;
  while (Root->Enclosing)
    Root = Root->Enclosing;
  SMRange Decl = X && X->Refine ? X->Refine->Range : Owner->Fields[Field].Loc;
  Object *O = newObject(Kind, fieldPath(Owner, Field), Decl, Owner->BufferID);
  O->IsEntity = true;
  O->IsAnonymous = true;
  O->Module = Owner->Module;
  if (Base) {
    O->Parent = Base;
    cloneInto(O, Base);
  }
  if (X && X->Refine)
    applyBlock(O, *X->Refine, nullptr);
  markDerivations(O, Base);
  applyDefaults(O);
  if (!checkComplete(O, Decl))
    return nullptr;
  evaluateAll(O);
  return O;
}

std::optional<Value> Resolver::fieldValue(Object *O, unsigned Field,
                                          SMRange Use, bool Through) {
  spec::Field &F = O->Fields[Field];
  if (!F.isSet()) {
    // A default that needs a missing required field: the missing field is
    // what gets reported (where the entity is used or declared).
    if (Defaults.evaluating() && F.Spec->Pres == Presence::Required)
      return std::nullopt;
    std::string Owner = O->IsEntity && !O->IsAnonymous
                            ? O->Type->Name + " '" + O->Name + "'"
                            : "'" + O->Name + "'";
    Diags.report<DiagID::err_field_unset>(at(Use), F.Spec->Name, Owner);
    return std::nullopt;
  }
  Trace.read({O, Field}, Through);
  if (!evaluateSlot(O, Field, Use))
    return std::nullopt;
  return F.V;
}

void Resolver::evaluateAll(Object *O) {
  for (unsigned I = 0; I < O->Fields.size(); ++I) {
    if (!O->Fields[I].isSet())
      continue;
    evaluateSlot(O, I, O->Fields[I].Loc);
    if (O->Fields[I].Spec->Type.Kind == TypeKind::Struct && O->Fields[I].V.Obj)
      evaluateAll(O->Fields[I].V.Obj);
  }
  if (O->Type->Name == "model" && FieldsChecked.insert(O).second)
    checkModelFields(*O);
  if (O->Type->Name == "network" && FieldsChecked.insert(O).second)
    checkNetworkFields(*O);
  if (O->Type->Name == "system" && FieldsChecked.insert(O).second)
    checkSystemFields(*O);
  if (O->Type->Name == "trend" && FieldsChecked.insert(O).second)
    checkTrendFields(*O);
}

void Resolver::checkTrendFields(const Object &T) {
  // A format for a quantity other than a peak would change nothing.
  const spec::Field *Precision = T.ifSet(TrendField::Precision);
  llvm::StringRef Quantity = spec::wordOf(T.ifSet(TrendField::Quantity));
  if (Precision && Precision->From == spec::Origin::File &&
      Quantity != ir::enumWord(ir::TrendQuantity::Peak))
    Diags.report<DiagID::err_trend_precision>(at(Precision->Loc), T.Name,
                                              Quantity);
}

void Resolver::checkSystemFields(const Object &S) {
  // A cost of owning written on a rented system, or the reverse, would
  // change nothing (inherited ones are the base's business).
  auto Written = [&](SystemField Field) -> const spec::Field * {
    const spec::Field *F = S.ifSet(Field);
    return F && F->From == spec::Origin::File ? F : nullptr;
  };
  llvm::StringRef Own = spec::wordOf(S.ifSet(SystemField::Ownership));
  bool Rent = Own == ir::enumWord(ir::Ownership::Rent);
  const spec::Field *Misplaced = Rent ? nullptr : Written(SystemField::Rent);
  if (Rent)
    for (SystemField Field : CostsOfOwning)
      if ((Misplaced = Written(Field)))
        break;
  if (Misplaced) {
    Diags.report<DiagID::err_system_ownership_field>(
        at(Misplaced->Loc), Misplaced->Spec->Name,
        Rent ? "owning" : "renting", S.Name, Own.empty() ? "own" : Own);
    return;
  }
  // Each fault once, on the system that writes it.
  const spec::Field *Ownership = Written(SystemField::Ownership);
  if (Rent && Ownership && !S.ifSet(SystemField::Rent))
    Diags.report<DiagID::err_system_cost_needs>(
        at(Ownership->Loc), "ownership = rent", S.Name,
        "rent, the price of a device-hour");
  const spec::Field *Facility = Written(SystemField::FacilityPrice);
  if (!Rent && Facility && !S.ifSet(SystemField::FacilityLifetime))
    Diags.report<DiagID::err_system_cost_needs>(
        at(Facility->Loc), "facility_price", S.Name,
        "facility_lifetime, the period it is amortised over");
}

void Resolver::checkNetworkFields(const Object &N) {
  // Fields of one topology, written on another, would change nothing.
  llvm::StringRef Topo = spec::wordOf(N.ifSet(NetworkField::Topology));
  auto Written = [&](NetworkField Field) -> const spec::Field * {
    return N.ifWritten(Field);
  };
  using ir::Topology;
  for (auto [Field, Wants] :
       {std::pair{NetworkField::Dimensions, Topology::Torus},
        std::pair{NetworkField::Oversubscription, Topology::FatTree},
        std::pair{NetworkField::LeafNodes, Topology::FatTree},
        std::pair{NetworkField::AlltoallLatency, Topology::Switch},
        std::pair{NetworkField::Reduction, Topology::Switch}})
    if (const spec::Field *F = Written(Field);
        F && Topo != ir::enumWord(Wants)) {
      Diags.report<DiagID::err_network_field_topology>(
          at(F->Loc), F->Spec->Name, ir::enumWord(Wants), N.Name,
          Topo.empty() ? "switch" : Topo);
      return;
    }
  const spec::Field *Over = Written(NetworkField::Oversubscription);
  const spec::Field *Leaf = Written(NetworkField::LeafNodes);
  bool Tapered = Over && Over->V.Num > 1;
  if (Tapered && !Leaf)
    Diags.report<DiagID::err_network_leaf>(at(Over->Loc), "oversubscription",
                                           N.Name, "leaf_nodes");
  else if (Leaf && !Tapered)
    Diags.report<DiagID::err_network_leaf>(at(Leaf->Loc), "leaf_nodes", N.Name,
                                           "oversubscription above 1");
}

void Resolver::checkModelFields(const Object &M) {
  // A layer pattern needs a window for the layers it does not make full.
  const spec::Field *Every = M.ifSet(ModelField::FullAttentionEvery);
  const spec::Field *Window = M.ifSet(ModelField::SlidingWindow);
  const spec::Field *Chunk = M.ifSet(ModelField::AttentionChunk);
  if (Every && !spec::numberOf(Window) && !spec::numberOf(Chunk))
    Diags.report<DiagID::err_full_attention_no_window>(at(Every->Loc), M.Name);
  // Every layer full: the window or chunk would change nothing.
  if (Every && spec::numberOf(Every, 0) == 1 &&
      (spec::numberOf(Window) || spec::numberOf(Chunk)))
    Diags.report<DiagID::err_full_attention_every_layer>(
        at(Every->Loc), M.Name,
        spec::numberOf(Window) ? "sliding_window" : "attention_chunk");
  // Query and key norms act on heads MLA does not have before its
  // up-projections.
  if (const spec::Field *Qk = M.ifSet(ModelField::QkNorm);
      Qk && Qk->V.Bool && spec::objectOf(M.ifSet(ModelField::Mla)))
    Diags.report<DiagID::err_qk_norm_mla>(at(Qk->Loc), M.Name);
  // A clamp of the two halves of a gated activation.
  if (const spec::Field *Clamp = M.ifSet(ModelField::GluClamp)) {
    // (Set: the schema's default fills an unwritten activation in.)
    llvm::StringRef Act = spec::wordOf(M.ifSet(ModelField::Activation));
    std::optional<ir::ActivationKind> Kind =
        ir::enumFromWord<ir::ActivationKind>(Act);
    if (Kind && !ir::gatedActivation(*Kind))
      Diags.report<DiagID::err_glu_clamp_not_gated>(at(Clamp->Loc), M.Name,
                                                    Act);
  }
  // A layer's attention is local one way.
  if (Window && Chunk)
    Diags.report<DiagID::err_window_and_chunk>(at(Chunk->Loc), M.Name);
  // A moe block needs a MoE layer to describe.
  if (const spec::Field *Block = M.ifSet(ModelField::Moe)) {
    double Layers = spec::numberOf(M.ifSet(ModelField::Layers), 0);
    const spec::Field *Dense = M.ifSet(ModelField::Moe, MoeField::DenseLayers);
    const spec::Field *MoeEvery = M.ifSet(ModelField::Moe, MoeField::Every);
    double D = spec::numberOf(Dense, 0), N = spec::numberOf(MoeEvery, 1);
    if (Layers > 0 && N >= 1 && std::floor((Layers - D) / N) < 1) {
      const spec::Field *At = MoeEvery && N > 1 ? MoeEvery
                              : Dense           ? Dense
                                                : Block;
      Diags.report<DiagID::err_moe_no_layer>(
          at(At->Loc), M.Name, spec::formatNumber(Layers),
          spec::formatNumber(D), spec::formatNumber(N));
    }
  }
  // The router's groups split the experts evenly, and a token's top_k
  // fit in the groups it may use.
  if (const spec::Field *Groups = M.ifSet(ModelField::Moe, MoeField::Groups)) {
    const spec::Field *GroupTopK =
        M.ifSet(ModelField::Moe, MoeField::GroupTopK);
    double E = spec::numberOf(M.ifSet(ModelField::Moe, MoeField::Experts), 0);
    double K = spec::numberOf(M.ifSet(ModelField::Moe, MoeField::TopK), 0);
    double G = spec::numberOf(Groups, 1);
    double Gk = spec::numberOf(GroupTopK, G);
    auto Num = [](double V) { return spec::formatNumber(V); };
    if (E > 0 && std::fmod(E, G) != 0)
      Diags.report<DiagID::err_moe_groups_uneven>(at(Groups->Loc), Num(G),
                                                  Num(E), M.Name);
    else if (GroupTopK && Gk > G)
      Diags.report<DiagID::err_moe_group_top_k_over>(at(GroupTopK->Loc),
                                                     Num(Gk), Num(G), M.Name);
    else if (GroupTopK && E > 0 && K > Gk * E / G)
      Diags.report<DiagID::err_moe_group_top_k_small>(
          at(GroupTopK->Loc), Num(Gk), Num(E / G), Num(K), M.Name);
    else if (G > 1 && Gk >= G)
      Diags.report<DiagID::err_moe_groups_unlimited>(at(Groups->Loc), Num(G),
                                                     M.Name);
  }
  // A parallel block is modelled for dense layers.
  const spec::Field *Parallel = M.ifSet(ModelField::ParallelBlock);
  if (Parallel &&
      spec::wordOf(Parallel) != ir::enumWord(ir::ParallelBlock::None) &&
      spec::objectOf(M.ifSet(ModelField::Moe)))
    Diags.report<DiagID::err_parallel_block_moe>(at(Parallel->Loc), M.Name);
  // Multi-token prediction needs a next token to predict.
  const spec::Field *Mtp = M.ifSet(ModelField::MtpLayers);
  if (Mtp && Mtp->V.Num > 0 &&
      spec::wordOf(M.ifSet(ModelField::Kind)) ==
          ir::enumWord(ir::ModelKind::Encoder))
    Diags.report<DiagID::err_mtp_encoder>(at(Mtp->Loc), M.Name);
}

std::optional<Value> Resolver::evalName(const ast::NameExpr &E, Object *Self,
                                        const TypeSpec *Expected) {
  const ast::DottedName &N = E.Name;
  const ast::Ident &First = N.Parts[0];
  if (N.Parts.size() == 1 && Expected && Expected->Kind == TypeKind::Enum &&
      Expected->Enum->contains(First.Name))
    return Value::enumWord(First.Name.str());

  std::optional<Value> Cur;
  size_t Next = 1;
  bool Found = false;
  for (Object *O = Self; O && !Found; O = O->Enclosing) {
    int Idx = O->Type->findField(First.Name);
    if (Idx < 0)
      continue;
    Found = true;
    Cur = fieldValue(O, Idx, First.Range, /*Through=*/N.Parts.size() > 1);
    if (!Cur)
      return std::nullopt;
  }
  if (!Found) {
    unsigned Consumed = 0;
    if (EntityInfo *EI = findEntity(N, Consumed)) {
      Object *O = build(*EI);
      if (!O)
        return std::nullopt;
      EI->Used = true;
      Cur = Value::object(O);
      Next = Consumed;
      Found = true;
    }
  }
  if (!Found) {
    if (Expected && Expected->Kind == TypeKind::Enum) {
      Diags.report<DiagID::err_unknown_enum>(at(First.Range), First.Name,
                   Expected->Enum->Name, currentField(),
                   didYouMean(First.Name, Expected->Enum->Words))
          .note<DiagID::note_enum_values>(SMRange(),
                [&] {
                  std::string L;
                  for (const std::string &W : Expected->Enum->Words)
                    L += (L.empty() ? "" : ", ") + W;
                  return L;
                }());
      return std::nullopt;
    }
    std::vector<std::string> Candidates;
    for (Object *O = Self; O; O = O->Enclosing)
      for (const FieldSpec &F : O->Type->Fields)
        Candidates.push_back(F.Name);
    for (std::string &Name :
         Entities.names([](const EntityInfo &) { return true; }))
      Candidates.push_back(std::move(Name));
    std::sort(Candidates.begin() + 0, Candidates.end());
    std::string Shown = First.Name == "std" ? N.str() : First.Name.str();
    Diags.report<DiagID::err_undefined_name>(at(First.Name == "std"
                                                    ? N.range()
                                                    : First.Range),
                 Shown,
                 First.Name == "std"
                     ? std::string("; is its module imported?")
                     : didYouMean(First.Name, Candidates));
    return std::nullopt;
  }
  for (; Next < N.Parts.size(); ++Next) {
    const ast::Ident &Part = N.Parts[Next];
    if (Cur->Kind != spec::ValueKind::Object) {
      Diags.report<DiagID::err_member_of_non_object>(at(Part.Range),
                   N.Parts[Next - 1].Name, Cur->describe());
      return std::nullopt;
    }
    Object *O = Cur->Obj;
    int Idx = O->Type->findField(Part.Name);
    if (Idx < 0) {
      Diags.report<DiagID::err_no_such_member>(at(Part.Range), O->Name,
                   Part.Name, didYouMean(Part.Name, O->Type->fieldNames()));
      return std::nullopt;
    }
    Cur = fieldValue(O, Idx, Part.Range,
                     /*Through=*/Next + 1 < N.Parts.size());
    if (!Cur)
      return std::nullopt;
  }
  return Cur;
}

static bool isNumber(const Value &V) {
  return V.Kind == spec::ValueKind::Number;
}

std::optional<Value> Resolver::evalBinary(const ast::BinaryExpr &E,
                                          Object *Self) {
  using ast::BinaryOp;
  if (E.Op == BinaryOp::In) {
    std::optional<Value> L = eval(*E.LHS, Self, nullptr);
    if (!L)
      return std::nullopt;
    if (const auto *R = dyn_cast<ast::RangeExpr>(E.RHS)) {
      if (!R->Step) {
        std::optional<Value> Lo = eval(*R->Lo, Self, nullptr);
        std::optional<Value> Hi = eval(*R->Hi, Self, nullptr);
        if (!Lo || !Hi)
          return std::nullopt;
        for (const Value *B : {&*Lo, &*Hi})
          if (!isNumber(*L) || !isNumber(*B) || B->Dim != L->Dim) {
            Diags.report<DiagID::err_dimension_compare>(at(E.getRange()),
                         L->describe(), B->describe());
            return std::nullopt;
          }
        return Value::boolean(L->Num >= Lo->Num && L->Num <= Hi->Num);
      }
    }
    std::optional<Value> R = eval(*E.RHS, Self, nullptr);
    if (!R)
      return std::nullopt;
    if (R->Kind != spec::ValueKind::List) {
      Diags.report<DiagID::err_operand_type>(at(E.RHS->getRange()), "in",
                   "a list or a range", R->describe());
      return std::nullopt;
    }
    for (const Value &X : R->elems())
      if (spec::sameValue(X, *L))
        return Value::boolean(true);
    return Value::boolean(false);
  }

  // `recompute == none`: a bare word compared with an enum value is a word.
  auto BareWord = [&](const ast::Expr &X) -> std::optional<std::string> {
    const auto *N = dyn_cast<ast::NameExpr>(&X);
    if (!N || N->Name.Parts.size() != 1)
      return std::nullopt;
    StringRef W = N->Name.Parts[0].Name;
    for (Object *O = Self; O; O = O->Enclosing)
      if (O->Type->findField(W) >= 0)
        return std::nullopt;
    if (Entities.contains(W))
      return std::nullopt;
    return W.str();
  };
  std::optional<Value> L, R;
  bool Equality = E.Op == BinaryOp::Eq || E.Op == BinaryOp::Ne;
  std::optional<std::string> LWord = Equality ? BareWord(*E.LHS) : std::nullopt;
  std::optional<std::string> RWord = Equality ? BareWord(*E.RHS) : std::nullopt;
  if (LWord && !RWord) {
    R = eval(*E.RHS, Self, nullptr);
    if (R && R->Kind == spec::ValueKind::Enum)
      L = Value::enumWord(*LWord);
    else if (R)
      L = eval(*E.LHS, Self, nullptr);
  } else {
    L = eval(*E.LHS, Self, nullptr);
    if (RWord && L && L->Kind == spec::ValueKind::Enum)
      R = Value::enumWord(*RWord);
    else if (L)
      R = eval(*E.RHS, Self, nullptr);
  }
  if (!L || !R)
    return std::nullopt;

  if (E.Op == BinaryOp::And || E.Op == BinaryOp::Or) {
    for (const Value *V : {&*L, &*R})
      if (V->Kind != spec::ValueKind::Bool) {
        Diags.report<DiagID::err_operand_type>(at(E.OpRange),
                     spelling(E.Op), "true or false", V->describe());
        return std::nullopt;
      }
    return Value::boolean(E.Op == BinaryOp::And ? (L->Bool && R->Bool)
                                                : (L->Bool || R->Bool));
  }

  // (`in` was evaluated above.)
  std::optional<spec::Compare> Cmp = compareOf(E.Op);
  bool Compare = Cmp.has_value();
  if (Compare && (E.Op == BinaryOp::Eq || E.Op == BinaryOp::Ne) &&
      !(isNumber(*L) && isNumber(*R))) {
    if (L->Kind != R->Kind) {
      Diags.report<DiagID::err_dimension_compare>(at(E.getRange()),
                   L->describe(), R->describe());
      return std::nullopt;
    }
    bool Equal = spec::sameValue(*L, *R);
    return Value::boolean(E.Op == BinaryOp::Eq ? Equal : !Equal);
  }
  for (const Value *V : {&*L, &*R})
    if (!isNumber(*V)) {
      Diags.report<DiagID::err_operand_type>(at(E.OpRange), spelling(E.Op),
                   "numbers", V->describe());
      return std::nullopt;
    }
  if (Compare) {
    if (L->Dim != R->Dim) {
      Diags.report<DiagID::err_dimension_compare>(at(E.getRange()),
                   L->Dim.describe(), R->Dim.describe());
      return std::nullopt;
    }
    return Value::boolean(spec::compareHolds(*Cmp, L->Num, R->Num));
  }
  // The dimension of the result, checked here; its number by spec::arith,
  // as a sweep point computes it.
  spec::Arith A = spec::Arith::Add;
  Dimension D;
  switch (E.Op) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
    if (L->Dim != R->Dim) {
      Diags.report<DiagID::err_dimension_add>(at(E.OpRange),
                   E.Op == BinaryOp::Add ? "add" : "subtract",
                   L->Dim.describe(), R->Dim.describe());
      return std::nullopt;
    }
    A = E.Op == BinaryOp::Add ? spec::Arith::Add : spec::Arith::Sub;
    D = L->Dim;
    break;
  case BinaryOp::Mul:
    if (!L->Dim.canMultiply(R->Dim)) {
      Diags.report<DiagID::err_dimension_exponent>(
          at(E.getRange()), "product", Dimension::MaxExponent,
          L->Dim.describe(), R->Dim.describe());
      return std::nullopt;
    }
    A = spec::Arith::Mul;
    D = L->Dim * R->Dim;
    break;
  case BinaryOp::Div:
    if (R->Num == 0) {
      Diags.report<DiagID::err_division_by_zero>(at(E.OpRange));
      return std::nullopt;
    }
    if (!L->Dim.canDivide(R->Dim)) {
      Diags.report<DiagID::err_dimension_exponent>(
          at(E.getRange()), "quotient", Dimension::MaxExponent,
          L->Dim.describe(), R->Dim.describe());
      return std::nullopt;
    }
    A = spec::Arith::Div;
    D = L->Dim / R->Dim;
    break;
  default:
    llvm_unreachable("comparison handled above");
  }
  std::optional<double> V = spec::arith(A, L->Num, R->Num);
  if (!V) {
    Diags.report<DiagID::err_arith_overflow>(at(E.getRange()));
    return std::nullopt;
  }
  return Value::number(*V, D);
}

std::optional<Value> Resolver::evalCall(const ast::CallExpr &E, Object *Self) {
  StringRef F = E.Callee.Name;
  static const std::vector<std::string> Known = {"min", "max", "ceil",
                                                 "floor", "round"};
  if (!is_contained(Known, F.str())) {
    Diags.report<DiagID::err_unknown_function>(at(E.Callee.Range), F,
                 didYouMean(F, Known));
    return std::nullopt;
  }
  std::vector<Value> Args;
  for (const ast::Expr *A : E.Args) {
    std::optional<Value> V = eval(*A, Self, nullptr);
    if (!V)
      return std::nullopt;
    if (!isNumber(*V)) {
      Diags.report<DiagID::err_function_arg>(at(A->getRange()), F, "a number");
      return std::nullopt;
    }
    Args.push_back(*V);
  }
  if (F == "min" || F == "max") {
    if (Args.empty()) {
      Diags.report<DiagID::err_function_arity>(at(E.getRange()), F,
                   "at least 1", "", 0);
      return std::nullopt;
    }
    Value Best = Args[0];
    for (const Value &A : Args) {
      if (A.Dim != Best.Dim) {
        Diags.report<DiagID::err_dimension_compare>(at(E.getRange()),
                     Best.Dim.describe(), A.Dim.describe());
        return std::nullopt;
      }
      Best.Num = *spec::arith(F == "min" ? spec::Arith::Min : spec::Arith::Max,
                              Best.Num, A.Num);
    }
    return Best;
  }
  if (Args.size() != 1) {
    Diags.report<DiagID::err_function_arity>(at(E.getRange()), F, 1, "",
                 Args.size());
    return std::nullopt;
  }
  if (!Args[0].Dim.isDimensionless()) {
    Diags.report<DiagID::err_function_arg>(at(E.Args[0]->getRange()), F,
                 "a dimensionless number");
    return std::nullopt;
  }
  spec::Arith A = F == "ceil"    ? spec::Arith::Ceil
                  : F == "floor" ? spec::Arith::Floor
                                 : spec::Arith::Round;
  return Value::number(*spec::arith(A, Args[0].Num));
}

std::optional<Value> Resolver::evalRange(const ast::RangeExpr &E, Object *Self,
                                         const TypeSpec *Elem) {
  constexpr size_t MaxValues = 1000000;
  std::optional<Value> Lo = eval(*E.Lo, Self, nullptr);
  std::optional<Value> Hi = eval(*E.Hi, Self, nullptr);
  if (!Lo || !Hi)
    return std::nullopt;
  if (!isNumber(*Lo) || !isNumber(*Hi) || Lo->Dim != Hi->Dim) {
    Diags.report<DiagID::err_dimension_compare>(at(E.getRange()),
                 Lo->describe(), Hi->describe());
    return std::nullopt;
  }
  double Step = 1;
  if (E.Step) {
    std::optional<Value> St = eval(*E.Step, Self, nullptr);
    if (!St)
      return std::nullopt;
    if (!isNumber(*St) ||
        (E.Geometric ? !St->Dim.isDimensionless() : St->Dim != Lo->Dim) ||
        (E.Geometric ? St->Num <= 1 : St->Num <= 0)) {
      Diags.report<DiagID::err_range_step>(at(E.Step->getRange()),
                   E.Geometric ? "a dimensionless factor above 1"
                               : "positive, in the range's unit");
      return std::nullopt;
    }
    Step = St->Num;
  } else if (!Lo->Dim.isDimensionless()) {
    Diags.report<DiagID::err_range_step>(at(E.getRange()),
                 "given for a range of quantities ('step 1 GB')");
    return std::nullopt;
  }
  if (E.Geometric && Lo->Num <= 0) {
    Diags.report<DiagID::err_range_step>(at(E.Lo->getRange()),
                 "used from a positive start when it multiplies");
    return std::nullopt;
  }
  std::vector<Value> Values;
  double Tol = 1e-9 * std::max(std::fabs(Hi->Num), 1.0);
  for (unsigned I = 0;; ++I) {
    double X = E.Geometric ? Lo->Num * std::pow(Step, I) : Lo->Num + I * Step;
    if (X > Hi->Num + Tol)
      break;
    if (Values.size() == MaxValues) {
      Diags.report<DiagID::err_range_too_large>(at(E.getRange()),
                   spec::formatNumber(Lo->Num), spec::formatNumber(Hi->Num),
                   MaxValues);
      return std::nullopt;
    }
    Values.push_back(Value::number(X, Lo->Dim));
  }
  (void)Elem;
  return Value::list(std::move(Values));
}

std::optional<Value> Resolver::eval(const ast::Expr &E, Object *Self,
                                    const TypeSpec *Expected) {
  switch (E.getKind()) {
  case ast::Expr::Kind::Number:
    return evalNumber(cast<ast::NumberExpr>(E), Expected);
  case ast::Expr::Kind::String:
    return Value::string(cast<ast::StringExpr>(E).Value.str());
  case ast::Expr::Kind::Bool:
    return Value::boolean(cast<ast::BoolExpr>(E).Value);
  case ast::Expr::Kind::Name:
    return evalName(cast<ast::NameExpr>(E), Self, Expected);
  case ast::Expr::Kind::Call:
    return evalCall(cast<ast::CallExpr>(E), Self);
  case ast::Expr::Kind::List: {
    const TypeSpec *Elem =
        Expected && Expected->Kind == TypeKind::List ? Expected->Elem : Expected;
    std::vector<Value> Elems;
    bool Ok = true;
    for (const ast::Expr *X : cast<ast::ListExpr>(E).Elements) {
      std::optional<Value> V = eval(*X, Self, Elem);
      if (!V)
        Ok = false;
      else
        Elems.push_back(std::move(*V));
    }
    if (!Ok)
      return std::nullopt;
    return Value::list(std::move(Elems));
  }
  case ast::Expr::Kind::Unary: {
    const auto &U = cast<ast::UnaryExpr>(E);
    std::optional<Value> V = eval(*U.Operand, Self, nullptr);
    if (!V)
      return std::nullopt;
    if (U.Op == ast::UnaryOp::Not) {
      if (V->Kind != spec::ValueKind::Bool) {
        Diags.report<DiagID::err_operand_type>(at(SMRange(U.OpLoc, U.OpLoc)),
                     "not", "true or false", V->describe());
        return std::nullopt;
      }
      V->Bool = !V->Bool;
      return V;
    }
    if (!isNumber(*V)) {
      Diags.report<DiagID::err_operand_type>(at(SMRange(U.OpLoc, U.OpLoc)),
                   spelling(U.Op), "a number", V->describe());
      return std::nullopt;
    }
    if (U.Op == ast::UnaryOp::Neg)
      V->Num = *spec::arith(spec::Arith::Neg, V->Num);
    return V;
  }
  case ast::Expr::Kind::Binary:
    return evalBinary(cast<ast::BinaryExpr>(E), Self);
  case ast::Expr::Kind::Range: {
    const TypeSpec *Elem =
        Expected && Expected->Kind == TypeKind::List ? Expected->Elem : Expected;
    return evalRange(cast<ast::RangeExpr>(E), Self, Elem);
  }
  }
  llvm_unreachable("unknown expression kind");
}

} // namespace sema
} // namespace llmsys
