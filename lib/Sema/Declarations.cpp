//===- Declarations.cpp - entities, extends, blocks, defaults --------------===//

#include "Sema/SemaImpl.h"

#include "Basic/Suggest.h"
#include "Parse/Parser.h"
#include "Sema/HFConfig.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace llmsys {
namespace sema {

static const char *articleFor(StringRef Word) {
  return !Word.empty() && StringRef("aeiou").contains(Word[0]) ? "an" : "a";
}

void Resolver::declare(const ast::File &F) {
  for (const ast::EntityDecl *D : F.Entities) {
    const StructSpec *Type = Schema::get().entity(D->KindWord.Name);
    if (!Type) {
      Diags.report<DiagID::err_unknown_entity_kind>(D->KindWord.Range,
                   D->KindWord.Name,
                   didYouMean(D->KindWord.Name,
                              Schema::get().entityKindNames()));
      continue;
    }
    const EntityInfo *Previous = nullptr;
    if (!Entities.declare(*D, Type, Previous))
      Diags.report<DiagID::err_redefinition>(D->Name.Range, D->Name.Name)
          .note<DiagID::note_previous_definition>(Previous->Decl->Name.Range);
  }
  for (const ast::ExpectDecl *X : F.Expects)
    Expects.push_back(X);
}

Object *Resolver::newObject(const StructSpec *Type, std::string Name,
                            SMRange Range, unsigned Buffer) {
  Object *O = S.create();
  O->Type = Type;
  O->Name = std::move(Name);
  O->DeclRange = Range;
  O->BufferID = Buffer;
  O->Fields.resize(Type->Fields.size());
  for (size_t I = 0; I < Type->Fields.size(); ++I)
    O->Fields[I].Spec = &Type->Fields[I];
  Slots.allocate(O, Type->Fields.size());
  return O;
}

static const Object *rootEntity(const Object *O) {
  while (O->Enclosing)
    O = O->Enclosing;
  return O;
}

void Resolver::cloneInto(Object *Dst, const Object *Src) {
  for (size_t I = 0; I < Src->Fields.size(); ++I) {
    const spec::Field &From = Src->Fields[I];
    if (!From.isSet())
      continue;
    spec::Field &To = Dst->Fields[I];
    To.From = From.From;
    To.Loc = From.Loc;
    To.InheritedFrom = From.InheritedFrom;
    if (From.From == spec::Origin::File) {
      To.From = spec::Origin::Inherited;
      To.InheritedFrom = rootEntity(Src);
    }
    if (From.Spec->Type.Kind == TypeKind::Struct) {
      Object *N = newObject(From.V.Obj->Type, Dst->Name + "." + From.Spec->Name,
                            From.V.Obj->DeclRange, Dst->BufferID);
      N->Enclosing = Dst;
      cloneInto(N, From.V.Obj);
      To.V = Value::object(N);
    }
    Slot &ToSlot = slot(Dst, I);
    ToSlot = slot(Src, I);
    ToSlot.St = Slot::State::Idle;
    if (ToSlot.Extra) {
      // The deque keeps the source's extra in place while one is added.
      const SlotExtra &Theirs = *extraOf(ToSlot);
      ToSlot.Extra = 0;
      extraFor(ToSlot) = Theirs;
    }
  }
}

EntityInfo *Resolver::findEntity(const ast::DottedName &N, unsigned &Consumed) {
  if (EntityInfo *EI = Entities.find(N.Parts[0].Name)) {
    Consumed = 1;
    return EI;
  }
  // std.a.b.Name: an entity of a loaded stdlib module.
  if (N.Parts[0].Name != "std")
    return nullptr;
  std::string Module = "std";
  for (size_t K = 1; K + 1 < N.Parts.size(); ++K) {
    Module += "." + N.Parts[K].Name.str();
    EntityInfo *E = Entities.find(N.Parts[K + 1].Name);
    if (E && E->Decl &&
        Sources.moduleName(SM.FindBufferContainingLoc(E->Decl->Range.Start)) ==
            Module) {
      Consumed = static_cast<unsigned>(K + 2);
      return E;
    }
  }
  return nullptr;
}

Object *Resolver::build(EntityInfo &EI) {
  switch (EI.St) {
  case EntityInfo::State::Built:
    return EI.Obj;
  case EntityInfo::State::Failed:
    return nullptr;
  case EntityInfo::State::Building: {
    // A cycle of `extends`: name it from where it starts.
    std::string Chain;
    auto Start = std::find(ExtendsStack.begin(), ExtendsStack.end(), &EI);
    for (auto It = Start; It != ExtendsStack.end(); ++It)
      Chain += (*It)->Decl->Name.Name.str() + " extends ";
    Chain += EI.Decl->Name.Name.str();
    Diags.report<DiagID::err_extends_cycle>(EI.Decl->Parent->range(), Chain);
    for (auto It = Start; It != ExtendsStack.end(); ++It)
      (*It)->St = EntityInfo::State::Failed;
    return nullptr;
  }
  case EntityInfo::State::Unbuilt:
    break;
  }
  const ast::EntityDecl &D = *EI.Decl;
  EI.St = EntityInfo::State::Building;
  ExtendsStack.push_back(&EI);
  unsigned Buffer = SM.FindBufferContainingLoc(D.Range.Start);
  Object *O = newObject(EI.Type, D.Name.Name.str(), D.Name.Range, Buffer);
  O->IsEntity = true;
  O->Module = Sources.moduleName(Buffer);
  Entities.bind(O, &EI);
  bool Ok = true;
  Object *ParentObj = nullptr;
  if (D.Parent) {
    unsigned Consumed = 0;
    EntityInfo *P = findEntity(*D.Parent, Consumed);
    if (!P || Consumed != D.Parent->Parts.size()) {
      std::vector<std::string> Names = Entities.names(
          [&](const EntityInfo &E) { return E.Type == EI.Type; });
      Diags.report<DiagID::err_undefined_name>(D.Parent->range(),
                   D.Parent->str(), didYouMean(D.Parent->str(), Names));
      Ok = false;
    } else {
      P->Extended = true;
      Object *PO = build(*P);
      if (EI.St == EntityInfo::State::Failed) {
        ExtendsStack.pop_back();
        return nullptr;
      }
      if (!PO) {
        Ok = false;
      } else if (P->Type != EI.Type) {
        Diags.report<DiagID::err_extends_kind>(D.Parent->range(),
                     EI.Type->Name, D.Name.Name, P->Type->Name,
                     PO->Name)
            .note<DiagID::note_entity_declared>(PO->DeclRange, PO->Name);
        Ok = false;
      } else {
        O->Parent = PO;
        ParentObj = PO;
        cloneInto(O, PO);
      }
    }
  }
  if (D.Over && EI.Type->Name != "sweep") {
    Diags.report<DiagID::err_over_not_sweep>(D.Over->range(), EI.Type->Name,
                 D.Name.Name);
    Ok = false;
  }
  // `= hf_config(...)` first; the block then overrides, as after `extends`.
  if (D.Init && !applyInitializer(O, EI))
    Ok = false;
  if (D.Body)
    applyBlock(O, *D.Body, EI.Type->Name == "sweep" ? &EI : nullptr);
  markDerivations(O, ParentObj);
  applyDefaults(O);
  ExtendsStack.pop_back();
  EI.Obj = O;
  EI.St = Ok ? EntityInfo::State::Built : EntityInfo::State::Failed;
  return Ok ? O : nullptr;
}

bool Resolver::applyInitializer(Object *O, const EntityInfo &EI) {
  const ast::EntityDecl &D = *EI.Decl;
  const ast::Expr &Init = *D.Init;
  const auto *Call = dyn_cast<ast::CallExpr>(&Init);
  if (!Call || Call->Callee.Name != "hf_config") {
    std::string Hint;
    if (Call)
      Hint = didYouMean(Call->Callee.Name, {std::string("hf_config")});
    else if (const auto *N = dyn_cast<ast::NameExpr>(&Init))
      Hint = "; to start from '" + N->Name.str() + "', write '" +
             D.KindWord.Name.str() + " " + D.Name.Name.str() + " extends " +
             N->Name.str() + " { ... }'";
    Diags.report<DiagID::err_entity_init_form>(Init.getRange(), Hint);
    return false;
  }
  if (EI.Type->Name != "model") {
    Diags.report<DiagID::err_entity_init_kind>(Init.getRange(), EI.Type->Name,
                 D.Name.Name);
    return false;
  }
  if (Call->Args.size() != 1) {
    Diags.report<DiagID::err_function_arity>(Init.getRange(), "hf_config", 1,
                 "", Call->Args.size());
    return false;
  }
  const auto *PathArg = dyn_cast<ast::StringExpr>(Call->Args[0]);
  if (!PathArg) {
    Diags.report<DiagID::err_function_arg>(Call->Args[0]->getRange(),
                 "hf_config", "a string: the path of a config.json");
    return false;
  }
  // Relative to the file that names it, like an import.
  SmallString<256> Path;
  StringRef From = Sources.realPath(O->BufferID);
  if (!sys::path::is_absolute(PathArg->Value) && !From.empty())
    Path = sys::path::parent_path(From);
  sys::path::append(Path, PathArg->Value);

  SMRange Where = Init.getRange();
  std::optional<std::vector<HFField>> Fields =
      importHFConfig(Path, PathArg->Value, Where, Diags);
  if (!Fields)
    return false;
  for (HFField &F : *Fields) {
    // "moe.experts": the block first, then its field.
    Object *Obj = O;
    StringRef Rest = F.Path;
    while (true) {
      auto [Head, Tail] = Rest.split('.');
      int Idx = Obj->Type->findField(Head);
      assert(Idx >= 0 && "hf_config maps to a field the schema lacks");
      if (Tail.empty()) {
        spec::Field &Fld = Obj->Fields[Idx];
        Fld.From = spec::Origin::File;
        Fld.Loc = Where;
        Fld.InheritedFrom = nullptr;
        Slot &Sl = slot(Obj, Idx);
        Sl = Slot();
        extraFor(Sl).Constant = std::move(F.V);
        break;
      }
      Obj = nested(Obj, static_cast<unsigned>(Idx), Where);
      Rest = Tail;
    }
  }
  return true;
}

Object *Resolver::nested(Object *O, unsigned Field, SMRange Range) {
  spec::Field &F = O->Fields[Field];
  if (F.isSet() && F.V.Obj)
    return F.V.Obj;
  Object *N = newObject(F.Spec->Type.Struct, O->Name + "." + F.Spec->Name,
                        Range, O->BufferID);
  N->Enclosing = O;
  F.V = Value::object(N);
  F.From = spec::Origin::File;
  F.Loc = Range;
  return N;
}

namespace {
/// Remembers which fields a block set, to diagnose a field set twice.
struct AssignedSet {
  std::vector<std::tuple<const Object *, unsigned, SMRange>> Seen;
  bool add(const Object *O, unsigned F, SMRange R, DiagnosticEngine &Diags,
           StringRef Name) {
    for (const auto &[SO, SF, SR] : Seen)
      if (SO == O && SF == F) {
        Diags.report<DiagID::err_duplicate_field>(R, Name)
            .note<DiagID::note_previous_assignment>(SR);
        return false;
      }
    Seen.emplace_back(O, F, R);
    return true;
  }
};
} // namespace

void Resolver::applyBlock(Object *O, const ast::Block &B, EntityInfo *Sweep) {
  AssignedSet Assigned;
  // Walks a dotted path to the object and field it names, creating nested
  // blocks on the way.
  auto Target = [&](const ast::DottedName &Path, Object *&Obj,
                    unsigned &Field) -> bool {
    Obj = O;
    for (size_t I = 0; I < Path.Parts.size(); ++I) {
      const ast::Ident &Part = Path.Parts[I];
      int Idx = Obj->Type->findField(Part.Name);
      if (Idx < 0) {
        std::string What =
            Obj->IsEntity
                ? Obj->Type->Name + " '" + Obj->Name + "'"
                : std::string(articleFor(Obj->Type->Name)) + " " +
                      Obj->Type->Name + " block";
        Diags.report<DiagID::err_unknown_field>(Part.Range, What, Part.Name,
                     didYouMean(Part.Name, Obj->Type->fieldNames()));
        return false;
      }
      if (I + 1 == Path.Parts.size()) {
        Field = static_cast<unsigned>(Idx);
        return true;
      }
      const FieldSpec &FS = Obj->Type->Fields[Idx];
      if (FS.Type.Kind != TypeKind::Struct) {
        Diags.report<DiagID::err_not_a_block_field>(Part.Range, Part.Name,
                     FS.Type.describe());
        return false;
      }
      Obj = nested(Obj, Idx, Part.Range);
    }
    return false;
  };
  auto SetSlot = [&](Object *Obj, unsigned Field, SMRange R,
                     const ast::Expr *E, const ast::Block *Refine,
                     const ast::DottedName *RefineParent) {
    spec::Field &F = Obj->Fields[Field];
    F.From = spec::Origin::File;
    F.Loc = R;
    F.InheritedFrom = nullptr;
    F.V = Value();
    Slot &Sl = slot(Obj, Field);
    Sl = Slot();
    Sl.E = E;
    if (Refine || RefineParent) {
      SlotExtra &X = extraFor(Sl);
      X.Refine = Refine;
      X.RefineParent = RefineParent;
    }
  };

  for (const ast::Member *M : B.Members) {
    switch (M->getKind()) {
    case ast::Member::Kind::Assign: {
      const auto &A = cast<ast::AssignMember>(*M);
      Object *Obj;
      unsigned Field;
      if (!Target(A.Path, Obj, Field))
        break;
      const FieldSpec &FS = Obj->Type->Fields[Field];
      SMRange R = A.Path.range();
      if (!Assigned.add(Obj, Field, R, Diags, A.Path.str()))
        break;
      if (FS.Type.Kind == TypeKind::Struct) {
        const StructSpec *St = FS.Type.Struct;
        // The value sets the block's word (`schedule = 1f1b`) or the entity
        // it is made from (`hbm = HBM4 { stacks = 8 }`).
        int ValueField = St->TagField >= 0 ? St->TagField : St->SourceField;
        if (A.Value && ValueField < 0) {
          Diags.report<DiagID::err_block_field_needs_block>(A.Value->getRange(),
                       FS.Name, FS.Type.describe(), FS.Name);
          break;
        }
        Object *N = nested(Obj, Field, R);
        Obj->Fields[Field].Loc = R;
        Obj->Fields[Field].From = spec::Origin::File;
        if (A.Value)
          SetSlot(N, ValueField, A.Value->getRange(), A.Value, nullptr,
                  nullptr);
        if (A.Refine)
          applyBlock(N, *A.Refine, nullptr);
        break;
      }
      if (A.Refine && FS.Type.Kind != TypeKind::Ref) {
        Diags.report<DiagID::err_block_on_scalar>(A.Refine->Range,
                     FS.Type.describe());
        break;
      }
      SetSlot(Obj, Field, R, A.Value, A.Refine, nullptr);
      break;
    }
    case ast::Member::Kind::Block: {
      const auto &BM = cast<ast::BlockMember>(*M);
      Object *Obj;
      unsigned Field;
      if (!Target(BM.Path, Obj, Field))
        break;
      const FieldSpec &FS = Obj->Type->Fields[Field];
      SMRange R = BM.Path.range();
      if (FS.Type.Kind == TypeKind::Struct && !BM.Parent) {
        if (!Assigned.add(Obj, Field, R, Diags, BM.Path.str()))
          break;
        Object *N = nested(Obj, Field, R);
        Obj->Fields[Field].Loc = R;
        Obj->Fields[Field].From = spec::Origin::File;
        applyBlock(N, *BM.Body, nullptr);
        break;
      }
      if (FS.Type.Kind != TypeKind::Ref) {
        Diags.report<DiagID::err_not_a_block_field>(R, BM.Path.str(),
                     FS.Type.describe());
        break;
      }
      if (!Assigned.add(Obj, Field, R, Diags, BM.Path.str()))
        break;
      SetSlot(Obj, Field, R, nullptr, BM.Body, BM.Parent);
      break;
    }
    case ast::Member::Kind::Bound: {
      const auto &BM = cast<ast::BoundMember>(*M);
      Object *Obj;
      unsigned Field;
      if (!Target(BM.Path, Obj, Field))
        break;
      const FieldSpec &FS = Obj->Type->Fields[Field];
      if (!Obj->Type->IsLimits) {
        Diags.report<DiagID::err_member_not_in_struct>(M->getRange(),
                     spelling(BM.Op), Obj->Type->Name);
        break;
      }
      if (FS.BoundOp != spelling(BM.Op)) {
        Diags.report<DiagID::err_bound_direction>(M->getRange(), FS.Name,
                     FS.Name, FS.BoundOp);
        break;
      }
      if (!Assigned.add(Obj, Field, BM.Path.range(), Diags, BM.Path.str()))
        break;
      SetSlot(Obj, Field, BM.Path.range(), BM.Value, nullptr, nullptr);
      break;
    }
    case ast::Member::Kind::Axis:
    case ast::Member::Kind::Where:
    case ast::Member::Kind::Objective:
    case ast::Member::Kind::Pareto:
    case ast::Member::Kind::Keep:
      if (!Sweep) {
        StringRef What = M->getKind() == ast::Member::Kind::Axis ? "in"
                         : M->getKind() == ast::Member::Kind::Where ? "where"
                         : M->getKind() == ast::Member::Kind::Keep  ? "keep"
                         : M->getKind() == ast::Member::Kind::Pareto
                             ? "pareto"
                             : (cast<ast::ObjectiveMember>(M)->Maximize
                                    ? "maximize"
                                    : "minimize");
        Diags.report<DiagID::err_member_not_in_sweep>(M->getRange(), What);
      }
      break; // Sweep members are read by resolveSweep.
    }
  }
}

void Resolver::applyDefaults(Object *O) {
  for (size_t I = 0; I < O->Fields.size(); ++I) {
    spec::Field &F = O->Fields[I];
    const FieldSpec &FS = *F.Spec;
    if (FS.Type.Kind == TypeKind::Struct) {
      if (!F.isSet() && FS.Pres == Presence::Default) {
        Object *N = nested(O, I, O->DeclRange);
        F.From = spec::Origin::Default;
        if (FS.Type.Struct->TagField >= 0) {
          spec::Field &Tag = N->Fields[FS.Type.Struct->TagField];
          Tag.From = spec::Origin::Default;
          slot(N, FS.Type.Struct->TagField).E = Defaults.of(FS);
        }
      }
      if (F.isSet())
        applyDefaults(F.V.Obj);
      continue;
    }
    if (F.isSet() || FS.Pres != Presence::Default)
      continue;
    F.From = spec::Origin::Default;
    Slot &Sl = slot(O, I);
    Sl = Slot();
    Sl.E = Defaults.of(FS);
  }
}

void Resolver::missingFields(const Object *O, const std::string &Prefix,
                             std::vector<std::string> &Out) {
  for (const spec::Field &F : O->Fields) {
    if (!F.isSet()) {
      if (F.Spec->Pres == Presence::Required)
        Out.push_back(Prefix + F.Spec->Name);
      continue;
    }
    if (F.Spec->Type.Kind == TypeKind::Struct && F.V.Obj)
      missingFields(F.V.Obj, Prefix + F.Spec->Name + ".", Out);
  }
}

bool Resolver::checkComplete(const Object *O, SMRange Use) {
  std::vector<std::string> Missing;
  missingFields(O, "", Missing);
  if (Missing.empty())
    return true;
  if (!ReportedIncomplete.insert(O).second)
    return false;
  std::string List;
  for (size_t I = 0; I < Missing.size(); ++I)
    List += (I ? ", '" : "'") + Missing[I] + "'";
  SMRange Where = Use.Start.isValid() ? Use : O->DeclRange;
  auto D = Diags.report<DiagID::err_incomplete_entity>(Where, O->Type->Name,
                        O->Name, Missing.size() == 1 ? "" : "s", List);
  if (Where.Start.getPointer() != O->DeclRange.Start.getPointer())
    D.note<DiagID::note_entity_declared>(O->DeclRange, O->Name);
  return false;
}

} // namespace sema
} // namespace llmsys
