//===- Compilation.cpp - files to a resolved Spec ---------------------------===//

#include "Sema/Compilation.h"

#include "Sema/Sema.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <algorithm>

using namespace llvm;

namespace llmsys {

Compilation::Compilation(const CompileOptions &O) : Opts(O) {
  Diags.setErrorLimit(O.ErrorLimit);
  Diags.setShowColors(O.Colors);
  Diags.setShowWarnings(!O.Quiet);
  Sources.setStdlibDir(O.StdlibDir);
  for (const std::string &D : O.IncludeDirs)
    Sources.addSearchPath(D);
}

void Compilation::loadImports(ast::File *F) {
  for (const ast::Import &I : F->Imports) {
    std::optional<SourceFiles::Loaded> L =
        Sources.loadImport(I.Spec, I.IsStd, F->BufferID, I.Range);
    if (!L)
      continue;
    auto OnStack = std::find_if(
        ImportStack.begin(), ImportStack.end(),
        [&](const StackEntry &E) { return E.Buffer == L->BufferID; });
    if (OnStack != ImportStack.end()) {
      std::string Chain;
      for (auto It = OnStack; It != ImportStack.end(); ++It)
        Chain += SM.getMemoryBuffer(It->Buffer)->getBufferIdentifier().str() +
                 " -> ";
      Chain += SM.getMemoryBuffer(L->BufferID)->getBufferIdentifier().str();
      auto D = Diags.report<DiagID::err_import_cycle>(I.Range, Chain);
      for (auto It = OnStack + 1; It != ImportStack.end(); ++It)
        D.note<DiagID::note_imported_here>(It->ImportRange,
               SM.getMemoryBuffer(It->Buffer)->getBufferIdentifier());
      continue;
    }
    if (!L->IsNew)
      continue;
    ast::File *Child = parseFile(L->BufferID, SM, AST, Diags, Opts.Limits);
    if (!Child)
      continue;
    Files.push_back(Child);
    ImportStack.push_back({L->BufferID, I.Range});
    loadImports(Child);
    ImportStack.pop_back();
  }
}

bool Compilation::parse() {
  if (Opts.Files.empty()) {
    Diags.report<DiagID::err_no_input_files>(SMRange());
    return false;
  }
  for (const std::string &Path : Opts.Files) {
    auto Given = std::find_if(Opts.Texts.begin(), Opts.Texts.end(),
                              [&](const CompileOptions::Text &T) {
                                return T.Path == Path;
                              });
    std::optional<SourceFiles::Loaded> L =
        Given != Opts.Texts.end()
            ? Sources.loadText(Given->Contents, Given->Name, Given->Path)
            : Sources.loadTopLevel(Path);
    if (!L)
      continue;
    Spec.TopLevelBuffers.push_back(L->BufferID);
    if (!L->IsNew)
      continue;
    ast::File *F = parseFile(L->BufferID, SM, AST, Diags, Opts.Limits);
    if (!F)
      continue;
    Files.push_back(F);
    TopLevel.push_back(F);
    ImportStack.push_back({L->BufferID, SMRange()});
    loadImports(F);
    ImportStack.pop_back();
  }
  return !Diags.hasErrors();
}

bool Compilation::resolve() {
  llmsys::resolve(Files, Sources, Diags, AST, Spec);
  return !Diags.hasErrors();
}

int Compilation::finish(raw_ostream &OS) {
  int Status = Diags.exitStatus();
  Diags.flush(OS);
  return Status;
}

std::string findStdlibDir(const char *Argv0, void *MainAddr) {
  if (std::optional<std::string> Env = sys::Process::GetEnv("LLMSYS_STDLIB"))
    return *Env;
  std::string Exe = sys::fs::getMainExecutable(Argv0, MainAddr);
  SmallString<256> Installed(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(Installed, "share", "llmsys", "stdlib");
  if (sys::fs::is_directory(Installed))
    return std::string(Installed.str());
  return LLMSYS_SOURCE_STDLIB_DIR;
}

} // namespace llmsys
