//===- RequireReport.cpp - `llmsys require` as text or JSON -----------------===//

#include "Report/Format.h"
#include "Report/Report.h"

#include <fmt/format.h>

namespace llmsys {
namespace report {

using driver::Requirement;

const char *requirementKindName(Requirement::Kind K) {
  switch (K) {
  case Requirement::Kind::Needed: return "needed";
  case Requirement::Kind::AnyValue: return "any";
  case Requirement::Kind::Unreachable: return "unreachable";
  }
  return "";
}

static std::string label(const Requirement &R, const ir::Program &P) {
  if (R.Resource == "compute")
    return "compute (" +
           computeFormat(P.Scenario.System.Device,
                         P.Scenario.Mapping.Activations) +
           ")";
  return R.Resource;
}

void printRequireText(const ir::Program &P, const driver::RequireReport &R,
                      llvm::raw_ostream &OS) {
  const ir::ScenarioConfig &S = P.Scenario;
  std::string Slos;
  for (const cost::SloCheck &C : R.AsIs.Slo)
    Slos += (Slos.empty() ? "" : ", ") + C.Name + (C.Lower ? " >= " : " <= ") +
            (C.Name == "throughput" ? si(C.Limit, "tokens/s")
                                    : duration(C.Limit));
  OS << "require " << S.Name << ": model " << S.Model.Name << " on "
     << describePlacement(S) << ", mapping " << describeMapping(S.Mapping)
     << '\n';
  OS << "  slo " << Slos << ": " << (R.MetNow ? "met" : "MISSED")
     << " on this system\n";
  // Each SLO: its prediction on this system, and the resource that sets it.
  for (const cost::SloCheck &C : R.AsIs.Slo) {
    auto Show = [&](double V) {
      return C.Name == "throughput" ? si(V, "tokens/s") : duration(V);
    };
    OS << fmt::format("    {:<11}{:>14} {:<2} {:<14}{:<8}{}\n", C.Name,
                      Show(C.Value),
                      C.Met ? (C.Lower ? ">=" : "<=") : (C.Lower ? "<" : ">"),
                      Show(C.Limit), C.Met ? "met" : "MISSED",
                      C.Binding.empty() ? "" : "(" + C.Binding + " binds)");
  }
  OS << fmt::format("  {:<26}{:>16}{:>16}{:>10}\n", "resource per device",
                    "needed", "has", "ratio");
  for (const Requirement &Q : R.Rows) {
    std::string Need = Q.K == Requirement::Kind::AnyValue ? "any"
                       : Q.K == Requirement::Kind::Unreachable
                           ? "unreachable"
                           : si(Q.Need, Q.Unit, 4);
    std::string Ratio = Q.K == Requirement::Kind::Needed
                            ? fmt::format("{:.3g}x", Q.ratio())
                            : "-";
    OS << fmt::format("  {:<26}{:>16}{:>16}{:>10}\n", label(Q, P), Need,
                      si(Q.Have, Q.Unit, 4), Ratio);
  }
  if (R.Binding >= 0) {
    const Requirement &B = R.Rows[R.Binding];
    OS << "  binding: " << B.Resource << " ("
       << fmt::format("{:.3g}x", B.ratio()) << " of what the device has"
       << (R.MetNow ? ", the tightest" : ", the smallest single upgrade")
       << ")\n";
  } else if (!R.MetNow) {
    OS << "  binding: no single resource meets the SLOs\n";
  }
  for (const Requirement &Q : R.Rows)
    if (Q.K == Requirement::Kind::Unreachable)
      OS << "  " << Q.Resource << " alone cannot meet the SLOs (not even at "
         << fmt::format("{:g}", driver::RequireRange)
         << " x): other terms bind\n";
}

static std::string sloValue(const cost::SloCheck &C, double V) {
  return C.Name == "throughput" ? si(V, "tokens/s") : duration(V);
}

void printRequireMarkdown(const ir::Program &P, const driver::RequireReport &R,
                          llvm::raw_ostream &OS) {
  const ir::ScenarioConfig &S = P.Scenario;
  OS << "## require `" << S.Name << "`\n\n"
     << "Model " << markdownCell(S.Model.Name) << " on "
     << markdownCell(describePlacement(S)) << ", mapping "
     << markdownCell(describeMapping(S.Mapping)) << ": the SLOs are "
     << (R.MetNow ? "met" : "**missed**") << " on this system.\n\n";
  OS << "| slo | limit | predicted | verdict | binds |\n"
     << "| --- | ---: | ---: | --- | --- |\n";
  for (const cost::SloCheck &C : R.AsIs.Slo)
    OS << "| " << C.Name << " | " << (C.Lower ? ">= " : "<= ")
       << sloValue(C, C.Limit) << " | " << sloValue(C, C.Value) << " | "
       << (C.Met ? "met" : "**MISSED**") << " | " << C.Binding << " |\n";
  OS << "\n| resource per device | needed | has | ratio |\n"
     << "| --- | ---: | ---: | ---: |\n";
  for (const Requirement &Q : R.Rows)
    OS << "| " << markdownCell(label(Q, P)) << " | "
       << (Q.K == Requirement::Kind::Needed ? si(Q.Need, Q.Unit, 4)
                                            : std::string(requirementKindName(Q.K)))
       << " | " << si(Q.Have, Q.Unit, 4) << " | "
       << (Q.K == Requirement::Kind::Needed ? fmt::format("{:.3g}x", Q.ratio())
                                            : std::string("-"))
       << " |\n";
  OS << "\nBinding: "
     << (R.Binding >= 0 ? R.Rows[R.Binding].Resource
                        : std::string("no single resource meets the SLOs"))
     << ".\n";
}

void printRequireCsvHeader(llvm::raw_ostream &OS) {
  OS << "scenario,met_now,binding,resource,unit,kind,have_per_device,"
        "need_per_device,ratio\n";
}

void printRequireCsv(const ir::Program &P, const driver::RequireReport &R,
                     llvm::raw_ostream &OS) {
  std::string Binding =
      R.Binding >= 0 ? R.Rows[R.Binding].Resource : std::string();
  for (const Requirement &Q : R.Rows) {
    bool Needed = Q.K == Requirement::Kind::Needed;
    OS << P.Scenario.Name << ',' << (R.MetNow ? "true" : "false") << ','
       << Binding << ',' << Q.Resource << ',' << Q.Unit << ','
       << requirementKindName(Q.K) << ',' << spec::formatNumber(Q.Have) << ','
       << (Needed ? spec::formatNumber(Q.Need) : "") << ','
       << (Needed ? spec::formatNumber(Q.ratio()) : "") << '\n';
  }
}

llvm::json::Value requireJson(const ir::Program &P,
                              const driver::RequireReport &R) {
  llvm::json::Array Rows;
  for (const Requirement &Q : R.Rows) {
    llvm::json::Object O{{"resource", Q.Resource},
                         {"unit", Q.Unit},
                         {"kind", requirementKindName(Q.K)},
                         {"have_per_device", Q.Have}};
    if (Q.K == Requirement::Kind::Needed) {
      O["need_per_device"] = Q.Need;
      O["ratio"] = Q.ratio();
    } else {
      O["need_per_device"] = nullptr;
    }
    Rows.push_back(std::move(O));
  }
  llvm::json::Array Slos;
  for (const cost::SloCheck &C : R.AsIs.Slo)
    Slos.push_back(llvm::json::Object{{"slo", C.Name},
                                      {"bound", C.Lower ? "min" : "max"},
                                      {"limit", C.Limit},
                                      {"predicted", C.Value},
                                      {"met", C.Met},
                                      {"binding", C.Binding}});
  return llvm::json::Object{
      {"scenario", P.Scenario.Name},
      {"met_now", R.MetNow},
      {"slos", std::move(Slos)},
      {"resources", std::move(Rows)},
      {"binding", R.Binding >= 0 ? llvm::json::Value(R.Rows[R.Binding].Resource)
                                 : llvm::json::Value(nullptr)}};
}

} // namespace report
} // namespace llmsys
