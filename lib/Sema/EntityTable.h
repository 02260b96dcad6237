//===- EntityTable.h - the declared entities of a compilation ---*- C++ -*-===//
//
// Internal to lib/Sema. Every entity of every file in one namespace: its
// declaration, kind, the object built for it and how far building went.
// Declarations.cpp fills it; everything else looks names up in it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_SEMA_ENTITYTABLE_H
#define LLMSYS_SEMA_ENTITYTABLE_H

#include "AST/AST.h"
#include "IR/Spec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <algorithm>
#include <string>
#include <vector>

namespace llmsys {
namespace sema {

struct EntityInfo {
  const ast::EntityDecl *Decl = nullptr;
  const StructSpec *Type = nullptr;
  spec::Object *Obj = nullptr;
  enum class State { Unbuilt, Building, Built, Failed } St = State::Unbuilt;
  bool Used = false;     ///< Referenced by a field somewhere.
  bool Extended = false; ///< Some entity extends it.

  /// Built without an error.
  bool built() const { return Obj && St == State::Built; }
};

class EntityTable {
public:
  /// Declares D as an entity of kind Type; null when its name is taken
  /// (Previous: the entity holding it).
  EntityInfo *declare(const ast::EntityDecl &D, const StructSpec *Type,
                      const EntityInfo *&Previous) {
    auto [It, Inserted] = ByName.try_emplace(D.Name.Name);
    if (!Inserted) {
      Previous = &It->second;
      return nullptr;
    }
    It->second.Decl = &D;
    It->second.Type = Type;
    Order.push_back(&It->second);
    return &It->second;
  }
  EntityInfo *find(llvm::StringRef Name) {
    auto It = ByName.find(Name);
    return It == ByName.end() ? nullptr : &It->second;
  }
  bool contains(llvm::StringRef Name) const { return ByName.count(Name); }
  /// In the order of declaration (files in load order).
  llvm::ArrayRef<EntityInfo *> inOrder() const { return Order; }
  /// The names of the entities Keep accepts, sorted (for suggestions).
  template <typename Pred> std::vector<std::string> names(Pred Keep) const {
    std::vector<std::string> Out;
    for (const auto &E : ByName)
      if (Keep(E.second))
        Out.push_back(E.first().str());
    std::sort(Out.begin(), Out.end());
    return Out;
  }
  /// The entity whose object O is (set when building it).
  void bind(const spec::Object *O, EntityInfo *EI) { InfoOf[O] = EI; }
  EntityInfo *of(const spec::Object *O) const { return InfoOf.lookup(O); }

private:
  llvm::StringMap<EntityInfo> ByName;
  std::vector<EntityInfo *> Order;
  llvm::DenseMap<const spec::Object *, EntityInfo *> InfoOf;
};

} // namespace sema
} // namespace llmsys

#endif
