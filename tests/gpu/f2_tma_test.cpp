// Family F2 (TMA-fed SIMT) on the GPU: every configuration of its default space at one tail shape,
// and a sample at the edge shapes (not multiples of any tile, K < BK, one row, one column), all
// four transposes, padded leading dimensions; NaN-poisoned C, beta != 0, against cuBLAS and an
// FP64 product. In-place points run on 16-byte operands (the only ones TMA addresses); packing
// points (PACK = 1) on the others: odd leading dimensions and pointers offset by one float, also
// where only one operand or C is unaligned (an operand TMA can address is then read in place);
// transposing points (PACK = 2) on aligned problems with a K-contiguous operand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "support/gpu_support.hpp"
#include "verify/tolerance.hpp"

namespace sgt {
namespace {

const Family& f2() { return find_family("f2_tma"); }

int expect_correct(const std::vector<testing::Case>& cases) {
  const std::vector<testing::CaseOutcome> results = testing::run_family_cases(f2(), cases);
  const double tol = normwise_tolerance(4.0);
  int ran = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const testing::CaseOutcome& r = results[i];
    const std::string what =
        fmt::format("f2_tma {} {}", knobs_to_string(cases[i].knobs), cases[i].problem.to_string());
    EXPECT_TRUE(r.compiled) << what << ": " << r.why_not.substr(0, 1500);
    if (!r.compiled) continue;
    ++ran;
    EXPECT_TRUE(r.check.passed) << what << ": " << r.check.message;
    EXPECT_LE(r.fp64_error, tol) << what << " against FP64";
  }
  return ran;
}

// The default space's points that read A and B in place (PACK 0), copy them aligned (1) or copy
// the K-contiguous ones transposed (2).
std::vector<Knobs> default_configs(int pack) {
  std::vector<Knobs> out;
  for (const Knobs& k : testing::default_space_configs(f2()))
    if (knob(k, "PACK") == pack) out.push_back(k);
  return out;
}

// The transposes with a K-contiguous operand, which PACK = 2 copies (NT has none).
const std::pair<Op, Op> kTransposedLayouts[] = {{Op::N, Op::N}, {Op::T, Op::N}, {Op::T, Op::T}};

std::vector<Knobs> sample(const std::vector<Knobs>& all, std::size_t count) {
  std::vector<Knobs> out;
  for (std::size_t i = 0; i < count && !all.empty(); ++i)
    out.push_back(all[i * (all.size() - 1) / std::max<std::size_t>(1, count - 1)]);
  return out;
}

TEST(F2Tma, EveryDefaultConfigurationAtATailShapeAllTransposes) {
  SGT_SKIP_WITHOUT_GPU();
  const std::vector<Knobs> configs = default_configs(0);
  ASSERT_FALSE(configs.empty());
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : configs)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        cases.push_back({knobs, testing::make_aligned_problem(ta, tb, 300, 260, 100), 0});
  EXPECT_EQ(expect_correct(cases), static_cast<int>(cases.size()));
  RecordProperty("cases", static_cast<int>(cases.size()));
}

TEST(F2Tma, EdgeShapesAllTransposesPaddedLeadingDimensions) {
  SGT_SKIP_WITHOUT_GPU();
  std::vector<std::array<int, 3>> shapes = testing::edge_shapes();
  for (const auto& shape : std::vector<std::array<int, 3>>{
           {1, 1000, 333}, {1000, 1, 333}, {129, 257, 8}, {260, 130, 31}, {1024, 512, 2048}})
    shapes.push_back(shape);
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : sample(default_configs(0), 5))
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : shapes) {
          cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k), 0});
          cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k, 12), 0});
        }
  EXPECT_EQ(expect_correct(cases), static_cast<int>(cases.size()));
  RecordProperty("cases", static_cast<int>(cases.size()));
}

// Every transposing point (PACK = 2) at a tail shape in the three transposes with a K-contiguous
// operand (NN, TN, TT), leading dimensions padded; a sample at the edge shapes (K < BK, one row,
// one column), minimal and padded leading dimensions.
TEST(F2Tma, TransposedOperandsEveryConfigurationTailAndEdgeShapes) {
  SGT_SKIP_WITHOUT_GPU();
  const std::vector<Knobs> configs = default_configs(2);
  ASSERT_FALSE(configs.empty());
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : configs)
    for (const auto& [ta, tb] : kTransposedLayouts)
      cases.push_back({knobs, testing::make_aligned_problem(ta, tb, 300, 260, 100, 4), 0});
  for (const Knobs& knobs : sample(configs, 3))
    for (const auto& [ta, tb] : kTransposedLayouts)
      for (const auto& [m, n, k] : testing::edge_shapes()) {
        cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k), 0});
        cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k, 12), 0});
      }
  EXPECT_EQ(expect_correct(cases), static_cast<int>(cases.size()));
  RecordProperty("cases", static_cast<int>(cases.size()));
}

// Every packing point at a tail shape with odd leading dimensions (NN); a sample, in all four
// transposes, at the edge shapes with leading dimensions padded by 5 (class 1), pointers offset by
// one float and leading dimensions padded by 2 (class 2), so that C is written at each alignment
// class.
TEST(F2Tma, PackedOperandsEveryConfigurationEdgeShapesPaddedAndMisaligned) {
  SGT_SKIP_WITHOUT_GPU();
  const std::vector<Knobs> configs = default_configs(1);
  ASSERT_FALSE(configs.empty());
  std::vector<std::array<int, 3>> shapes = testing::edge_shapes();
  shapes.push_back({1023, 1025, 1027});
  std::vector<testing::Case> cases = testing::unaligned_cases(sample(configs, 4), shapes);
  for (const Knobs& knobs : configs)
    cases.push_back({knobs, testing::make_problem(Op::N, Op::N, 301, 259, 101), 0});
  EXPECT_EQ(expect_correct(cases), static_cast<int>(cases.size()));
  RecordProperty("cases", static_cast<int>(cases.size()));
}

// Packing points where the class 1 comes from one operand or from C alone: the operand whose own
// leading dimension TMA takes is read in place at aligned pointers and copied at pointers offset
// by one float, in all four transposes, at a tail shape and at K < BK.
TEST(F2Tma, PackedOperandsReadInPlaceWhereTheirOwnLeadingDimensionAllows) {
  SGT_SKIP_WITHOUT_GPU();
  auto round_up = [](int ld) { return (ld + 3) / 4 * 4; };
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : sample(default_configs(1), 3))
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : {std::array{301, 259, 101}, std::array{130, 67, 5}})
          for (int odd : {0, 1, 2}) {  // the operand left unaligned: A, B, or C alone
            ProblemKey p = testing::make_problem(ta, tb, m, n, k);
            p.lda = odd == 0 ? round_up(p.lda) + 1 : round_up(p.lda);
            p.ldb = odd == 1 ? round_up(p.ldb) + 1 : round_up(p.ldb);
            p.ldc = odd == 2 ? round_up(p.ldc) + 1 : round_up(p.ldc) + 4;
            p.align = alignment_class(p.lda, p.ldb, p.ldc, 0, 0, 0);
            cases.push_back({knobs, p, 0});
            cases.push_back({knobs, p, 1});
          }
  EXPECT_EQ(expect_correct(cases), static_cast<int>(cases.size()));
  RecordProperty("cases", static_cast<int>(cases.size()));
}

// A small sample of the packing points for compute-sanitizer: two configurations, all four
// transposes, tile remainders and K < BK, odd leading dimensions and a pointer offset by one float;
// and two transposing points at tile remainders, K < BK and one column, NN, TN and TT.
TEST(F2Tma, PackedSanitizerSample) {
  SGT_SKIP_WITHOUT_GPU();
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : sample(default_configs(1), 2))
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T}) {
        cases.push_back({knobs, testing::make_problem(ta, tb, 33, 65, 3, 5, 1), 0});
        cases.push_back({knobs, testing::make_problem(ta, tb, 127, 129, 7, 0, 1), 1});
        cases.push_back({knobs, testing::make_problem(ta, tb, 257, 1, 129, 2, 2), 0});
      }
  for (const Knobs& knobs : sample(default_configs(2), 2))
    for (const auto& [ta, tb] : kTransposedLayouts) {
      cases.push_back({knobs, testing::make_aligned_problem(ta, tb, 133, 65, 7, 4), 0});
      cases.push_back({knobs, testing::make_aligned_problem(ta, tb, 257, 1, 129), 0});
    }
  EXPECT_EQ(expect_correct(cases), static_cast<int>(cases.size()));
}

}  // namespace
}  // namespace sgt
