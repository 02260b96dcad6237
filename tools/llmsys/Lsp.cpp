//===- Lsp.cpp - llmsys lsp -----------------------------------------------===//
//
// The language server (lib/Lsp, docs/lsp.md) on stdin and stdout; -I and
// --stdlib apply to every document it compiles.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Lsp/Server.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace llmsys {
namespace driver {

int runLsp(const char *Argv0) {
  CompileOptions Base = compileOptions(Argv0);
  Base.Files.clear();
  // Diagnostics go to the client; stdout carries the protocol only.
  llvm::raw_fd_ostream Out(/*fd=*/1, /*shouldClose=*/false,
                           /*unbuffered=*/false);
  lsp::Server S(std::move(Base), LLMSYS_VERSION, Out);
  return S.run(stdin);
}

} // namespace driver
} // namespace llmsys
