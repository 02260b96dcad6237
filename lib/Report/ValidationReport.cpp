//===- ValidationReport.cpp - llmsys validate output ----------------------===//
//
// Text: one line per case, then one per source group, per kind of scenario
// and the total (the lines CI logs and docs/validation.md quote). Markdown:
// the same as two tables (and the pairs), embedded in docs/validation.md by
// tools/gen-doc-outputs.py. CSV and JSON: every case (and in JSON the
// summaries and the pairs) in base units.
//
//===----------------------------------------------------------------------===//

#include "IR/Spec.h"
#include "Report/Format.h"
#include "Report/Report.h"

#include "llvm/ADT/SmallVector.h"

#include <cassert>
#include <fmt/format.h>

namespace llmsys {
namespace report {

using driver::ValidationResult;
using driver::ValidationSummary;

static std::string summaryLine(const ValidationSummary &S,
                               const char *Noun = "cases") {
  return fmt::format("{} {}, mean |error| {:.1f}%, max |error| {:.1f}%",
                     S.Cases, Noun, 100 * S.meanAbs(), 100 * S.MaxAbs);
}

/// The pairs' summaries to print: by kind where there are both, then all.
static llvm::SmallVector<std::pair<const char *, const ValidationSummary *>, 3>
pairSummaries(const ValidationResult &R) {
  llvm::SmallVector<std::pair<const char *, const ValidationSummary *>, 3> Out;
  if (R.TrainPairs.Cases && R.ServePairs.Cases) {
    Out.push_back({"train pairs", &R.TrainPairs});
    Out.push_back({"serve pairs", &R.ServePairs});
  }
  if (R.PairSummary.Cases)
    Out.push_back({"pairs", &R.PairSummary});
  return Out;
}

/// An engine's step overheads: "1.3 ms + 1.9 us a sequence".
static std::string engineOverheads(double Step, double Sequence) {
  return fmt::format("{:.1f} ms + {:.1f} us a sequence", Step * 1e3,
                     Sequence * 1e6);
}

/// "A100_SXM_40GB 0.812 (26 training cases), H100_SXM 0.817 (9)": the
/// accelerators' sustained values.
static std::string sustainedList(const driver::CrossValidation &CV) {
  std::string Out;
  for (const driver::FittedParameter &P : CV.Parameters) {
    if (P.Field != "efficiency.sustained")
      continue;
    if (!Out.empty())
      Out += ", ";
    Out += fmt::format("{} {:.3f} ({}{})", P.Owner, P.Fitted, P.TrainingCases,
                       Out.empty() ? " training cases" : "");
  }
  return Out;
}

/// "trt_executor 1.3 ms + 1.9 us a sequence (284 serving cases)": the
/// engines' step overheads (each engine's step_overhead followed by its
/// sequence_overhead in CV.Parameters).
static std::string engineList(const driver::CrossValidation &CV) {
  std::string Out;
  const auto &Ps = CV.Parameters;
  for (size_t I = 0; I + 1 < Ps.size(); ++I) {
    if (Ps[I].Field != "step_overhead")
      continue;
    assert(Ps[I + 1].Field == "sequence_overhead" &&
           Ps[I + 1].Owner == Ps[I].Owner && "an engine's pair apart");
    if (!Out.empty())
      Out += ", ";
    Out += fmt::format("{} {} ({}{})", Ps[I].Owner,
                       engineOverheads(Ps[I].Fitted, Ps[I + 1].Fitted),
                       Ps[I].TrainingCases, Out.empty() ? " serving cases" : "");
  }
  return Out;
}

/// Both lists, as the text report prints them.
static std::string parameterList(const driver::CrossValidation &CV) {
  std::string Out = sustainedList(CV), Engines = engineList(CV);
  if (!Out.empty() && !Engines.empty())
    Out += ", ";
  return Out + Engines;
}

/// The mark of a case a fitted parameter could be, but is not, fitted on.
static std::string notFittedOn(const driver::ValidationCase &C) {
  return (C.Training || !C.Engine.empty()) && !C.Calibrates
             ? "  (not fitted on)"
             : "";
}

/// Where a held-out value came from, after it: fitted values unmarked.
static std::string originMark(driver::HeldOutGroup::Origin O) {
  if (O == driver::HeldOutGroup::Origin::Fitted)
    return "";
  return " " + driver::originName(O).str();
}

/// "A100_SXM_40GB 0.815, H100_SXM 0.790 pooled, llmc_dev 1.000 written"
static std::string refitValues(const driver::HeldOutGroup &G) {
  std::string Out;
  for (const auto &[Owner, V] : G.Values) {
    if (!Out.empty())
      Out += ", ";
    Out += fmt::format("{} {:.3f}{}", Owner, V.V, originMark(V.From));
  }
  for (const auto &[Engine, V] : G.Engines)
    Out += fmt::format(", {} {}{}", Engine, engineOverheads(V.Step, V.Sequence),
                       originMark(V.From));
  return Out;
}

/// The engines' part of the fitted parameters' line: " and 308 serving
/// cases (284 fitted on)"; "" without engines.
static std::string engineCases(const ValidationResult &R,
                               const driver::CrossValidation &CV) {
  unsigned Cases = 0;
  for (const driver::ValidationCase &C : R.Cases)
    Cases += !C.Training && !C.Engine.empty();
  if (!Cases)
    return "";
  return fmt::format(" and {} serving cases ({} fitted on)", Cases,
                     CV.EngineCases);
}

void printValidationText(const ValidationResult &R, llvm::raw_ostream &OS,
                         const driver::CrossValidation *CV) {
  for (const driver::ValidationCase &C : R.Cases)
    OS << fmt::format(
        "{:<18} {:<34} {:<20} predicted {:>12}  measured {:>12}  error {:>7}{}\n",
        C.Source, C.Case, C.Figure, si(C.Predicted, C.Unit, 4),
        si(C.Measured, C.Unit, 4), signedPercent(C.error()),
        notFittedOn(C));
  for (const auto &[Id, G] : R.Groups)
    OS << "group " << Id << ": " << summaryLine(G) << '\n';
  if (R.Train.Cases)
    OS << "train: " << summaryLine(R.Train) << '\n';
  if (R.Serve.Cases)
    OS << "serve: " << summaryLine(R.Serve) << '\n';
  if (R.All.Cases)
    OS << "validation: " << summaryLine(R.All) << '\n';
  else
    OS << "validation: 0 cases\n";
  for (const driver::ValidationPair &P : R.Pairs)
    OS << fmt::format("pair {} / {}: predicted ratio {:.3f}, measured ratio "
                      "{:.3f}, error {}\n",
                      R.Cases[P.Case].Case, R.Cases[P.Baseline].Case,
                      P.PredictedRatio, P.MeasuredRatio,
                      signedPercent(P.error()));
  for (const auto &[Name, S] : pairSummaries(R))
    OS << Name << ": " << summaryLine(*S, "pairs") << '\n';
  if (!CV)
    return;
  OS << fmt::format("cross-validation: each source group predicted with "
                    "efficiency.sustained refitted without it ({:.3f} .. "
                    "{:.3f}, step {:.3f})",
                    CV->GridLow, CV->GridHigh, CV->GridStep);
  if (CV->EngineCases)
    OS << fmt::format(", and with an engine's step_overhead (0 .. {:.1f} ms, "
                      "step {:.1f} ms) and sequence_overhead (0 .. {:.1f} us, "
                      "step {:.1f} us)",
                      CV->StepHigh * 1e3, CV->StepStep * 1e3,
                      CV->SequenceHigh * 1e6, CV->SequenceStep * 1e6);
  OS << '\n';
  OS << fmt::format("fitted parameters: {} for {} training cases ({} fitted "
                    "on){}: {}\n",
                    CV->Parameters.size(), CV->TrainHeldOut.Cases,
                    CV->CalibratingCases, engineCases(R, *CV),
                    parameterList(*CV));
  for (const driver::HeldOutGroup &G : CV->Groups)
    OS << fmt::format("held-out group {}: {} cases, in-sample {:.1f}%, "
                      "held-out {:.1f}%, max {:.1f}% ({})\n",
                      G.Source, G.HeldOut.Cases, 100 * G.InSample.meanAbs(),
                      100 * G.HeldOut.meanAbs(), 100 * G.HeldOut.MaxAbs,
                      refitValues(G));
  if (CV->TrainHeldOut.Cases)
    OS << "held-out train: " << summaryLine(CV->TrainHeldOut) << '\n';
  if (CV->ServeHeldOut.Cases)
    OS << "held-out serve: " << summaryLine(CV->ServeHeldOut) << '\n';
  OS << "held-out validation: " << summaryLine(CV->AllHeldOut) << '\n';
}

void printValidationMarkdown(const ValidationResult &R, llvm::raw_ostream &OS,
                             const driver::CrossValidation *CV) {
  OS << "| group | case | figure | predicted | measured | error |\n"
        "| --- | --- | --- | ---: | ---: | ---: |\n";
  for (const driver::ValidationCase &C : R.Cases)
    OS << "| " << markdownCell(C.Source) << " | "
       << markdownCell(C.Case + notFittedOn(C)) << " | "
       << markdownCell(C.Figure) << " | " << si(C.Predicted, C.Unit, 4)
       << " | " << si(C.Measured, C.Unit, 4) << " | "
       << signedPercent(C.error()) << " |\n";
  OS << "\n| cases | n | mean \\|error\\| | max \\|error\\| |\n"
        "| --- | ---: | ---: | ---: |\n";
  auto Row = [&](const std::string &Name, const ValidationSummary &S) {
    if (S.Cases)
      OS << fmt::format("| {} | {} | {:.1f}% | {:.1f}% |\n", Name, S.Cases,
                        100 * S.meanAbs(), 100 * S.MaxAbs);
  };
  for (const auto &[Id, G] : R.Groups)
    Row("group " + markdownCell(Id), G);
  Row("all train", R.Train);
  Row("all serve", R.Serve);
  Row("**all**", R.All);
  if (!R.Pairs.empty()) {
    OS << "\n| pair | baseline | predicted ratio | measured ratio | error |\n"
          "| --- | --- | ---: | ---: | ---: |\n";
    for (const driver::ValidationPair &P : R.Pairs)
      OS << fmt::format("| {} | {} | {:.3f} | {:.3f} | {} |\n",
                        markdownCell(R.Cases[P.Case].Case),
                        markdownCell(R.Cases[P.Baseline].Case),
                        P.PredictedRatio, P.MeasuredRatio,
                        signedPercent(P.error()));
    for (const auto &[Name, S] : pairSummaries(R))
      OS << fmt::format("| **{} {}** | | | | mean \\|error\\| {:.1f}%, "
                        "max {:.1f}% |\n",
                        S->Cases, Name, 100 * S->meanAbs(), 100 * S->MaxAbs);
  }
  if (!CV)
    return;
  OS << "\n| held out | n | in-sample mean \\|error\\| | held-out mean "
        "\\|error\\| | held-out max \\|error\\| | parameters fitted without "
        "the group |\n"
        "| --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const driver::HeldOutGroup &G : CV->Groups)
    OS << fmt::format("| group {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | {} |\n",
                      markdownCell(G.Source), G.HeldOut.Cases,
                      100 * G.InSample.meanAbs(), 100 * G.HeldOut.meanAbs(),
                      100 * G.HeldOut.MaxAbs, markdownCell(refitValues(G)));
  auto Held = [&](const std::string &Name, const ValidationSummary &In,
                  const ValidationSummary &Out) {
    if (Out.Cases)
      OS << fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | |\n", Name,
                        Out.Cases, 100 * In.meanAbs(), 100 * Out.meanAbs(),
                        100 * Out.MaxAbs);
  };
  Held("all train", R.Train, CV->TrainHeldOut);
  Held("all serve", R.Serve, CV->ServeHeldOut);
  Held("**all**", R.All, CV->AllHeldOut);
  std::string Engines = engineList(*CV);
  if (!Engines.empty())
    Engines = "; `step_overhead` and `sequence_overhead` of " +
              markdownCell(Engines);
  OS << fmt::format("\nFitted parameters: {} (`efficiency.sustained` of {}{}) "
                    "for {} training cases ({} fitted on){}.\n",
                    CV->Parameters.size(), markdownCell(sustainedList(*CV)),
                    Engines, CV->TrainHeldOut.Cases, CV->CalibratingCases,
                    engineCases(R, *CV));
}

void printValidationCsv(const ValidationResult &R, llvm::raw_ostream &OS,
                        const driver::CrossValidation *CV) {
  OS << "source,case,figure,kind,accelerator,unit,predicted,measured,error,"
        "calibrates,baseline"
     << (CV ? ",held_out_predicted,held_out_error" : "") << '\n';
  // A case's baseline, where the two make a pair.
  std::vector<const std::string *> BaselineOf(R.Cases.size(), nullptr);
  for (const driver::ValidationPair &P : R.Pairs)
    BaselineOf[P.Case] = &R.Cases[P.Baseline].Case;
  for (size_t I = 0; I < R.Cases.size(); ++I) {
    const driver::ValidationCase &C = R.Cases[I];
    OS << C.Source << ',' << C.Case << ',' << C.Figure << ','
       << (C.Training ? "train" : "serve") << ',' << C.Accelerator << ','
       << C.Unit << ','
       << spec::formatNumber(C.Predicted) << ','
       << spec::formatNumber(C.Measured) << ',' << spec::formatNumber(C.error())
       << ',' << (C.Calibrates ? "true" : "false") << ','
       << (BaselineOf[I] ? *BaselineOf[I] : std::string());
    if (CV) {
      double Held = CV->HeldOutPredicted[I];
      OS << ',' << spec::formatNumber(Held) << ','
         << spec::formatNumber(C.errorOf(Held));
    }
    OS << '\n';
  }
}

llvm::json::Value validationJson(const ValidationResult &R,
                                 const driver::CrossValidation *CV) {
  auto Summary = [](const ValidationSummary &S) {
    return llvm::json::Object{{"cases", S.Cases},
                              {"mean_abs_error", S.meanAbs()},
                              {"max_abs_error", S.MaxAbs}};
  };
  llvm::json::Array Cases;
  for (size_t I = 0; I < R.Cases.size(); ++I) {
    const driver::ValidationCase &C = R.Cases[I];
    llvm::json::Object Case{{"source", C.Source},
                                       {"case", C.Case},
                                       {"figure", C.Figure},
                                       {"kind", C.Training ? "train" : "serve"},
                                       {"accelerator", C.Accelerator},
                                       {"unit", C.Unit},
                                       {"predicted", C.Predicted},
                                       {"measured", C.Measured},
                                       {"error", C.error()},
                                       {"calibrates", C.Calibrates}};
    if (CV) {
      double Held = CV->HeldOutPredicted[I];
      Case["held_out_predicted"] = Held;
      Case["held_out_error"] = C.errorOf(Held);
    }
    Cases.push_back(std::move(Case));
  }
  llvm::json::Object Groups;
  for (const auto &[Id, G] : R.Groups)
    Groups[Id] = Summary(G);
  llvm::json::Object Out{{"schema_version", JsonSchemaVersion},
                         {"cases", std::move(Cases)},
                         {"groups", std::move(Groups)},
                         {"train", Summary(R.Train)},
                         {"serve", Summary(R.Serve)},
                         {"all", Summary(R.All)}};
  llvm::json::Array Pairs;
  for (const driver::ValidationPair &P : R.Pairs)
    Pairs.push_back(llvm::json::Object{
        {"case", R.Cases[P.Case].Case},
        {"kind", R.Cases[P.Case].Training ? "train" : "serve"},
        {"baseline", R.Cases[P.Baseline].Case},
        {"predicted_ratio", P.PredictedRatio},
        {"measured_ratio", P.MeasuredRatio},
        {"error", P.error()}});
  Out["pairs"] = std::move(Pairs);
  Out["pair_summary"] = Summary(R.PairSummary);
  Out["train_pair_summary"] = Summary(R.TrainPairs);
  Out["serve_pair_summary"] = Summary(R.ServePairs);
  if (!CV)
    return Out;
  llvm::json::Array Params, Held;
  for (const driver::FittedParameter &P : CV->Parameters) {
    llvm::json::Object Param{{"owner", P.Owner},
                             {"field", P.Field},
                             {"written", P.Written},
                             {"fitted", P.Fitted},
                             {"cases", P.TrainingCases}};
    if (P.Field == "efficiency.sustained")
      Param["training_cases"] = P.TrainingCases;
    Params.push_back(std::move(Param));
  }
  for (const driver::HeldOutGroup &G : CV->Groups) {
    llvm::json::Object Values, Engines;
    for (const auto &[Owner, V] : G.Values)
      Values[Owner] = llvm::json::Object{{"value", V.V},
                                         {"from", driver::originName(V.From)}};
    for (const auto &[Engine, V] : G.Engines)
      Engines[Engine] =
          llvm::json::Object{{"step_overhead", V.Step},
                             {"sequence_overhead", V.Sequence},
                             {"from", driver::originName(V.From)}};
    llvm::json::Object Group{{"source", G.Source},
                             {"in_sample", Summary(G.InSample)},
                             {"held_out", Summary(G.HeldOut)},
                             {"sustained", std::move(Values)}};
    if (!G.Engines.empty())
      Group["engines"] = std::move(Engines);
    Held.push_back(std::move(Group));
  }
  Out["cross_validation"] = llvm::json::Object{
      {"parameters", std::move(Params)},
      {"groups", std::move(Held)},
      {"train", Summary(CV->TrainHeldOut)},
      {"serve", Summary(CV->ServeHeldOut)},
      {"all", Summary(CV->AllHeldOut)}};
  return Out;
}

} // namespace report
} // namespace llmsys
