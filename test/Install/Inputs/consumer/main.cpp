// Compiles a spec and evaluates its scenarios with the installed libraries:
// prints each scenario's step time or throughput (install.test compares
// them with `llmsys eval`).
#include "Driver/Evaluate.h"
#include "IR/Scenario.h"
#include "Sema/Compilation.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: consumer STDLIB FILE\n";
    return 2;
  }
  llmsys::CompileOptions O;
  O.StdlibDir = argv[1];
  O.Files = {argv[2]};
  llmsys::Compilation C(O);
  if (!C.run())
    return C.finish(llvm::errs());
  llmsys::passes::PassContext Ctx;
  Ctx.Diags = &C.Diags;
  for (const llmsys::spec::Object *S : C.Spec.Scenarios) {
    auto E = llmsys::driver::evaluate(llmsys::ir::scenarioFromSpec(*S), Ctx);
    if (!E)
      return C.finish(llvm::errs());
    auto F = E->figure(E->Training ? "step_time" : "throughput");
    llvm::outs() << S->Name << " " << llvm::format("%.6g", *F) << "\n";
  }
  return C.finish(llvm::errs());
}
