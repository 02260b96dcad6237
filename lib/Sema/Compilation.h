//===- Compilation.h - files to a resolved Spec -------------------*- C++ -*-===//
//
// What every tool does first: read the files named on the command line and,
// depth first, the files they import (each once; cycles diagnosed with the
// chain), parse them, and resolve them into a Spec.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_COMPILATION_H
#define LLMSYS_SEMA_COMPILATION_H

#include "AST/AST.h"
#include "Basic/Diagnostics.h"
#include "Basic/SourceFiles.h"
#include "IR/Spec.h"
#include "Parse/Parser.h"

#include "llvm/Support/SourceMgr.h"
#include <string>
#include <vector>

namespace llmsys {

struct CompileOptions {
  std::vector<std::string> Files;
  std::vector<std::string> IncludeDirs;
  std::string StdlibDir;
  unsigned ErrorLimit = 20;
  bool Colors = false;
  bool Quiet = false; ///< warnings are not printed (-q)
  ParseLimits Limits;
  /// Top-level files whose text is given rather than read (an old version
  /// from git): Files names them by Path; quoted imports and data files
  /// resolve from Path's directory, diagnostics say Name.
  struct Text {
    std::string Path, Name, Contents;
  };
  std::vector<Text> Texts;
};

class Compilation {
public:
  explicit Compilation(const CompileOptions &Opts);

  /// Reads and parses every file and import. False on any error.
  bool parse();
  /// Resolves the parsed files. False on any error.
  bool resolve();
  /// parse() then resolve().
  bool run() { return parse() && resolve(); }

  const CompileOptions &options() const { return Opts; }

  /// Prints the diagnostics collected so far; returns the exit status.
  int finish(llvm::raw_ostream &OS);

  llvm::SourceMgr SM;
  DiagnosticEngine Diags{SM};
  ast::ASTContext AST;
  SourceFiles Sources{SM, Diags};
  spec::Spec Spec;
  /// Every parsed file, in load order (depth-first through imports).
  std::vector<ast::File *> Files;
  /// The files named on the command line.
  std::vector<ast::File *> TopLevel;

private:
  void loadImports(ast::File *F);

  CompileOptions Opts;
  struct StackEntry {
    unsigned Buffer;
    llvm::SMRange ImportRange;
  };
  std::vector<StackEntry> ImportStack;
};

/// Where the stdlib is: $LLMSYS_STDLIB, then <exe>/../share/llmsys/stdlib
/// (installed), then the source tree the tool was built from.
std::string findStdlibDir(const char *Argv0, void *MainAddr);

} // namespace llmsys

#endif
