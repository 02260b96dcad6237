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
  // Near misses of every word: shorter, longer, one byte changed, a NUL
  // appended (short words are compared as zero-padded integers, so the
  // length must count too).
  for (llvm::StringRef W : enumWords<E>()) {
    std::string Word = W.str();
    EXPECT_FALSE(enumFromWord<E>(W.drop_back()).has_value()) << Word;
    EXPECT_FALSE(enumFromWord<E>(Word + "x").has_value()) << Word;
    EXPECT_FALSE(enumFromWord<E>(llvm::StringRef(Word.c_str(), Word.size() + 1))
                     .has_value())
        << Word;
    std::string Changed = Word;
    Changed.back() ^= 0x20;
    EXPECT_FALSE(enumFromWord<E>(Changed).has_value()) << Word;
  }
}

TEST(EnumsTest, WordsRoundTrip) {
  roundTrips<DType>();
#define LLMSYS_ROUND_TRIPS(Type, List) roundTrips<Type>();
  LLMSYS_ENUM_TYPES(LLMSYS_ROUND_TRIPS)
#undef LLMSYS_ROUND_TRIPS
  EXPECT_EQ(enumWords<DType>().size(), unsigned(NumDTypes));
}

TEST(EnumsTest, TheSchemaListsTheSameWords) {
  // The schema's enumerations are made from the same lists.
  auto Same = [](EnumID Id, auto Tag) {
    const EnumSpec &E = Schema::get().of(Id);
    auto Words = enumWords<decltype(Tag)>();
    ASSERT_EQ(E.Words.size(), Words.size()) << E.Name;
    for (size_t I = 0; I < E.Words.size(); ++I)
      EXPECT_EQ(E.Words[I], Words[I].str());
  };
  Same(EnumID::Precision, DType());
  Same(EnumID::Fusion, FusedKernel());
  Same(EnumID::Offload, OffloadKind());
  Same(EnumID::Activation, ActivationKind());
  EXPECT_EQ(dtypeFromWord("fp8"), DType::FP8);
  EXPECT_EQ(dtypeName(DType::BF16), "bf16");
  EXPECT_EQ(scheduleName(ScheduleKind::OneFOneB), "1f1b");
}

} // namespace
