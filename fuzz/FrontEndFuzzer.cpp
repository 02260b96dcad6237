//===- FrontEndFuzzer.cpp - libFuzzer target: parse and resolve -----------===//
//
// Any bytes: the parser, the AST builder and Sema must end in a result or
// diagnostics (the sanitizers and libFuzzer catch the rest: a crash, a
// leak, undefined behaviour, a timeout, memory past -rss_limit_mb).
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

using namespace llmsys;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::unique_ptr<Compilation> C = compileFuzzInput(Data, Size);
  C->run();
  C->finish(llvm::nulls());
  return 0;
}
