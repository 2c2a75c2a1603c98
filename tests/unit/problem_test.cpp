// Problem keys: leading dimensions, alignment classes, validation and the roofline floor.
#include "space/problem.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "space/knobs.hpp"

namespace sgt {
namespace {

TEST(Problem, MinimalLeadingDimensionsFollowTransposes) {
  ProblemKey p{Op::T, Op::N, 100, 200, 300};
  p = with_minimal_leading_dimensions(p);
  EXPECT_EQ(p.lda, 300);  // A stored k x m
  EXPECT_EQ(p.ldb, 300);
  EXPECT_EQ(p.ldc, 100);
  ProblemKey q{Op::N, Op::T, 100, 200, 300};
  q = with_minimal_leading_dimensions(q);
  EXPECT_EQ(q.lda, 100);
  EXPECT_EQ(q.ldb, 200);  // B stored n x k
}

TEST(Problem, AlignmentClassFromLeadingDimensionsAndPointers) {
  EXPECT_EQ(alignment_class(4096, 4096, 4096, 0x1000, 0x2000, 0x3000), 4);
  EXPECT_EQ(alignment_class(4098, 4096, 4096, 0x1000, 0x2000, 0x3000), 2);
  EXPECT_EQ(alignment_class(4096, 4096, 4096, 0x1004, 0x2000, 0x3000), 1);
  EXPECT_EQ(alignment_class(1023, 1024, 1024, 0, 0, 0), 1);
  EXPECT_EQ(alignment_class(1024, 1024, 1024, 0x1008, 0x2000, 0x3000), 2);
}

TEST(Problem, ValidateRejectsBadShapes) {
  ProblemKey p = with_minimal_leading_dimensions({Op::N, Op::N, 64, 64, 64});
  EXPECT_EQ(validate(p), "");
  ProblemKey neg = p;
  neg.m = -1;
  EXPECT_NE(validate(neg), "");
  ProblemKey small_lda = p;
  small_lda.lda = 63;
  EXPECT_NE(validate(small_lda).find("lda"), std::string::npos);
  ProblemKey huge = with_minimal_leading_dimensions({Op::N, Op::N, 65536, 65536, 8});
  EXPECT_NE(validate(huge).find("2^31"), std::string::npos);
}

TEST(Problem, ElementSpansIncludePadding) {
  ProblemKey p{Op::N, Op::N, 10, 20, 30, 16, 32, 12};
  EXPECT_EQ(elements_a(p), 16 * 29 + 10);
  EXPECT_EQ(elements_b(p), 32 * 19 + 30);
  EXPECT_EQ(elements_c(p), 12 * 19 + 10);
}

TEST(Problem, RooflineFloorPicksTheLargerBound) {
  const ProblemKey square = with_minimal_leading_dimensions({Op::N, Op::N, 4096, 4096, 4096});
  EXPECT_NEAR(roofline_floor_us(square, 66.9, 4.3), 2054.4, 1.0);  // compute-bound
  const ProblemKey skinny = with_minimal_leading_dimensions({Op::N, Op::N, 4096, 16, 4096});
  EXPECT_NEAR(roofline_floor_us(skinny, 66.9, 4.3), 15.7, 0.1);  // memory-bound
}

TEST(Knobs, CanonicalTextRoundTrips) {
  const Knobs k{{"BM", 128}, {"BN", 64}, {"BK", 8}};
  EXPECT_EQ(knobs_to_string(k), "BK=8,BM=128,BN=64");
  EXPECT_EQ(parse_knobs("BK=8,BM=128,BN=64"), k);
  EXPECT_THROW(parse_knobs("BM"), Error);
  EXPECT_THROW(parse_knobs("BM=x"), Error);
  EXPECT_THROW(knob(k, "TM"), Error);
}

TEST(Problem, OpParsing) {
  EXPECT_EQ(parse_op('n'), Op::N);
  EXPECT_EQ(parse_op('T'), Op::T);
  EXPECT_EQ(parse_op('C'), Op::T);
  EXPECT_THROW(parse_op('X'), Error);
}

}  // namespace
}  // namespace sgt
