//===- Sema.cpp - the order of resolution -----------------------------------===//

#include "Sema/SemaImpl.h"
#include "IR/Scenario.h"

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
    const Object *W = spec::objectOf(EI->Obj->ifSet(ServeField::Workload));
    std::vector<std::string> Missing;
    // A trace gives each request's lengths.
    bool Trace = EI->Obj->ifSet(ServeField::Traffic, TrafficField::Trace);
    for (auto [Own, OfWorkload, Name] :
         {std::tuple{ServeField::Prompt, WorkloadField::Prompt, "prompt"},
          std::tuple{ServeField::Output, WorkloadField::Output, "output"}})
      if (!Trace && !EI->Obj->ifSet(Own) && !(W && W->ifSet(OfWorkload)))
        Missing.push_back(std::string("'") + Name + "'");
    if (!Missing.empty())
      Diags.report<DiagID::err_incomplete_entity>(
          EI->Decl->Name.Range, "serve", EI->Obj->Name,
          Missing.size() == 1 ? "" : "s",
          Missing.size() == 1 ? Missing[0] : Missing[0] + ", " + Missing[1]);
  }
  // Contexts longer than the model was built for are allowed (what-if
  // studies) but said.
  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built ||
        !EI->Type->IsScenario || !S.isTopLevel(*EI->Obj))
      continue;
    const Object &Sc = *EI->Obj;
    bool Train = EI->Type->Id == StructID::Train;
    const Object *Model = spec::objectOf(Train ? Sc.ifSet(TrainField::Model)
                                               : Sc.ifSet(ServeField::Model));
    std::optional<double> MaxSeq =
        Model ? spec::numberOf(Model->ifSet(ModelField::MaxSeq)) : std::nullopt;
    if (!MaxSeq)
      continue;
    // A serve scenario's own lengths, else its workload's.
    const Object *W =
        Train ? nullptr : spec::objectOf(Sc.ifSet(ServeField::Workload));
    auto Get = [&](ServeField Own, WorkloadField OfWorkload) -> double {
      if (std::optional<double> V = spec::numberOf(Sc.ifSet(Own)))
        return *V;
      return W ? spec::numberOf(W->ifSet(OfWorkload), 0) : 0;
    };
    // An encoder reads its input and generates nothing: its context is
    // the prompt. A decoder attends over the prompt and every generated
    // token but the last (which is returned, never read back).
    bool Encoder = spec::wordOf(Model->ifSet(ModelField::Kind)) ==
                   ir::enumWord(ir::ModelKind::Encoder);
    double Context;
    if (Train) {
      Context = spec::numberOf(Sc.ifSet(TrainField::SeqLen), 0);
    } else {
      double Prompt = Get(ServeField::Prompt, WorkloadField::Prompt) +
                      spec::numberOf(Sc.ifSet(ServeField::Retrieved), 0);
      Context =
          Encoder ? Prompt
                  : Prompt + Get(ServeField::Output, WorkloadField::Output) - 1;
    }
    if (Context > *MaxSeq)
      Diags.report<DiagID::warn_context_exceeds_model>(
          EI->Decl->Name.Range,
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
        EI->Obj->ifSet(ServeField::Devices))
      continue;
    const spec::Field *MapUse = EI->Obj->ifSet(ServeField::Mapping);
    const Object *Map = spec::objectOf(MapUse);
    const Object *Sys = spec::objectOf(EI->Obj->ifSet(ServeField::System));
    if (!Map || !Sys)
      continue;
    auto DevicesOf = [](const Object &M) {
      double N = 1;
      for (MappingField F : {MappingField::Dp, MappingField::Tp,
                             MappingField::Pp, MappingField::Cp})
        N *= spec::numberOf(M.ifSet(F), 1);
      return N;
    };
    double Used = DevicesOf(*Map);
    // Disaggregated serving: the prefill pool's devices too.
    if (const Object *Pool = spec::objectOf(
            EI->Obj->ifSet(ServeField::Traffic, TrafficField::Prefill)))
      Used += DevicesOf(*Pool);
    double Have =
        spec::numberOf(Sys->ifSet(SystemField::Node, NodeField::Devices), 0) *
        spec::numberOf(Sys->ifSet(SystemField::Nodes), 1);
    if (Used < Have)
      Diags.report<DiagID::warn_idle_devices>(
          MapUse->Loc, spec::formatNumber(Used), spec::formatNumber(Have),
          Sys->Name, spec::formatNumber(Have - Used), spec::formatNumber(Used));
  }
  // In-flight batching: the requests, from `requests` or a trace file.
  for (EntityInfo *EI : DeclOrder) {
    if (!EI->Obj || EI->St != EntityInfo::State::Built ||
        EI->Type->Name != "serve" || !S.isTopLevel(*EI->Obj))
      continue;
    const spec::Field *TrafficUse = EI->Obj->ifSet(ServeField::Traffic);
    Object *Traffic = TrafficUse ? TrafficUse->V.Obj : nullptr;
    if (!Traffic)
      continue;
    // What was read from the trace is noted on the field itself.
    Traffic->requireType(StructID::Traffic);
    spec::Field &TraceField = Traffic->Fields[size_t(TrafficField::Trace)];
    const spec::Field *Requests = Traffic->ifSet(TrafficField::Requests);
    if (!TraceField.isSet()) {
      if (!Requests)
        Diags.report<DiagID::err_traffic_requests>(TrafficUse->Loc);
      continue;
    }
    // What the trace gives cannot be written as well.
    for (auto [F, What] :
         {std::pair{EI->Obj->ifSet(ServeField::Prompt), "prompt"},
          {EI->Obj->ifSet(ServeField::Output), "output"},
          {Traffic->ifSet(TrafficField::PromptStdev), "prompt"},
          {Traffic->ifSet(TrafficField::OutputStdev), "output"},
          {Traffic->ifSet(TrafficField::Lengths), "lengths"}})
      if (F && F->From != spec::Origin::Default)
        Diags.report<DiagID::err_traffic_trace_field>(F->Loc, What,
                                                      F->Spec->Name);
    const Object *Model = spec::objectOf(EI->Obj->ifSet(ServeField::Model));
    int64_t MaxSeq =
        Model ? spec::integerOf(Model->ifSet(ModelField::MaxSeq), 0) : 0;
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
          Requests->Loc, spec::formatNumber(Requests->V.Num),
          TraceField.V.str(), Trace->size());
    const spec::Field *Arrival = Traffic->ifSet(TrafficField::Arrival);
    if (spec::wordOf(Traffic->ifSet(TrafficField::Arrival, ArrivalField::Kind)) ==
            ir::enumWord(ir::ArrivalKind::Trace) &&
        Trace->front().Arrival < 0)
      Diags.report<DiagID::err_traffic_arrival_trace>(Arrival->Loc);
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
