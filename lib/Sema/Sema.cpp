//===- Sema.cpp - the order of resolution -----------------------------------===//

#include "Sema/SemaImpl.h"

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
  for (EntityInfo *EI : DeclOrder)
    build(*EI);
  // 3. Every field evaluated and checked.
  // (Entities whose `extends` failed are skipped: their errors would only
  // echo the first.)
  for (EntityInfo *EI : DeclOrder)
    if (EI->Obj && EI->St == EntityInfo::State::Built)
      evaluateAll(EI->Obj);
  // 4. Entities of the files being checked that nothing references are
  //    checked for required fields where they are declared.
  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built || EI->Used ||
        EI->Extended || EI->Type->Name == "sweep")
      continue;
    if (S.isTopLevel(*EI->Obj))
      checkComplete(EI->Obj, EI->Decl->Name.Range);
  }
  // A serve scenario takes its prompt and output from its workload when it
  // does not write them.
  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built ||
        EI->Type->Name != "serve" || !S.isTopLevel(*EI->Obj))
      continue;
    const Object *W = EI->Obj->object("workload");
    std::vector<std::string> Missing;
    // A trace gives each request's lengths.
    bool Trace = EI->Obj->path("traffic.trace");
    for (const char *F : {"prompt", "output"})
      if (!Trace && !EI->Obj->path(F) && !(W && W->path(F)))
        Missing.push_back(std::string("'") + F + "'");
    if (!Missing.empty())
      Diags.report<DiagID::err_incomplete_entity>(EI->Decl->Name.Range,
                   "serve", EI->Obj->Name, Missing.size() == 1 ? "" : "s",
                   Missing.size() == 1 ? Missing[0]
                                       : Missing[0] + ", " + Missing[1]);
  }
  // Contexts longer than the model was built for are allowed (what-if
  // studies) but said.
  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built ||
        !EI->Type->IsScenario || !S.isTopLevel(*EI->Obj))
      continue;
    const Object *Model = EI->Obj->object("model");
    std::optional<double> MaxSeq = Model ? Model->number("max_seq") : std::nullopt;
    if (!MaxSeq)
      continue;
    const Object *W = EI->Obj->object("workload");
    auto Get = [&](const char *F) -> double {
      if (std::optional<double> V = EI->Obj->number(F))
        return *V;
      return W ? W->number(F).value_or(0) : 0;
    };
    bool Train = EI->Type->Name == "train";
    // An encoder reads its input and generates nothing: its context is
    // the prompt. A decoder attends over the prompt and every generated
    // token but the last (which is returned, never read back).
    bool Encoder = Model->word("kind") == "encoder";
    double Prompt = Get("prompt") + EI->Obj->number("retrieved").value_or(0);
    double Context = Train     ? Get("seq_len")
                     : Encoder ? Prompt
                               : Prompt + Get("output") - 1;
    if (Context > *MaxSeq)
      Diags.report<DiagID::warn_context_exceeds_model>(EI->Decl->Name.Range,
                   Train     ? "seq_len"
                   : Encoder ? "prompt"
                             : "a context (prompt + output - 1)",
                   spec::formatNumber(Context), Model->Name,
                   spec::formatNumber(*MaxSeq));
  }
  // A serving mapping on fewer devices than its system has, without the
  // scenario saying so (`devices`): the rest idle, and said.
  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built ||
        EI->Type->Name != "serve" || !S.isTopLevel(*EI->Obj) ||
        EI->Obj->path("devices"))
      continue;
    const Object *Map = EI->Obj->object("mapping");
    const Object *Sys = EI->Obj->object("system");
    if (!Map || !Sys)
      continue;
    double Used = 1;
    for (const char *F : {"dp", "tp", "pp", "cp"})
      Used *= Map->number(F).value_or(1);
    double Have = Sys->number("node.devices").value_or(0) *
                  Sys->number("nodes").value_or(1);
    if (Used < Have)
      Diags.report<DiagID::warn_idle_devices>(
          EI->Obj->path("mapping")->Loc, spec::formatNumber(Used),
          spec::formatNumber(Have), Sys->Name, spec::formatNumber(Have - Used),
          spec::formatNumber(Used));
  }
  // In-flight batching: the requests, from `requests` or a trace file.
  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built ||
        EI->Type->Name != "serve" || !S.isTopLevel(*EI->Obj))
      continue;
    int TrafficIdx = EI->Obj->Type->findField("traffic");
    Object *Traffic = TrafficIdx >= 0 ? EI->Obj->Fields[TrafficIdx].V.Obj : nullptr;
    if (!Traffic)
      continue;
    int TraceIdx = Traffic->Type->findField("trace");
    spec::Field &TraceField = Traffic->Fields[TraceIdx];
    const spec::Field *Requests = Traffic->field("requests");
    if (!TraceField.isSet()) {
      if (!Requests || !Requests->isSet())
        Diags.report<DiagID::err_traffic_requests>(EI->Obj->path("traffic")->Loc);
      continue;
    }
    // What the trace gives cannot be written as well.
    for (auto [Path, What] : {std::pair{"prompt", "prompt"},
                              {"output", "output"},
                              {"traffic.prompt_stdev", "prompt"},
                              {"traffic.output_stdev", "output"},
                              {"traffic.lengths", "lengths"}}) {
      const spec::Field *F = EI->Obj->path(Path);
      StringRef Name = StringRef(Path).contains('.')
                           ? StringRef(Path).rsplit('.').second
                           : StringRef(Path);
      if (F && F->From != spec::Origin::Unset && F->From != spec::Origin::Default)
        Diags.report<DiagID::err_traffic_trace_field>(F->Loc, What, Name);
    }
    const Object *Model = EI->Obj->object("model");
    int64_t MaxSeq = Model ? int64_t(Model->number("max_seq").value_or(0)) : 0;
    auto Trace = readTrace(
        Sources, Diags, TraceField.V.str(),
        Diags.getSourceMgr().FindBufferContainingLoc(TraceField.Loc.Start),
        TraceField.Loc, MaxSeq, Model ? StringRef(Model->Name) : StringRef());
    if (!Trace)
      continue;
    TraceField.Note = S.note({"", Trace});
    if (Requests && Requests->From == spec::Origin::File &&
        Requests->V.Num > double(Trace->size()))
      Diags.report<DiagID::err_traffic_trace_requests>(
          Requests->Loc, spec::formatNumber(Requests->V.Num), TraceField.V.str(),
          Trace->size());
    if (Traffic->word("arrival.kind") == "trace" &&
        Trace->front().Arrival < 0)
      Diags.report<DiagID::err_traffic_arrival_trace>(
          EI->Obj->path("traffic.arrival")->Loc);
  }
  for (EntityInfo *EI : DeclOrder)
    if (EI->Type->Name == "sweep" && EI->Obj)
      resolveSweep(*EI);
  for (const ast::ExpectDecl *X : Expects)
    resolveExpect(*X);
  for (EntityInfo *EI : DeclOrder)
    if (EI->Type->Name == "measurement" && EI->Obj &&
        EI->St == EntityInfo::State::Built && S.isTopLevel(*EI->Obj))
      resolveMeasurement(*EI);

  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built)
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
