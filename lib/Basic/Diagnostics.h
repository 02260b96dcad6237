//===- Diagnostics.h - clang-style diagnostics over llvm::SourceMgr -------===//
//
// Every diagnostic kind is registered in DiagnosticKinds.def. Diagnostics are
// collected during a run, then printed in source order (file load order, then
// offset) up to an error limit, followed by "N errors generated.".
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_BASIC_DIAGNOSTICS_H
#define LLMSYS_BASIC_DIAGNOSTICS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>
#include <string>
#include <vector>

namespace llmsys {

enum class DiagID : unsigned {
#define DIAG(ID, SEV, FMT) ID,
#include "Basic/DiagnosticKinds.def"
  NumDiagIDs
};

/// Error: the input is wrong (exit 2). Finding: printed as an error, but
/// it reports what the input predicts, e.g. a failed expectation (exit 1).
enum class Severity { Error, Finding, Warning, Note };

/// The exit statuses of the tools (docs/cli.md#exit-status).
enum ExitStatus : int {
  ExitOk = 0,       ///< every check passed
  ExitFinding = 1,  ///< a check the user asked for failed
  ExitBadInput = 2, ///< bad input, a usage error or an I/O failure
};

/// "error" (errors and findings), "warning" or "note": how a diagnostic
/// is labelled when printed and in the Python module's dicts.
inline const char *severityLabel(Severity S) {
  switch (S) {
  case Severity::Error:
  case Severity::Finding:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

/// Errors and findings stop a run from succeeding.
inline bool isError(Severity S) {
  return S == Severity::Error || S == Severity::Finding;
}

namespace detail {
/// Every kind's message, for compile-time checks.
inline constexpr const char *DiagFormats[] = {
#define DIAG(ID, SEV, FMT) FMT,
#include "Basic/DiagnosticKinds.def"
};

/// The arguments a fmt format string reads: automatic fields counted,
/// positional ones ("{1}") by their largest index; "{{" and "}}" are text.
constexpr unsigned formatArgCount(const char *F) {
  unsigned Auto = 0, MaxIndex = 0;
  bool Positional = false;
  for (const char *C = F; *C; ++C) {
    if (*C != '{')
      continue;
    if (C[1] == '{') {
      ++C;
      continue;
    }
    if (C[1] >= '0' && C[1] <= '9') {
      unsigned I = 0;
      for (++C; *C >= '0' && *C <= '9'; ++C)
        I = I * 10 + unsigned(*C - '0');
      Positional = true;
      MaxIndex = I + 1 > MaxIndex ? I + 1 : MaxIndex;
    } else {
      ++Auto;
    }
    while (*C && *C != '}')
      ++C;
    if (!*C)
      break;
  }
  return Positional ? MaxIndex : Auto;
}

template <DiagID ID> constexpr unsigned diagArgCount() {
  return formatArgCount(DiagFormats[static_cast<unsigned>(ID)]);
}
} // namespace detail

/// Checked at compile time: a diagnostic gets exactly the arguments its
/// message formats.
#define LLMSYS_CHECK_DIAG_ARGS(ID, Args)                                      \
  static_assert(sizeof...(Args) == detail::diagArgCount<ID>(),                \
                "a diagnostic's arguments must match the '{}' fields of its " \
                "message in DiagnosticKinds.def")

/// The registry's entry for a diagnostic kind.
struct DiagInfo {
  llvm::StringRef Name;
  Severity Sev;
  llvm::StringRef Format;
};
const DiagInfo &getDiagInfo(DiagID ID);

struct Diagnostic {
  DiagID ID;
  Severity Sev;
  llvm::SMRange Range; ///< Start is the caret; an invalid range has no location.
  std::string Message;
  std::vector<Diagnostic> Notes;
  unsigned Sequence = 0; ///< Report order, to keep sorting stable.
};

class DiagnosticEngine;

/// Returned by DiagnosticEngine::report; attaches notes to that diagnostic.
class DiagBuilder {
public:
  DiagBuilder(DiagnosticEngine &Engine, size_t Index)
      : Engine(Engine), Index(Index) {}
  template <DiagID ID, typename... Args>
  DiagBuilder &note(llvm::SMRange Range, Args &&...A);

private:
  DiagnosticEngine &Engine;
  size_t Index;
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &SM) : SM(SM) {}

  template <DiagID ID, typename... Args>
  DiagBuilder report(llvm::SMRange Range, Args &&...A) {
    LLMSYS_CHECK_DIAG_ARGS(ID, Args);
    return reportFormatted(ID, Range, format(ID, std::forward<Args>(A)...));
  }
  template <DiagID ID, typename... Args>
  DiagBuilder report(llvm::SMLoc Loc, Args &&...A) {
    return report<ID>(llvm::SMRange(Loc, Loc), std::forward<Args>(A)...);
  }

  DiagBuilder reportFormatted(DiagID ID, llvm::SMRange Range, std::string Msg);

  /// While a context note is pushed, every error reported gets a copy of it
  /// ("'head_dim' defaults to 'hidden / heads'").
  template <DiagID ID, typename... Args>
  void pushContextNote(llvm::SMRange Range, Args &&...A) {
    LLMSYS_CHECK_DIAG_ARGS(ID, Args);
    Diagnostic N;
    N.ID = ID;
    N.Sev = Severity::Note;
    N.Range = Range;
    N.Message = format(ID, std::forward<Args>(A)...);
    ContextNotes.push_back(std::move(N));
  }
  void popContextNote() { ContextNotes.pop_back(); }
  void addNote(size_t Index, Diagnostic Note);

  /// The message of a kind with its arguments (report checks their count).
  template <typename... Args>
  static std::string format(DiagID ID, Args &&...A) {
    llvm::StringRef F = fmtString(ID);
    return fmt::format(fmt::runtime(fmt::string_view(F.data(), F.size())),
                       std::forward<Args>(A)...);
  }

  /// Errors and findings.
  unsigned getNumErrors() const { return NumErrors; }
  bool hasErrors() const { return NumErrors != 0; }
  /// Errors that are faults of the input, not findings.
  bool hasInputErrors() const { return NumErrors != NumFindings; }
  /// ExitBadInput on an input error, ExitFinding on findings alone.
  int exitStatus() const {
    return hasInputErrors() ? ExitBadInput : hasErrors() ? ExitFinding : ExitOk;
  }
  /// True once more errors were reported than will be printed: producers
  /// (the parser, above all) may stop early.
  bool reachedLimit() const {
    return ErrorLimit != 0 && NumErrors > ErrorLimit;
  }
  void setErrorLimit(unsigned Limit) { ErrorLimit = Limit; }
  void setShowColors(bool Enable) { ShowColors = Enable; }
  /// -q: warnings (and their notes) are counted but not printed.
  void setShowWarnings(bool Enable) { ShowWarnings = Enable; }

  /// Prints every diagnostic collected so far in source order and clears
  /// them; then "N errors generated." if there were errors.
  void flush(llvm::raw_ostream &OS);

  /// The diagnostics collected and not yet printed, in report order (the
  /// Python module hands them out as data).
  llvm::ArrayRef<Diagnostic> pending() const { return Diags; }

  /// The printed form of one diagnostic, for tools and tests.
  void print(llvm::raw_ostream &OS, const Diagnostic &D) const;

  llvm::SourceMgr &getSourceMgr() const { return SM; }

  /// What has been reported so far; rollback forgets what came after (a
  /// parse that is redone another way).
  struct Checkpoint {
    size_t Count;
    unsigned Errors, Findings;
  };
  Checkpoint checkpoint() const {
    return {Diags.size(), NumErrors, NumFindings};
  }
  void rollback(const Checkpoint &C) {
    if (C.Count < Diags.size())
      Diags.resize(C.Count);
    NumErrors = C.Errors;
    NumFindings = C.Findings;
  }

private:
  static llvm::StringRef fmtString(DiagID ID) { return getDiagInfo(ID).Format; }

  llvm::SourceMgr &SM;
  std::vector<Diagnostic> Diags;
  std::vector<Diagnostic> ContextNotes;
  unsigned NumErrors = 0;
  unsigned NumFindings = 0;
  unsigned ErrorLimit = 20;
  unsigned Sequence = 0;
  bool ShowColors = false;
  bool ShowWarnings = true;
};

template <DiagID ID, typename... Args>
DiagBuilder &DiagBuilder::note(llvm::SMRange Range, Args &&...A) {
  LLMSYS_CHECK_DIAG_ARGS(ID, Args);
  Diagnostic N;
  N.ID = ID;
  N.Sev = Severity::Note;
  N.Range = Range;
  N.Message = DiagnosticEngine::format(ID, std::forward<Args>(A)...);
  Engine.addNote(Index, std::move(N));
  return *this;
}

} // namespace llmsys

#endif
