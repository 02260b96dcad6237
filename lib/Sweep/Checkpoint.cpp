//===- Checkpoint.cpp - a sweep's saved progress ----------------------------===//

#include "Sweep/Checkpoint.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace llmsys {
namespace sweep {

static constexpr StringLiteral Magic = "LLMSYSCK";
static constexpr uint64_t Format = 1;

std::string saveCheckpoint(const Checkpoint &C, uint64_t Total,
                           const Saved &S) {
  std::string B(Magic);
  putWord(B, Format);
  putWord(B, C.Identity.size());
  B += C.Identity;
  putWord(B, Total);
  putWord(B, S.Next);
  putBlock(B, S.Done);
  Error E = writeToOutput(C.Path, [&](raw_ostream &OS) -> Error {
    OS << B;
    return Error::success();
  });
  if (!E)
    return "";
  return "cannot write the checkpoint '" + C.Path +
         "': " + toString(std::move(E));
}

std::optional<Saved> loadCheckpoint(const Checkpoint &C, uint64_t Total,
                                    size_t Axes, size_t Columns,
                                    std::string &Error) {
  if (!sys::fs::exists(C.Path))
    return std::nullopt;
  ErrorOr<std::unique_ptr<MemoryBuffer>> MB = MemoryBuffer::getFile(C.Path);
  if (!MB) {
    Error = "cannot read the checkpoint '" + C.Path +
            "': " + MB.getError().message();
    return std::nullopt;
  }
  StringRef B = (*MB)->getBuffer();
  auto Bad = [&](StringRef Why) {
    Error = ("the checkpoint '" + C.Path + "' " + Why +
             "; remove it to start the sweep again")
                .str();
    return std::nullopt;
  };
  if (!B.consume_front(Magic))
    return Bad("is not an llmsys checkpoint");
  bool Ok = true;
  if (getWord(B, Ok) != Format || !Ok)
    return Bad("was written in another checkpoint format");
  uint64_t IdSize = getWord(B, Ok);
  if (!Ok || IdSize > B.size())
    return Bad("is cut short");
  StringRef Id = B.take_front(IdSize);
  B = B.drop_front(IdSize);
  if (Id != C.Identity) {
    // Say what differs: the first line of the identity names the version.
    StringRef Theirs = Id.take_until([](char Ch) { return Ch == '\n'; });
    StringRef Ours = StringRef(C.Identity).take_until(
        [](char Ch) { return Ch == '\n'; });
    if (Theirs != Ours)
      return Bad(("was written by " + Theirs + ", not " + Ours).str());
    return Bad("is of another sweep, or of the same sweep of specs that "
               "have changed since");
  }
  Saved S;
  if (getWord(B, Ok) != Total || !Ok)
    return Bad("is of a grid of another size");
  S.Next = getWord(B, Ok);
  if (!Ok || S.Next > Total || !getBlock(B, S.Done) || !B.empty())
    return Bad("is cut short or damaged");
  for (const Point &P : S.Done.Points)
    if (P.Choice.size() != Axes || P.Figures.size() != Columns ||
        P.Index >= S.Next)
      return Bad("is damaged");
  return S;
}

} // namespace sweep
} // namespace llmsys
