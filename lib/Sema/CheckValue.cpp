//===- CheckValue.cpp - a value against its field's type -------------------===//

#include "Sema/SemaImpl.h"

#include <cmath>

using namespace llvm;

namespace llmsys {
namespace sema {

static bool typeMatches(const TypeSpec &T, const Value &V) {
  switch (T.Kind) {
  case TypeKind::Quantity:
  case TypeKind::Number:
  case TypeKind::Integer:
    return V.Kind == spec::ValueKind::Number;
  case TypeKind::Bool:
    return V.Kind == spec::ValueKind::Bool;
  case TypeKind::String:
    return V.Kind == spec::ValueKind::String;
  case TypeKind::Enum:
    return V.Kind == spec::ValueKind::Enum;
  case TypeKind::List:
    return V.Kind == spec::ValueKind::List;
  case TypeKind::Ref:
  case TypeKind::Struct:
    return V.Kind == spec::ValueKind::Object;
  }
  return false;
}

/// The largest whole number wholeNumber accepts for F: a range is checked
/// after, in its own words; 2^53 is where a double stops counting.
static double wholeLimit(const FieldSpec &F) {
  return F.Check == Constraint::Range ? MaxExact : F.mostValue();
}

/// V a whole number (rounded in place) no larger than Most; else a
/// diagnostic. (A field with a range says so in its own words, after.)
bool Resolver::wholeNumber(Value &V, SMRange R, const std::string &Name,
                           double Most) {
  // (A negative value is left to the field's constraint.)
  if (V.Num > Most) {
    Diags.report<DiagID::err_field_too_large>(R, Name, spec::formatValue(V),
                 spec::formatNumber(Most));
    return false;
  }
  if (!isWholeNumber(V.Num)) {
    Diags.report<DiagID::err_not_integer>(R, Name, spec::formatValue(V));
    return false;
  }
  V.Num = std::round(V.Num);
  return true;
}

bool Resolver::checkValue(const FieldSpec &F, Value &V, SMRange R,
                          const std::string &Name) {
  const TypeSpec &T = F.Type;
  if (!typeMatches(T, V)) {
    Diags.report<DiagID::err_type_mismatch>(R, Name, T.describe(),
                 V.describe());
    return false;
  }
  switch (T.Kind) {
  case TypeKind::Quantity:
    if (V.Dim == T.Dim || T.AnyDimension) {
      // Tokens are counted: a prompt of 0.5 tokens is not a workload.
      if (!T.AnyDimension && T.Dim == dims::tokens() &&
          !wholeNumber(V, R, Name, wholeLimit(F)))
        return false;
      break;
    }
    if (V.Dim.isDimensionless()) {
      std::string Example = exampleFor(T.Dim).str();
      if (Example.empty())
        Example = "1 " + T.Dim.unitString();
      Diags.report<DiagID::err_bare_number>(R, Name, T.describe(), Example);
    } else {
      Diags.report<DiagID::err_dimension_mismatch>(R, Name, T.describe(),
                   V.Dim.describe());
    }
    return false;
  case TypeKind::Number:
  case TypeKind::Integer:
    if (!V.Dim.isDimensionless()) {
      Diags.report<DiagID::err_dimension_mismatch>(R, Name, T.describe(),
                   V.Dim.describe());
      return false;
    }
    if (T.Kind == TypeKind::Integer && !wholeNumber(V, R, Name, wholeLimit(F)))
      return false;
    break;
  case TypeKind::Enum:
    if (!T.Enum->contains(V.str())) {
      Diags.report<DiagID::err_type_mismatch>(R, Name, T.describe(),
                   V.describe());
      return false;
    }
    return true;
  case TypeKind::List: {
    FieldSpec ElemField = F;
    ElemField.Type = *T.Elem;
    // Each element meets the field's constraint (a list of layer counts,
    // none negative).
    for (Value &E : V.elemsToChange())
      if (!checkValue(ElemField, E, R, Name))
        return false;
    return true;
  }
  case TypeKind::Ref:
    if (!T.Struct && V.Obj->IsEntity && V.Obj->Type->IsScenario)
      return true;
    if (!V.Obj->IsEntity || V.Obj->Type != T.Struct) {
      if (V.Obj->IsEntity)
        Diags.report<DiagID::err_wrong_entity_kind>(R, V.Obj->Name,
                     TypeSpec{TypeKind::Ref, Dimension(), nullptr, nullptr,
                              V.Obj->Type}
                         .describe(),
                     Name, T.describe());
      else
        Diags.report<DiagID::err_type_mismatch>(R, Name, T.describe(),
                     V.describe());
      return false;
    }
    return true;
  case TypeKind::Bool:
  case TypeKind::String:
  case TypeKind::Struct:
    return true;
  }

  if (F.meetsConstraint(V.Num))
    return true;
  switch (F.Check) {
  case Constraint::None:
    break;
  case Constraint::Positive:
    Diags.report<DiagID::err_not_positive>(R, Name, spec::formatValue(V));
    break;
  case Constraint::NonNegative:
    Diags.report<DiagID::err_negative>(R, Name, spec::formatValue(V));
    break;
  case Constraint::Range:
    Diags.report<DiagID::err_out_of_range>(R, Name, spec::formatNumber(F.Min),
                                           spec::formatNumber(F.Max),
                                           spec::formatValue(V));
    break;
  }
  return false;
}

} // namespace sema
} // namespace llmsys
