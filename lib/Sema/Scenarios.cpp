//===- Scenarios.cpp - expectations and sweeps ------------------------------===//

#include "Sema/SemaImpl.h"
#include "Sema/ScenarioChecks.h"

#include "Basic/Suggest.h"
#include "IR/Scenario.h"

using namespace llvm;

namespace llmsys {
namespace sema {

static std::vector<std::string> figureNames(const StructSpec &St) {
  std::vector<std::string> Names;
  for (const FigureSpec &F : St.Figures)
    Names.push_back(F.Name);
  return Names;
}

static std::string describeEntity(const StructSpec &Type, StringRef Name) {
  return Type.Name + " '" + Name.str() + "'";
}

/// The unit a bound was written in, when it is a number with a unit (a
/// negated one too); messages show the figure's value in it.
static void writtenUnit(const ast::Expr &E, std::string &Unit,
                        double &Scale) {
  const ast::Expr *X = &E;
  if (const auto *U = dyn_cast<ast::UnaryExpr>(X))
    X = U->Operand;
  const auto *N = dyn_cast<ast::NumberExpr>(X);
  if (!N || N->Unit.empty())
    return;
  UnitParse P = parseUnit(N->Unit);
  if (!P.Ok || !(P.Scale > 0))
    return;
  Unit = N->Unit.str();
  Scale = P.Scale;
}

void Resolver::resolveExpect(const ast::ExpectDecl &D) {
  const auto *B = dyn_cast<ast::BinaryExpr>(D.Condition);
  bool IsCompare = B && compareOf(B->Op);
  const auto *L = IsCompare ? dyn_cast<ast::NameExpr>(B->LHS) : nullptr;
  if (!L || L->Name.Parts.size() != 2) {
    Diags.report<DiagID::err_expect_form>(D.Condition->getRange());
    return;
  }
  const ast::Ident &ScenarioName = L->Name.Parts[0];
  const ast::Ident &FigureName = L->Name.Parts[1];
  EntityInfo *Found = Entities.find(ScenarioName.Name);
  if (!Found) {
    std::vector<std::string> Names =
        Entities.names([](const EntityInfo &E) { return E.Type->IsScenario; });
    Diags.report<DiagID::err_undefined_name>(ScenarioName.Range,
                 ScenarioName.Name, didYouMean(ScenarioName.Name, Names));
    return;
  }
  EntityInfo &EI = *Found;
  if (!EI.Type->IsScenario) {
    Diags.report<DiagID::err_expect_scenario>(ScenarioName.Range,
                 ScenarioName.Name, "a " + EI.Type->Name);
    return;
  }
  const FigureSpec *Fig = EI.Type->findFigure(FigureName.Name);
  if (!Fig) {
    Diags.report<DiagID::err_unknown_figure>(FigureName.Range,
                 describeEntity(*EI.Type, ScenarioName.Name), FigureName.Name,
                 didYouMean(FigureName.Name, figureNames(*EI.Type)));
    return;
  }
  if (!EI.Obj)
    return;
  spec::Expectation X;
  X.Range = D.Range;
  X.Scenario = EI.Obj;
  X.Figure = Fig;
  X.Op = *compareOf(B->Op);
  FieldSpec AsField;
  AsField.Name = L->Name.str();
  AsField.Type = Fig->Type;
  if (B->Op == ast::BinaryOp::In) {
    const auto *R = dyn_cast<ast::RangeExpr>(B->RHS);
    if (!R || R->Step) {
      Diags.report<DiagID::err_expect_form>(B->RHS->getRange());
      return;
    }
    std::optional<Value> Lo = eval(*R->Lo, nullptr, &Fig->Type);
    std::optional<Value> Hi = eval(*R->Hi, nullptr, &Fig->Type);
    if (!Lo || !Hi || !checkValue(AsField, *Lo, R->Lo->getRange(), AsField.Name) ||
        !checkValue(AsField, *Hi, R->Hi->getRange(), AsField.Name))
      return;
    X.Lo = *Lo;
    X.Hi = *Hi;
    writtenUnit(*R->Lo, X.LoUnit, X.LoScale);
    writtenUnit(*R->Hi, X.HiUnit, X.HiScale);
  } else {
    std::optional<Value> V = eval(*B->RHS, nullptr, &Fig->Type);
    if (!V || !checkValue(AsField, *V, B->RHS->getRange(), AsField.Name))
      return;
    X.Lo = *V;
    writtenUnit(*B->RHS, X.LoUnit, X.LoScale);
  }
  S.Expectations.push_back(std::move(X));
}

/// A sweep point sets the axis field in a copy of the scenario; the fields
/// computed from it are computed again (deriveSweepFields). A block on the
/// axis's path that something read, or that is not set, refuses the axis.
bool Resolver::axisReaders(const Object &Scenario, const ObjectPaths &Paths,
                           const DenseMap<const Object *, unsigned> &Holders,
                           const ast::AxisMember &A, AxisReaders &Out) {
  Out.Range = A.Path.range();
  Out.Path = A.Path.str();
  // Readers outside the scenario's objects (another scenario copying one of
  // its fields) do not change a point.
  const Object *O = &Scenario;
  for (size_t I = 0; I < A.Path.Parts.size(); ++I) {
    int Idx = O->Type->findField(A.Path.Parts[I].Name);
    if (Idx < 0)
      return true;
    bool Last = I + 1 == A.Path.Parts.size();
    for (const FieldRef &Reader :
         Trace.readersOf({O, static_cast<unsigned>(Idx)})) {
      if (!Paths.count(Reader.first))
        continue;
      if (Last) {
        Out.Readers.push_back(Reader);
        continue;
      }
      // One that went through the block to another field of it reads
      // that field (if it is the axis's, the last step finds it).
      if (!Trace.readWhole({O, static_cast<unsigned>(Idx)}, Reader))
        continue;
      // What read a block on the way read it whole: no expression of
      // numbers and words recomputes it.
      std::string Name = fieldPath(Reader.first, Reader.second);
      Diags.report<DiagID::err_sweep_axis_read>(
          A.Path.range(), A.Path.str(), Name,
          "it reads '" + fieldPath(O, static_cast<unsigned>(Idx)) + "'", Name);
      return false;
    }
    if (Last) {
      Out.Target = {O, static_cast<unsigned>(Idx)};
      break;
    }
    const spec::Field &F = O->Fields[Idx];
    // The path up to this step, for messages.
    auto Prefix = [&] {
      std::string P;
      for (size_t J = 0; J <= I; ++J)
        P += (J ? "." : "") + A.Path.Parts[J].Name.str();
      return P;
    };
    if (F.V.Kind == spec::ValueKind::Object && F.V.Obj &&
        Holders.lookup(F.V.Obj) > 1) {
      // A point sets the field in a copy made along this route; the other
      // routes would keep the original.
      Diags.report<DiagID::err_sweep_axis_shared>(A.Path.range(),
                   A.Path.str(), Prefix(), F.V.Obj->Name,
                   Holders.lookup(F.V.Obj));
      return false;
    }
    if (F.V.Kind != spec::ValueKind::Object || !F.V.Obj) {
      Diags.report<DiagID::err_sweep_axis_unset>(A.Path.range(),
                   A.Path.str(), Prefix(), "'" + Scenario.Name + "'");
      return false;
    }
    O = F.V.Obj;
  }
  return true;
}

void Resolver::resolveSweep(EntityInfo &EI) {
  const ast::EntityDecl &D = *EI.Decl;
  if (D.Init) // Diagnosed where the entity was built.
    return;
  if (!D.Over) {
    Diags.report<DiagID::err_sweep_needs_over>(D.Name.Range, D.Name.Name,
                 D.Name.Name);
    return;
  }
  unsigned Consumed = 0;
  EntityInfo *Target = findEntity(*D.Over, Consumed);
  if (!Target || Consumed != D.Over->Parts.size()) {
    Diags.report<DiagID::err_undefined_name>(D.Over->range(), D.Over->str(), "");
    return;
  }
  if (!Target->Type->IsScenario) {
    Diags.report<DiagID::err_sweep_target_kind>(D.Over->range(), D.Over->str(),
                 "a " + Target->Type->Name);
    return;
  }
  if (!Target->Obj)
    return;
  const StructSpec &Scenario = *Target->Type;
  spec::Sweep W;
  W.Decl = EI.Obj;
  W.Scenario = Target->Obj;
  bool Ok = true;
  std::vector<AxisReaders> AxesRead;
  const ObjectPaths Paths = objectPaths(*Target->Obj);
  const DenseMap<const Object *, unsigned> Holders = objectHolders(Paths);
  auto CheckFigure = [&](const ast::Expr *E) -> const FigureSpec * {
    const auto *N = dyn_cast<ast::NameExpr>(E);
    const FigureSpec *F =
        N && N->Name.Parts.size() == 1
            ? Scenario.findFigure(N->Name.Parts[0].Name)
            : nullptr;
    if (!F) {
      std::string Name = N ? N->Name.str() : std::string("<expression>");
      Diags.report<DiagID::err_unknown_figure>(E->getRange(),
                   describeEntity(Scenario, Target->Obj->Name), Name,
                   didYouMean(Name, figureNames(Scenario)));
      Ok = false;
    }
    return F;
  };

  for (const ast::Member *M : D.Body->Members) {
    switch (M->getKind()) {
    case ast::Member::Kind::Axis: {
      const auto &A = cast<ast::AxisMember>(*M);
      const StructSpec *T = &Scenario;
      const FieldSpec *FS = nullptr;
      for (size_t I = 0; I < A.Path.Parts.size(); ++I) {
        const ast::Ident &Part = A.Path.Parts[I];
        int Idx = T->findField(Part.Name);
        if (Idx < 0) {
          Diags.report<DiagID::err_unknown_field>(Part.Range,
                       (I == 0 ? describeEntity(Scenario, Target->Obj->Name)
                               : "a " + T->Name),
                       Part.Name, didYouMean(Part.Name, T->fieldNames()));
          FS = nullptr;
          break;
        }
        FS = &T->Fields[Idx];
        if (I + 1 < A.Path.Parts.size()) {
          if (FS->Type.Kind != TypeKind::Ref &&
              FS->Type.Kind != TypeKind::Struct) {
            Diags.report<DiagID::err_not_a_block_field>(Part.Range, Part.Name,
                         FS->Type.describe());
            FS = nullptr;
            break;
          }
          T = FS->Type.Struct;
        }
      }
      // A mapping field only training reads, swept on a serve scenario.
      if (FS && Scenario.Id == StructID::Serve && A.Path.Parts.size() == 2 &&
          A.Path.Parts[0].Name == "mapping")
        if (const char *Why = trainingOnlyMappingField(A.Path.Parts[1].Name)) {
          Diags.report<DiagID::err_sweep_axis_inert>(
              A.Path.range(), A.Path.str(),
              std::string("a serve scenario does not use it (costed for "
                          "training only: ") +
                  Why + ")");
          Ok = false;
          break;
        }
      // A field no figure reads: a point would change nothing.
      if (FS && !FS->DocOnly.empty()) {
        Diags.report<DiagID::err_sweep_axis_inert>(
            A.Path.range(), A.Path.str(),
            "a sweep point would change nothing: no figure reads it (" +
                FS->DocOnly + ")");
        Ok = false;
        break;
      }
      // A block written from an entity (`hbm = HBM4 { ... }`) is set by
      // that entity's field of it, which derives the rest.
      if (FS && FS->Type.Kind == TypeKind::Struct &&
          FS->Type.Struct->SourceField >= 0) {
        std::string Path = A.Path.str();
        Diags.report<DiagID::err_sweep_axis_source>(
            A.Path.range(), Path,
            Path + "." +
                FS->Type.Struct->Fields[FS->Type.Struct->SourceField].Name);
        Ok = false;
        break;
      }
      AxisReaders Readers;
      if (!FS || !axisReaders(*Target->Obj, Paths, Holders, A, Readers)) {
        Ok = false;
        break;
      }
      AxesRead.push_back(std::move(Readers));
      // A block chosen by a word (`schedule = 1f1b`) is swept by its word:
      // `mapping.schedule in [1f1b, gpipe]` sets `mapping.schedule.kind`.
      std::string Path = A.Path.str();
      if (FS->Type.Kind == TypeKind::Struct && FS->Type.Struct->TagField >= 0) {
        FS = &FS->Type.Struct->Fields[FS->Type.Struct->TagField];
        Path += "." + FS->Name;
      }
      Trace.setAxis(Path);
      std::optional<Value> V = eval(*A.Values, nullptr, &FS->Type);
      Trace.setAxis("");
      if (!V) {
        Ok = false;
        break;
      }
      if (V->Kind != spec::ValueKind::List) {
        Diags.report<DiagID::err_axis_values>(A.Values->getRange(),
                     A.Path.str());
        Ok = false;
        break;
      }
      bool Overlap = false;
      for (const spec::SweepAxis &Other : W.Axes) {
        StringRef X = Path, Y = Other.Path;
        if (X == Y || X.startswith(Y.str() + ".") || Y.startswith(X.str() + ".")) {
          Diags.report<DiagID::err_sweep_axis_overlap>(A.Path.range(), Path,
                       Other.Path);
          Overlap = true;
          break;
        }
      }
      if (Overlap) {
        Ok = false;
        break;
      }
      spec::SweepAxis Axis;
      Axis.Range = M->getRange();
      Axis.Path = Path;
      Axis.Field = FS;
      for (Value &E : V->elemsToChange()) {
        if (!checkValue(*FS, E, A.Values->getRange(), Axis.Path)) {
          Ok = false;
          break;
        }
        Axis.Values.push_back(E);
      }
      if (!Ok || !sweepDerivations(Paths, Axis, AxesRead.back())) {
        Ok = false;
        break;
      }
      W.Axes.push_back(std::move(Axis));
      break;
    }
    case ast::Member::Kind::Where: {
      const auto &Wh = cast<ast::WhereMember>(*M);
      spec::Condition C;
      if (lowerCondition(*Wh.Cond, Scenario, Target->Obj->Name, C))
        W.Where.push_back(std::move(C));
      else
        Ok = false;
      break;
    }
    case ast::Member::Kind::Objective: {
      const auto &O = cast<ast::ObjectiveMember>(*M);
      if (!W.Objectives.empty() || W.Pareto) {
        Diags.report<DiagID::err_objective_count>(M->getRange(), D.Name.Name,
                     W.Objectives.size() + 1);
        Ok = false;
        break;
      }
      if (const FigureSpec *F = CheckFigure(O.Figure))
        W.Objectives.push_back({F->Name, O.Maximize});
      break;
    }
    case ast::Member::Kind::Pareto: {
      const auto &P = cast<ast::ParetoMember>(*M);
      if (!W.Objectives.empty()) {
        Diags.report<DiagID::err_objective_count>(M->getRange(), D.Name.Name,
                     W.Objectives.size() + P.Figures.size());
        Ok = false;
        break;
      }
      if (P.Figures.size() != 2) {
        Diags.report<DiagID::err_pareto_count>(M->getRange(),
                     P.Figures.size());
        Ok = false;
        break;
      }
      W.Pareto = true;
      for (const ast::Expr *E : P.Figures)
        if (const FigureSpec *F = CheckFigure(E))
          W.Objectives.push_back({F->Name, false});
      break;
    }
    case ast::Member::Kind::Keep: {
      const auto &K = cast<ast::KeepMember>(*M);
      std::optional<Value> V = eval(*K.Count, nullptr, nullptr);
      if (!V || V->Kind != spec::ValueKind::Number ||
          !V->Dim.isDimensionless() || V->Num < 1 ||
          V->Num != static_cast<double>(static_cast<unsigned>(V->Num))) {
        if (V)
          Diags.report<DiagID::err_keep_count>(K.Count->getRange());
        Ok = false;
        break;
      }
      W.Keep = static_cast<unsigned>(V->Num);
      break;
    }
    default:
      break; // Fields are rejected by applyBlock: a sweep has none.
    }
  }
  if (Ok && !deriveSweepFields(*Target->Obj, Paths, AxesRead, W))
    Ok = false;
  if (Ok && !checkSweepCosts(AxesRead, W))
    Ok = false;
  if (Ok)
    S.Sweeps.push_back(std::move(W));
}

bool Resolver::checkSweepCosts(const std::vector<AxisReaders> &Axes,
                               const spec::Sweep &W) {
  // A system's costs of owning or renting swept where its ownership makes
  // them change nothing, or a rented point without a rent: as written
  // fields would be (checkSystemFields).
  for (size_t I = 0; I < Axes.size(); ++I) {
    const auto [O, Idx] = Axes[I].Target;
    if (!O || O->Type->Id != StructID::System)
      continue;
    auto Field = static_cast<SystemField>(Idx);
    // The ownership at the points: swept with this system, or its own.
    std::vector<llvm::StringRef> Ownerships;
    for (size_t J = 0; J < Axes.size(); ++J)
      if (Axes[J].Target.first == O &&
          static_cast<SystemField>(Axes[J].Target.second) ==
              SystemField::Ownership)
        for (const spec::Value &V : W.Axes[J].Values)
          Ownerships.push_back(V.str());
    if (Ownerships.empty())
      Ownerships.push_back(spec::wordOf(O->ifSet(SystemField::Ownership)));
    bool AnyRent = llvm::is_contained(Ownerships,
                                      ir::enumWord(ir::Ownership::Rent));
    bool AnyOwn = llvm::any_of(Ownerships, [](llvm::StringRef W) {
      return W != ir::enumWord(ir::Ownership::Rent);
    });
    bool Owning = llvm::is_contained(CostsOfOwning, Field);
    if ((Owning && !AnyOwn) || (Field == SystemField::Rent && !AnyRent)) {
      Diags.report<DiagID::err_system_ownership_field>(
          Axes[I].Range, Axes[I].Path, Owning ? "owning" : "renting", O->Name,
          Owning ? "rent" : "own");
      return false;
    }
    bool RentSwept = llvm::any_of(Axes, [&](const AxisReaders &A) {
      return A.Target.first == O &&
             static_cast<SystemField>(A.Target.second) == SystemField::Rent;
    });
    if (Field == SystemField::Ownership && AnyRent && !RentSwept &&
        !O->ifSet(SystemField::Rent)) {
      Diags.report<DiagID::err_system_cost_needs>(
          Axes[I].Range, "ownership = rent", O->Name,
          "rent, the price of a device-hour");
      return false;
    }
  }
  return true;
}

void Resolver::resolveMeasurement(EntityInfo &EI) {
  const Object *M = EI.Obj;
  using MF = MeasurementField;
  const Object *Scenario = spec::objectOf(M->ifSet(MF::Scenario));
  const spec::Field *Figure = M->ifSet(MF::Figure);
  const spec::Field *Value = M->ifSet(MF::Value);
  if (!Scenario || !Figure || Figure->V.Kind != spec::ValueKind::Enum ||
      !Value || Value->V.Kind != spec::ValueKind::Number)
    return; // already diagnosed
  const FigureSpec *Fig = Scenario->Type->findFigure(Figure->V.str());
  if (!Fig) {
    Diags.report<DiagID::err_unknown_figure>(Figure->Loc,
                 describeEntity(*Scenario->Type, Scenario->Name), Figure->V.str(),
                 didYouMean(Figure->V.str(), figureNames(*Scenario->Type)));
    return;
  }
  FieldSpec AsField;
  AsField.Name = M->Name + ".value";
  AsField.Type = Fig->Type;
  // A relative error needs a positive measurement.
  AsField.Check = Constraint::Positive;
  spec::Value Measured = Value->V;
  if (!checkValue(AsField, Measured, Value->Loc, AsField.Name))
    return;
  spec::Measurement X;
  X.Decl = M;
  X.Scenario = Scenario;
  X.Figure = Fig;
  X.Measured = Measured;
  if (const spec::Field *F = M->ifSet(MF::Source))
    X.Source = F->V.str();
  if (const spec::Field *F = M->ifSet(MF::Case))
    X.Case = F->V.str();
  // A case left out of the fits says why; only training runs are fitted on.
  if (const spec::Field *F = M->ifSet(MF::Calibrates);
      F && !spec::boolOf(F, true)) {
    bool Training = Scenario->Type->Id == StructID::Train;
    if (!Training && !writesStepOverhead(*Scenario)) {
      Diags.report<DiagID::err_calibrates_serve>(F->Loc, M->Name);
      return;
    }
    if (!M->ifSet(MF::Note)) {
      Diags.report<DiagID::err_calibrates_note>(F->Loc, M->Name);
      return;
    }
    X.Calibrates = false;
  }
  // A pair compares two predictions of one figure (their ratio).
  if (const spec::Field *F = M->ifSet(MF::Baseline)) {
    const Object *B = spec::objectOf(F);
    if (!B)
      return; // already diagnosed
    if (B == M) {
      Diags.report<DiagID::err_baseline_self>(F->Loc, M->Name);
      return;
    }
    if (B->IsAnonymous) {
      Diags.report<DiagID::err_baseline_inline>(F->Loc, M->Name);
      return;
    }
    // (Reported once, at the later of the two.)
    if (spec::objectOf(B->ifSet(MF::Baseline)) == M) {
      auto Where = [](const Object *O) {
        return std::make_pair(O->BufferID, O->DeclRange.Start.getPointer());
      };
      if (std::less<std::pair<unsigned, const char *>>()(Where(B), Where(M)))
        Diags.report<DiagID::err_baseline_mutual>(F->Loc, B->Name, M->Name);
      return;
    }
    llvm::StringRef Its = spec::wordOf(B->ifSet(MF::Figure));
    if (Its.empty())
      return; // the baseline's figure is diagnosed there
    if (Its != Fig->Name) {
      Diags.report<DiagID::err_baseline_figure>(F->Loc, M->Name, Fig->Name,
                                                B->Name, Its);
      return;
    }
    X.Baseline = B;
  }
  S.Measurements.push_back(std::move(X));
}

} // namespace sema
} // namespace llmsys
