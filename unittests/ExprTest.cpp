//===- ExprTest.cpp - the arithmetic and a sweep point's interpreter ------===//
//
// spec::arith is the one definition of the arithmetic of numbers: Sema
// evaluates a field's expression with it, and a sweep point evaluates its
// lowered conditions and computed fields (lib/Sweep/Instance.cpp) with it.

#include "IR/Schema.h"
#include "IR/Spec.h"
#include "Sweep/Instance.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace llmsys;
using spec::Arith;
using Cond = spec::Condition;

namespace {

TEST(ArithTest, Operators) {
  EXPECT_EQ(spec::arith(Arith::Neg, 3), -3);
  EXPECT_EQ(spec::arith(Arith::Add, 2, 3), 5);
  EXPECT_EQ(spec::arith(Arith::Sub, 2, 3), -1);
  EXPECT_EQ(spec::arith(Arith::Mul, 2, 3), 6);
  EXPECT_EQ(spec::arith(Arith::Div, 3, 2), 1.5);
  EXPECT_EQ(spec::arith(Arith::Min, 2, -1), -1);
  EXPECT_EQ(spec::arith(Arith::Max, 2, -1), 2);
  EXPECT_EQ(spec::arith(Arith::Ceil, 1.2), 2);
  EXPECT_EQ(spec::arith(Arith::Floor, -1.2), -2);
  // Halves round away from zero.
  EXPECT_EQ(spec::arith(Arith::Round, 2.5), 3);
  EXPECT_EQ(spec::arith(Arith::Round, -2.5), -3);
}

TEST(ArithTest, NoValueThatIsNotAFiniteNumber) {
  EXPECT_FALSE(spec::arith(Arith::Div, 1, 0));
  EXPECT_FALSE(spec::arith(Arith::Div, 0, 0));
  double Big = std::numeric_limits<double>::max();
  EXPECT_FALSE(spec::arith(Arith::Mul, Big, 2));
  EXPECT_FALSE(spec::arith(Arith::Add, Big, Big));
  EXPECT_TRUE(spec::arith(Arith::Mul, Big, 0.5));
}

TEST(ArithTest, EveryOpOfAConditionIsOneKind) {
  // Every op (Round is the last enumerator) is arithmetic, a comparison,
  // or one of the six the interpreter evaluates itself: exactly one.
  for (int I = 0; I <= int(Cond::Op::Round); ++I) {
    Cond::Op K = Cond::Op(I);
    bool Own = K == Cond::Op::Const || K == Cond::Op::Figure ||
               K == Cond::Op::Field || K == Cond::Op::Not ||
               K == Cond::Op::And || K == Cond::Op::Or;
    EXPECT_EQ(int(Own) + int(Cond::arithOf(K).has_value()) +
                  int(Cond::compareOf(K).has_value()),
              1)
        << I;
  }
  EXPECT_EQ(Cond::arithOf(Cond::Op::Div), Arith::Div);
  EXPECT_EQ(Cond::compareOf(Cond::Op::Ne), spec::Compare::Ne);
}

/// Builds a condition node by node (children first; the last is the root).
class Builder {
public:
  int num(double V) {
    Cond::Node N;
    N.Kind = Cond::Op::Const;
    N.C = spec::Value::number(V);
    return add(N);
  }
  int word(const char *W) {
    Cond::Node N;
    N.Kind = Cond::Op::Const;
    N.C = spec::Value::enumWord(W);
    return add(N);
  }
  int boolean(bool B) {
    Cond::Node N;
    N.Kind = Cond::Op::Const;
    N.C = spec::Value::boolean(B);
    return add(N);
  }
  int op(Cond::Op K, int L, int R = -1) {
    Cond::Node N;
    N.Kind = K;
    N.L = L;
    N.R = R;
    return add(N);
  }
  Cond C;

private:
  int add(Cond::Node N) {
    C.Nodes.push_back(N);
    return int(C.Nodes.size()) - 1;
  }
};

TEST(SweepInterpreterTest, ComparesAndComputes) {
  spec::Object Root;
  Builder B; // 64 / (2 * 4) == 8
  B.op(Cond::Op::Eq,
       B.op(Cond::Op::Div, B.num(64), B.op(Cond::Op::Mul, B.num(2), B.num(4))),
       B.num(8));
  EXPECT_TRUE(sweep::holds(B.C, Root, nullptr));
  Builder Ne; // round(2.5) != 3 is false
  Ne.op(Cond::Op::Ne, Ne.op(Cond::Op::Round, Ne.num(2.5)), Ne.num(3));
  EXPECT_FALSE(sweep::holds(Ne.C, Root, nullptr));
}

TEST(SweepInterpreterTest, EqualityOfWordsAndBooleans) {
  spec::Object Root;
  auto Holds = [&](Cond::Op K, auto Make) {
    Builder B;
    Make(B, K);
    return sweep::holds(B.C, Root, nullptr);
  };
  auto Words = [](const char *X, const char *Y) {
    return [=](Builder &B, Cond::Op K) { B.op(K, B.word(X), B.word(Y)); };
  };
  auto Bools = [](bool X, bool Y) {
    return [=](Builder &B, Cond::Op K) {
      B.op(K, B.boolean(X), B.boolean(Y));
    };
  };
  EXPECT_TRUE(Holds(Cond::Op::Eq, Words("fp8", "fp8")));
  EXPECT_FALSE(Holds(Cond::Op::Eq, Words("fp8", "bf16")));
  EXPECT_TRUE(Holds(Cond::Op::Ne, Words("fp8", "bf16")));
  EXPECT_TRUE(Holds(Cond::Op::Eq, Bools(true, true)));
  EXPECT_TRUE(Holds(Cond::Op::Ne, Bools(true, false)));
  EXPECT_FALSE(Holds(Cond::Op::Ne, Bools(false, false)));
}

TEST(SweepInterpreterTest, DivisionByZeroHoldsNothing) {
  spec::Object Root;
  // 1 / (4 - 4) > 0: no value, so the condition does not hold (a point
  // where it cannot be computed does not meet it); nor does its negation.
  for (Cond::Op K : {Cond::Op::Gt, Cond::Op::Le}) {
    Builder B;
    B.op(K,
         B.op(Cond::Op::Div, B.num(1), B.op(Cond::Op::Sub, B.num(4), B.num(4))),
         B.num(0));
    EXPECT_FALSE(sweep::holds(B.C, Root, nullptr));
  }
}

TEST(SweepInterpreterTest, ComputedFieldTakesOnlyWhatItsFieldAccepts) {
  const StructSpec *Mapping = Schema::get().entity("mapping");
  ASSERT_TRUE(Mapping);
  int Dp = Mapping->findField("dp");
  ASSERT_GE(Dp, 0);
  spec::Object Root;
  auto Computed = [&](double Den) {
    spec::SweepDerived D;
    D.Field = &Mapping->Fields[Dp];
    Builder B; // dp = 64 / Den
    B.op(Cond::Op::Div, B.num(64), B.num(Den));
    D.Expr = B.C;
    return sweep::computedValue(D, Root, spec::Value::number(1));
  };
  std::optional<spec::Value> Eight = Computed(8);
  ASSERT_TRUE(Eight);
  EXPECT_EQ(Eight->Num, 8);
  EXPECT_FALSE(Computed(6)); // a fraction of a whole number
  EXPECT_FALSE(Computed(0)); // a division by zero
}

} // namespace
