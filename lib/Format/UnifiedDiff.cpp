//===- UnifiedDiff.cpp - what llmsys fmt --check would change -------------===//
//
// A line diff in the unified format of diff -u and git diff. The lines the
// two texts share at the start and the end are set aside; the rest is
// matched by a longest common subsequence (a formatter's changes are few
// and local). Past a size where that table would be large, the middle is
// shown as removed and added whole.
//
//===----------------------------------------------------------------------===//

#include "Format/Format.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace llmsys {

namespace {

/// The lines of a text, without their line breaks; NoNewline when the text
/// does not end with one.
struct Lines {
  std::vector<StringRef> Items;
  /// What the lines are compared by: the lines, but a last line without a
  /// line break differs from the same text with one.
  std::vector<StringRef> Keys;
  bool NoNewline = false;
  explicit Lines(StringRef Text) {
    while (!Text.empty()) {
      auto [Line, Rest] = Text.split('\n');
      Items.push_back(Line);
      if (Rest.empty() && !Text.endswith("\n"))
        NoNewline = true;
      Text = Rest;
    }
    Keys = Items;
    if (NoNewline) {
      LastKey = Items.back().str() + "\n";
      Keys.back() = LastKey;
    }
  }
  Lines(const Lines &) = delete;
  std::string LastKey;
};

enum class Op { Keep, Remove, Add };

/// The edit script from A to B: Keep and Remove walk A, Keep and Add B.
std::vector<Op> editScript(ArrayRef<StringRef> A, ArrayRef<StringRef> B) {
  size_t Prefix = 0;
  while (Prefix < A.size() && Prefix < B.size() && A[Prefix] == B[Prefix])
    ++Prefix;
  size_t Suffix = 0;
  while (Suffix < A.size() - Prefix && Suffix < B.size() - Prefix &&
         A[A.size() - 1 - Suffix] == B[B.size() - 1 - Suffix])
    ++Suffix;
  ArrayRef<StringRef> MA = A.slice(Prefix, A.size() - Prefix - Suffix);
  ArrayRef<StringRef> MB = B.slice(Prefix, B.size() - Prefix - Suffix);
  std::vector<Op> Script(Prefix, Op::Keep);
  const size_t MaxCells = size_t(1) << 24;
  if (!MA.empty() && !MB.empty() &&
      (MA.size() + 1) * (MB.size() + 1) <= MaxCells) {
    // Lcs[I][J]: the longest common subsequence of MA[I..] and MB[J..].
    size_t W = MB.size() + 1;
    std::vector<uint32_t> Lcs((MA.size() + 1) * W, 0);
    for (size_t I = MA.size(); I-- > 0;)
      for (size_t J = MB.size(); J-- > 0;)
        Lcs[I * W + J] = MA[I] == MB[J]
                             ? Lcs[(I + 1) * W + J + 1] + 1
                             : std::max(Lcs[(I + 1) * W + J],
                                        Lcs[I * W + J + 1]);
    size_t I = 0, J = 0;
    while (I < MA.size() && J < MB.size()) {
      if (MA[I] == MB[J]) {
        Script.push_back(Op::Keep);
        ++I, ++J;
      } else if (Lcs[(I + 1) * W + J] >= Lcs[I * W + J + 1]) {
        Script.push_back(Op::Remove);
        ++I;
      } else {
        Script.push_back(Op::Add);
        ++J;
      }
    }
    Script.insert(Script.end(), MA.size() - I, Op::Remove);
    Script.insert(Script.end(), MB.size() - J, Op::Add);
  } else {
    Script.insert(Script.end(), MA.size(), Op::Remove);
    Script.insert(Script.end(), MB.size(), Op::Add);
  }
  Script.insert(Script.end(), Suffix, Op::Keep);
  return Script;
}

} // namespace

std::string unifiedDiff(StringRef Before, StringRef After,
                        StringRef BeforeName, StringRef AfterName) {
  if (Before == After)
    return "";
  Lines A(Before), B(After);
  std::vector<Op> Script = editScript(A.Keys, B.Keys);
  // Where each step of the script is in A and in B.
  std::vector<size_t> PosA(Script.size() + 1), PosB(Script.size() + 1);
  for (size_t K = 0; K < Script.size(); ++K) {
    PosA[K + 1] = PosA[K] + (Script[K] != Op::Add);
    PosB[K + 1] = PosB[K] + (Script[K] != Op::Remove);
  }
  const size_t Context = 3;
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "--- " << BeforeName << "\n+++ " << AfterName << "\n";
  auto Emit = [&](StringRef Mark, StringRef Line, bool Last) {
    OS << Mark << Line << '\n';
    if (Last)
      OS << "\\ No newline at end of file\n";
  };
  size_t K = 0;
  while (K < Script.size()) {
    if (Script[K] == Op::Keep) {
      ++K;
      continue;
    }
    // A hunk: from Context lines before this change to Context lines after
    // the last change that is at most 2 * Context lines from the next.
    size_t Begin = K >= Context ? K - Context : 0;
    size_t End = K;
    for (;;) {
      while (End < Script.size() && Script[End] != Op::Keep)
        ++End;
      size_t Next = End;
      while (Next < Script.size() && Script[Next] == Op::Keep)
        ++Next;
      if (Next < Script.size() && Next - End <= 2 * Context) {
        End = Next;
        continue;
      }
      End = std::min(Script.size(), End + Context);
      break;
    }
    size_t LenA = PosA[End] - PosA[Begin], LenB = PosB[End] - PosB[Begin];
    OS << formatv("@@ -{0},{1} +{2},{3} @@\n",
                  LenA ? PosA[Begin] + 1 : PosA[Begin], LenA,
                  LenB ? PosB[Begin] + 1 : PosB[Begin], LenB);
    for (size_t S = Begin; S < End; ++S) {
      size_t IA = PosA[S], IB = PosB[S];
      switch (Script[S]) {
      case Op::Keep:
        Emit(" ", A.Items[IA], A.NoNewline && IA + 1 == A.Items.size());
        break;
      case Op::Remove:
        Emit("-", A.Items[IA], A.NoNewline && IA + 1 == A.Items.size());
        break;
      case Op::Add:
        Emit("+", B.Items[IB], B.NoNewline && IB + 1 == B.Items.size());
        break;
      }
    }
    K = End;
  }
  OS.flush();
  return Out;
}

} // namespace llmsys
