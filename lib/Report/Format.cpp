//===- Format.cpp - numbers for people ----------------------------------------===//

#include "Report/Format.h"

#include <cmath>
#include <fmt/format.h>

namespace llmsys {
namespace report {

static std::string significant(double V, int Digits) {
  if (V == 0)
    return "0";
  int Magnitude = static_cast<int>(std::floor(std::log10(std::fabs(V))));
  int Decimals = std::max(0, Digits - 1 - Magnitude);
  return fmt::format("{:.{}f}", V, Decimals);
}

std::string markdownCell(llvm::StringRef S) {
  std::string Out;
  for (char C : S)
    Out += C == '|' ? std::string("\\|") : std::string(1, C);
  return Out;
}

std::string markupText(llvm::StringRef S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '&': Out += "&amp;"; break;
    case '"': Out += "&quot;"; break;
    default: Out += C;
    }
  }
  return Out;
}

std::string si(double Value, llvm::StringRef Unit, int Digits) {
  static const char *const Prefixes[] = {"p", "n", "u", "m", "", "k",
                                         "M", "G", "T", "P", "E"};
  if (Value == 0 || !std::isfinite(Value))
    return (std::isfinite(Value) ? "0 " : "inf ") + Unit.str();
  int Exp3 = static_cast<int>(std::floor(std::log10(std::fabs(Value)) / 3));
  Exp3 = std::max(-4, std::min(6, Exp3));
  double Scaled = Value / std::pow(1000.0, Exp3);
  // Rounding can reach 1000 ("999.7" at 3 digits): move up a prefix.
  std::string Text = significant(Scaled, Digits);
  if (std::fabs(std::stod(Text)) >= 1000 && Exp3 < 6) {
    ++Exp3;
    Text = significant(Value / std::pow(1000.0, Exp3), Digits);
  }
  std::string Sep = Unit.empty() && Exp3 == 0 ? "" : " ";
  return Text + Sep + Prefixes[Exp3 + 4] + Unit.str();
}

std::string money(double Amount, llvm::StringRef Currency, int Digits) {
  if (!std::isfinite(Amount) || std::fabs(Amount) < 1000)
    return significant(Amount, Digits) + " " + Currency.str();
  // Round to the significant digits, then group the integer's thousands.
  double Scale = std::pow(10.0, std::floor(std::log10(std::fabs(Amount))) -
                                    (Digits - 1));
  std::string Digits10 =
      fmt::format("{:.0f}", std::round(std::fabs(Amount) / Scale) * Scale);
  std::string Grouped;
  for (size_t I = 0; I < Digits10.size(); ++I) {
    if (I && (Digits10.size() - I) % 3 == 0)
      Grouped += ',';
    Grouped += Digits10[I];
  }
  return (Amount < 0 ? "-" : "") + Grouped + " " + Currency.str();
}

std::string duration(double Seconds, int Digits) {
  constexpr double Year = 365.25 * 86400; // Julian year, as the unit
  if (Seconds >= 2 * Year)
    return significant(Seconds / Year, Digits) + " years";
  if (Seconds >= 2 * 86400)
    return significant(Seconds / 86400, Digits) + " days";
  if (Seconds >= 2 * 3600)
    return significant(Seconds / 3600, Digits) + " h";
  if (Seconds >= 120)
    return significant(Seconds / 60, Digits) + " min";
  return si(Seconds, "s", Digits);
}

std::string percent(double Fraction, int Decimals) {
  return fmt::format("{:.{}f}%", 100 * Fraction, Decimals);
}

std::string signedPercent(double Fraction, int Decimals) {
  return fmt::format("{:+.{}f}%", 100 * Fraction, Decimals);
}

} // namespace report
} // namespace llmsys
