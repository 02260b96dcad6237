//===- ProgramText.h - the program as text that reads back ------*- C++ -*-===//
//
// The textual IR of a program (`llmsys-opt --emit=ir`): every field of the
// program, its blocks, operators, stages and schedule, numbers in their
// shortest exact form, so that reading the text gives the same program and
// writing it again the same text. A program's scenario (model, system,
// mapping) is not repeated: the text names the spec and the scenario it
// came from, which a reader compiles again. The driver's sub-programs (a
// speculative draft, a pipelined micro-batch) are not part of it.
// llmsys-opt reads it back to run chosen passes on it (docs/passes.md).
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_IR_PROGRAMTEXT_H
#define LLMSYS_IR_PROGRAMTEXT_H

#include "Basic/Diagnostics.h"
#include "IR/Program.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>

namespace llmsys {
namespace ir {

/// The words of ProgramState bits, comma-separated ("expanded,fused").
std::string stateWords(unsigned State);

/// Writes P as text; SpecPath names the spec file its scenario is in.
void writeProgramText(const Program &P, llvm::StringRef SpecPath,
                      llvm::raw_ostream &OS);

/// A program read from text: everything but its scenario, and where to
/// find that.
struct ProgramText {
  std::string SpecPath, ScenarioName;
  /// Where the text names them, and its program line.
  llvm::SMRange SpecRange, ScenarioRange, ProgramRange;
  Program Prog; ///< its Scenario left default
};

/// Reads the text in buffer BufferID of Diags' source manager. Problems
/// are diagnosed at their place in the text; nullopt after any.
std::optional<ProgramText> readProgramText(unsigned BufferID,
                                           DiagnosticEngine &Diags);

} // namespace ir
} // namespace llmsys

#endif
