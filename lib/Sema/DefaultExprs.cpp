//===- DefaultExprs.cpp - the schema's default expressions
//-------------------===//

#include "Sema/DefaultExprs.h"

#include "Parse/Parser.h"

#include "llvm/Support/SourceMgr.h"
#include <cassert>

using namespace llvm;

namespace llmsys {
namespace sema {

const ast::Expr *DefaultExprs::of(const FieldSpec &F) {
  auto It = Parsed.find(&F);
  if (It != Parsed.end())
    return It->second;
  unsigned Buf = Sources.addBuffer(F.Default, "<default of " + F.Name + ">");
  Buffers.insert(Buf);
  const ast::Expr *E = parseExpression(Buf, Diags.getSourceMgr(), Ctx, Diags);
  assert(E && "schema default does not parse");
  Parsed[&F] = E;
  return E;
}

SMRange DefaultExprs::at(SMRange R) const {
  if (Using.empty() || !R.Start.isValid() ||
      !Buffers.count(Diags.getSourceMgr().FindBufferContainingLoc(R.Start)))
    return R;
  const spec::Object *O = Using.back();
  while (O->Enclosing && !O->DeclRange.Start.isValid())
    O = O->Enclosing;
  return O->DeclRange;
}

} // namespace sema
} // namespace llmsys
