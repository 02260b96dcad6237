//===- Features.cpp - what the language server answers ----------------------===//

#include "Lsp/Features.h"

#include "IR/Schema.h"
#include "IR/Spec.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <functional>

using namespace llvm;

namespace llmsys {
namespace lsp {

static bool isWordChar(char C) {
  return isAlnum(C) || C == '_';
}

std::pair<size_t, size_t> wordAt(StringRef Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  size_t B = Offset, E = Offset;
  while (B > 0 && isWordChar(Text[B - 1]))
    --B;
  while (E < Text.size() && isWordChar(Text[E]))
    ++E;
  return {B, E};
}

/// Every object an entity of the spec holds: the entity, its nested blocks
/// and the anonymous entities written inline in it, each once.
static void forEachObject(const spec::Spec &S,
                          function_ref<void(const spec::Object &)> Visit) {
  SmallPtrSet<const spec::Object *, 32> Seen;
  std::function<void(const spec::Object &)> Walk =
      [&](const spec::Object &O) {
        if (!Seen.insert(&O).second)
          return;
        Visit(O);
        for (const spec::Field &F : O.Fields)
          if (F.V.Kind == spec::ValueKind::Object && F.V.Obj &&
              (F.V.Obj->Enclosing == &O || F.V.Obj->IsAnonymous))
            Walk(*F.V.Obj);
      };
  for (const spec::Object *O : S.Entities)
    Walk(*O);
}

static const char *bufferStart(const Analysis &A) {
  return A.C->SM.getMemoryBuffer(A.Buffer)->getBufferStart();
}

static std::string origin(const spec::Field &F) {
  switch (F.From) {
  case spec::Origin::File:
    return "written";
  case spec::Origin::Inherited:
    return F.InheritedFrom
               ? "inherited from `" + F.InheritedFrom->Name + "`"
               : std::string("inherited");
  case spec::Origin::Derived:
    return F.derivation().empty() ? std::string("derived")
                                  : "derived: " + F.derivation().str();
  case spec::Origin::Default:
    return F.Spec->Default.empty() ? std::string("default")
                                   : "default: `" + F.Spec->Default + "`";
  case spec::Origin::Unset:
    break;
  }
  return "not set";
}

/// "file.llmsys:12" for an object's declaration.
static std::string declaredAt(const Analysis &A, const spec::Object &O) {
  if (!O.DeclRange.Start.isValid())
    return "";
  const SourceMgr &SM = A.C->SM;
  unsigned Buf = SM.FindBufferContainingLoc(O.DeclRange.Start);
  if (!Buf)
    return "";
  std::string Where = O.Module.empty()
                          ? sys::path::filename(SM.getMemoryBuffer(Buf)
                                                    ->getBufferIdentifier())
                                .str()
                          : O.Module;
  return Where + ":" +
         std::to_string(SM.getLineAndColumn(O.DeclRange.Start, Buf).first);
}

static std::string entityHover(const Analysis &A, const spec::Object &O) {
  std::string S = "**" + O.Type->Name + "** `" + O.Name + "`";
  std::string At = declaredAt(A, O);
  if (!At.empty())
    S += " (" + At + ")";
  if (O.Parent)
    S += ", extends `" + O.Parent->Name + "`";
  S += "\n\n" + O.Type->Doc + "\n\n```llmsys\n";
  unsigned Shown = 0, Written = 0;
  for (const spec::Field &F : O.Fields)
    if (F.From == spec::Origin::File || F.From == spec::Origin::Inherited) {
      ++Written;
      if (Shown++ < 16)
        S += F.Spec->Name + " = " + spec::formatValue(F.V) + "\n";
    }
  S += "```";
  if (Written > Shown)
    S += formatv("\n\n({0} more fields)", Written - Shown).str();
  return S;
}

std::optional<std::string> hover(const Analysis &A, StringRef Text,
                                 size_t Offset) {
  auto [B, E] = wordAt(Text, Offset);
  if (B == E)
    return std::nullopt;
  StringRef Word = Text.slice(B, E);
  if (A.Resolved) {
    // A field written here.
    const char *Start = bufferStart(A);
    const spec::Object *Owner = nullptr;
    const spec::Field *Written = nullptr;
    forEachObject(A.C->Spec, [&](const spec::Object &O) {
      if (Written)
        return;
      for (const spec::Field &F : O.Fields) {
        const char *P = F.Loc.Start.getPointer();
        if (F.From == spec::Origin::File && P >= Start + B && P < Start + E &&
            F.Spec->Name == Word) {
          Owner = &O;
          Written = &F;
          return;
        }
      }
    });
    if (Written) {
      std::string S = "**" + Written->Spec->Name + "** of " +
                      Owner->Type->Name + " `" + Owner->Name + "`: `" +
                      spec::formatValue(Written->V) + "` (" +
                      origin(*Written) + ")\n\n" +
                      Written->Spec->Type.describe();
      if (!Written->Spec->Doc.empty())
        S += ": " + Written->Spec->Doc;
      return S;
    }
    if (const spec::Object *O = A.C->Spec.lookup(Word))
      return entityHover(A, *O);
  }
  const Schema &Sch = Schema::get();
  if (const StructSpec *K = Sch.entity(Word))
    return "**" + K->Name + "** (an entity kind): " + K->Doc;
  for (const EnumSpec *En : Sch.enums())
    if (En->contains(Word))
      return "`" + Word.str() + "`: a value of " + En->Name +
             (En->Doc.empty() ? "" : " (" + En->Doc + ")") + ": " +
             join(En->Words, ", ");
  return std::nullopt;
}

/// The file an import line names, resolved as the compilation did: the
/// buffer whose stdlib module or relative path matches.
static std::optional<Location> importTarget(const Analysis &A, StringRef Line) {
  Line = Line.trim();
  if (!Line.consume_front("import"))
    return std::nullopt;
  Line = Line.trim();
  const SourceMgr &SM = A.C->SM;
  std::string Want;
  if (Line.consume_front("\"")) {
    StringRef Rel = Line.take_until([](char C) { return C == '"'; });
    SmallString<256> P(sys::path::parent_path(A.C->Sources.realPath(A.Buffer)));
    sys::path::append(P, Rel);
    sys::fs::make_absolute(P);
    sys::path::remove_dots(P, true);
    Want = std::string(P.str());
  } else {
    // std.models.gpt -> .../models/gpt.llmsys under the stdlib.
    StringRef Mod = Line.take_while(
        [](char C) { return isWordChar(C) || C == '.'; });
    if (!Mod.consume_front("std."))
      return std::nullopt;
    SmallString<256> P(A.C->options().StdlibDir);
    sys::fs::make_absolute(P);
    SmallVector<StringRef, 4> Parts;
    Mod.split(Parts, '.');
    for (StringRef Part : Parts)
      sys::path::append(P, Part);
    P += ".llmsys";
    sys::path::remove_dots(P, true);
    Want = std::string(P.str());
  }
  for (unsigned I = 1; I <= SM.getNumBuffers(); ++I) {
    SmallString<256> Id(A.C->Sources.realPath(I));
    sys::fs::make_absolute(Id);
    sys::path::remove_dots(Id, true);
    if (Id == Want) {
      Location L;
      L.Path = Want;
      L.FileText = SM.getMemoryBuffer(I)->getBuffer().str();
      return L;
    }
  }
  return std::nullopt;
}

std::optional<Location> definition(const Analysis &A, StringRef Text,
                                   size_t Offset) {
  if (!A.Resolved)
    return std::nullopt;
  size_t LineStart = Text.rfind('\n', std::min(Offset, Text.size()));
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  StringRef Line = Text.substr(LineStart).take_until(
      [](char C) { return C == '\n'; });
  if (Line.trim().startswith("import "))
    return importTarget(A, Line);
  auto [B, E] = wordAt(Text, Offset);
  if (B == E)
    return std::nullopt;
  const spec::Object *O = A.C->Spec.lookup(Text.slice(B, E));
  if (!O || !O->DeclRange.Start.isValid())
    return std::nullopt;
  const SourceMgr &SM = A.C->SM;
  unsigned Buf = SM.FindBufferContainingLoc(O->DeclRange.Start);
  if (!Buf)
    return std::nullopt;
  const MemoryBuffer *MB = SM.getMemoryBuffer(Buf);
  Location L;
  SmallString<256> Real(A.C->Sources.realPath(Buf));
  sys::fs::make_absolute(Real);
  sys::path::remove_dots(Real, true);
  L.Path = std::string(Real.str());
  L.Begin = O->DeclRange.Start.getPointer() - MB->getBufferStart();
  L.End = O->DeclRange.End.isValid()
              ? O->DeclRange.End.getPointer() - MB->getBufferStart()
              : L.Begin;
  L.FileText = MB->getBuffer().str();
  return L;
}

namespace {
/// The blocks open at the cursor, outermost first: the words before each
/// `{` ("model x extends y", "hbm", "mapping = m3d", "schedule =
/// interleaved_1f1b"). Comments and strings are skipped.
std::vector<std::string> openBlocks(StringRef Text) {
  std::vector<std::string> Stack;
  size_t HeaderStart = 0;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '/') {
      I = std::min(Text.size(), Text.find('\n', I));
      HeaderStart = I + 1;
      continue;
    }
    if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '*') {
      size_t End = Text.find("*/", I + 2);
      I = End == StringRef::npos ? Text.size() : End + 1;
      continue;
    }
    if (C == '"') {
      size_t End = Text.find('"', I + 1);
      I = End == StringRef::npos ? Text.size() : End;
      continue;
    }
    if (C == '{') {
      Stack.push_back(Text.slice(HeaderStart, I).trim().str());
      HeaderStart = I + 1;
    } else if (C == '}') {
      if (!Stack.empty())
        Stack.pop_back();
      HeaderStart = I + 1;
    } else if (C == ';' || C == '\n') {
      HeaderStart = I + 1;
    }
  }
  return Stack;
}

/// The struct a block header opens inside Outer (null at the top level
/// for an entity header): `hbm`, `mapping = m3d`, `mapping`, `a.b`.
const StructSpec *blockStruct(const StructSpec *Outer, StringRef Header,
                              const spec::Spec *S) {
  SmallVector<StringRef, 6> Words;
  Header.split(Words, ' ', -1, false);
  if (Words.empty())
    return nullptr;
  if (!Outer) {
    // KIND NAME ... (a sweep's members are paths into its scenario).
    if (Words[0] == "sweep") {
      for (size_t I = 0; I + 1 < Words.size(); ++I)
        if (Words[I] == "over" && S)
          if (const spec::Object *Sc = S->lookup(Words[I + 1]))
            return Sc->Type;
      return nullptr;
    }
    return Schema::get().entity(Words[0]);
  }
  const StructSpec *Cur = Outer;
  SmallVector<StringRef, 4> Path;
  Words[0].split(Path, '.');
  for (StringRef P : Path) {
    int I = Cur->findField(P);
    if (I < 0)
      return nullptr;
    const TypeSpec &T = Cur->Fields[I].Type;
    if (!T.Struct)
      return nullptr;
    Cur = T.Struct;
  }
  return Cur;
}
} // namespace

std::vector<Completion> complete(const Analysis &A, StringRef Text,
                                 size_t Offset) {
  Offset = std::min(Offset, Text.size());
  StringRef Before = Text.take_front(Offset);
  const spec::Spec *S = A.Resolved ? &A.C->Spec : nullptr;
  std::vector<std::string> Blocks = openBlocks(Before);
  const StructSpec *Cur = nullptr;
  bool Known = true;
  for (size_t I = 0; I < Blocks.size() && Known; ++I) {
    Cur = blockStruct(I ? Cur : nullptr, Blocks[I], S);
    Known = Cur != nullptr;
  }
  std::vector<Completion> R;
  if (!Known)
    return R;
  // The member being written: from the last `{`, `;` or line start.
  size_t MemberStart = Before.find_last_of("{;\n");
  StringRef Member = Before.substr(
      MemberStart == StringRef::npos ? 0 : MemberStart + 1);
  StringRef LHS, RHS;
  bool AfterEquals = false;
  if (size_t Eq = Member.find('='); Eq != StringRef::npos) {
    LHS = Member.take_front(Eq).trim();
    RHS = Member.drop_front(Eq + 1);
    AfterEquals = true;
  }
  if (!Cur) {
    if (AfterEquals)
      return R;
    for (const StructSpec *K : Schema::get().entities())
      R.push_back({K->Name, Completion::Keyword, "entity kind", K->Doc});
    for (const char *K : {"import", "expect", "sweep", "measurement", "trend"})
      if (!Schema::get().entity(K))
        R.push_back({K, Completion::Keyword, "keyword", ""});
    return R;
  }
  if (!AfterEquals) {
    for (const FieldSpec &F : Cur->Fields)
      R.push_back({F.Name, Completion::Field, F.Type.describe(), F.Doc});
    return R;
  }
  // FIELD = ...: the values the field takes.
  if (RHS.contains(' ') && !RHS.trim().empty() &&
      RHS.trim().find(' ') != StringRef::npos)
    return R; // past the value
  const StructSpec *Owner = Cur;
  SmallVector<StringRef, 4> Path;
  LHS.split(Path, '.');
  const FieldSpec *Field = nullptr;
  for (size_t I = 0; I < Path.size(); ++I) {
    int Idx = Owner ? Owner->findField(Path[I]) : -1;
    if (Idx < 0)
      return R;
    Field = &Owner->Fields[Idx];
    Owner = Field->Type.Struct;
  }
  const TypeSpec *T = &Field->Type;
  if (T->Kind == TypeKind::List && T->Elem)
    T = T->Elem;
  switch (T->Kind) {
  case TypeKind::Enum:
    for (const std::string &W : T->Enum->Words)
      R.push_back({W, Completion::Value, T->Enum->Name, T->Enum->Doc});
    break;
  case TypeKind::Bool:
    for (const char *W : {"true", "false"})
      R.push_back({W, Completion::Value, "bool", ""});
    break;
  case TypeKind::Ref:
  case TypeKind::Struct:
    if (S && T->Struct)
      for (const spec::Object *O : S->Entities)
        if (O->Type == T->Struct)
          R.push_back({O->Name, Completion::Entity, O->Type->Name,
                       declaredAt(A, *O)});
    break;
  default:
    break;
  }
  return R;
}

} // namespace lsp
} // namespace llmsys
