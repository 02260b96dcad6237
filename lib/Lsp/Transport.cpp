//===- Transport.cpp - LSP base protocol framing ----------------------------===//

#include "Lsp/Transport.h"

#include "llvm/ADT/StringRef.h"

namespace llmsys {
namespace lsp {

/// One header line without its line break; nullopt at the end of input.
static std::optional<std::string> readLine(std::FILE *In) {
  std::string Line;
  int C;
  while ((C = std::fgetc(In)) != EOF) {
    if (C == '\n') {
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      return Line;
    }
    if (Line.size() > 4096) // no header line is this long
      continue;
    Line.push_back(char(C));
  }
  if (Line.empty())
    return std::nullopt;
  return Line;
}

Incoming readMessage(std::FILE *In) {
  Incoming R;
  std::optional<size_t> Length;
  std::string Bad;
  bool Any = false;
  while (true) {
    std::optional<std::string> Line = readLine(In);
    if (!Line) {
      if (Any) {
        R.K = Incoming::BadHeader;
        R.Error = "the input ended inside a message header";
      }
      return R;
    }
    if (Line->empty()) {
      if (!Any)
        continue; // blank lines between messages
      break;
    }
    Any = true;
    llvm::StringRef L(*Line);
    // After a message whose length could not be read, its body runs into
    // the next header on one line: read on from the header's name.
    size_t At = L.find_insensitive("content-length:");
    if (At != llvm::StringRef::npos)
      L = L.drop_front(At);
    auto [Name, Value] = L.split(':');
    if (Name.trim().equals_insensitive("Content-Length")) {
      unsigned long long N;
      if (Value.trim().getAsInteger(10, N))
        Bad = "Content-Length is not a number: '" + Value.trim().str() + "'";
      else if (N > MaxMessageBytes)
        Bad = "Content-Length " + std::to_string(N) +
              " is larger than the " + std::to_string(MaxMessageBytes >> 20) +
              " MiB a message may have";
      else
        Length = size_t(N);
    }
  }
  if (!Bad.empty() || !Length) {
    R.K = Incoming::BadHeader;
    R.Error = Bad.empty() ? "a message header without Content-Length" : Bad;
    return R;
  }
  R.Body.resize(*Length);
  size_t Got = *Length ? std::fread(&R.Body[0], 1, *Length, In) : 0;
  if (Got != *Length) {
    R.K = Incoming::BadHeader;
    R.Error = "the input ended inside a message body";
    return R;
  }
  R.K = Incoming::Message;
  return R;
}

void writeMessage(llvm::raw_ostream &Out, const llvm::json::Value &V) {
  std::string Body;
  llvm::raw_string_ostream OS(Body);
  OS << V;
  OS.flush();
  Out << "Content-Length: " << Body.size() << "\r\n\r\n" << Body;
  Out.flush();
}

} // namespace lsp
} // namespace llmsys
