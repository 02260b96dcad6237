//===- SourceFiles.h - loading .llmsys files and finding imports -*- C++ -*-===//
//
// Files are read once each (keyed by their real path) into the SourceMgr.
// `import std.a.b` names <stdlib>/a/b.llmsys; `import "p.llmsys"` is relative
// to the importing file, then to each -I directory, in order.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_BASIC_SOURCEFILES_H
#define LLMSYS_BASIC_SOURCEFILES_H

#include "Basic/Diagnostics.h"

#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>
#include <vector>

namespace llmsys {

class SourceFiles {
public:
  SourceFiles(llvm::SourceMgr &SM, DiagnosticEngine &Diags)
      : SM(SM), Diags(Diags) {}

  void setStdlibDir(std::string Dir) { StdlibDir = std::move(Dir); }
  const std::string &getStdlibDir() const { return StdlibDir; }
  void addSearchPath(std::string Dir) { SearchPaths.push_back(std::move(Dir)); }

  struct Loaded {
    unsigned BufferID = 0;
    bool IsNew = false; ///< False when the file had been read before.
  };

  /// Reads a file named on the command line. Failures are diagnosed.
  std::optional<Loaded> loadTopLevel(llvm::StringRef Path);

  /// Resolves and reads an import. Std is true for `import std.a.b`, whose
  /// Spec is "a.b"; otherwise Spec is the quoted path. Failures are
  /// diagnosed at Range.
  std::optional<Loaded> loadImport(llvm::StringRef Spec, bool Std,
                                   unsigned FromBuffer, llvm::SMRange Range);

  /// Reads a data file a spec names (Spelled as written there, at Range),
  /// relative to the file FromBuffer, so that problems in it are reported
  /// at its own lines. Failures are diagnosed at Range.
  std::optional<Loaded> loadData(llvm::StringRef Spelled, unsigned FromBuffer,
                                 llvm::SMRange Range);

  /// Reads a text buffer that is not a file (tests, defaults).
  unsigned addBuffer(llvm::StringRef Text, llvm::StringRef Name);
  /// A top-level file given as text (an old version of Path from git):
  /// named Name in diagnostics; relative imports resolve from Path's
  /// directory.
  Loaded loadText(llvm::StringRef Text, llvm::StringRef Name,
                  llvm::StringRef Path);

  /// The stdlib-relative module name of a buffer ("std.hardware.nvidia"),
  /// or empty when it is not in the stdlib.
  std::string moduleName(unsigned BufferID) const;

  /// The real path a buffer was read from, or empty for a buffer that is
  /// not a file. Files a spec names (hf_config) are relative to it.
  llvm::StringRef realPath(unsigned BufferID) const {
    if (BufferID >= PathOfBuffer.size())
      return llvm::StringRef();
    return PathOfBuffer[BufferID];
  }

private:
  /// Stream: Path may be a pipe or a device (read to its end, up to
  /// MaxFileBytes), as a file named on the command line may be.
  std::optional<Loaded> load(const std::string &Path,
                             const std::string &Display, llvm::SMRange Range,
                             bool Stream = false);
  /// A buffer read from a stream: stdin or a pipe.
  std::optional<Loaded> loadStream(const std::string &Path,
                                   const std::string &Display,
                                   llvm::SMRange Range);
  std::string displayName(llvm::StringRef Path) const;

  llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  bool StdinRead = false;
  unsigned StdinBuffer = 0;
  std::string StdlibDir;
  std::vector<std::string> SearchPaths;
  llvm::StringMap<unsigned> ByRealPath;
  std::vector<std::string> PathOfBuffer; ///< Indexed by buffer ID.
};

} // namespace llmsys

#endif
