//===- EnumsTest.cpp - the words of the schema's enumerations ---------------===//

#include "IR/Scenario.h"
#include "IR/Schema.h"

#include "gtest/gtest.h"

using namespace llmsys;
using namespace llmsys::ir;

namespace {

template <typename E> void roundTrips() {
  unsigned I = 0;
  for (llvm::StringRef W : enumWords<E>()) {
    std::optional<E> V = enumFromWord<E>(W);
    ASSERT_TRUE(V.has_value()) << W.str();
    EXPECT_EQ(static_cast<unsigned>(*V), I++);
    EXPECT_EQ(enumWord(*V), W);
  }
  EXPECT_FALSE(enumFromWord<E>("no_such_word").has_value());
}

TEST(EnumsTest, WordsRoundTrip) {
  roundTrips<DType>();
  roundTrips<Recompute>();
  roundTrips<ScheduleKind>();
  roundTrips<ArrivalKind>();
  roundTrips<LengthDistribution>();
  EXPECT_EQ(enumWords<DType>().size(), unsigned(NumDTypes));
}

TEST(EnumsTest, TheSchemaListsTheSameWords) {
  // The schema's enumerations are made from the same lists.
  for (const EnumSpec *E : Schema::get().enums())
    if (E->Name == "precision") {
      ASSERT_EQ(E->Words.size(), enumWords<DType>().size());
      for (size_t I = 0; I < E->Words.size(); ++I)
        EXPECT_EQ(E->Words[I], enumWords<DType>()[I].str());
    }
  EXPECT_EQ(dtypeFromWord("fp8"), DType::FP8);
  EXPECT_EQ(dtypeName(DType::BF16), "bf16");
  EXPECT_EQ(scheduleName(ScheduleKind::OneFOneB), "1f1b");
}

} // namespace
