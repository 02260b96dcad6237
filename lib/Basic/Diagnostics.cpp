//===- Diagnostics.cpp - clang-style diagnostics ----------------------------===//

#include "Basic/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/ErrorHandling.h"
#include <utility>
#include <algorithm>

using namespace llvm;

namespace llmsys {

static const DiagInfo DiagTable[] = {
#define DIAG(ID, SEV, FMT) {#ID, Severity::SEV, FMT},
#include "Basic/DiagnosticKinds.def"
};

const DiagInfo &getDiagInfo(DiagID ID) {
  assert(static_cast<unsigned>(ID) < static_cast<unsigned>(DiagID::NumDiagIDs) &&
         "diagnostic ID out of range");
  return DiagTable[static_cast<unsigned>(ID)];
}

DiagBuilder DiagnosticEngine::reportFormatted(DiagID ID, SMRange Range,
                                              std::string Msg) {
  Diagnostic D;
  D.ID = ID;
  D.Sev = getDiagInfo(ID).Sev;
  D.Range = Range;
  D.Message = std::move(Msg);
  D.Sequence = Sequence++;
  if (isError(D.Sev)) {
    ++NumErrors;
    NumFindings += D.Sev == Severity::Finding;
    for (auto It = ContextNotes.rbegin(); It != ContextNotes.rend(); ++It)
      D.Notes.push_back(*It);
  }
  // Past the limit nothing more will be printed; keep memory bounded when a
  // file produces tens of thousands of errors.
  if (ErrorLimit != 0 && NumErrors > ErrorLimit * 4 && isError(D.Sev))
    return DiagBuilder(*this, SIZE_MAX);
  Diags.push_back(std::move(D));
  return DiagBuilder(*this, Diags.size() - 1);
}

void DiagnosticEngine::addNote(size_t Index, Diagnostic Note) {
  if (Index == SIZE_MAX)
    return;
  Diags[Index].Notes.push_back(std::move(Note));
}

namespace {
struct SortKey {
  unsigned Buffer;   // 0: no location; otherwise SourceMgr buffer ID (load order)
  const char *Ptr;
  unsigned Sequence;
  bool operator<(const SortKey &O) const {
    if (Buffer != O.Buffer)
      return Buffer < O.Buffer;
    if (Ptr != O.Ptr)
      return Ptr < O.Ptr;
    return Sequence < O.Sequence;
  }
};
} // namespace

void DiagnosticEngine::flush(raw_ostream &OS) {
  std::vector<std::pair<SortKey, const Diagnostic *>> Order;
  Order.reserve(Diags.size());
  for (const Diagnostic &D : Diags) {
    SortKey K{0, nullptr, D.Sequence};
    if (D.Range.Start.isValid()) {
      K.Buffer = SM.FindBufferContainingLoc(D.Range.Start);
      K.Ptr = D.Range.Start.getPointer();
    }
    Order.push_back({K, &D});
  }
  std::stable_sort(Order.begin(), Order.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  unsigned Printed = 0;
  bool Stopped = false;
  for (const auto &Entry : Order) {
    const Diagnostic &D = *Entry.second;
    if (isError(D.Sev) && ErrorLimit != 0 && Printed == ErrorLimit) {
      Diagnostic Stop;
      Stop.ID = DiagID::err_too_many_errors;
      Stop.Sev = Severity::Error;
      Stop.Message = getDiagInfo(DiagID::err_too_many_errors).Format.str();
      print(OS, Stop);
      Stopped = true;
      break;
    }
    if (D.Sev == Severity::Warning && !ShowWarnings)
      continue;
    print(OS, D);
    for (const Diagnostic &N : D.Notes)
      print(OS, N);
    if (isError(D.Sev))
      ++Printed;
  }
  (void)Stopped;
  if (NumErrors)
    OS << NumErrors << (NumErrors == 1 ? " error" : " errors")
       << " generated.\n";
  Diags.clear();
}

// Lines longer than this are shown as a window around the caret.
static constexpr size_t MaxShownLine = 160;
static constexpr size_t WindowBefore = 70;

static bool isContinuationByte(char C) {
  return (static_cast<unsigned char>(C) & 0xC0) == 0x80;
}

void DiagnosticEngine::print(raw_ostream &OS, const Diagnostic &D) const {
  StringRef Label = severityLabel(D.Sev);
  raw_ostream::Colors LabelColor = D.Sev == Severity::Warning ? raw_ostream::MAGENTA
                                   : D.Sev == Severity::Note  ? raw_ostream::BLACK
                                                              : raw_ostream::RED;

  unsigned BufID = 0;
  unsigned Line = 0, Col = 0;
  if (D.Range.Start.isValid()) {
    BufID = SM.FindBufferContainingLoc(D.Range.Start);
    if (BufID)
      std::tie(Line, Col) = SM.getLineAndColumn(D.Range.Start, BufID);
  }

  if (ShowColors)
    OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  if (BufID)
    OS << SM.getMemoryBuffer(BufID)->getBufferIdentifier() << ':' << Line
       << ':' << Col << ": ";
  else
    OS << "llmsys: ";
  if (ShowColors)
    OS.changeColor(LabelColor, /*Bold=*/true);
  OS << Label << ": ";
  if (ShowColors)
    OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << D.Message << '\n';
  if (ShowColors)
    OS.resetColor();
  if (!BufID)
    return;

  // The source line, windowed when long, and the caret line under it.
  const MemoryBuffer *Buf = SM.getMemoryBuffer(BufID);
  const char *BufStart = Buf->getBufferStart();
  const char *BufEnd = Buf->getBufferEnd();
  const char *Caret = D.Range.Start.getPointer();
  const char *LineStart = Caret;
  while (LineStart > BufStart && LineStart[-1] != '\n' && LineStart[-1] != '\r')
    --LineStart;
  const char *LineEnd = Caret;
  while (LineEnd < BufEnd && *LineEnd != '\n' && *LineEnd != '\r')
    ++LineEnd;

  const char *ShowStart = LineStart, *ShowEnd = LineEnd;
  bool CutFront = false, CutBack = false;
  if (static_cast<size_t>(LineEnd - LineStart) > MaxShownLine) {
    if (static_cast<size_t>(Caret - LineStart) > WindowBefore) {
      ShowStart = Caret - WindowBefore;
      CutFront = true;
    }
    if (static_cast<size_t>(LineEnd - ShowStart) > MaxShownLine) {
      ShowEnd = ShowStart + MaxShownLine;
      CutBack = true;
    }
    while (ShowStart < Caret && isContinuationByte(*ShowStart))
      ++ShowStart;
    while (ShowEnd < LineEnd && isContinuationByte(*ShowEnd))
      ++ShowEnd;
  }

  // Bytes that are not UTF-8 (a file rejected for that reason) show as '?'.
  const UTF8 *Probe = reinterpret_cast<const UTF8 *>(ShowStart);
  bool ValidUTF8 =
      isLegalUTF8String(&Probe, reinterpret_cast<const UTF8 *>(ShowEnd));
  std::string Source, Marks;
  if (CutFront) {
    Source += "...";
    Marks += "   ";
  }
  for (const char *P = ShowStart; P < ShowEnd; ++P) {
    unsigned char C = static_cast<unsigned char>(*P);
    if (C >= 0x80 && !ValidUTF8)
      Source += '?';
    else
      Source += (C < 0x20 && C != '\t') ? ' ' : static_cast<char>(C);
  }
  if (CutBack)
    Source += "...";

  const char *RangeEnd = D.Range.End.getPointer();
  if (!RangeEnd || RangeEnd < Caret || RangeEnd > ShowEnd)
    RangeEnd = std::min(std::max(Caret, RangeEnd ? RangeEnd : Caret), ShowEnd);
  for (const char *P = ShowStart; P < ShowEnd && P < RangeEnd + 1; ++P) {
    if (isContinuationByte(*P))
      continue;
    if (P < Caret)
      Marks += *P == '\t' ? '\t' : ' ';
    else if (P == Caret)
      Marks += '^';
    else if (P < RangeEnd)
      Marks += '~';
  }
  if (Caret >= ShowEnd)
    Marks += '^';
  OS << Source << '\n';
  if (ShowColors)
    OS.changeColor(raw_ostream::GREEN, /*Bold=*/true);
  OS << Marks;
  if (ShowColors)
    OS.resetColor();
  OS << '\n';
}

} // namespace llmsys
