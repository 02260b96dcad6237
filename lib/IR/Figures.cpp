//===- Figures.cpp - the result figures of a scenario ------------------------===//

#include "IR/Figures.h"

namespace llmsys {
namespace ir {

static constexpr bool Train = true, Serve = false;
static constexpr bool Higher = true, Lower = false;

static const FigureInfo Table[] = {
#define FIGURE(Id, Kind, Name, Key, Type, Better, Needs, Doc)                  \
  {FigureID::Id, Kind, Name, Key, FigureType::Type, Better, Needs, Doc},
#include "IR/Figures.def"
};
static_assert(sizeof(Table) / sizeof(Table[0]) == NumFigures,
              "one row per figure");

llvm::ArrayRef<FigureInfo> figures() { return Table; }

const FigureInfo &figureInfo(FigureID Id) {
  return Table[static_cast<unsigned>(Id)];
}

const FigureInfo *findFigure(bool Training, llvm::StringRef NameOrKey) {
  for (const FigureInfo &F : Table)
    if (F.Training == Training && (F.Name == NameOrKey || F.Key == NameOrKey))
      return &F;
  return nullptr;
}

} // namespace ir
} // namespace llmsys
