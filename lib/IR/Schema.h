//===- Schema.h - every entity kind, field and figure, in one place -*- C++ -*-===//
//
// The schema is what the checker (lib/Sema), the documentation
// (docs/schema.md is generated from it by `llmsys schema`) and `--help` read.
// Each field has a type (a dimension, whole number, enum, reference, nested
// block, ...), whether it is required or has a default (an expression,
// evaluated in the entity that uses it, so `ffn` defaults to 4 * hidden of
// the model at hand), and its meaning.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_IR_SCHEMA_H
#define LLMSYS_IR_SCHEMA_H

#include "Basic/Units.h"
#include "IR/Figures.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llmsys {

struct StructSpec;

/// The entity and block kinds of Schema.def.
enum class StructID : uint8_t {
#define STRUCT(Id, Kind, Name, Doc) Id,
#include "IR/Schema.def"
};
constexpr size_t NumStructs = 0
#define STRUCT(Id, Kind, Name, Doc) +1
#include "IR/Schema.def"
    ;

/// The enumerations of Schema.def.
enum class EnumID : uint8_t {
#define ENUM(Id, Name, Words, Doc) Id,
#include "IR/Schema.def"
};
constexpr size_t NumEnums = 0
#define ENUM(Id, Name, Words, Doc) +1
#include "IR/Schema.def"
    ;

/// The fields of each struct, by their index in it: MappingField::Dp,
/// PeakField::BF16, ...
#define STRUCT(Id, Kind, Name, Doc) enum class Id##Field : uint16_t {
#define FIELD(Struct, Id, Name, Type, Presence, Attrs, Read, Doc) Id,
#define END_STRUCT(Id) };
#include "IR/Schema.def"

/// The struct whose fields a field enumeration names.
template <typename FieldEnum> struct StructOfField;
#define STRUCT(Id, Kind, Name, Doc)                                            \
  template <> struct StructOfField<Id##Field> {                                \
    static constexpr StructID Struct = StructID::Id;                           \
  };
#include "IR/Schema.def"

struct EnumSpec {
  std::string Name; ///< "precision"
  std::vector<std::string> Words;
  std::string Doc;
  bool contains(llvm::StringRef W) const;
};

enum class TypeKind { Quantity, Number, Integer, Bool, String, Enum, List, Ref, Struct };

struct TypeSpec {
  TypeKind Kind = TypeKind::Number;
  Dimension Dim;                   ///< Quantity
  const EnumSpec *Enum = nullptr;  ///< Enum
  const TypeSpec *Elem = nullptr;  ///< List
  const StructSpec *Struct = nullptr; ///< Ref (an entity kind) or Struct
  /// Quantity: any dimension is accepted (checked elsewhere, e.g. against a
  /// figure). Ref with no Struct: any train or serve scenario.
  bool AnyDimension = false;

  /// "bandwidth (B/s)", "a whole number", "a model", "a precision", ...
  std::string describe() const;
};

enum class Presence { Required, Optional, Default };
/// Which passes may read a field (Schema.def's Read column).
enum class FieldRead : uint8_t {
  Build,  ///< the passes that build the operators (before partition)
  Layout, ///< partition and what comes after it only
};
enum class Constraint { None, Positive, NonNegative, Range };

/// The largest count llmsys models (docs/language.md, "Limits"): every
/// whole-number field and every count of tokens, unless its field says
/// less (FieldSpec::Most). The cost model multiplies counts in doubles, and
/// in 64-bit integers only where the factors' limits keep the product
/// below 2^63 (a shape's rows, columns and batch).
constexpr double MaxCount = 2147483647.0; // 2^31 - 1
/// The largest model dimension (hidden, ffn, heads, vocab, ...): 2^26,
/// 2,000 times the widest published model's.
constexpr double MaxModelDim = 67108864.0;
/// The largest whole number a double holds exactly: 2^53.
constexpr double MaxExact = 9007199254740992.0;
/// The largest number of layers (and of experts): 2^20.
constexpr double MaxLayers = 1048576.0;

/// Whether X is a whole number, to the 1e-9 relative a decimal value
/// carries (binary rounding of 3 x 0.1 and the like is forgiven).
bool isWholeNumber(double X);

struct FieldSpec {
  std::string Name;
  TypeSpec Type;
  Presence Pres = Presence::Optional;
  std::string Default; ///< Expression source when Pres == Default.
  std::string Doc;
  Constraint Check = Constraint::None;
  double Min = 0, Max = 0; ///< Constraint::Range, inclusive.
  /// The largest value of a whole-number field or a count of tokens (0:
  /// MaxCount). mostValue() says what applies.
  double Most = 0;
  /// The largest value accepted (infinity where none applies; a field
  /// with a range says its own maximum, Max).
  double mostValue() const;
  /// Whether the field counts: a whole number (an integer, or a count of
  /// tokens: a prompt of 0.5 tokens is not a workload).
  bool counted() const;
  /// Whether X meets the field's constraint (positive, non-negative, in
  /// its range); the type and whole-number checks are the caller's.
  bool meetsConstraint(double X) const;
  /// In a block of limits (slo): "<=" or ">=", the only comparison allowed.
  std::string BoundOp;
  /// Why a field that no figure of a scenario reads is accepted (a name,
  /// a year for trends, an input of another field's derivation); empty
  /// for the fields the cost model reads (test/Sema/schema-walk.test
  /// checks that perturbing each of those moves a figure).
  std::string DocOnly;
  /// Which passes may read the field itself.
  FieldRead Read = FieldRead::Build;
  /// Whether a pass building the operators may read it, or a field of the
  /// entity or block it holds, at any depth: a sweep axis over it builds
  /// the operators again.
  bool ReachesBuild = true;
};

/// A result figure of a scenario kind, for `expect` and sweep objectives.
/// A scenario's figure: its row of Figures.def (Info) as the schema types
/// it.
struct FigureSpec {
  std::string Name;
  TypeSpec Type;
  std::string Doc;
  const ir::FigureInfo *Info = nullptr;
  ir::FigureID id() const { return Info->Id; }
  /// The name in JSON, CSV and Markdown ("step_time_s").
  llvm::StringRef key() const { return Info->Key; }
};

struct StructSpec {
  StructID Id = StructID();
  std::string Name; ///< Entity kind ("model") or block type ("hbm").
  bool IsEntity = false;
  bool IsScenario = false; ///< train, serve
  bool IsLimits = false;   ///< Fields are set with `name <= value`.
  std::string Doc;
  std::vector<FieldSpec> Fields;
  std::vector<FigureSpec> Figures; ///< Scenarios only.
  /// For blocks chosen by a word (`schedule = interleaved_1f1b { ... }`):
  /// the index of the enum field that the word sets; -1 otherwise.
  int TagField = -1;
  /// For blocks that may also be written `field = ENTITY { ... }`
  /// (`hbm = HBM4 { stacks = 8 }`): the index of the reference field that
  /// the entity sets; -1 otherwise.
  int SourceField = -1;

  int findField(llvm::StringRef Name) const;
  const FigureSpec *findFigure(llvm::StringRef Name) const;
  std::vector<std::string> fieldNames() const;
};

class Schema {
public:
  static const Schema &get();

  const StructSpec *entity(llvm::StringRef Kind) const;
  /// An entity or block kind of Schema.def.
  const StructSpec &of(StructID Id) const { return *Structs[size_t(Id)]; }
  const EnumSpec &of(EnumID Id) const { return *EnumsById[size_t(Id)]; }
  const std::vector<const StructSpec *> &entities() const { return Entities; }
  const std::vector<const StructSpec *> &blocks() const { return Blocks; }
  const std::vector<const EnumSpec *> &enums() const { return Enums; }
  std::vector<std::string> entityKindNames() const;

  /// The schema as Markdown (docs/schema.md) or as plain text (--help).
  void printMarkdown(llvm::raw_ostream &OS) const;

private:
  Schema();
  friend class SchemaBuilder;
  std::vector<std::unique_ptr<StructSpec>> StructStorage;
  std::vector<std::unique_ptr<EnumSpec>> EnumStorage;
  std::vector<std::unique_ptr<TypeSpec>> TypeStorage;
  std::vector<const StructSpec *> Entities, Blocks;
  std::vector<const EnumSpec *> Enums;
  const StructSpec *Structs[NumStructs] = {};
  const EnumSpec *EnumsById[NumEnums] = {};
};

} // namespace llmsys

#endif
