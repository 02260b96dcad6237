//===- SourceFiles.cpp - loading .llmsys files and finding imports --------===//

#include "Basic/SourceFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace llmsys {

std::string SourceFiles::displayName(StringRef Path) const {
  if (!StdlibDir.empty()) {
    SmallString<256> Std(StdlibDir);
    sys::path::remove_dots(Std, /*remove_dot_dot=*/true);
    SmallString<256> P(Path);
    sys::path::remove_dots(P, true);
    if (P.str().startswith(Std) && P.size() > Std.size() &&
        sys::path::is_separator(P[Std.size()]))
      return ("stdlib" + P.str().drop_front(Std.size())).str();
  }
  SmallString<256> P(Path);
  sys::path::remove_dots(P, true);
  return std::string(P.str());
}

/// Larger inputs are refused before they are read whole (a device such as
/// /dev/zero never ends).
static constexpr uint64_t MaxFileMiB = 256;
static constexpr uint64_t MaxFileBytes = MaxFileMiB << 20;

static const char *typeName(sys::fs::file_type T) {
  switch (T) {
  case sys::fs::file_type::directory_file: return "a directory";
  case sys::fs::file_type::fifo_file: return "a pipe";
  case sys::fs::file_type::character_file: return "a character device";
  case sys::fs::file_type::block_file: return "a block device";
  case sys::fs::file_type::socket_file: return "a socket";
  default: return "not a regular file";
  }
}

std::optional<SourceFiles::Loaded>
SourceFiles::loadStream(const std::string &Path, const std::string &Display,
                        SMRange Range) {
  Expected<sys::fs::file_t> FD =
      Path == "-" ? sys::fs::getStdinHandle()
                  : sys::fs::openNativeFileForRead(Path);
  if (!FD) {
    Diags.report<DiagID::err_file_not_found>(Range, Display,
                                             toString(FD.takeError()));
    return std::nullopt;
  }
  std::string Text;
  bool Failed = false;
  char Chunk[1 << 16];
  for (;;) {
    Expected<size_t> N = sys::fs::readNativeFile(*FD, Chunk);
    if (!N) {
      Diags.report<DiagID::err_file_not_found>(Range, Display,
                                               toString(N.takeError()));
      Failed = true;
      break;
    }
    if (*N == 0)
      break;
    if (Text.size() + *N > MaxFileBytes) {
      Diags.report<DiagID::err_file_too_large>(Range, Display, MaxFileMiB);
      Failed = true;
      break;
    }
    Text.append(Chunk, *N);
  }
  if (Path != "-")
    sys::fs::closeFile(*FD);
  if (Failed)
    return std::nullopt;
  unsigned ID = addBuffer(Text, Display);
  return Loaded{ID, true};
}

std::optional<SourceFiles::Loaded>
SourceFiles::load(const std::string &Path, const std::string &Display,
                  SMRange Range, bool Stream) {
  // A pipe or a device: a file named on the command line may be one
  // (`llmsys diff <(git show HEAD:f) f`); an import or data file may not.
  sys::fs::file_status St;
  if (!sys::fs::status(Path, St) &&
      St.type() != sys::fs::file_type::regular_file &&
      St.type() != sys::fs::file_type::directory_file) {
    if (Stream)
      return loadStream(Path, Display, Range);
    Diags.report<DiagID::err_file_not_regular>(Range, Display,
                                               typeName(St.type()));
    return std::nullopt;
  }
  if (!sys::fs::status(Path, St) && St.getSize() > MaxFileBytes) {
    Diags.report<DiagID::err_file_too_large>(Range, Display, MaxFileMiB);
    return std::nullopt;
  }
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Path, Real)) {
    Diags.report<DiagID::err_file_not_found>(Range, Display, EC.message());
    return std::nullopt;
  }
  auto It = ByRealPath.find(Real);
  if (It != ByRealPath.end())
    return Loaded{It->second, false};
  if (sys::fs::is_directory(Real)) {
    Diags.report<DiagID::err_file_not_found>(Range, Display,
                 "is a directory");
    return std::nullopt;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Real, /*IsText=*/false,
                            /*RequiresNullTerminator=*/true);
  if (!Buf) {
    Diags.report<DiagID::err_file_not_found>(Range, Display,
                 Buf.getError().message());
    return std::nullopt;
  }
  std::unique_ptr<MemoryBuffer> Named = MemoryBuffer::getMemBufferCopy(
      (*Buf)->getBuffer(), displayName(Path));
  unsigned ID = SM.AddNewSourceBuffer(std::move(Named), SMLoc());
  ByRealPath[Real] = ID;
  if (PathOfBuffer.size() <= ID)
    PathOfBuffer.resize(ID + 1);
  PathOfBuffer[ID] = std::string(Real.str());
  return Loaded{ID, true};
}

std::optional<SourceFiles::Loaded>
SourceFiles::loadData(StringRef Spelled, unsigned FromBuffer, SMRange Range) {
  SmallString<256> Path;
  StringRef From = realPath(FromBuffer);
  if (!sys::path::is_absolute(Spelled) && !From.empty())
    Path = sys::path::parent_path(From);
  sys::path::append(Path, Spelled);
  return load(std::string(Path.str()), Spelled.str(), Range);
}

std::optional<SourceFiles::Loaded> SourceFiles::loadTopLevel(StringRef Path) {
  // '-' is stdin, read once.
  if (Path == "-") {
    if (StdinRead)
      return Loaded{StdinBuffer, false};
    std::optional<Loaded> L = loadStream("-", "<stdin>", SMRange());
    if (L) {
      StdinRead = true;
      StdinBuffer = L->BufferID;
    }
    return L;
  }
  return load(Path.str(), Path.str(), SMRange(), /*Stream=*/true);
}

SourceFiles::Loaded SourceFiles::loadText(StringRef Text, StringRef Name,
                                          StringRef Path) {
  unsigned ID = addBuffer(Text, Name);
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  PathOfBuffer[ID] = std::string(Abs.str());
  return Loaded{ID, true};
}

unsigned SourceFiles::addBuffer(StringRef Text, StringRef Name) {
  unsigned ID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(Text, Name), SMLoc());
  if (PathOfBuffer.size() <= ID)
    PathOfBuffer.resize(ID + 1);
  return ID;
}

std::optional<SourceFiles::Loaded>
SourceFiles::loadImport(StringRef Spec, bool Std, unsigned FromBuffer,
                        SMRange Range) {
  std::vector<std::string> Tried;
  auto TryPath = [&](const Twine &P) -> std::optional<std::string> {
    SmallString<256> S;
    P.toVector(S);
    Tried.push_back(std::string(S.str()));
    if (sys::fs::exists(S) && !sys::fs::is_directory(S))
      return std::string(S.str());
    return std::nullopt;
  };

  std::optional<std::string> Found;
  if (Std) {
    SmallString<256> Rel;
    SmallVector<StringRef, 4> Parts;
    Spec.split(Parts, '.');
    for (StringRef Part : Parts)
      sys::path::append(Rel, Part);
    Rel += ".llmsys";
    if (!StdlibDir.empty())
      Found = TryPath(StdlibDir + "/" + Rel);
  } else {
    if (sys::path::is_absolute(Spec)) {
      Found = TryPath(Spec);
    } else {
      StringRef FromPath = FromBuffer < PathOfBuffer.size()
                               ? StringRef(PathOfBuffer[FromBuffer])
                               : StringRef();
      if (!FromPath.empty())
        Found = TryPath(sys::path::parent_path(FromPath) + "/" + Spec);
      for (const std::string &Dir : SearchPaths) {
        if (Found)
          break;
        Found = TryPath(Dir + "/" + Spec);
      }
    }
  }
  if (!Found) {
    std::string Name = Std ? "std." + Spec.str() : Spec.str();
    std::string Where;
    for (const std::string &T : Tried)
      Where += (Where.empty() ? "" : ", ") + ("'" + T + "'");
    if (Where.empty())
      Where = "no directories (no stdlib directory is set)";
    Diags.report<DiagID::err_import_not_found>(Range, Name)
        .note<DiagID::note_import_searched>(Range, Where);
    return std::nullopt;
  }
  return load(*Found, *Found, Range);
}

std::string SourceFiles::moduleName(unsigned BufferID) const {
  StringRef Name = SM.getMemoryBuffer(BufferID)->getBufferIdentifier();
  if (!Name.consume_front("stdlib/"))
    return "";
  Name.consume_back(".llmsys");
  std::string M = "std." + Name.str();
  for (char &C : M)
    if (C == '/')
      C = '.';
  return M;
}

} // namespace llmsys
