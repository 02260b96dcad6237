//===- FuzzInput.h - a fuzzer's bytes as a spec file ---------------*- C++ -*-===//
//
// Shared by the fuzz targets: the bytes become the text of one top-level
// file (no file is written); `import std.X` reads the source tree's stdlib,
// and a quoted import resolves next to a file that does not exist.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_FUZZ_FUZZINPUT_H
#define LLMSYS_FUZZ_FUZZINPUT_H

#include "Sema/Compilation.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace llmsys {

inline std::unique_ptr<Compilation> compileFuzzInput(const uint8_t *Data,
                                                     size_t Size) {
  CompileOptions O;
  O.Files = {"fuzz-input.llmsys"};
  O.Texts = {{"fuzz-input.llmsys", "fuzz-input.llmsys",
              std::string(reinterpret_cast<const char *>(Data), Size)}};
  O.StdlibDir = LLMSYS_SOURCE_STDLIB_DIR;
  O.ErrorLimit = 0;
  return std::make_unique<Compilation>(O);
}

} // namespace llmsys

#endif
