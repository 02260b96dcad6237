//===- DefaultExprs.h - the schema's default expressions --------*- C++ -*-===//
//
// Internal to lib/Sema. A field left unwritten takes its schema default, an
// expression parsed once from the schema's text (a buffer of its own) and
// evaluated in the context of each object that uses it. A problem found
// while evaluating one belongs to the entity using it: its position in the
// schema's text means nothing to the user.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_DEFAULTEXPRS_H
#define LLMSYS_SEMA_DEFAULTEXPRS_H

#include "AST/AST.h"
#include "Basic/Diagnostics.h"
#include "Basic/SourceFiles.h"
#include "IR/Schema.h"
#include "IR/Spec.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <vector>

namespace llmsys {
namespace sema {

class DefaultExprs {
public:
  DefaultExprs(SourceFiles &Sources, DiagnosticEngine &Diags,
               ast::ASTContext &Ctx)
      : Sources(Sources), Diags(Diags), Ctx(Ctx) {}

  /// F's default, parsed on first use.
  const ast::Expr *of(const FieldSpec &F);

  /// While a default of a field of O is evaluated (nested: a default that
  /// reads a field whose default is evaluated in turn).
  void enter(const spec::Object *O) { Using.push_back(O); }
  void leave() { Using.pop_back(); }
  bool evaluating() const { return !Using.empty(); }

  /// Where to report a problem found at R: R, or the declaration of the
  /// entity whose default is being evaluated when R is in a default.
  llvm::SMRange at(llvm::SMRange R) const;

private:
  SourceFiles &Sources;
  DiagnosticEngine &Diags;
  ast::ASTContext &Ctx;
  llvm::DenseMap<const FieldSpec *, const ast::Expr *> Parsed;
  llvm::DenseSet<unsigned> Buffers;
  std::vector<const spec::Object *> Using;
};

} // namespace sema
} // namespace llmsys

#endif
