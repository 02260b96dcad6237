//===- UnitsTest.cpp - unit expressions to base units ----------------------===//

#include "Basic/Units.h"

#include "gtest/gtest.h"

using namespace llmsys;

namespace {

TEST(UnitsTest, PrefixesScaleToBaseUnits) {
  UnitParse GB = parseUnit("GB/s");
  ASSERT_TRUE(GB.Ok);
  EXPECT_DOUBLE_EQ(GB.Scale, 1e9);
  EXPECT_TRUE(GB.Dim == dims::bandwidth());

  UnitParse GiB = parseUnit("GiB");
  ASSERT_TRUE(GiB.Ok);
  EXPECT_DOUBLE_EQ(GiB.Scale, 1073741824.0);
  EXPECT_TRUE(GiB.Dim == dims::bytes());

  UnitParse TF = parseUnit("TFLOP/s");
  ASSERT_TRUE(TF.Ok);
  EXPECT_DOUBLE_EQ(TF.Scale, 1e12);
  EXPECT_TRUE(TF.Dim == dims::opsRate());
}

TEST(UnitsTest, PowersAndQuotients) {
  UnitParse Area = parseUnit("mm^2");
  ASSERT_TRUE(Area.Ok);
  EXPECT_DOUBLE_EQ(Area.Scale, 1e-6);
  EXPECT_TRUE(Area.Dim == dims::length() * dims::length());

  // Energy per bit is kept per byte: 1 pJ/bit = 8 pJ/B.
  UnitParse PerBit = parseUnit("pJ/bit");
  ASSERT_TRUE(PerBit.Ok);
  EXPECT_DOUBLE_EQ(PerBit.Scale, 8e-12);
  EXPECT_TRUE(PerBit.Dim == dims::energyPerBit());
}

TEST(UnitsTest, RejectsUnknownAndMisusedPrefixes) {
  UnitParse Bad = parseUnit("parsec");
  EXPECT_FALSE(Bad.Ok);
  EXPECT_EQ(Bad.BadAtom, "parsec");

  // Binary prefixes are for bytes only.
  UnitParse Binary = parseUnit("GiFLOP");
  EXPECT_FALSE(Binary.Ok);
  EXPECT_TRUE(Binary.BinaryPrefixMisuse);
  EXPECT_EQ(Binary.Prefix, "Gi");
}

} // namespace
