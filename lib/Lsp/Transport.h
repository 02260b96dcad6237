//===- Transport.h - LSP base protocol framing --------------------*- C++ -*-===//
//
// The Language Server Protocol's base protocol: a message is a header
// ("Content-Length: N", other fields ignored) and an empty line, then N
// bytes of JSON.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_LSP_TRANSPORT_H
#define LLMSYS_LSP_TRANSPORT_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <optional>
#include <string>

namespace llmsys {
namespace lsp {

/// The largest message body accepted (a document of the largest size a
/// .llmsys file may have, escaped, fits).
constexpr size_t MaxMessageBytes = 64u << 20;

struct Incoming {
  enum Kind { Message, EndOfInput, BadHeader } K = EndOfInput;
  std::string Body;  ///< Message: the JSON text
  std::string Error; ///< BadHeader: what was wrong
};

/// Reads the next message. A header without a valid Content-Length is
/// BadHeader (the body, if any, cannot be found: the caller answers and
/// reads on from the next header).
Incoming readMessage(std::FILE *In);

/// Writes V as one message and flushes.
void writeMessage(llvm::raw_ostream &Out, const llvm::json::Value &V);

} // namespace lsp
} // namespace llmsys

#endif
