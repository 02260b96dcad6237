//===- List.cpp - llmsys list ---------------------------------------------===//
//
// The entities the files and their imports make available, by kind, with
// the module or file each comes from.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "IR/Schema.h"

#include <map>

using namespace llvm;

namespace llmsys {
namespace driver {

static int listUnit(Compilation &C) {
  bool Ok = C.run();
  int Status = C.finish(errs());
  if (!Ok)
    return Status;
  std::map<std::string, std::vector<const spec::Object *>> ByKind;
  for (const spec::Object *O : C.Spec.Entities)
    ByKind[O->Type->Name].push_back(O);
  for (const StructSpec *Kind : Schema::get().entities()) {
    auto It = ByKind.find(Kind->Name);
    if (It == ByKind.end())
      continue;
    outs() << Kind->Name << " (" << It->second.size() << ")\n";
    for (const spec::Object *O : It->second) {
      outs() << "  " << O->Name;
      std::string Where =
          O->Module.empty()
              ? C.SM.getMemoryBuffer(O->BufferID)->getBufferIdentifier().str()
              : O->Module;
      outs().indent(O->Name.size() < 30 ? 30 - O->Name.size() : 1)
          << Where << '\n';
    }
  }
  return ExitOk;
}

int runList(Units &Us) {
  // Several files: each unit under its file's name.
  int Status = ExitOk;
  for (size_t I = 0; I < Us.size(); ++I) {
    if (Us.size() > 1)
      outs() << (I ? "\n" : "") << "== " << Us[I]->options().Files.front()
             << '\n';
    Status = std::max(Status, listUnit(*Us[I]));
  }
  return Status;
}

} // namespace driver
} // namespace llmsys
