//===- Sema.cpp - the order of resolution -----------------------------------===//

#include "Sema/ScenarioChecks.h"
#include "Sema/SemaImpl.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace llmsys {
namespace sema {

void Resolver::run(ArrayRef<ast::File *> Files) {
  // 1. Every entity of every file, in one namespace (order of declaration
  //    does not matter to references).
  for (const ast::File *F : Files)
    declare(*F);
  // 2. Objects: `extends` copies, members, defaults.
  for (EntityInfo *EI : Entities.inOrder())
    build(*EI);
  // 3. Every field evaluated and checked.
  // (Entities whose `extends` failed are skipped: their errors would only
  // echo the first.)
  for (EntityInfo *EI : Entities.inOrder())
    if (EI->built())
      evaluateAll(EI->Obj);
  // 4. Entities of the files being checked that nothing references are
  //    checked for required fields where they are declared.
  for (EntityInfo *EI : Entities.inOrder()) {
    if (!EI->built() || EI->Used || EI->Extended ||
        EI->Type->Name == "sweep")
      continue;
    if (S.isTopLevel(*EI->Obj))
      checkComplete(EI->Obj, EI->Decl->Name.Range);
  }
  // Checks of each built scenario of the files being checked, each over
  // every scenario in turn (ScenarioChecks.cpp).
  auto Scenarios = [&](llvm::function_ref<void(EntityInfo &)> Check) {
    for (EntityInfo *EI : Entities.inOrder())
      if (EI->built() && EI->Type->IsScenario && S.isTopLevel(*EI->Obj))
        Check(*EI);
  };
  auto Serves = [&](llvm::function_ref<void(EntityInfo &)> Check) {
    Scenarios([&](EntityInfo &EI) {
      if (EI.Type->Id == StructID::Serve)
        Check(EI);
    });
  };
  Serves([&](EntityInfo &EI) {
    checkServeLengths(*EI.Obj, EI.Decl->Name.Range, Diags);
  });
  Scenarios([&](EntityInfo &EI) {
    checkContextLength(*EI.Obj, EI.Decl->Name.Range, Diags);
  });
  Serves([&](EntityInfo &EI) { checkIdleDevices(*EI.Obj, Diags); });
  Serves([&](EntityInfo &EI) { checkTrainingOnlyFields(*EI.Obj, Diags); });
  Scenarios([&](EntityInfo &EI) { checkLaunches(*EI.Obj, Diags); });
  Scenarios([&](EntityInfo &EI) { checkExpertGemms(*EI.Obj, Diags); });
  Scenarios([&](EntityInfo &EI) { checkExpertBias(*EI.Obj, Diags); });
  Scenarios([&](EntityInfo &EI) { checkExpertRouting(*EI.Obj, Diags); });
  Scenarios([&](EntityInfo &EI) { checkStepOverheads(*EI.Obj, Diags); });
  Serves([&](EntityInfo &EI) { readRequests(*EI.Obj, Sources, Diags, S); });
  for (EntityInfo *EI : Entities.inOrder())
    if (EI->Type->Name == "sweep" && EI->Obj)
      resolveSweep(*EI);
  for (const ast::ExpectDecl *X : Expects)
    resolveExpect(*X);
  for (EntityInfo *EI : Entities.inOrder())
    if (EI->Type->Name == "measurement" && EI->built() &&
        S.isTopLevel(*EI->Obj))
      resolveMeasurement(*EI);

  for (EntityInfo *EI : Entities.inOrder()) {
    if (!EI->built())
      continue;
    S.Entities.push_back(EI->Obj);
    S.ByName[EI->Obj->Name] = EI->Obj;
    if (EI->Type->IsScenario && S.isTopLevel(*EI->Obj))
      S.Scenarios.push_back(EI->Obj);
  }
}

} // namespace sema

void resolve(ArrayRef<ast::File *> Files, SourceFiles &Sources,
             DiagnosticEngine &Diags, ast::ASTContext &Ctx, spec::Spec &S) {
  sema::Resolver R(Sources, Diags, Ctx, S);
  R.run(Files);
}

} // namespace llmsys
