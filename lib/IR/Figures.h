//===- Figures.h - the result figures of a scenario ---------------*- C++ -*-===//
//
// The figures of Figures.def as an enum and a table: a figure's name, its
// key in machine-readable reports, its type, the direction that is better
// and what it needs. Everything that names a figure looks it up here.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_IR_FIGURES_H
#define LLMSYS_IR_FIGURES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace llmsys {
namespace ir {

enum class FigureID : uint8_t {
#define FIGURE(Id, Kind, Name, Key, Type, Better, Needs, Doc) Id,
#include "IR/Figures.def"
};

constexpr unsigned NumFigures = 0
#define FIGURE(Id, Kind, Name, Key, Type, Better, Needs, Doc) +1
#include "IR/Figures.def"
    ;

/// What a figure's value is, for the schema and the reports.
enum class FigureType : uint8_t {
  Time,
  TokenRate,
  OpsRate,
  Number,
  Count,
  Bool,
  Bytes,
  Energy,
  EnergyPerToken,
  Power,
  Currency,
  CurrencyPerToken,
  Frequency,
};

struct FigureInfo {
  FigureID Id;
  bool Training; ///< a train scenario's figure; else a serve scenario's
  llvm::StringRef Name;
  llvm::StringRef Key;
  FigureType Type;
  bool HigherIsBetter;
  llvm::StringRef Needs; ///< empty: always computed
  llvm::StringRef Doc;
  /// Why a result lacks the figure, for messages.
  llvm::StringRef missingReason() const {
    return Needs.empty() ? "this version does not compute it" : Needs;
  }
};

/// Every figure, in the order of Figures.def (train's, then serve's).
llvm::ArrayRef<FigureInfo> figures();
const FigureInfo &figureInfo(FigureID Id);
/// The figure of a scenario kind written as its name or its key
/// ("step_time" or "step_time_s"), or null.
const FigureInfo *findFigure(bool Training, llvm::StringRef NameOrKey);

} // namespace ir
} // namespace llmsys

#endif
