//===- Server.h - the llmsys language server ---------------------*- C++ -*-===//
//
// `llmsys lsp` (docs/lsp.md): JSON-RPC over stdio. Documents are compiled
// on open and on every change (full text), their diagnostics published;
// hover, definition and completion answer from the last compilation of a
// document that resolved. A malformed message gets a JSON-RPC error and
// the server reads on.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_LSP_SERVER_H
#define LLMSYS_LSP_SERVER_H

#include "Lsp/Features.h"
#include "Sema/Compilation.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace llmsys {
namespace lsp {

class Server {
public:
  /// Base: the include directories and stdlib every document compiles
  /// with; Version: the server's, for `initialize`.
  Server(CompileOptions Base, std::string Version, llvm::raw_ostream &Out)
      : Base(std::move(Base)), Version(std::move(Version)), Out(Out) {}

  /// Serves messages from In until `exit` or the end of input; the exit
  /// status: 0 after `shutdown` then `exit`, 1 otherwise (the protocol's).
  int run(std::FILE *In);

  /// One message's JSON text; false when it was `exit`.
  bool handle(llvm::StringRef Body);

private:
  struct Document {
    std::string Text;
    int64_t Version = 0;
    /// The last compilation that resolved, and the text it compiled
    /// (positions of requests are read against it).
    Analysis Resolved;
    std::string ResolvedText;
  };

  void reply(const llvm::json::Value &Id, llvm::json::Value Result);
  void replyError(const llvm::json::Value &Id, int Code,
                  const llvm::Twine &Message);
  void notify(llvm::StringRef Method, llvm::json::Value Params);

  void request(llvm::StringRef Method, const llvm::json::Value &Id,
               const llvm::json::Object *Params);
  void notification(llvm::StringRef Method, const llvm::json::Object *Params);

  /// Compiles a document and publishes its diagnostics.
  void analyze(llvm::StringRef Uri, Document &D);
  /// The document and the offset of a TextDocumentPositionParams, or null.
  Document *at(const llvm::json::Object *Params, size_t &Offset);

  CompileOptions Base;
  std::string Version;
  llvm::raw_ostream &Out;
  llvm::StringMap<Document> Docs;
  bool Initialized = false, ShutDown = false;
};

} // namespace lsp
} // namespace llmsys

#endif
