//===- AST.h - syntax tree of .llmsys files ----------------------*- C++ -*-===//
//
// The parser (lib/Parse) builds these nodes from ANTLR's parse tree, which
// never leaves lib/Parse. Nodes live in an ASTContext arena and are never
// destroyed one by one: they hold StringRefs into the source buffers (or the
// arena) and ArrayRefs into the arena. Every node carries its source range.
//
//===----------------------------------------------------------------------===//

#ifndef LLMSYS_AST_AST_H
#define LLMSYS_AST_AST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>
#include <vector>

namespace llmsys {
namespace ast {

/// One identifier with its location.
struct Ident {
  llvm::StringRef Name;
  llvm::SMRange Range;
};

/// a.b.c
struct DottedName {
  llvm::ArrayRef<Ident> Parts;
  llvm::SMRange range() const {
    return Parts.empty() ? llvm::SMRange()
                         : llvm::SMRange(Parts.front().Range.Start,
                                         Parts.back().Range.End);
  }
  std::string str() const;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind { Number, String, Bool, Name, Call, List, Unary, Binary, Range };
  Kind getKind() const { return K; }
  llvm::SMRange getRange() const { return Range; }
  llvm::SMLoc getLoc() const { return Range.Start; }

protected:
  Expr(Kind K, llvm::SMRange R) : K(K), Range(R) {}

private:
  Kind K;
  llvm::SMRange Range;
};

/// 80 GiB, 3.35TB/s, 0.5, 1e9 tokens; also a glued word such as 1f1b.
class NumberExpr : public Expr {
public:
  NumberExpr(llvm::SMRange R, llvm::StringRef Spelling, llvm::StringRef Unit,
             llvm::SMRange UnitRange, bool GluedWord)
      : Expr(Kind::Number, R), Spelling(Spelling), Unit(Unit),
        UnitRange(UnitRange), GluedWord(GluedWord) {}
  llvm::StringRef Spelling; ///< The number as written, without the unit.
  llvm::StringRef Unit;     ///< "" when none, else e.g. "TB/s".
  llvm::SMRange UnitRange;
  /// Written glued to letters ("80GiB", "1f1b"): may be an enum word.
  bool GluedWord;
  llvm::StringRef wholeText() const {
    return llvm::StringRef(getRange().Start.getPointer(),
                           getRange().End.getPointer() -
                               getRange().Start.getPointer());
  }
  static bool classof(const Expr *E) { return E->getKind() == Kind::Number; }
};

class StringExpr : public Expr {
public:
  StringExpr(llvm::SMRange R, llvm::StringRef Value)
      : Expr(Kind::String, R), Value(Value) {}
  llvm::StringRef Value; ///< Unescaped.
  static bool classof(const Expr *E) { return E->getKind() == Kind::String; }
};

class BoolExpr : public Expr {
public:
  BoolExpr(llvm::SMRange R, bool Value) : Expr(Kind::Bool, R), Value(Value) {}
  bool Value;
  static bool classof(const Expr *E) { return E->getKind() == Kind::Bool; }
};

/// A name: a field of the enclosing block, an entity, an enum word, or a
/// path through them (H100_SXM.hbm.bandwidth).
class NameExpr : public Expr {
public:
  NameExpr(llvm::SMRange R, DottedName Name) : Expr(Kind::Name, R), Name(Name) {}
  DottedName Name;
  static bool classof(const Expr *E) { return E->getKind() == Kind::Name; }
};

class CallExpr : public Expr {
public:
  CallExpr(llvm::SMRange R, Ident Callee, llvm::ArrayRef<Expr *> Args)
      : Expr(Kind::Call, R), Callee(Callee), Args(Args) {}
  Ident Callee;
  llvm::ArrayRef<Expr *> Args;
  static bool classof(const Expr *E) { return E->getKind() == Kind::Call; }
};

class ListExpr : public Expr {
public:
  ListExpr(llvm::SMRange R, llvm::ArrayRef<Expr *> Elements)
      : Expr(Kind::List, R), Elements(Elements) {}
  llvm::ArrayRef<Expr *> Elements;
  static bool classof(const Expr *E) { return E->getKind() == Kind::List; }
};

enum class UnaryOp { Neg, Plus, Not };
enum class BinaryOp { Add, Sub, Mul, Div, Lt, Le, Gt, Ge, Eq, Ne, In, And, Or };
llvm::StringRef spelling(UnaryOp Op);
llvm::StringRef spelling(BinaryOp Op);

class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMRange R, UnaryOp Op, llvm::SMLoc OpLoc, Expr *Operand)
      : Expr(Kind::Unary, R), Op(Op), OpLoc(OpLoc), Operand(Operand) {}
  UnaryOp Op;
  llvm::SMLoc OpLoc;
  Expr *Operand;
  static bool classof(const Expr *E) { return E->getKind() == Kind::Unary; }
};

class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMRange R, BinaryOp Op, llvm::SMRange OpRange, Expr *LHS,
             Expr *RHS)
      : Expr(Kind::Binary, R), Op(Op), OpRange(OpRange), LHS(LHS), RHS(RHS) {}
  BinaryOp Op;
  llvm::SMRange OpRange;
  Expr *LHS, *RHS;
  static bool classof(const Expr *E) { return E->getKind() == Kind::Binary; }
};

/// lo .. hi, lo .. hi step s, lo .. hi step *f (geometric).
class RangeExpr : public Expr {
public:
  RangeExpr(llvm::SMRange R, Expr *Lo, Expr *Hi, Expr *Step, bool Geometric)
      : Expr(Kind::Range, R), Lo(Lo), Hi(Hi), Step(Step), Geometric(Geometric) {}
  Expr *Lo, *Hi;
  Expr *Step; ///< Null when not given.
  bool Geometric;
  static bool classof(const Expr *E) { return E->getKind() == Kind::Range; }
};

//===----------------------------------------------------------------------===//
// Blocks and members
//===----------------------------------------------------------------------===//

class Member;

struct Block {
  llvm::SMRange Range; ///< From '{' to '}'.
  llvm::ArrayRef<Member *> Members;
};

class Member {
public:
  enum class Kind { Assign, Block, Bound, Axis, Where, Objective, Pareto, Keep };
  Kind getKind() const { return K; }
  llvm::SMRange getRange() const { return Range; }

protected:
  Member(Kind K, llvm::SMRange R) : K(K), Range(R) {}

private:
  Kind K;
  llvm::SMRange Range;
};

/// path = value      path = value { refinements }      path = { block }
class AssignMember : public Member {
public:
  AssignMember(llvm::SMRange R, DottedName Path, Expr *Value, Block *Refine)
      : Member(Kind::Assign, R), Path(Path), Value(Value), Refine(Refine) {}
  DottedName Path;
  Expr *Value;   ///< Null for `path = { ... }`.
  Block *Refine; ///< Null when there is no block.
  static bool classof(const Member *M) { return M->getKind() == Kind::Assign; }
};

/// path { ... }      path extends parent { ... }
class BlockMember : public Member {
public:
  BlockMember(llvm::SMRange R, DottedName Path, const DottedName *Parent,
              Block *Body)
      : Member(Kind::Block, R), Path(Path), Parent(Parent), Body(Body) {}
  DottedName Path;
  const DottedName *Parent; ///< Null when there is no `extends`.
  Block *Body;
  static bool classof(const Member *M) { return M->getKind() == Kind::Block; }
};

/// ttft <= 500 ms (in blocks of limits such as slo)
class BoundMember : public Member {
public:
  BoundMember(llvm::SMRange R, DottedName Path, BinaryOp Op, Expr *Value)
      : Member(Kind::Bound, R), Path(Path), Op(Op), Value(Value) {}
  DottedName Path;
  BinaryOp Op;
  Expr *Value;
  static bool classof(const Member *M) { return M->getKind() == Kind::Bound; }
};

/// mapping.tp in [1, 2, 4, 8] (sweeps)
class AxisMember : public Member {
public:
  AxisMember(llvm::SMRange R, DottedName Path, Expr *Values)
      : Member(Kind::Axis, R), Path(Path), Values(Values) {}
  DottedName Path;
  Expr *Values;
  static bool classof(const Member *M) { return M->getKind() == Kind::Axis; }
};

class WhereMember : public Member {
public:
  WhereMember(llvm::SMRange R, Expr *Cond) : Member(Kind::Where, R), Cond(Cond) {}
  Expr *Cond;
  static bool classof(const Member *M) { return M->getKind() == Kind::Where; }
};

class ObjectiveMember : public Member {
public:
  ObjectiveMember(llvm::SMRange R, bool Maximize, Expr *Figure)
      : Member(Kind::Objective, R), Maximize(Maximize), Figure(Figure) {}
  bool Maximize;
  Expr *Figure;
  static bool classof(const Member *M) { return M->getKind() == Kind::Objective; }
};

class ParetoMember : public Member {
public:
  ParetoMember(llvm::SMRange R, llvm::ArrayRef<Expr *> Figures)
      : Member(Kind::Pareto, R), Figures(Figures) {}
  llvm::ArrayRef<Expr *> Figures;
  static bool classof(const Member *M) { return M->getKind() == Kind::Pareto; }
};

class KeepMember : public Member {
public:
  KeepMember(llvm::SMRange R, Expr *Count) : Member(Kind::Keep, R), Count(Count) {}
  Expr *Count;
  static bool classof(const Member *M) { return M->getKind() == Kind::Keep; }
};

//===----------------------------------------------------------------------===//
// Declarations and files
//===----------------------------------------------------------------------===//

struct Import {
  llvm::SMRange Range;
  bool IsStd; ///< `import std.a.b` rather than `import "path"`.
  llvm::StringRef Spec; ///< "a.b" (after std.) or the path.
};

/// kind name [extends parent] [over target] { ... }
/// kind name = init [{ ... }]
struct EntityDecl {
  Ident KindWord;
  Ident Name;
  const DottedName *Parent = nullptr;
  const DottedName *Over = nullptr;
  /// `= hf_config("path")`: where the entity's fields start from (the block,
  /// if any, overrides them). Null for the `{ ... }` form.
  Expr *Init = nullptr;
  Block *Body = nullptr; ///< Null only when Init is set and has no block.
  llvm::SMRange Range;
};

/// expect <expr>
struct ExpectDecl {
  llvm::SMRange Range;
  Expr *Condition;
};

struct File {
  unsigned BufferID = 0;
  llvm::ArrayRef<Import> Imports;
  llvm::ArrayRef<EntityDecl *> Entities;
  llvm::ArrayRef<ExpectDecl *> Expects;
};

/// Owns every node of every file of a compilation.
class ASTContext {
public:
  template <typename T, typename... Args> T *create(Args &&...A) {
    static_assert(std::is_trivially_destructible<T>::value,
                  "AST nodes are never destroyed");
    return new (Alloc.Allocate<T>()) T(std::forward<Args>(A)...);
  }
  template <typename T> llvm::ArrayRef<T> copy(llvm::ArrayRef<T> Items) {
    if (Items.empty())
      return {};
    T *Mem = Alloc.Allocate<T>(Items.size());
    std::uninitialized_copy(Items.begin(), Items.end(), Mem);
    return llvm::ArrayRef<T>(Mem, Items.size());
  }
  /// Copies S (with a terminating NUL) into the context. Written here rather
  /// than with llvm::StringSaver: StringSaver::save is compiled into the
  /// uninstrumented libLLVM, whose allocations never unpoison a slab that
  /// this (AddressSanitizer-instrumented) header poisoned -- a false
  /// use-after-poison in a sanitizer build (docs/building.md).
  llvm::StringRef save(llvm::StringRef S) {
    char *Mem = Alloc.Allocate<char>(S.size() + 1);
    if (!S.empty())
      std::memcpy(Mem, S.data(), S.size());
    Mem[S.size()] = '\0';
    return llvm::StringRef(Mem, S.size());
  }

private:
  llvm::BumpPtrAllocator Alloc;
};

/// Prints the tree with line:col locations (llmsys-opt --emit=ast).
void dumpAST(const File &F, const llvm::SourceMgr &SM, llvm::raw_ostream &OS);

} // namespace ast
} // namespace llmsys

#endif
