//===- SchemaTest.cpp - the schema built from Schema.def ----------------===//

#include "IR/Schema.h"
#include "IR/Spec.h"

#include "gtest/gtest.h"

using namespace llmsys;

namespace {

// Each field's enumerator is its index in its struct: the typed readers
// (Object::ifSet) read by it and compare no names.
TEST(SchemaTest, FieldEnumeratorsIndexTheirStructs) {
  const Schema &S = Schema::get();
  size_t Fields = 0;
#define FIELD(Struct, Id, Word, Type, Presence, Attrs, Read, Doc)              \
  EXPECT_EQ(S.of(StructID::Struct).Fields[size_t(Struct##Field::Id)].Name,     \
            Word);                                                             \
  ++Fields;
#include "IR/Schema.def"
  size_t Built = 0;
  for (const auto *List : {&S.entities(), &S.blocks()})
    for (const StructSpec *St : *List)
      Built += St->Fields.size();
  EXPECT_EQ(Fields, Built);
}

TEST(SchemaTest, AttributesReachTheFields) {
  const Schema &S = Schema::get();
  const StructSpec &Mapping = S.of(StructID::Mapping);
  const FieldSpec &Zero = Mapping.Fields[size_t(MappingField::Zero)];
  EXPECT_EQ(Zero.Check, Constraint::Range);
  EXPECT_EQ(Zero.Max, 3);
  // A whole number is at least one unless its attributes say.
  EXPECT_EQ(Mapping.Fields[size_t(MappingField::Tp)].Check,
            Constraint::Positive);
  EXPECT_EQ(S.of(StructID::Schedule).TagField, int(ScheduleField::Kind));
  EXPECT_EQ(S.of(StructID::MemoryLevel).SourceField,
            int(MemoryLevelField::Technology));
  EXPECT_EQ(S.of(StructID::Slo).Fields[size_t(SloField::Ttft)].BoundOp, "<=");
  EXPECT_TRUE(S.of(StructID::Slo).IsLimits);
  EXPECT_TRUE(S.of(StructID::Train).IsScenario);
  EXPECT_FALSE(S.of(StructID::Technology)
                   .Fields[size_t(TechnologyField::Year)]
                   .DocOnly.empty());
}

// Read: a sweep axis over the layout or the hardware keeps the operators;
// over the model, or an entity holding a BUILD field, it does not.
TEST(SchemaTest, ReachesBuildFollowsWhatAFieldHolds) {
  const Schema &S = Schema::get();
  auto Field = [&](StructID St, auto F) -> const FieldSpec & {
    return S.of(St).Fields[size_t(F)];
  };
  EXPECT_FALSE(Field(StructID::Mapping, MappingField::Tp).ReachesBuild);
  EXPECT_TRUE(Field(StructID::Mapping, MappingField::MicroBatch).ReachesBuild);
  EXPECT_FALSE(Field(StructID::Mapping, MappingField::Schedule).ReachesBuild);
  EXPECT_FALSE(Field(StructID::Train, TrainField::System).ReachesBuild);
  EXPECT_TRUE(Field(StructID::Train, TrainField::Model).ReachesBuild);
  EXPECT_TRUE(Field(StructID::Train, TrainField::Mapping).ReachesBuild);
  EXPECT_FALSE(
      Field(StructID::Accelerator, AcceleratorField::Sparsity).ReachesBuild);
}

TEST(SchemaTest, PeakFieldsFollowTheNumberFormats) {
  const StructSpec &Peak = Schema::get().of(StructID::Peak);
  EXPECT_EQ(Peak.Fields[size_t(PeakField::BF16)].Name, "bf16");
  EXPECT_EQ(Peak.Fields[size_t(PeakField::FP4)].Name, "fp4");
}

// ifSet answers for any value; ifWritten only for one a spec wrote (its
// own text, a parent's, or derived), not the schema's default.
TEST(SchemaTest, IfWrittenLeavesOutDefaults) {
  const StructSpec &Mapping = Schema::get().of(StructID::Mapping);
  spec::Object M;
  M.Type = &Mapping;
  M.Fields.resize(Mapping.Fields.size());
  auto &Tp = M.Fields[size_t(MappingField::Tp)];
  EXPECT_EQ(M.ifSet(MappingField::Tp), nullptr);
  EXPECT_EQ(M.ifWritten(MappingField::Tp), nullptr);
  for (spec::Origin From : {spec::Origin::File, spec::Origin::Inherited,
                            spec::Origin::Derived}) {
    Tp.From = From;
    EXPECT_EQ(M.ifSet(MappingField::Tp), &Tp);
    EXPECT_EQ(M.ifWritten(MappingField::Tp), &Tp);
    EXPECT_TRUE(Tp.isWritten());
  }
  Tp.From = spec::Origin::Default;
  EXPECT_EQ(M.ifSet(MappingField::Tp), &Tp);
  EXPECT_EQ(M.ifWritten(MappingField::Tp), nullptr);
  EXPECT_FALSE(Tp.isWritten());
}

} // namespace
