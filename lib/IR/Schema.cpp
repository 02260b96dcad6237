//===- Schema.cpp - every entity kind, field and figure ---------------------===//
//
// The schema built from its tables: enumerations, entity and block kinds
// and their fields from Schema.def, figures from Figures.def. Defaults
// there are structural (kv_heads = heads) or conventional (1-way
// parallelism); hardware and model numbers live in stdlib/ with their
// sources.
//
//===----------------------------------------------------------------------===//

#include "IR/Schema.h"
#include "IR/Scenario.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <optional>

using namespace llvm;

namespace llmsys {

bool EnumSpec::contains(StringRef W) const {
  return llvm::is_contained(Words, W);
}

int StructSpec::findField(StringRef N) const {
  // Sweeps read a mapping's fields by name at every point: the size and
  // first letter rule out most fields before the names are compared.
  if (N.empty())
    return -1;
  for (size_t I = 0; I < Fields.size(); ++I) {
    const std::string &F = Fields[I].Name;
    if (F.size() == N.size() && F[0] == N[0] && StringRef(F) == N)
      return static_cast<int>(I);
  }
  return -1;
}

const FigureSpec *StructSpec::findFigure(StringRef N) const {
  for (const FigureSpec &F : Figures)
    if (F.Name == N)
      return &F;
  return nullptr;
}

std::vector<std::string> StructSpec::fieldNames() const {
  std::vector<std::string> Names;
  for (const FieldSpec &F : Fields)
    Names.push_back(F.Name);
  return Names;
}

static std::string article(StringRef Word) {
  bool Vowel = !Word.empty() && StringRef("aeiou").contains(Word[0]);
  return (Vowel ? "an " : "a ") + Word.str();
}

std::string TypeSpec::describe() const {
  switch (Kind) {
  case TypeKind::Quantity:
    return AnyDimension ? "a number with a unit" : Dim.describe();
  case TypeKind::Number:
    return "a dimensionless number";
  case TypeKind::Integer:
    return "a whole number";
  case TypeKind::Bool:
    return "true or false";
  case TypeKind::String:
    return "a string";
  case TypeKind::Enum:
    return article(Enum->Name);
  case TypeKind::List:
    return "a list of " + Elem->describe();
  case TypeKind::Ref:
    return Struct ? article(Struct->Name) : "a train or serve scenario";
  case TypeKind::Struct:
    return article(Struct->Name) + " block";
  }
  llvm_unreachable("unknown type kind");
}

bool isWholeNumber(double X) {
  return std::fabs(X - std::round(X)) <= 1e-9 * std::max(1.0, std::fabs(X));
}

bool FieldSpec::counted() const {
  const TypeSpec &T = Type.Kind == TypeKind::List ? *Type.Elem : Type;
  return T.Kind == TypeKind::Integer ||
         (T.Kind == TypeKind::Quantity && !T.AnyDimension &&
          T.Dim == dims::tokens());
}

double FieldSpec::mostValue() const {
  if (!counted())
    return std::numeric_limits<double>::infinity();
  return Most > 0 ? Most : MaxCount;
}

bool FieldSpec::meetsConstraint(double X) const {
  switch (Check) {
  case Constraint::None: return true;
  case Constraint::Positive: return X > 0;
  case Constraint::NonNegative: return X >= 0;
  case Constraint::Range: return X >= Min && X <= Max;
  }
  return true;
}

namespace {
/// One of a field's attributes in Schema.def.
struct FieldAttr {
  enum Kind { Positive, NonNegative, Range, AtMost, Bound, Tag, Source, DocOnly };
  Kind K;
  double Lo = 0, Hi = 0;
  const char *Text = "";
};

enum class StructKind { Entity, Scenario, Block, Limits };
} // namespace

/// Builds the schema from Schema.def.
class SchemaBuilder {
public:
  explicit SchemaBuilder(Schema &S) : S(S) {}

  const EnumSpec *enumType(EnumID Id, StringRef Name,
                           std::vector<std::string> Words, StringRef Doc) {
    auto E = std::make_unique<EnumSpec>();
    E->Name = Name.str();
    E->Words = std::move(Words);
    E->Doc = Doc.str();
    S.Enums.push_back(E.get());
    S.EnumsById[size_t(Id)] = E.get();
    S.EnumStorage.push_back(std::move(E));
    return S.EnumStorage.back().get();
  }

  void structType(StructID Id, StructKind K, StringRef Name, StringRef Doc) {
    auto St = std::make_unique<StructSpec>();
    St->Id = Id;
    St->Name = Name.str();
    St->Doc = Doc.str();
    St->IsEntity = K == StructKind::Entity || K == StructKind::Scenario;
    St->IsScenario = K == StructKind::Scenario;
    St->IsLimits = K == StructKind::Limits;
    (St->IsEntity ? S.Entities : S.Blocks).push_back(St.get());
    S.Structs[size_t(Id)] = St.get();
    S.StructStorage.push_back(std::move(St));
  }

  // Types.
  TypeSpec qty(Dimension D) {
    TypeSpec T = simple(TypeKind::Quantity);
    T.Dim = D;
    return T;
  }
  TypeSpec anyQty() {
    TypeSpec T = simple(TypeKind::Quantity);
    T.AnyDimension = true;
    return T;
  }
  TypeSpec number() { return simple(TypeKind::Number); }
  TypeSpec integer() { return simple(TypeKind::Integer); }
  TypeSpec boolean() { return simple(TypeKind::Bool); }
  TypeSpec string() { return simple(TypeKind::String); }
  TypeSpec enumOf(EnumID E) {
    TypeSpec T = simple(TypeKind::Enum);
    T.Enum = &S.of(E);
    return T;
  }
  TypeSpec listOf(TypeSpec Elem) {
    S.TypeStorage.push_back(std::make_unique<TypeSpec>(Elem));
    TypeSpec T = simple(TypeKind::List);
    T.Elem = S.TypeStorage.back().get();
    return T;
  }
  /// A reference to an entity; none: any train or serve scenario.
  TypeSpec ref(std::optional<StructID> Entity) {
    TypeSpec T = simple(TypeKind::Ref);
    T.Struct = Entity ? &S.of(*Entity) : nullptr;
    return T;
  }
  TypeSpec nested(StructID Block) {
    TypeSpec T = simple(TypeKind::Struct);
    T.Struct = &S.of(Block);
    return T;
  }

  void field(StructID Id, StringRef Name, TypeSpec T, Presence P,
             StringRef Default, std::initializer_list<FieldAttr> Attrs,
             FieldRead Read, StringRef Doc) {
    StructSpec &St = *S.StructStorage[structIndex(Id)];
    FieldSpec F;
    F.Name = Name.str();
    F.Type = T;
    F.Pres = P;
    F.Default = Default.str();
    F.Doc = Doc.str();
    F.Read = Read;
    // A count of something: at least one unless its attributes say.
    if (T.Kind == TypeKind::Integer)
      F.Check = Constraint::Positive;
    int Index = static_cast<int>(St.Fields.size());
    for (const FieldAttr &A : Attrs) {
      switch (A.K) {
      case FieldAttr::Positive:
        F.Check = Constraint::Positive;
        break;
      case FieldAttr::NonNegative:
        F.Check = Constraint::NonNegative;
        break;
      case FieldAttr::Range:
        F.Check = Constraint::Range;
        F.Min = A.Lo;
        F.Max = A.Hi;
        break;
      case FieldAttr::AtMost:
        F.Most = A.Hi;
        break;
      case FieldAttr::Bound:
        F.BoundOp = A.Text;
        break;
      case FieldAttr::Tag:
        St.TagField = Index;
        break;
      case FieldAttr::Source:
        St.SourceField = Index;
        break;
      case FieldAttr::DocOnly:
        F.DocOnly = A.Text;
        break;
      }
    }
    St.Fields.push_back(std::move(F));
  }

  void figure(StructID Id, const ir::FigureInfo &F, TypeSpec T) {
    S.StructStorage[structIndex(Id)]->Figures.push_back(
        FigureSpec{F.Name.str(), T, F.Doc.str(), &F});
  }

  /// Whether a field, or one that the entity or block it holds has at any
  /// depth, is read by a pass building the operators.
  void markReachesBuild() {
    for (auto &St : S.StructStorage)
      for (FieldSpec &F : St->Fields)
        F.ReachesBuild = reachesBuild(F, 0);
  }

private:
  /// Structs are built in the order of their identifiers.
  size_t structIndex(StructID Id) {
    assert(S.StructStorage[size_t(Id)].get() == &S.of(Id));
    return size_t(Id);
  }
  static bool reachesBuild(const FieldSpec &F, unsigned Depth) {
    if (F.Read == FieldRead::Build)
      return true;
    const TypeSpec *T = &F.Type;
    while (T->Kind == TypeKind::List)
      T = T->Elem;
    if (T->Kind != TypeKind::Ref && T->Kind != TypeKind::Struct)
      return false;
    // Any scenario (a measurement's), or deeper than the schema nests:
    // taken to be read.
    if (!T->Struct || Depth > 16)
      return true;
    for (const FieldSpec &G : T->Struct->Fields)
      if (reachesBuild(G, Depth + 1))
        return true;
    return false;
  }
  TypeSpec simple(TypeKind K) {
    TypeSpec T;
    T.Kind = K;
    return T;
  }

  Schema &S;
};

/// The words of an enumeration of IR/Enums.def.
template <typename E> static std::vector<std::string> wordsOf() {
  std::vector<std::string> Out;
  for (StringRef W : ir::enumWords<E>())
    Out.push_back(W.str());
  return Out;
}

/// The figure words of `measurement`: every figure, those of train first
/// (as the scenario kinds list them), each once.
static std::vector<std::string> figureWords() {
  std::vector<std::string> Words;
  for (bool Training : {true, false})
    for (const ir::FigureInfo &F : ir::figures())
      if (F.Training == Training && !llvm::is_contained(Words, F.Name))
        Words.push_back(F.Name.str());
  return Words;
}

Schema::Schema() {
  SchemaBuilder B(*this);
  using namespace dims;

#define WORDS(...) std::vector<std::string>{__VA_ARGS__}
#define WORDS_OF(E) wordsOf<ir::E>()
#define FIGURE_WORDS figureWords()
#define ENUM(Id, Name, Words, Doc) B.enumType(EnumID::Id, Name, Words, Doc);
#include "IR/Schema.def"
#undef WORDS
#undef WORDS_OF
#undef FIGURE_WORDS

#define STRUCT(Id, Kind, Name, Doc)                                            \
  B.structType(StructID::Id, StructKind::Kind, Name, Doc);
#define ENTITY Entity
#define SCENARIO Scenario
#define BLOCK Block
#define LIMITS Limits
#include "IR/Schema.def"
#undef ENTITY
#undef SCENARIO
#undef BLOCK
#undef LIMITS

#define QTY(D) B.qty(D)
#define ANY_QTY B.anyQty()
#define NUMBER B.number()
#define INTEGER B.integer()
#define BOOL B.boolean()
#define STRING B.string()
#define ENUM_OF(E) B.enumOf(EnumID::E)
#define LIST_OF(T) B.listOf(T)
#define REF_TO(S) B.ref(StructID::S)
#define ANY_SCENARIO B.ref(std::nullopt)
#define NESTED(S) B.nested(StructID::S)
#define REQUIRED Presence::Required, ""
#define OPTIONAL Presence::Optional, ""
#define DEFAULT(E) Presence::Default, E
#define POSITIVE FieldAttr{FieldAttr::Positive}
#define NON_NEGATIVE FieldAttr{FieldAttr::NonNegative}
#define RANGE(Lo, Hi) FieldAttr{FieldAttr::Range, Lo, Hi}
#define AT_MOST(N) FieldAttr{FieldAttr::AtMost, 0, N}
#define BOUND(Op) FieldAttr{FieldAttr::Bound, 0, 0, Op}
#define TAG FieldAttr{FieldAttr::Tag}
#define SOURCE FieldAttr{FieldAttr::Source}
#define DOC_ONLY(Why) FieldAttr{FieldAttr::DocOnly, 0, 0, Why}
#define BUILD FieldRead::Build
#define LAYOUT FieldRead::Layout
#define LLMSYS_UNPAREN(...) __VA_ARGS__
#define FIELD(Struct, Id, Name, Type, Presence, Attrs, Read, Doc)              \
  B.field(StructID::Struct, Name, Type, Presence, {LLMSYS_UNPAREN Attrs},      \
          Read, Doc);
#include "IR/Schema.def"
#undef QTY
#undef ANY_QTY
#undef NUMBER
#undef INTEGER
#undef BOOL
#undef STRING
#undef ENUM_OF
#undef LIST_OF
#undef REF_TO
#undef ANY_SCENARIO
#undef NESTED
#undef REQUIRED
#undef OPTIONAL
#undef DEFAULT
#undef POSITIVE
#undef NON_NEGATIVE
#undef RANGE
#undef AT_MOST
#undef BOUND
#undef TAG
#undef SOURCE
#undef DOC_ONLY
#undef BUILD
#undef LAYOUT
#undef LLMSYS_UNPAREN
  B.markReachesBuild();

  // The figures of each scenario kind (Figures.def).
  auto FigureType = [&](ir::FigureType T) {
    switch (T) {
    case ir::FigureType::Time: return B.qty(time());
    case ir::FigureType::TokenRate: return B.qty(tokenRate());
    case ir::FigureType::OpsRate: return B.qty(opsRate());
    case ir::FigureType::Number: return B.number();
    case ir::FigureType::Count: return B.integer();
    case ir::FigureType::Bool: return B.boolean();
    case ir::FigureType::Bytes: return B.qty(bytes());
    case ir::FigureType::Energy: return B.qty(energy());
    case ir::FigureType::EnergyPerToken: return B.qty(energy() / tokens());
    case ir::FigureType::Power: return B.qty(power());
    case ir::FigureType::Currency: return B.qty(currency());
    case ir::FigureType::CurrencyPerToken: return B.qty(currency() / tokens());
    case ir::FigureType::Frequency: return B.qty(frequency());
    }
    llvm_unreachable("unknown figure type");
  };
  for (const ir::FigureInfo &F : ir::figures())
    B.figure(F.Training ? StructID::Train : StructID::Serve, F,
             FigureType(F.Type));
}

const Schema &Schema::get() {
  static const Schema S;
  return S;
}

const StructSpec *Schema::entity(StringRef Kind) const {
  for (const StructSpec *E : Entities)
    if (E->Name == Kind)
      return E;
  return nullptr;
}

std::vector<std::string> Schema::entityKindNames() const {
  std::vector<std::string> Names;
  for (const StructSpec *E : Entities)
    Names.push_back(E->Name);
  return Names;
}

static void printFields(raw_ostream &OS, const StructSpec &St) {
  if (St.Fields.empty())
    return;
  OS << "| field | type | required / default | read by | meaning |\n";
  OS << "| --- | --- | --- | --- | --- |\n";
  for (const FieldSpec &F : St.Fields) {
    OS << "| `" << F.Name << "` | " << F.Type.describe();
    switch (F.Check) {
    case Constraint::Positive:
      OS << ", > 0";
      break;
    case Constraint::NonNegative:
      OS << ", >= 0";
      break;
    case Constraint::Range:
      OS << ", " << spec::formatNumber(F.Min) << " .. "
         << spec::formatNumber(F.Max);
      break;
    case Constraint::None:
      break;
    }
    if (F.Check != Constraint::Range && std::isfinite(F.mostValue()))
      OS << ", <= " << spec::formatNumber(F.mostValue());
    OS << " | ";
    switch (F.Pres) {
    case Presence::Required:
      OS << "required";
      break;
    case Presence::Optional:
      OS << "optional";
      break;
    case Presence::Default:
      OS << "`" << F.Default << "`";
      break;
    }
    if (!F.BoundOp.empty())
      OS << " (written `" << F.Name << " " << F.BoundOp << " value`)";
    OS << " | " << (F.Read == FieldRead::Build ? "build" : "layout");
    OS << " | " << F.Doc;
    if (!F.DocOnly.empty())
      OS << " (documentation only: " << F.DocOnly << ")";
    OS << " |\n";
  }
  OS << "\n";
}

void Schema::printMarkdown(raw_ostream &OS) const {
  OS << "# Schema of .llmsys entities\n\n"
     << "Generated by `llmsys schema` from lib/IR/Schema.def and "
        "lib/IR/Figures.def; do not edit.\n"
     << "A test checks that this file matches the tool.\n\n";
  OS << "Read by: `build`, the passes that build the operators "
        "(expand-layers, adapt, fuse, recompute) may read the field, so a "
        "sweep over it builds them again at each value; `layout`, only "
        "`partition` and what comes after it read it, so a sweep over it "
        "reuses the operators (`llmsys-opt --passes`, docs/passes.md). A "
        "sweep over an entity or block reuses them when every field it "
        "holds is `layout`.\n\n";
  OS << "## Entities\n\n";
  for (const StructSpec *E : Entities) {
    OS << "### `" << E->Name << "` — " << E->Doc << "\n\n";
    printFields(OS, *E);
    if (!E->Figures.empty()) {
      OS << "Figures (by name in `expect`, `where` and sweep objectives; by "
            "key in JSON, CSV and Markdown; `diff --fail-if` takes either; "
            "better: the direction a Pareto front ranks by):\n\n"
         << "| figure | key | type | better | meaning |\n"
         << "| --- | --- | --- | --- | --- |\n";
      for (const FigureSpec &F : E->Figures)
        OS << "| `" << F.Name << "` | `" << F.key() << "` | "
           << F.Type.describe() << " | "
           << (F.Info->HigherIsBetter ? "higher" : "lower") << " | " << F.Doc
           << " |\n";
      OS << "\n";
    }
  }
  OS << "## Blocks\n\n";
  for (const StructSpec *B : Blocks) {
    OS << "### `" << B->Name << "` — " << B->Doc << "\n\n";
    printFields(OS, *B);
  }
  OS << "## Enumerations\n\n| name | words | meaning |\n| --- | --- | --- |\n";
  for (const EnumSpec *E : Enums) {
    OS << "| " << E->Name << " | ";
    for (size_t I = 0; I < E->Words.size(); ++I)
      OS << (I ? ", " : "") << "`" << E->Words[I] << "`";
    OS << " | " << E->Doc << " |\n";
  }
}

} // namespace llmsys
