//===- Units.h - physical dimensions and the unit table ----------*- C++ -*-===//
//
// docs/units.md is the normative description. A Quantity is a value in base
// units (s, B, FLOP, J, token, USD, m) with a Dimension: the exponent of each
// base unit. Dimensions follow arithmetic: B / s is a bandwidth.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_BASIC_UNITS_H
#define LLMSYS_BASIC_UNITS_H

#include "llvm/ADT/StringRef.h"
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llmsys {

/// The base quantities. Order fixes how dimensions print.
enum class BaseDim : unsigned { Ops, Bytes, Tokens, Energy, Currency, Length, Time, Count };
constexpr unsigned NumBaseDims = static_cast<unsigned>(BaseDim::Count);

class Dimension {
public:
  constexpr Dimension() : Exp{} {}
  static Dimension base(BaseDim B, int8_t Power = 1) {
    Dimension D;
    D.Exp[static_cast<unsigned>(B)] = Power;
    return D;
  }
  static Dimension none() { return Dimension(); }

  bool isDimensionless() const;
  int8_t exponent(BaseDim B) const { return Exp[static_cast<unsigned>(B)]; }

  Dimension operator*(const Dimension &O) const;
  Dimension operator/(const Dimension &O) const;
  Dimension pow(int Power) const;
  /// No quantity has a base unit to a power beyond this; the arithmetic
  /// above would wrap an 8-bit exponent past 127.
  static constexpr int MaxExponent = 32;
  /// Whether this * O, this / O or this ^ Power keeps every exponent within
  /// -MaxExponent .. MaxExponent (then the operators are exact).
  bool canMultiply(const Dimension &O) const;
  bool canDivide(const Dimension &O) const;
  bool operator==(const Dimension &O) const { return Exp == O.Exp; }
  bool operator!=(const Dimension &O) const { return Exp != O.Exp; }

  /// The base-unit symbol, e.g. "B/s", "FLOP/s", "1/s", "" when dimensionless.
  std::string unitString() const;
  /// The name users know, e.g. "bandwidth", or empty if it has none.
  llvm::StringRef name() const;
  /// "bandwidth (B/s)", "dimensionless number", "B*s" — for messages.
  std::string describe() const;

private:
  std::array<int8_t, NumBaseDims> Exp;
};

/// Common dimensions, named as the schema and messages use them.
namespace dims {
Dimension time();
Dimension bytes();
Dimension bandwidth();
Dimension ops();
Dimension opsRate();
Dimension energy();
Dimension power();
Dimension frequency();
Dimension tokens();
Dimension tokenRate();
Dimension currency();
Dimension length();
Dimension energyPerBit(); ///< stored per byte (J/B)
Dimension energyPerOp();
} // namespace dims

/// A value in base units with its dimension.
struct Quantity {
  double Value = 0;
  Dimension Dim;
};

/// The result of reading a unit expression such as "TB/s" or "pJ/bit".
struct UnitParse {
  bool Ok = false;
  double Scale = 1; ///< Multiply the written number by this for base units.
  Dimension Dim;
  /// On failure, which part failed and why (filled by parseUnit).
  std::string BadAtom;
  std::string Suggestion;    ///< A close unit name, or empty.
  bool BinaryPrefixMisuse = false; ///< e.g. "GiFLOP"
  std::string Prefix;        ///< The misused prefix.
  /// A base unit's exponent would leave -32 .. 32 ("s^4/s^-4/s^-4/...").
  bool ExponentOverflow = false;
};

/// Reads a unit: atoms separated by '/', each with an optional integer power
/// ("mm^2"). Atoms are a unit name with an optional SI or IEC prefix.
UnitParse parseUnit(llvm::StringRef Text);

/// An example of a written quantity of this dimension, for messages
/// ("80 GiB" for bytes); empty if none.
llvm::StringRef exampleFor(const Dimension &D);

/// Every unit name (without prefixes), for documentation and did-you-mean.
std::vector<llvm::StringRef> unitNames();

} // namespace llmsys

#endif
