// The dispatcher's nearest-neighbour rules and miss-log format, as pure functions (no GPU).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>

// libsgemm_dispatch exports only the C API, so the pure parts are compiled into this test.
#include "dispatch/lookup.cpp"
#include "dispatch/miss_log.cpp"
#include "support/problem_and_knobs.hpp"

namespace sgt {
namespace {

using testing::problem;

Neighbour tuned(const ProblemKey& p, double time_us, double cublas_us) {
  return {p, true, time_us, cublas_us};
}

Neighbour cublas_won(const ProblemKey& p) { return {p, false, 10, 10}; }

const NeighbourCheck accept_all = [](std::size_t) { return std::string{}; };

TEST(DispatchLookup, DistanceIsEuclideanInLog2) {
  EXPECT_DOUBLE_EQ(log_distance(problem(1024, 1024, 1024), problem(1024, 1024, 1024)), 0.0);
  EXPECT_DOUBLE_EQ(log_distance(problem(1024, 1024, 1024), problem(2048, 1024, 1024)), 1.0);
  EXPECT_DOUBLE_EQ(log_distance(problem(512, 1024, 1024), problem(1024, 2048, 1024)),
                   std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(log_distance(problem(100, 7, 3), problem(25, 7, 3)), 2.0);
}

TEST(DispatchLookup, RatioThresholdAppliesToEveryDimension) {
  const ProblemKey p = problem(1000, 1000, 1000);
  EXPECT_TRUE(within_ratio(p, problem(2000, 500, 1000), 2.0));
  EXPECT_FALSE(within_ratio(p, problem(2001, 1000, 1000), 2.0));
  EXPECT_FALSE(within_ratio(p, problem(1000, 499, 1000), 2.0));
  EXPECT_FALSE(within_ratio(p, problem(1000, 1000, 4000), 2.0));
  EXPECT_TRUE(within_ratio(p, problem(1000, 1000, 4000), 4.0));
}

TEST(DispatchLookup, AlignmentOfTheKernelMustNotExceedTheProblems) {
  EXPECT_TRUE(alignment_serves(4, 4));
  EXPECT_TRUE(alignment_serves(1, 4));
  EXPECT_TRUE(alignment_serves(2, 2));
  EXPECT_FALSE(alignment_serves(4, 2));
  EXPECT_FALSE(alignment_serves(2, 1));
}

TEST(DispatchLookup, SpeedupNeedsBothTimes) {
  EXPECT_DOUBLE_EQ(measured_speedup(10, 15), 1.5);
  EXPECT_EQ(measured_speedup(0, 15), 0);
  EXPECT_EQ(measured_speedup(10, 0), 0);
}

TEST(DispatchLookup, PicksTheClosestEligibleNeighbour) {
  const std::vector<Neighbour> pool = {
      tuned(problem(1024, 1024, 1024), 10, 12),       // distance ~0.58
      tuned(problem(900, 1100, 700), 10, 12),         // distance ~0.14
      tuned(problem(800, 1000, 800, Op::T), 10, 20),  // other transpose
  };
  const NearestChoice c = choose_nearest(problem(800, 1000, 800), pool, {}, accept_all);
  ASSERT_EQ(c.index, 1) << c.why;
  EXPECT_NEAR(c.distance, log_distance(problem(800, 1000, 800), pool[1].problem), 1e-12);
  EXPECT_NE(c.why.find("nearest tuned problem"), std::string::npos) << c.why;
}

TEST(DispatchLookup, RefusesNeighboursTooFarAway) {
  const std::vector<Neighbour> pool = {tuned(problem(4096, 4096, 4096), 10, 20)};
  const NearestChoice c = choose_nearest(problem(1024, 4096, 4096), pool, {}, accept_all);
  EXPECT_EQ(c.index, -1);
  EXPECT_NE(c.why.find("within a factor 2"), std::string::npos) << c.why;
  NearestRules wide;
  wide.max_ratio = 4;
  EXPECT_EQ(choose_nearest(problem(1024, 4096, 4096), pool, wide, accept_all).index, 0);
}

TEST(DispatchLookup, NeedsMeasuredSpeedupOverCublas) {
  const std::vector<Neighbour> pool = {tuned(problem(1000, 1000, 1000), 10, 10.4),
                                       tuned(problem(1500, 1500, 1500), 10, 20)};
  // The closest evidence says x1.04: cuBLAS, even though a farther neighbour is faster.
  const NearestChoice c = choose_nearest(problem(1100, 1000, 1000), pool, {}, accept_all);
  EXPECT_EQ(c.index, -1);
  EXPECT_NE(c.why.find("gains only"), std::string::npos) << c.why;
  NearestRules lax;
  lax.min_speedup = 1.01;
  EXPECT_EQ(choose_nearest(problem(1100, 1000, 1000), pool, lax, accept_all).index, 0);
}

TEST(DispatchLookup, AClosercuBlasWinnerVetoes) {
  const std::vector<Neighbour> pool = {cublas_won(problem(1000, 1000, 1000)),
                                       tuned(problem(1500, 1500, 1500), 10, 20)};
  const NearestChoice c = choose_nearest(problem(1050, 1000, 1000), pool, {}, accept_all);
  EXPECT_EQ(c.index, -1);
  EXPECT_NE(c.why.find("served best by cuBLAS"), std::string::npos) << c.why;
  // Closer to the tuned one: it is used.
  EXPECT_EQ(choose_nearest(problem(1450, 1500, 1500), pool, {}, accept_all).index, 1);
}

TEST(DispatchLookup, RejectedByTheFamilyMovesToTheNext) {
  const std::vector<Neighbour> pool = {tuned(problem(1000, 1000, 1000), 10, 20),
                                       tuned(problem(1200, 1000, 1000), 10, 20)};
  const NeighbourCheck reject_first = [](std::size_t i) {
    return i == 0 ? std::string("cannot implement") : std::string{};
  };
  EXPECT_EQ(choose_nearest(problem(1000, 1000, 1000), pool, {}, reject_first).index, 1);
  const NeighbourCheck reject_all = [](std::size_t) { return std::string("workspace"); };
  const NearestChoice c = choose_nearest(problem(1000, 1000, 1000), pool, {}, reject_all);
  EXPECT_EQ(c.index, -1);
  EXPECT_NE(c.why.find("workspace"), std::string::npos) << c.why;
}

TEST(DispatchLookup, AlignmentClasses) {
  const std::vector<Neighbour> pool = {tuned(problem(1000, 1000, 1000, Op::N, Op::N, 1), 10, 20),
                                       tuned(problem(1000, 1000, 1000, Op::N, Op::N, 4), 10, 20)};
  // Same class only by default; a wider-aligned kernel never serves a narrower problem.
  EXPECT_EQ(choose_nearest(problem(1000, 1000, 999, Op::N, Op::N, 4), pool, {}, accept_all).index,
            1);
  EXPECT_EQ(choose_nearest(problem(1000, 1000, 999, Op::N, Op::N, 1), pool, {}, accept_all).index,
            0);
  EXPECT_EQ(choose_nearest(problem(1000, 1000, 999, Op::N, Op::N, 2), pool, {}, accept_all).index,
            -1);
  NearestRules cross;
  cross.cross_alignment = true;
  EXPECT_EQ(
      choose_nearest(problem(1000, 1000, 999, Op::N, Op::N, 2), pool, cross, accept_all).index, 0);
  // Same class first, even when a narrower one is closer.
  const std::vector<Neighbour> two = {tuned(problem(1000, 1000, 1000, Op::N, Op::N, 1), 10, 20),
                                      tuned(problem(1500, 1000, 1000, Op::N, Op::N, 4), 10, 20)};
  EXPECT_EQ(
      choose_nearest(problem(1000, 1000, 1000, Op::N, Op::N, 4), two, cross, accept_all).index, 1);
}

TEST(DispatchLookup, BelowClassFourTheWidthOfLdcMustMatch) {
  // Both class 1 (an odd ldb); the neighbour's C is float4-aligned (ldc 8368), the problem's not.
  ProblemKey aligned_c = problem(8368, 14632, 19, Op::N, Op::N, 1);
  ProblemKey odd_c = problem(8371, 12994, 15, Op::N, Op::N, 1);
  ASSERT_EQ(leading_dimension_width(aligned_c.ldc), 4);
  ASSERT_EQ(leading_dimension_width(odd_c.ldc), 1);
  const std::vector<Neighbour> pool = {tuned(aligned_c, 10, 20)};
  const NearestChoice c = choose_nearest(odd_c, pool, {}, accept_all);
  EXPECT_EQ(c.index, -1) << c.why;
  // The same neighbour serves a problem whose ldc is as wide; in class 4 every ldc is.
  ProblemKey padded = odd_c;
  padded.ldc = 8372;
  EXPECT_EQ(choose_nearest(padded, pool, {}, accept_all).index, 0);
  EXPECT_EQ(leading_dimension_width(8370), 2);
}

TEST(DispatchLookup, DisabledMeansCublas) {
  NearestRules off;
  off.enabled = false;
  const std::vector<Neighbour> pool = {tuned(problem(1000, 1000, 1000), 10, 20)};
  EXPECT_EQ(choose_nearest(problem(1001, 1000, 1000), pool, off, accept_all).index, -1);
}

TEST(DispatchLookup, RulesFromEnvironment) {
  ::setenv("SGEMM_DISPATCH_NEAREST_MAX_RATIO", "1.5", 1);
  ::setenv("SGEMM_DISPATCH_NEAREST_MIN_SPEEDUP", "junk", 1);
  ::setenv("SGEMM_DISPATCH_NEAREST", "0", 1);
  const NearestRules r = nearest_rules_from_env();
  ::unsetenv("SGEMM_DISPATCH_NEAREST_MAX_RATIO");
  ::unsetenv("SGEMM_DISPATCH_NEAREST_MIN_SPEEDUP");
  ::unsetenv("SGEMM_DISPATCH_NEAREST");
  EXPECT_DOUBLE_EQ(r.max_ratio, 1.5);
  EXPECT_DOUBLE_EQ(r.min_speedup, 1.05);
  EXPECT_FALSE(r.enabled);
  EXPECT_FALSE(r.cross_alignment);
}

TEST(DispatchMissLog, HeaviestFirstMergedAcrossAlignment) {
  const std::vector<MissCount> misses = {
      {problem(64, 64, 64), 1000},                    // 5.2e8 flop
      {problem(4096, 16, 4096), 3},                   // 1.6e9 flop
      {problem(4096, 16, 4096, Op::N, Op::N, 1), 2},  // merged with the above
      {problem(128, 128, 128, Op::T, Op::N), 0},      // never called: left out
  };
  EXPECT_EQ(miss_log_csv(misses),
            "m,n,k,transa,transb,lda,ldb,ldc,calls\n"
            "4096,16,4096,N,N,4096,4096,4096,5\n"
            "64,64,64,N,N,64,64,64,1000\n");
  EXPECT_EQ(miss_log_csv({}), "m,n,k,transa,transb,lda,ldb,ldc,calls\n");
}

}  // namespace
}  // namespace sgt
