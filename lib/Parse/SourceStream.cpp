//===- SourceStream.cpp - a source buffer as ANTLR's character stream ----===//

#include "Parse/SourceStream.h"

#include "llvm/Support/ConvertUTF.h"

namespace llmsys {

SourceStream::SourceStream(llvm::StringRef Text) : Text(Text) {
  size_t CodePoints = 0;
  bool Ascii = true;
  for (char C : Text) {
    auto B = static_cast<unsigned char>(C);
    Ascii &= B < 0x80;
    CodePoints += (B & 0xC0) != 0x80;
  }
  Size = CodePoints;
  if (Ascii)
    return;
  Wide.resize(CodePoints);
  const auto *Src = reinterpret_cast<const llvm::UTF8 *>(Text.data());
  llvm::UTF32 *Dst = reinterpret_cast<llvm::UTF32 *>(Wide.data());
  llvm::ConversionResult R = llvm::ConvertUTF8toUTF32(
      &Src, Src + Text.size(), &Dst, Dst + Wide.size(), llvm::lenientConversion);
  // (Checked UTF-8 converts whole; anything else ends at what converted.)
  if (R != llvm::conversionOK)
    Wide.resize(Dst - reinterpret_cast<llvm::UTF32 *>(Wide.data()));
  Size = Wide.size();
}

void SourceStream::consume() {
  if (P >= Size)
    throw antlr4::IllegalStateException("cannot consume EOF");
  ++P;
}

size_t SourceStream::LA(ssize_t I) {
  if (I == 0)
    return 0; // undefined, as in ANTLRInputStream
  ssize_t At = static_cast<ssize_t>(P) + (I < 0 ? I : I - 1);
  if (At < 0 || static_cast<size_t>(At) >= Size)
    return antlr4::IntStream::EOF;
  return Wide.empty() ? static_cast<unsigned char>(Text[At]) : Wide[At];
}

void SourceStream::seek(size_t Index) {
  P = std::min(Index, Size);
}

std::string SourceStream::getText(const antlr4::misc::Interval &I) {
  if (I.a < 0 || I.b < I.a || static_cast<size_t>(I.a) >= Size)
    return "";
  size_t Start = static_cast<size_t>(I.a);
  size_t Stop = std::min(static_cast<size_t>(I.b), Size - 1);
  if (Wide.empty())
    return Text.substr(Start, Stop - Start + 1).str();
  std::string Out(4 * (Stop - Start + 1), '\0');
  const auto *Src = reinterpret_cast<const llvm::UTF32 *>(&Wide[Start]);
  auto *Dst = reinterpret_cast<llvm::UTF8 *>(&Out[0]);
  llvm::ConvertUTF32toUTF8(&Src, Src + (Stop - Start + 1), &Dst,
                           Dst + Out.size(), llvm::lenientConversion);
  Out.resize(Dst - reinterpret_cast<llvm::UTF8 *>(&Out[0]));
  return Out;
}

} // namespace llmsys
