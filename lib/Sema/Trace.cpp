//===- Trace.cpp - a serving trace of recorded requests ----------------------===//
//
// serve's `traffic.trace`: a CSV file of requests, one a row:
// `prompt,output` or `prompt,output,arrival` (tokens, tokens, seconds from
// the start). Blank lines and lines starting with '#' are skipped, and so
// is a first line `prompt,output[,arrival]`. The file is read into the
// source manager, so a bad cell is reported at its own line and column.
//
//===----------------------------------------------------------------------===//

#include "Sema/Trace.h"

#include "llvm/ADT/StringExtras.h"
#include <cmath>

using namespace llvm;

namespace llmsys {
namespace sema {

std::shared_ptr<const std::vector<spec::TraceRequest>>
readTrace(SourceFiles &Sources, DiagnosticEngine &Diags, StringRef Spelled,
          unsigned FromBuffer, SMRange Use, int64_t MaxSeq,
          StringRef ModelName) {
  std::optional<SourceFiles::Loaded> L =
      Sources.loadData(Spelled, FromBuffer, Use);
  if (!L)
    return nullptr;
  SourceMgr &SM = Diags.getSourceMgr();
  StringRef Text = SM.getMemoryBuffer(L->BufferID)->getBuffer();
  auto Rows = std::make_shared<std::vector<spec::TraceRequest>>();
  bool Ok = true, First = true, FirstHasArrival = false;
  auto At = [&](StringRef Cell) {
    SMLoc S = SMLoc::getFromPointer(Cell.data());
    return SMRange(S, SMLoc::getFromPointer(Cell.data() + Cell.size()));
  };
  constexpr double MostTokens = 1e8;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    Line = Line.rtrim("\r");
    StringRef Trimmed = Line.trim();
    if (Trimmed.empty() || Trimmed.startswith("#"))
      continue;
    SmallVector<StringRef, 4> Cells;
    Line.split(Cells, ',');
    if (First && !Cells.empty() && Cells[0].trim() == "prompt") {
      First = false;
      continue; // the header
    }
    if (Cells.size() < 2 || Cells.size() > 3) {
      Diags.report<DiagID::err_trace_row>(At(Line), Cells.size());
      Ok = false;
      continue;
    }
    spec::TraceRequest R;
    bool RowOk = true;
    auto Tokens = [&](StringRef Cell, int64_t &Out) {
      StringRef T = Cell.trim();
      double V;
      if (T.getAsDouble(V) || !(V >= 1) || V > MostTokens ||
          V != std::floor(V)) {
        Diags.report<DiagID::err_trace_number>(
            At(T.empty() ? Cell : T), T,
            "a whole number of tokens from 1 to 100000000");
        RowOk = false;
        return;
      }
      Out = int64_t(V);
    };
    Tokens(Cells[0], R.Prompt);
    Tokens(Cells[1], R.Output);
    bool HasArrival = Cells.size() == 3;
    if (HasArrival) {
      StringRef T = Cells[2].trim();
      double V;
      if (T.getAsDouble(V) || !(V >= 0) || !std::isfinite(V)) {
        Diags.report<DiagID::err_trace_number>(At(T.empty() ? Cells[2] : T), T,
                                               "a time in seconds, >= 0");
        RowOk = false;
      } else {
        R.Arrival = V;
      }
    }
    if (Rows->empty() && RowOk)
      FirstHasArrival = HasArrival;
    else if (RowOk && HasArrival != FirstHasArrival) {
      Diags.report<DiagID::err_trace_arrivals_mixed>(
          At(Line), HasArrival ? "has" : "lacks",
          FirstHasArrival ? "has one" : "does not");
      RowOk = false;
    }
    // A decoder attends over the prompt and every generated token but the
    // last.
    if (RowOk && MaxSeq > 0 && R.Prompt + R.Output - 1 > MaxSeq) {
      Diags.report<DiagID::err_trace_context>(At(Line), R.Prompt, R.Output,
                                              R.Prompt + R.Output - 1,
                                              ModelName, MaxSeq);
      RowOk = false;
    }
    First = false;
    if (RowOk)
      Rows->push_back(R);
    Ok &= RowOk;
    if (Diags.reachedLimit())
      return nullptr;
  }
  if (!Ok)
    return nullptr;
  if (Rows->empty()) {
    Diags.report<DiagID::err_trace_empty>(Use, Spelled);
    return nullptr;
  }
  return Rows;
}

} // namespace sema
} // namespace llmsys
