//===- Require.cpp - llmsys require ---------------------------------------===//
//
// For each serve scenario with SLOs, the least hardware that meets them
// (lib/Driver/Require.cpp), as text or JSON.
//
//===----------------------------------------------------------------------===//

#include "Driver/Evaluate.h"
#include "Driver/Require.h"
#include "Driver.h"
#include "Passes/Passes.h"
#include "Report/Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace llmsys {
namespace driver {

int runRequire(Units &Us) {
  if (refusesHtml("require"))
    return ExitBadInput;
  bool Json = OutputFormat == Format::Json;
  bool Md = OutputFormat == Format::Md, Csv = OutputFormat == Format::Csv;
  if (Csv)
    report::printRequireCsvHeader(out());
  int Status = ExitOk;
  unsigned Shown = 0;
  json::Array Out;
  for (std::unique_ptr<Compilation> &Unit : Us) {
    Compilation &C = *Unit;
    if (!C.run()) {
      Status = std::max(Status, C.finish(errs()));
      continue;
    }
    int UnitStatus = ExitOk;
    passes::PassContext Ctx;
    Ctx.Diags = &C.Diags;
    for (const spec::Object *S : C.Spec.Scenarios) {
      if (S->Type->Name != "serve" || !C.Spec.isTopLevel(*S) ||
          (!ScenarioFilter.empty() && S->Name != ScenarioFilter))
        continue;
      ir::ScenarioConfig Config = ir::scenarioFromSpec(*S);
      if (!Config.SloTtft && !Config.SloTpot && !Config.SloE2E &&
          !Config.SloThroughput) {
        C.Diags.report<DiagID::err_require_no_slo>(S->DeclRange, S->Name);
        UnitStatus = ExitBadInput;
        continue;
      }
      std::optional<ir::Program> P = driver::buildProgram(Config, Ctx);
      if (!P) {
        UnitStatus = ExitBadInput;
        continue;
      }
      // In-flight batching re-simulates the requests on every system tried.
      driver::BatchPrograms Programs(Config, /*Verify=*/false);
      cost::ProgramAtBatch AtBatch = Programs.callback();
      // Disaggregated: the prefill pool's program and its batches too.
      std::optional<ir::Program> Prefill;
      ir::ScenarioConfig PoolConfig = driver::prefillPool(Config);
      driver::PrefillPool Pool;
      if (Config.Traffic.Disaggregated) {
        Prefill = driver::buildProgram(PoolConfig, Ctx);
        if (!Prefill) {
          UnitStatus = ExitBadInput;
          continue;
        }
      }
      driver::BatchPrograms PoolPrograms(PoolConfig, /*Verify=*/false);
      cost::ProgramAtBatch AtPrefill = PoolPrograms.callback();
      if (Prefill) {
        Pool.Prefill = &*Prefill;
        Pool.AtPrefill = &AtPrefill;
      }
      driver::RequireReport R = driver::require(
          *P, Config.Traffic.Enabled ? &AtBatch : nullptr, Pool);
      if (Json) {
        Out.push_back(report::requireJson(*P, R));
      } else if (Csv) {
        report::printRequireCsv(*P, R, out());
      } else if (Md) {
        if (Shown)
          out() << '\n';
        report::printRequireMarkdown(*P, R, out());
      } else {
        if (Shown)
          out() << '\n';
        report::printRequireText(*P, R, out());
      }
      ++Shown;
      // SLOs missed that no single resource can meet: a finding, exit 1.
      if (!R.MetNow && R.Binding < 0) {
        std::string Missed;
        for (const cost::SloCheck &Q : R.AsIs.Slo)
          if (!Q.Met)
            Missed += (Missed.empty() ? "" : ", ") + Q.Name;
        C.Diags.report<DiagID::err_require_unreachable>(S->DeclRange, S->Name,
                                                        Missed);
      }
    }
    Status = std::max(Status, finish(C, UnitStatus));
  }
  if (Json)
    printJsonReports("requirements", std::move(Out));
  if (Shown == 0 && Status == ExitOk) {
    WithColor::error(errs(), "llmsys")
        << (ScenarioFilter.empty()
                ? std::string("no serve scenario in the files")
                : "no serve scenario named '" + ScenarioFilter + "'")
        << '\n';
    return ExitBadInput;
  }
  return Status;
}

} // namespace driver
} // namespace llmsys
