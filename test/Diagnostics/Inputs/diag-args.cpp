// A diagnostic gets exactly the arguments its message formats, checked at
// compile time (diag-args.test).
#include "Basic/Diagnostics.h"

using namespace llmsys;

// The count of a format string's arguments.
static_assert(detail::formatArgCount("no fields") == 0, "");
static_assert(detail::formatArgCount("'{}' and '{}'") == 2, "");
static_assert(detail::formatArgCount("byte 0x{:02X}") == 1, "");
static_assert(detail::formatArgCount("'{{ ... }}' is text, '{}' is not") == 1, "");
static_assert(detail::formatArgCount("{1} before {0}, then {2}") == 3, "");
static_assert(detail::formatArgCount("{0} twice: {0}") == 1, "");

void reportIt(DiagnosticEngine &D, llvm::SMRange R) {
  // err_file_not_found: "cannot open '{}': {}"
#if defined(TOO_FEW)
  D.report<DiagID::err_file_not_found>(R, "spec.llmsys");
#elif defined(TOO_MANY)
  D.report<DiagID::err_file_not_found>(R, "spec.llmsys", "gone", 3);
#elif defined(NOTE_TOO_FEW)
  D.report<DiagID::err_file_not_found>(R, "spec.llmsys", "gone")
      .note<DiagID::note_scenario_uses>(R);
#else
  D.report<DiagID::err_file_not_found>(R, "spec.llmsys", "gone")
      .note<DiagID::note_scenario_uses>(R, "t");
#endif
}
