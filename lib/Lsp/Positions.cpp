//===- Positions.cpp - LSP positions and URIs -------------------------------===//

#include "Lsp/Positions.h"

#include "llvm/ADT/StringExtras.h"

namespace llmsys {
namespace lsp {

/// The length of the UTF-8 sequence that starts with byte B (1 for a byte
/// that starts none: invalid text counts a unit a byte).
static unsigned sequenceLength(unsigned char B) {
  if (B >= 0xF0 && B < 0xF8)
    return 4;
  if (B >= 0xE0)
    return B < 0xF0 ? 3 : 1;
  if (B >= 0xC0)
    return 2;
  return 1;
}

size_t offsetOf(llvm::StringRef Text, Position P) {
  size_t Off = 0;
  for (unsigned L = 0; L < P.Line; ++L) {
    size_t NL = Text.find('\n', Off);
    if (NL == llvm::StringRef::npos)
      return Text.size();
    Off = NL + 1;
  }
  unsigned Units = 0;
  while (Off < Text.size() && Text[Off] != '\n' && Units < P.Character) {
    unsigned N = sequenceLength(static_cast<unsigned char>(Text[Off]));
    Units += N == 4 ? 2 : 1; // outside the BMP: a surrogate pair
    Off = std::min(Text.size(), Off + N);
  }
  return Off;
}

Position positionOf(llvm::StringRef Text, size_t Offset) {
  Position P;
  Offset = std::min(Offset, Text.size());
  size_t LineStart = 0;
  for (size_t I = 0; I < Offset; ++I)
    if (Text[I] == '\n') {
      ++P.Line;
      LineStart = I + 1;
    }
  for (size_t I = LineStart; I < Offset;) {
    unsigned N = sequenceLength(static_cast<unsigned char>(Text[I]));
    P.Character += N == 4 ? 2 : 1;
    I += N;
  }
  return P;
}

std::string pathFromUri(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return "";
  // file://localhost/a is /a; another host is not a local file.
  if (Uri.consume_front("localhost"))
    ;
  else if (!Uri.startswith("/"))
    return "";
  std::string Path;
  for (size_t I = 0; I < Uri.size(); ++I) {
    unsigned Hi, Lo;
    if (Uri[I] == '%' && I + 2 < Uri.size() &&
        (Hi = llvm::hexDigitValue(Uri[I + 1])) != ~0u &&
        (Lo = llvm::hexDigitValue(Uri[I + 2])) != ~0u) {
      Path.push_back(char(Hi * 16 + Lo));
      I += 2;
    } else {
      Path.push_back(Uri[I]);
    }
  }
  return Path;
}

std::string uriFromPath(llvm::StringRef Path) {
  std::string Uri = "file://";
  for (char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
      Uri.push_back(C);
    else
      Uri += "%" + llvm::utohexstr(static_cast<unsigned char>(C), false, 2);
  }
  return Uri;
}

} // namespace lsp
} // namespace llmsys
