//===- Csv.cpp - scenarios and diffs as CSV -----------------------------------===//
//
// One table per document, for pandas or a spreadsheet: numbers in base SI
// units with twelve significant digits (they round-trip), the unit in the
// column name as in the JSON report.
//
//===----------------------------------------------------------------------===//

#include "Report/Csv.h"

#include "Report/Format.h"
#include "Report/SweepReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <fmt/format.h>

using namespace llvm;

namespace llmsys {
namespace report {

/// The figures of train, then those of serve not already there.
static std::vector<const FigureSpec *> scenarioFigures() {
  std::vector<const FigureSpec *> Out;
  for (StringRef Kind : {"train", "serve"})
    for (const FigureSpec &F : Schema::get().entity(Kind)->Figures)
      if (none_of(Out, [&](const FigureSpec *G) { return G->Name == F.Name; }))
        Out.push_back(&F);
  return Out;
}

static std::string csvNumber(double V, const FigureSpec &F) {
  if (F.Type.Kind == TypeKind::Bool)
    return V != 0 ? "true" : "false";
  return spec::formatNumber(V);
}

void printScenarioCsvHeader(raw_ostream &OS) {
  OS << "scenario,kind";
  for (const FigureSpec *F : scenarioFigures())
    OS << ',' << F->key();
  OS << '\n';
}

void printScenarioCsvRow(const spec::Object &S, const driver::Evaluation &E,
                         raw_ostream &OS) {
  OS << S.Name << ',' << S.Type->Name;
  for (const FigureSpec *F : scenarioFigures()) {
    OS << ',';
    if (!S.Type->findFigure(F->Name))
      continue;
    if (std::optional<double> V = E.figure(F->Name))
      OS << csvNumber(*V, *F);
  }
  OS << '\n';
}

void printDiffCsv(ArrayRef<DiffResult> Diffs, raw_ostream &OS) {
  OS << "a,b,figure,a_value,b_value,ratio\n";
  for (const DiffResult &D : Diffs)
    for (const FigureChange &C : D.Figures) {
      OS << D.NameA << ',' << D.NameB << ',' << C.Key << ','
         << (C.A ? csvNumber(*C.A, *C.Figure) : "") << ','
         << (C.B ? csvNumber(*C.B, *C.Figure) : "") << ',';
      if (std::optional<double> R = C.ratio())
        OS << spec::formatNumber(*R);
      OS << '\n';
    }
}

} // namespace report
} // namespace llmsys
