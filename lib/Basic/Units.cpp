//===- Units.cpp - the unit table -----------------------------------------===//

#include "Basic/Units.h"
#include "Basic/Suggest.h"

#include "llvm/ADT/StringSwitch.h"
#include <cmath>

using namespace llvm;

namespace llmsys {

bool Dimension::isDimensionless() const {
  for (int8_t E : Exp)
    if (E)
      return false;
  return true;
}

Dimension Dimension::operator*(const Dimension &O) const {
  Dimension R;
  for (unsigned I = 0; I < NumBaseDims; ++I)
    R.Exp[I] = static_cast<int8_t>(Exp[I] + O.Exp[I]);
  return R;
}

Dimension Dimension::operator/(const Dimension &O) const {
  Dimension R;
  for (unsigned I = 0; I < NumBaseDims; ++I)
    R.Exp[I] = static_cast<int8_t>(Exp[I] - O.Exp[I]);
  return R;
}

bool Dimension::canMultiply(const Dimension &O) const {
  for (unsigned I = 0; I < NumBaseDims; ++I)
    if (std::abs(int(Exp[I]) + int(O.Exp[I])) > MaxExponent)
      return false;
  return true;
}

bool Dimension::canDivide(const Dimension &O) const {
  for (unsigned I = 0; I < NumBaseDims; ++I)
    if (std::abs(int(Exp[I]) - int(O.Exp[I])) > MaxExponent)
      return false;
  return true;
}

Dimension Dimension::pow(int Power) const {
  Dimension R;
  for (unsigned I = 0; I < NumBaseDims; ++I)
    R.Exp[I] = static_cast<int8_t>(Exp[I] * Power);
  return R;
}

static const char *const BaseSymbols[NumBaseDims] = {"FLOP", "B",   "token", "J",
                                                     "USD",  "m",   "s"};

std::string Dimension::unitString() const {
  // Derived units people write.
  if (*this == dims::power())
    return "W";
  if (*this == dims::frequency())
    return "Hz";
  std::string Num, Den;
  unsigned NumParts = 0, DenParts = 0;
  for (unsigned I = 0; I < NumBaseDims; ++I) {
    int E = Exp[I];
    if (E == 0)
      continue;
    std::string &Out = E > 0 ? Num : Den;
    unsigned &Parts = E > 0 ? NumParts : DenParts;
    if (!Out.empty())
      Out += '*';
    Out += BaseSymbols[I];
    if (std::abs(E) != 1)
      Out += "^" + std::to_string(std::abs(E));
    ++Parts;
  }
  if (Den.empty())
    return Num;
  if (Num.empty())
    Num = "1";
  if (DenParts > 1)
    Den = "(" + Den + ")";
  return Num + "/" + Den;
}

namespace dims {
Dimension time() { return Dimension::base(BaseDim::Time); }
Dimension bytes() { return Dimension::base(BaseDim::Bytes); }
Dimension bandwidth() { return bytes() / time(); }
Dimension ops() { return Dimension::base(BaseDim::Ops); }
Dimension opsRate() { return ops() / time(); }
Dimension energy() { return Dimension::base(BaseDim::Energy); }
Dimension power() { return energy() / time(); }
Dimension frequency() { return Dimension() / time(); }
Dimension tokens() { return Dimension::base(BaseDim::Tokens); }
Dimension tokenRate() { return tokens() / time(); }
Dimension currency() { return Dimension::base(BaseDim::Currency); }
Dimension length() { return Dimension::base(BaseDim::Length); }
Dimension energyPerBit() { return energy() / bytes(); }
Dimension energyPerOp() { return energy() / ops(); }
} // namespace dims

namespace {
struct NamedDim {
  Dimension Dim;
  StringRef Name;
  StringRef Example;
};
} // namespace

static const std::vector<NamedDim> &namedDims() {
  static const std::vector<NamedDim> Table = {
      {Dimension(), "dimensionless number", "0.5"},
      {dims::time(), "time", "2 us"},
      {dims::bytes(), "bytes", "80 GiB"},
      {dims::bandwidth(), "bandwidth", "3.35 TB/s"},
      {dims::ops(), "operations", "1 PFLOP"},
      {dims::opsRate(), "compute throughput", "989 TFLOP/s"},
      {dims::energy(), "energy", "5 J"},
      {dims::power(), "power", "700 W"},
      {dims::frequency(), "frequency", "1.98 GHz"},
      {dims::tokens(), "tokens", "2048 tokens"},
      {dims::tokenRate(), "token rate", "100 tokens/s"},
      {dims::currency(), "currency", "25000 USD"},
      {dims::currency() / dims::time(), "cost rate", "2 USD/h"},
      {dims::currency() / dims::energy(), "energy price", "0.1 USD/kWh"},
      {dims::currency() / dims::power(), "price per power", "11000 USD/kW"},
      {dims::length(), "length", "5 nm"},
      {dims::length().pow(2), "area", "814 mm^2"},
      {Dimension() / dims::length().pow(2), "areal density", ""},
      {dims::energyPerBit(), "energy per byte", "3.9 pJ/bit"},
      {dims::energyPerOp(), "energy per operation", "0.5 pJ/FLOP"},
      {dims::ops() / dims::bytes(), "arithmetic intensity", "100 FLOP/B"},
      {dims::time() / dims::tokens(), "time per token", "20 ms/token"},
      {dims::energy() / dims::tokens(), "energy per token", "0.5 J/token"},
  };
  return Table;
}

StringRef Dimension::name() const {
  for (const NamedDim &N : namedDims())
    if (N.Dim == *this)
      return N.Name;
  return "";
}

std::string Dimension::describe() const {
  if (isDimensionless())
    return "a dimensionless number";
  StringRef N = name();
  std::string U = unitString();
  if (N.empty())
    return U;
  return N.str() + " (" + U + ")";
}

StringRef exampleFor(const Dimension &D) {
  for (const NamedDim &N : namedDims())
    if (N.Dim == D)
      return N.Example;
  return "";
}

namespace {
struct UnitDef {
  StringRef Name;
  double Scale;
  Dimension Dim;
  bool Prefixable;
};
} // namespace

static const std::vector<UnitDef> &unitTable() {
  using namespace dims;
  static const std::vector<UnitDef> Table = {
      // Time. Minutes, hours and days take no prefix ("min" is not milli-in).
      {"s", 1, time(), true},
      {"min", 60, time(), false},
      {"h", 3600, time(), false},
      {"day", 86400, time(), false},
      {"year", 365.25 * 86400, time(), false},
      // Information: bytes and bits (a bit is 1/8 byte).
      {"B", 1, bytes(), true},
      {"b", 0.125, bytes(), true},
      {"bit", 0.125, bytes(), true},
      {"bps", 0.125, bandwidth(), true},
      // Work and its rate. OP (integer operations) shares FLOP's dimension.
      {"FLOP", 1, ops(), true},
      {"FLOPS", 1, opsRate(), true},
      {"OP", 1, ops(), true},
      {"OPS", 1, opsRate(), true},
      // Energy and power.
      {"J", 1, energy(), true},
      {"W", 1, power(), true},
      {"Wh", 3600, energy(), true},
      {"Hz", 1, frequency(), true},
      // Workload and money.
      {"token", 1, tokens(), true},
      {"tokens", 1, tokens(), true},
      {"USD", 1, currency(), true},
      // Counted requests read as plain numbers ("5 requests/s" is 5 Hz).
      {"request", 1, Dimension(), false},
      {"requests", 1, Dimension(), false},
      // Length, for process nodes and die area.
      {"m", 1, length(), true},
      // Dimensionless.
      {"%", 0.01, Dimension(), false},
  };
  return Table;
}

std::vector<StringRef> unitNames() {
  std::vector<StringRef> Names;
  for (const UnitDef &U : unitTable())
    Names.push_back(U.Name);
  return Names;
}

static const UnitDef *findUnit(StringRef Name) {
  for (const UnitDef &U : unitTable())
    if (U.Name == Name)
      return &U;
  return nullptr;
}

struct Prefix {
  StringRef Text;
  double Scale;
  bool Binary;
};

static const Prefix Prefixes[] = {
    {"Ki", 1024.0, true},
    {"Mi", 1048576.0, true},
    {"Gi", 1073741824.0, true},
    {"Ti", 1099511627776.0, true},
    {"Pi", 1125899906842624.0, true},
    {"Ei", 1152921504606846976.0, true},
    {"k", 1e3, false},
    {"M", 1e6, false},
    {"G", 1e9, false},
    {"T", 1e12, false},
    {"P", 1e15, false},
    {"E", 1e18, false},
    {"m", 1e-3, false},
    {"u", 1e-6, false},
    {"\xC2\xB5", 1e-6, false}, // µ (U+00B5 MICRO SIGN)
    {"\xCE\xBC", 1e-6, false}, // μ (U+03BC GREEK SMALL LETTER MU)
    {"n", 1e-9, false},
    {"p", 1e-12, false},
};

// One atom: a unit name with an optional prefix and an optional power.
static bool parseAtom(StringRef Atom, UnitParse &R, double &Scale,
                      Dimension &Dim) {
  int Power = 1;
  size_t Caret = Atom.find('^');
  StringRef Name = Atom;
  if (Caret != StringRef::npos) {
    Name = Atom.take_front(Caret);
    if (Atom.drop_front(Caret + 1).getAsInteger(10, Power) || Power == 0 ||
        std::abs(Power) > 4) {
      R.BadAtom = Atom.str();
      return false;
    }
  }
  double S = 0;
  Dimension D;
  if (const UnitDef *U = findUnit(Name)) {
    S = U->Scale;
    D = U->Dim;
  } else {
    bool Found = false;
    for (const Prefix &P : Prefixes) {
      if (!Name.startswith(P.Text))
        continue;
      const UnitDef *U = findUnit(Name.drop_front(P.Text.size()));
      if (!U || !U->Prefixable)
        continue;
      if (P.Binary && U->Dim != dims::bytes()) {
        R.BinaryPrefixMisuse = true;
        R.Prefix = P.Text.str();
        R.BadAtom = Name.str();
        return false;
      }
      S = P.Scale * U->Scale;
      D = U->Dim;
      Found = true;
      break;
    }
    if (!Found) {
      R.BadAtom = Name.str();
      // Suggest among the bare names and their common prefixed forms.
      std::vector<std::string> Candidates;
      for (const UnitDef &U : unitTable()) {
        Candidates.push_back(U.Name.str());
        if (U.Prefixable)
          for (StringRef P : {"k", "M", "G", "T", "P", "m", "u", "n", "p"})
            Candidates.push_back(P.str() + U.Name.str());
        if (U.Dim == dims::bytes())
          for (StringRef P : {"Ki", "Mi", "Gi", "Ti"})
            Candidates.push_back(P.str() + U.Name.str());
      }
      for (StringRef Extra : {"FLOP/s", "B/s", "b/s", "tokens/s"})
        Candidates.push_back(Extra.str());
      R.Suggestion = closestMatch(Name, Candidates);
      return false;
    }
  }
  Scale = std::pow(S, Power);
  Dim = D.pow(Power);
  return true;
}

UnitParse parseUnit(StringRef Text) {
  UnitParse R;
  double Scale = 1;
  Dimension Dim;
  bool First = true;
  while (!Text.empty()) {
    size_t Slash = Text.find('/');
    StringRef Atom = Text.take_front(Slash);
    double S;
    Dimension D;
    if (Atom.empty() || !parseAtom(Atom, R, S, D)) {
      if (R.BadAtom.empty())
        R.BadAtom = Atom.str();
      return R;
    }
    if (First) {
      Scale = S;
      Dim = D;
    } else {
      if (!Dim.canDivide(D)) {
        R.ExponentOverflow = true;
        R.BadAtom = Atom.str();
        return R;
      }
      Scale /= S;
      Dim = Dim / D;
    }
    First = false;
    if (Slash == StringRef::npos)
      break;
    Text = Text.drop_front(Slash + 1);
    if (Text.empty()) {
      R.BadAtom = "";
      return R;
    }
  }
  R.Ok = true;
  R.Scale = Scale;
  R.Dim = Dim;
  return R;
}

} // namespace llmsys
