// NVRTC tier: points the default spaces leave out (correct, but not faster where measured) still
// compile for sm_90 without spills: a spread of those with F4's windows (WIN = 1) and of those with
// F2's producer warp (PRODUCER = 1), each at problems of several transposes and alignment classes.
#include <gtest/gtest.h>

#include <functional>

#include "support/gpu_support.hpp"
#include "support/problem_and_knobs.hpp"

namespace sgt {
namespace {

// Every `step`-th point of the family's default space with `knob` set to `value` (at least
// `at_least` of them), at the first of `candidates(turn)` the point takes, turn counting the
// points taken so far; at least `min_cases` must be taken, and all of them compile.
void expect_spread_compiles(const Family& family, const std::string& knob, int value,
                            std::size_t step, std::size_t at_least, std::size_t min_cases,
                            const std::function<std::vector<ProblemKey>(std::size_t)>& candidates) {
  const std::vector<Knobs> points = testing::default_space_configs_with(family, knob, value);
  ASSERT_GE(points.size(), at_least);
  std::vector<testing::Case> cases;
  for (std::size_t i = 0; i < points.size(); i += step)
    for (const ProblemKey& p : candidates(cases.size()))
      if (family.cannot_implement(points[i], p).empty()) {
        cases.push_back({points[i], p});
        break;
      }
  ASSERT_GE(cases.size(), min_cases);
  testing::expect_compiles_without_spills(family, cases);
}

// A stream along G of alignment class 1 (NN) or of class 2 with the small side along M (TT), the
// first small side the point's tile takes (F4 tiles it with 1 to 64).
TEST(OptionalPoints, F4WindowsCompileWithoutSpills) {
  expect_spread_compiles(find_family("f4_skinny"), "WIN", 1, 4, 100, 30, [](std::size_t turn) {
    const Op op = turn % 2 == 0 ? Op::N : Op::T;
    std::vector<ProblemKey> out;
    for (const int small : {1, 3, 6, 12, 24, 48})
      out.push_back(op == Op::N ? testing::problem(39030, small, 1151, op, op, 1)
                                : testing::problem(small, 20002, 1150, op, op, 2));
    return out;
  });
}

// In-place points in the four transposes in turn; packed ones at alignment class 1.
TEST(OptionalPoints, F2ProducerWarpCompilesInEveryLayoutWithoutSpills) {
  expect_spread_compiles(find_family("f2_tma"), "PRODUCER", 1, 12, 50, 8, [](std::size_t turn) {
    const Op ta = turn % 2 == 0 ? Op::N : Op::T, tb = turn / 2 % 2 == 0 ? Op::N : Op::T;
    return std::vector<ProblemKey>{testing::problem(2048, 1024, 512, ta, tb, 4),
                                   testing::problem(1023, 1025, 1027, Op::N, Op::N, 1)};
  });
}

}  // namespace
}  // namespace sgt
