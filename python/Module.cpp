//===- Module.cpp - the llmsys Python module --------------------------------===//
//
// llmsys from Python over the C++ libraries (docs/python.md): load a spec
// from a file or a string, list its scenarios and sweeps, evaluate a
// scenario (with fields overridden) into its figures or its whole report,
// run a sweep into rows. Diagnostics raise llmsys.DiagnosticError, which
// carries each diagnostic's file, line and column; warnings go through
// Python's warnings module (category llmsys.SpecWarning).
//
//===----------------------------------------------------------------------===//

#include "JsonToPython.h"

#include "Basic/Suggest.h"
#include "Driver/Evaluate.h"
#include "IR/Figures.h"
#include "IR/Scenario.h"
#include "Report/Report.h"
#include "Report/SweepReport.h"
#include "Sema/Compilation.h"
#include "Sweep/Sweep.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>
#include <cmath>
#include <memory>

namespace py = pybind11;
using namespace llvm;

namespace llmsys {
namespace python {
namespace {

/// The name the scenario with the caller's overrides gets in the text
/// compiled beside the spec (not a name a spec can use: it is reserved by
/// this module, and a spec that defines it is refused).
constexpr const char *OverrideName = "__llmsys_python__";
constexpr const char *OverrideBuffer = "<overrides>";

/// Where the stdlib is: $LLMSYS_STDLIB, then share/llmsys/stdlib beside the
/// prefix the module is installed under, then the source tree it was built
/// from.
std::string stdlibDir() {
  if (std::optional<std::string> Env = sys::Process::GetEnv("LLMSYS_STDLIB"))
    return *Env;
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&stdlibDir), &Info) && Info.dli_fname) {
    // <prefix>/lib/python3/dist-packages/llmsys.so and the like: look a few
    // levels up for <prefix>/share/llmsys/stdlib.
    SmallString<256> Dir(sys::path::parent_path(Info.dli_fname));
    for (int Up = 0; Up < 5 && !Dir.empty(); ++Up) {
      SmallString<256> Candidate(Dir);
      sys::path::append(Candidate, "share", "llmsys", "stdlib");
      if (sys::fs::is_directory(Candidate))
        return std::string(Candidate.str());
      sys::path::remove_filename(Dir);
    }
  }
  return LLMSYS_SOURCE_STDLIB_DIR;
}

py::dict diagnosticDict(const SourceMgr &SM, const Diagnostic &D) {
  py::dict R;
  R["severity"] = severityLabel(D.Sev);
  R["id"] = getDiagInfo(D.ID).Name.str();
  R["message"] = D.Message;
  R["file"] = py::none();
  R["line"] = py::none();
  R["column"] = py::none();
  if (D.Range.Start.isValid())
    if (unsigned Buf = SM.FindBufferContainingLoc(D.Range.Start)) {
      auto [Line, Col] = SM.getLineAndColumn(D.Range.Start, Buf);
      R["file"] = SM.getMemoryBuffer(Buf)->getBufferIdentifier().str();
      R["line"] = Line;
      R["column"] = Col;
    }
  py::list Notes;
  for (const Diagnostic &N : D.Notes)
    Notes.append(diagnosticDict(SM, N));
  R["notes"] = Notes;
  return R;
}

/// The diagnostics collected so far, as dicts and as the command line
/// prints them; the engine is emptied.
std::pair<py::list, std::string> takeDiagnostics(DiagnosticEngine &Diags) {
  py::list List;
  for (const Diagnostic &D : Diags.pending())
    List.append(diagnosticDict(Diags.getSourceMgr(), D));
  std::string Text;
  raw_string_ostream OS(Text);
  Diags.flush(OS);
  OS.flush();
  while (!Text.empty() && (Text.back() == '\n' || Text.back() == ' '))
    Text.pop_back();
  return {List, Text};
}

/// Raises llmsys.DiagnosticError when Diags has errors; otherwise issues
/// its warnings as Python warnings. The engine is emptied either way.
void raiseOrWarn(DiagnosticEngine &Diags) {
  bool Failed = Diags.hasErrors();
  if (Diags.pending().empty())
    return;
  auto [List, Text] = takeDiagnostics(Diags);
  py::module_ M = py::module_::import("llmsys");
  if (Failed) {
    py::object Error = M.attr("DiagnosticError")(Text, List);
    PyErr_SetObject(M.attr("DiagnosticError").ptr(), Error.ptr());
    throw py::error_already_set();
  }
  py::module_::import("warnings")
      .attr("warn")(Text, M.attr("SpecWarning"), 2);
}

/// A Python value as the text of one value of a field in a spec: a bool, a
/// whole number (int or anything with __index__, such as numpy's), a
/// finite number (float or anything with __float__), a string of spec text
/// (a number with its unit, a word, a name), or a list of those (a field
/// that holds a list). Text that could close the value or add members is
/// refused.
std::string fieldText(const std::string &Path, py::handle V, bool InList) {
  auto Refuse = [&](const std::string &Why) {
    throw py::value_error("override '" + Path + "': " + Why);
  };
  if (py::isinstance<py::bool_>(V))
    return V.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::str>(V)) {
    std::string T = V.cast<std::string>();
    if (T.find_first_of("[]{};,=\"\n\r") != std::string::npos ||
        T.find("//") != std::string::npos || T.find("/*") != std::string::npos ||
        StringRef(T).trim().empty())
      Refuse("'" + T + "' is not one value (spec text such as '80 GiB', "
             "'bf16' or 'H100_SXM')");
    return T;
  }
  if (!InList && (py::isinstance<py::list>(V) || py::isinstance<py::tuple>(V))) {
    std::string S = "[";
    bool First = true;
    for (py::handle E : V) {
      S += First ? "" : ", ";
      First = false;
      S += fieldText(Path, E, /*InList=*/true);
    }
    return S + "]";
  }
  if (py::hasattr(V, "__index__"))
    return py::str(py::reinterpret_steal<py::object>(PyNumber_Index(V.ptr())))
        .cast<std::string>();
  if (py::hasattr(V, "__float__")) {
    double D = py::float_(py::reinterpret_borrow<py::object>(V)).cast<double>();
    if (!std::isfinite(D))
      Refuse("a value must be a finite number");
    return py::repr(py::float_(D)).cast<std::string>();
  }
  throw py::type_error(
      "override '" + Path + "': a value must be a bool, a number, a str of "
      "spec text (such as '80 GiB' or 'bf16')" +
      std::string(InList ? "" : " or a list of them") + ", not " +
      py::str(V.get_type().attr("__name__")).cast<std::string>());
}

/// A keyword as a field path: mapping__tp is mapping.tp (a keyword cannot
/// hold a dot); ValueError unless it is a path of names.
std::string overridePath(py::handle Key) {
  std::string Path = py::str(Key).cast<std::string>();
  std::string Out;
  for (size_t I = 0; I < Path.size(); ++I) {
    if (Path.compare(I, 2, "__") == 0) {
      Out += '.';
      ++I;
    } else {
      Out += Path[I];
    }
  }
  SmallVector<StringRef, 4> Parts;
  StringRef(Out).split(Parts, '.');
  for (StringRef P : Parts)
    if (P.empty() || isDigit(P.front()) ||
        !llvm::all_of(P, [](char C) { return isAlnum(C) || C == '_'; }))
      throw py::value_error("override '" + Path +
                            "' is not a field path (mapping.tp, or "
                            "mapping__tp as a keyword)");
  return Out;
}

class Spec {
public:
  Spec(CompileOptions Opts, std::string Label)
      : Opts(std::move(Opts)), Label(std::move(Label)) {
    C = compile(this->Opts);
    for (const spec::Object *S : C->Spec.Scenarios)
      if (C->Spec.isTopLevel(*S)) {
        if (S->Name == OverrideName)
          throw py::value_error(std::string("'") + OverrideName +
                                "' is reserved by the Python module");
        Scenarios.push_back(S->Name);
      }
    for (const spec::Sweep &W : C->Spec.Sweeps)
      if (C->Spec.isTopLevel(*W.Decl))
        Sweeps.push_back(W.Decl->Name);
  }

  /// Compiles Path from the text this load read, from now on.
  void keepText(const std::string &Path) {
    if (C->Spec.TopLevelBuffers.empty())
      return;
    Opts.Texts.push_back(
        {Path, Path,
         C->SM.getMemoryBuffer(C->Spec.TopLevelBuffers.front())
             ->getBuffer()
             .str()});
  }

  const std::vector<std::string> &scenarios() const { return Scenarios; }
  const std::vector<std::string> &sweeps() const { return Sweeps; }
  std::string repr() const {
    return "<llmsys.Spec " + Label + ": " + std::to_string(Scenarios.size()) +
           " scenarios, " + std::to_string(Sweeps.size()) + " sweeps>";
  }

  std::string kind(const std::string &Name) const {
    return scenario(*C, Name, true)->Type->Name;
  }

  /// The scenario's figures that the result has: key (with its base unit)
  /// to value.
  py::dict evaluate(const std::string &Name, const py::kwargs &Overrides) {
    std::vector<std::pair<const ir::FigureInfo *, double>> Figures;
    run(Name, Overrides, /*Detail=*/false, [&](const driver::Evaluation &E) {
      for (const ir::FigureInfo &F : ir::figures())
        if (F.Training == E.Training)
          if (std::optional<double> V = E.figure(F.Id))
            Figures.push_back({&F, *V});
    });
    py::dict D;
    for (auto [F, V] : Figures) {
      if (F->Type == ir::FigureType::Bool)
        D[py::str(F->Key.str())] = py::bool_(V != 0);
      else
        D[py::str(F->Key.str())] = py::float_(V);
    }
    return D;
  }

  /// The whole report, as `llmsys eval --format=json` prints it.
  py::object report(const std::string &Name, const py::kwargs &Overrides) {
    std::optional<json::Value> R;
    run(Name, Overrides, /*Detail=*/true, [&](const driver::Evaluation &E) {
      R = E.Training ? report::trainingJson(E.Program, E.Train)
                     : report::servingJson(E.Program, E.Serve);
    });
    return R ? toPython(*R) : py::object(py::none());
  }

  /// A sweep's points as flat rows: the point's number (and rank when
  /// kept), each axis path's value, then the figures.
  py::list sweep(const std::optional<std::string> &Name, unsigned Threads) {
    const spec::Sweep *W = nullptr;
    for (const spec::Sweep &S : C->Spec.Sweeps)
      if (C->Spec.isTopLevel(*S.Decl) && (!Name || S.Decl->Name == *Name)) {
        if (W)
          throw py::value_error("the spec has several sweeps (" +
                                llvm::join(Sweeps, ", ") + "): name one");
        W = &S;
      }
    if (!W) {
      if (!Name)
        throw py::value_error("the spec has no sweep");
      throw py::key_error("no sweep named '" + *Name + "'" +
                          didYouMean(*Name, Sweeps));
    }
    std::string Json;
    {
      raw_string_ostream OS(Json);
      report::SweepPrinter Printer(*W, sweep::columns(*W),
                                   report::SweepFormat::Json, OS);
      Printer.begin();
      sweep::Options SO;
      SO.Threads = Threads;
      SO.Stream = [&](const sweep::Point &P) { Printer.row(P); };
      sweep::Result R;
      {
        py::gil_scoped_release Release;
        R = sweep::run(*W, SO);
      }
      for (size_t I = 0; I < R.Kept.size(); ++I)
        Printer.row(R.Kept[I], I + 1);
      Printer.end(R);
    }
    raiseOrWarn(C->Diags);
    Expected<json::Value> Doc = json::parse(Json);
    if (!Doc)
      throw std::runtime_error("internal error: the sweep's JSON does not "
                               "parse: " + toString(Doc.takeError()));
    py::list Rows;
    const json::Array *Results =
        Doc->getAsObject() ? Doc->getAsObject()->getArray("results") : nullptr;
    if (!Results)
      return Rows;
    for (const json::Value &P : *Results) {
      const json::Object *O = P.getAsObject();
      if (!O)
        continue;
      py::dict Row;
      // The point's number and rank first, then the axes, then figures, in
      // the report's column order.
      for (const char *K : {"rank", "point"})
        if (const json::Value *V = O->get(K))
          Row[K] = toPython(*V);
      if (const json::Object *In = O->getObject("inputs")) {
        std::vector<StringRef> Keys;
        for (const auto &KV : *In)
          Keys.push_back(KV.first);
        std::sort(Keys.begin(), Keys.end());
        for (StringRef K : Keys)
          Row[py::str(K.str())] = toPython(*In->get(K));
      }
      for (const std::string &Col : Columns(*W))
        if (const json::Value *V = O->get(Col))
          Row[py::str(Col)] = toPython(*V);
      Rows.append(Row);
    }
    return Rows;
  }

private:
  static std::vector<std::string> Columns(const spec::Sweep &W) {
    std::vector<std::string> Keys;
    for (const std::string &Col : sweep::columns(W)) {
      bool Training = W.Scenario && W.Scenario->Type->Id == StructID::Train;
      const ir::FigureInfo *F = ir::findFigure(Training, Col);
      Keys.push_back(F ? F->Key.str() : Col);
    }
    return Keys;
  }

  static std::unique_ptr<Compilation> compile(const CompileOptions &O) {
    auto C = std::make_unique<Compilation>(O);
    C->run();
    raiseOrWarn(C->Diags);
    return C;
  }

  const spec::Object *scenario(const Compilation &U, const std::string &Name,
                               bool Raise) const {
    for (const spec::Object *S : U.Spec.Scenarios)
      if (U.Spec.isTopLevel(*S) && S->Name == Name)
        return S;
    if (!Raise)
      return nullptr;
    throw py::key_error("no scenario named '" + Name + "'" +
                        didYouMean(Name, Scenarios));
  }

  /// Evaluates the scenario, its fields overridden, and hands the result
  /// to Use (which must not raise: it runs inside the C++ libraries).
  /// Overrides are compiled beside the spec as a sweep of one value per
  /// field, so each is checked as a sweep axis written in a file would be
  /// (its diagnostics point into <overrides>), and fields derived from one
  /// follow it (dp = devices / (tp x pp)). Each call reports into its own
  /// diagnostics.
  void run(const std::string &Name, const py::kwargs &Overrides, bool Detail,
           function_ref<void(const driver::Evaluation &)> Use) {
    const spec::Object *S = scenario(*C, Name, true);
    passes::PassContext Ctx;
    if (Overrides.empty()) {
      DiagnosticEngine Diags(C->SM);
      Ctx.Diags = &Diags;
      std::optional<driver::Evaluation> E =
          driver::evaluate(ir::scenarioFromSpec(*S), Ctx, Detail);
      raiseOrWarn(Diags);
      if (!E)
        throw std::runtime_error("scenario '" + Name +
                                 "' could not be evaluated");
      Use(*E);
      return;
    }
    std::vector<std::string> Paths;
    std::string Text =
        std::string("sweep ") + OverrideName + " over " + Name + " {\n";
    for (auto [K, V] : Overrides) {
      Paths.push_back(overridePath(K));
      Text += "  " + Paths.back() + " in [" +
              fieldText(Paths.back(), V, /*InList=*/false) + "]\n";
    }
    Text += "}\n";
    CompileOptions O = Opts;
    O.Files.push_back(OverrideBuffer);
    O.Texts.push_back({OverrideBuffer, OverrideBuffer, Text});
    std::unique_ptr<Compilation> U = compile(O);
    const spec::Sweep *W = nullptr;
    for (const spec::Sweep &X : U->Spec.Sweeps)
      if (X.Decl->Name == OverrideName)
        W = &X;
    // Exactly the overrides, one value each: what the text says is what
    // was asked.
    bool AsAsked = W && W->Axes.size() == Paths.size();
    for (size_t I = 0; AsAsked && I < Paths.size(); ++I)
      AsAsked = W->Axes[I].Path == Paths[I] && W->Axes[I].Values.size() == 1;
    if (!AsAsked)
      throw py::value_error("scenario '" + Name + "': the overrides do not "
                            "read as one value per field");
    Ctx.Diags = &U->Diags;
    std::vector<uint32_t> Choice(W->Axes.size(), 0);
    bool Done = sweep::evaluatePoint(*W, Choice, Ctx, Use);
    raiseOrWarn(U->Diags);
    if (!Done)
      throw py::value_error("scenario '" + Name +
                            "': a field computed from the overrides does "
                            "not accept its value");
  }

  CompileOptions Opts;
  std::string Label;
  std::unique_ptr<Compilation> C;
  std::vector<std::string> Scenarios, Sweeps;
};

CompileOptions baseOptions(const std::vector<std::string> &Include,
                           const std::optional<std::string> &Stdlib) {
  CompileOptions O;
  O.IncludeDirs = Include;
  O.StdlibDir = Stdlib ? *Stdlib : stdlibDir();
  O.ErrorLimit = 20;
  return O;
}

Spec load(const std::optional<std::string> &PathOrText,
          const std::optional<std::string> &Path,
          const std::optional<std::string> &Text, const std::string &Name,
          const std::vector<std::string> &Include,
          const std::optional<std::string> &Stdlib) {
  int Given = int(bool(PathOrText)) + int(bool(Path)) + int(bool(Text));
  if (Given != 1)
    throw py::type_error("load() takes one of: a path or spec text, path=, "
                         "text=");
  std::optional<std::string> File = Path, Source = Text;
  if (PathOrText) {
    // Text has a brace or a line break; a path has neither.
    if (PathOrText->find_first_of("{\n") != std::string::npos)
      Source = PathOrText;
    else
      File = PathOrText;
  }
  CompileOptions O = baseOptions(Include, Stdlib);
  if (File) {
    if (!sys::fs::exists(*File))
      throw py::value_error("cannot open '" + *File +
                            "': no such file (spec text needs a '{')");
    O.Files.push_back(*File);
    Spec S(O, *File);
    // Later calls (overrides compile the spec again) read the text loaded
    // now, not the file as it may have changed since.
    S.keepText(*File);
    return S;
  }
  // Quoted imports in text resolve from the working directory.
  SmallString<256> Where;
  sys::fs::current_path(Where);
  sys::path::append(Where, Name);
  O.Files.push_back(std::string(Where.str()));
  O.Texts.push_back({std::string(Where.str()), Name, *Source});
  return Spec(std::move(O), Name);
}

py::list figureTable() {
  py::list L;
  for (const ir::FigureInfo &F : ir::figures()) {
    py::dict D;
    D["name"] = F.Name.str();
    D["key"] = F.Key.str();
    D["kind"] = F.Training ? "train" : "serve";
    D["better"] = F.HigherIsBetter ? "higher" : "lower";
    D["doc"] = F.Doc.str();
    L.append(D);
  }
  return L;
}

} // namespace
} // namespace python
} // namespace llmsys

PYBIND11_MODULE(llmsys, M) {
  using namespace llmsys::python;
  M.doc() = "llmsys: what training and serving LLMs costs (docs/python.md)";
  M.attr("__version__") = LLMSYS_VERSION;
  py::exec(R"(
class DiagnosticError(Exception):
    """A spec that does not compile or evaluate. str() is the diagnostics
    as the command line prints them; .diagnostics is a list of dicts with
    severity, id, message, file, line, column and notes."""
    def __init__(self, message, diagnostics):
        super().__init__(message)
        self.diagnostics = diagnostics

class SpecWarning(UserWarning):
    """A warning of llmsys about a spec (str() as the command line prints it)."""
)",
           M.attr("__dict__"));

  py::class_<Spec>(M, "Spec", "A compiled .llmsys spec")
      .def_property_readonly("scenarios", &Spec::scenarios,
                             "names of the top-level train and serve scenarios")
      .def_property_readonly("sweeps", &Spec::sweeps,
                             "names of the top-level sweeps")
      .def("kind", &Spec::kind, py::arg("scenario"),
           "'train' or 'serve'")
      .def("evaluate", &Spec::evaluate, py::arg("scenario"),
           "Evaluates a scenario, with fields overridden by keyword "
           "(mapping__tp=4 or **{'mapping.tp': 4}); returns its figures, "
           "keyed with their base unit (step_time_s: seconds)")
      .def("report", &Spec::report, py::arg("scenario"),
           "The scenario's whole report, as `llmsys eval --format=json` "
           "prints it; overrides as for evaluate")
      .def("sweep", &Spec::sweep, py::arg("name") = py::none(),
           py::arg("threads") = 0u,
           "Runs a sweep; returns one flat dict per point (pandas.DataFrame "
           "takes the list)")
      .def("__repr__", &Spec::repr);

  M.def("load", &load, py::arg("path_or_text") = py::none(), py::kw_only(),
        py::arg("path") = py::none(), py::arg("text") = py::none(),
        py::arg("name") = "<string>",
        py::arg("include") = std::vector<std::string>(),
        py::arg("stdlib") = py::none(),
        "Compiles a spec from a file or from text (text has a '{' or a "
        "line break); raises DiagnosticError when it does not compile");
  M.def("figures", &figureTable,
        "Every figure: name, key (with its base unit), kind, better, doc");
}
