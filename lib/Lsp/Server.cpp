//===- Server.cpp - the llmsys language server ------------------------------===//

#include "Lsp/Server.h"

#include "Lsp/Positions.h"
#include "Lsp/Transport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace llmsys {
namespace lsp {

// JSON-RPC and LSP error codes.
enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  ServerNotInitialized = -32002,
};

int Server::run(std::FILE *In) {
  while (true) {
    Incoming M = readMessage(In);
    if (M.K == Incoming::EndOfInput)
      return 1; // no `exit`
    if (M.K == Incoming::BadHeader) {
      replyError(nullptr, ParseError, M.Error);
      continue;
    }
    if (!handle(M.Body))
      return ShutDown ? 0 : 1;
  }
}

void Server::reply(const json::Value &Id, json::Value Result) {
  writeMessage(Out, json::Object{{"jsonrpc", "2.0"},
                                 {"id", Id},
                                 {"result", std::move(Result)}});
}

void Server::replyError(const json::Value &Id, int Code, const Twine &Msg) {
  writeMessage(Out, json::Object{
                        {"jsonrpc", "2.0"},
                        {"id", Id},
                        {"error", json::Object{{"code", Code},
                                               {"message", Msg.str()}}}});
}

void Server::notify(StringRef Method, json::Value Params) {
  writeMessage(Out, json::Object{{"jsonrpc", "2.0"},
                                 {"method", Method},
                                 {"params", std::move(Params)}});
}

/// Whether JSON text nests arrays and objects deeper than Limit (the
/// parser recurses once a level; a message of a million `[` would
/// exhaust the stack).
static bool nestsDeeper(StringRef Text, unsigned Limit) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Limit)
        return true;
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth;
    }
  }
  return false;
}

bool Server::handle(StringRef Body) {
  if (nestsDeeper(Body, 256)) {
    replyError(nullptr, ParseError,
               "the message nests arrays and objects more than 256 deep");
    return true;
  }
  Expected<json::Value> V = json::parse(Body);
  if (!V) {
    replyError(nullptr, ParseError,
               "the message is not JSON: " + toString(V.takeError()));
    return true;
  }
  const json::Object *O = V->getAsObject();
  std::optional<StringRef> Method = O ? O->getString("method") : std::nullopt;
  const json::Value *Id = O ? O->get("id") : nullptr;
  if (!Method) {
    // A response to a request of ours (none are sent) or garbage.
    if (!Id || O->get("result") || O->get("error"))
      return true;
    replyError(*Id, InvalidRequest, "a request without a method");
    return true;
  }
  const json::Value *P = O->get("params");
  const json::Object *Params = P ? P->getAsObject() : nullptr;
  if (!Id) {
    if (*Method == "exit")
      return false;
    notification(*Method, Params);
    return true;
  }
  request(*Method, *Id, Params);
  return true;
}

/// A position's offset in Text.
static std::optional<size_t> offsetIn(StringRef Text, const json::Object *P) {
  const json::Object *Pos = P ? P->getObject("position") : nullptr;
  std::optional<int64_t> Line = Pos ? Pos->getInteger("line") : std::nullopt;
  std::optional<int64_t> Char =
      Pos ? Pos->getInteger("character") : std::nullopt;
  if (!Line || !Char || *Line < 0 || *Char < 0 || *Line > (1 << 30) ||
      *Char > (1 << 30))
    return std::nullopt;
  return offsetOf(Text, {unsigned(*Line), unsigned(*Char)});
}

static json::Object range(StringRef Text, size_t Begin, size_t End) {
  Position B = positionOf(Text, Begin), E = positionOf(Text, End);
  return json::Object{
      {"start", json::Object{{"line", B.Line}, {"character", B.Character}}},
      {"end", json::Object{{"line", E.Line}, {"character", E.Character}}}};
}

static std::optional<StringRef> uriOf(const json::Object *Params) {
  const json::Object *Doc = Params ? Params->getObject("textDocument") : nullptr;
  return Doc ? Doc->getString("uri") : std::nullopt;
}

Server::Document *Server::at(const json::Object *Params, size_t &Offset) {
  std::optional<StringRef> Uri = uriOf(Params);
  if (!Uri)
    return nullptr;
  auto It = Docs.find(*Uri);
  if (It == Docs.end() || !It->second.Resolved.C)
    return nullptr;
  std::optional<size_t> Off = offsetIn(It->second.ResolvedText, Params);
  if (!Off)
    return nullptr;
  Offset = *Off;
  return &It->second;
}

void Server::request(StringRef Method, const json::Value &Id,
                     const json::Object *Params) {
  if (Method == "initialize") {
    Initialized = true;
    reply(Id, json::Object{
                  {"capabilities",
                   json::Object{
                       {"textDocumentSync",
                        json::Object{{"openClose", true}, {"change", 1}}},
                       {"hoverProvider", true},
                       {"definitionProvider", true},
                       {"completionProvider",
                        json::Object{{"triggerCharacters",
                                      json::Array{"=", ".", " "}}}},
                   }},
                  {"serverInfo",
                   json::Object{{"name", "llmsys"}, {"version", Version}}}});
    return;
  }
  if (!Initialized) {
    replyError(Id, ServerNotInitialized,
               "'" + Method + "' before 'initialize'");
    return;
  }
  if (Method == "shutdown") {
    ShutDown = true;
    reply(Id, nullptr);
    return;
  }
  bool Positional = Method == "textDocument/hover" ||
                    Method == "textDocument/definition" ||
                    Method == "textDocument/completion";
  if (!Positional) {
    replyError(Id, MethodNotFound, "llmsys lsp does not serve '" + Method + "'");
    return;
  }
  if (!uriOf(Params) || !offsetIn("", Params)) {
    replyError(Id, InvalidParams,
               "'" + Method + "' needs textDocument.uri and a position");
    return;
  }
  size_t Offset = 0;
  Document *D = at(Params, Offset);
  if (!D) {
    reply(Id, Method == "textDocument/completion" ? json::Value(json::Array())
                                                  : json::Value(nullptr));
    return;
  }
  const Analysis &A = D->Resolved;
  StringRef Text = D->ResolvedText;
  if (Method == "textDocument/hover") {
    std::optional<std::string> H = hover(A, Text, Offset);
    if (!H) {
      reply(Id, nullptr);
      return;
    }
    auto [B, E] = wordAt(Text, Offset);
    reply(Id, json::Object{{"contents", json::Object{{"kind", "markdown"},
                                                     {"value", *H}}},
                           {"range", range(Text, B, E)}});
    return;
  }
  if (Method == "textDocument/definition") {
    std::optional<Location> L = definition(A, Text, Offset);
    if (!L) {
      reply(Id, nullptr);
      return;
    }
    reply(Id, json::Object{{"uri", uriFromPath(L->Path)},
                           {"range", range(L->FileText, L->Begin, L->End)}});
    return;
  }
  // Completion: the current text, with the names of the last resolved
  // compilation.
  json::Array Items;
  StringRef Current = D->Text;
  std::optional<size_t> Here = offsetIn(Current, Params);
  for (const Completion &C : complete(A, Current, Here ? *Here : Offset)) {
    // CompletionItemKind: Field 5, Value 12, Class 7 (an entity), Keyword 14.
    int Kind = C.K == Completion::Field   ? 5
               : C.K == Completion::Value ? 12
               : C.K == Completion::Entity ? 7
                                           : 14;
    json::Object Item{{"label", C.Label}, {"kind", Kind}};
    if (!C.Detail.empty())
      Item["detail"] = C.Detail;
    if (!C.Doc.empty())
      Item["documentation"] = C.Doc;
    Items.push_back(std::move(Item));
  }
  reply(Id, std::move(Items));
}

void Server::notification(StringRef Method, const json::Object *Params) {
  if (!Initialized)
    return;
  std::optional<StringRef> Uri = uriOf(Params);
  const json::Object *TD = Params ? Params->getObject("textDocument") : nullptr;
  if (Method == "textDocument/didOpen") {
    std::optional<StringRef> Text = TD ? TD->getString("text") : std::nullopt;
    if (!Uri || !Text)
      return;
    Document &D = Docs[*Uri];
    D.Text = Text->str();
    D.Version = TD->getInteger("version").value_or(0);
    analyze(*Uri, D);
  } else if (Method == "textDocument/didChange") {
    const json::Array *Changes =
        Params ? Params->getArray("contentChanges") : nullptr;
    auto It = Uri ? Docs.find(*Uri) : Docs.end();
    if (!Changes || Changes->empty() || It == Docs.end())
      return;
    // Full synchronisation: the last change holds the whole text.
    const json::Object *Last = Changes->back().getAsObject();
    std::optional<StringRef> Text = Last ? Last->getString("text") : std::nullopt;
    if (!Text)
      return;
    It->second.Text = Text->str();
    It->second.Version = TD->getInteger("version").value_or(It->second.Version);
    analyze(*Uri, It->second);
  } else if (Method == "textDocument/didClose") {
    if (!Uri)
      return;
    Docs.erase(*Uri);
    notify("textDocument/publishDiagnostics",
           json::Object{{"uri", *Uri}, {"diagnostics", json::Array()}});
  }
}

void Server::analyze(StringRef Uri, Document &D) {
  std::string Path = pathFromUri(Uri);
  if (Path.empty()) {
    // An unsaved document: quoted imports resolve from the working folder.
    SmallString<256> Cwd;
    sys::fs::current_path(Cwd);
    sys::path::append(Cwd, "untitled.llmsys");
    Path = std::string(Cwd.str());
  }
  CompileOptions O = Base;
  O.Files = {Path};
  O.Texts = {{Path, Path, D.Text}};
  O.ErrorLimit = 100;
  O.Colors = false;
  Analysis A;
  A.C = std::make_unique<Compilation>(O);
  A.Resolved = A.C->run();
  if (!A.C->Spec.TopLevelBuffers.empty())
    A.Buffer = A.C->Spec.TopLevelBuffers.front();

  json::Array Diags;
  const SourceMgr &SM = A.C->SM;
  for (const Diagnostic &Dg : A.C->Diags.pending()) {
    int Severity = isError(Dg.Sev) ? 1 : Dg.Sev == llmsys::Severity::Warning ? 2 : 3;
    std::string Message = Dg.Message;
    for (const Diagnostic &N : Dg.Notes)
      Message += "\nnote: " + N.Message;
    size_t Begin = 0, End = 0;
    unsigned Buf = Dg.Range.Start.isValid()
                       ? SM.FindBufferContainingLoc(Dg.Range.Start)
                       : 0;
    if (Buf && Buf == A.Buffer) {
      const char *Start = SM.getMemoryBuffer(Buf)->getBufferStart();
      Begin = Dg.Range.Start.getPointer() - Start;
      End = Dg.Range.End.isValid() && Dg.Range.End.getPointer() >= Dg.Range.Start.getPointer()
                ? Dg.Range.End.getPointer() - Start
                : Begin;
    } else if (Buf) {
      // In an imported file: said at the top of this one, with its place.
      auto [Line, Col] = SM.getLineAndColumn(Dg.Range.Start, Buf);
      Message = SM.getMemoryBuffer(Buf)->getBufferIdentifier().str() + ":" +
                std::to_string(Line) + ":" + std::to_string(Col) + ": " +
                Message;
    }
    Diags.push_back(json::Object{{"range", range(D.Text, Begin, End)},
                                 {"severity", Severity},
                                 {"source", "llmsys"},
                                 {"code", getDiagInfo(Dg.ID).Name},
                                 {"message", Message}});
  }
  raw_null_ostream Null;
  A.C->Diags.flush(Null);
  if (A.Resolved) {
    D.Resolved = std::move(A);
    D.ResolvedText = D.Text;
  }
  notify("textDocument/publishDiagnostics",
         json::Object{{"uri", Uri},
                      {"version", D.Version},
                      {"diagnostics", std::move(Diags)}});
}

} // namespace lsp
} // namespace llmsys
