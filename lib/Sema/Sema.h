//===- Sema.h - from ASTs to the resolved Spec --------------------*- C++ -*-===//
//
// Name resolution in one global namespace of entities (all files of a
// compilation), `extends` with late binding (a parent's `ffn = 4 * hidden`
// follows the child's `hidden`), nested blocks, inline entities, schema
// defaults, expression evaluation with dimensions, type checks against the
// schema, expectations and sweeps.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_SEMA_H
#define LLMSYS_SEMA_SEMA_H

#include "AST/AST.h"
#include "Basic/Diagnostics.h"
#include "Basic/SourceFiles.h"
#include "IR/Spec.h"

namespace llmsys {

/// Resolves parsed files into S. Diagnoses everything it rejects.
void resolve(llvm::ArrayRef<ast::File *> Files, SourceFiles &Sources,
             DiagnosticEngine &Diags, ast::ASTContext &Ctx, spec::Spec &S);

} // namespace llmsys

#endif
