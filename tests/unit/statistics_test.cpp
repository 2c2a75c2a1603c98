// Unit tests of the summary statistics and the paired-ratio summary.
#include "measure/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace sgt {
namespace {

TEST(Statistics, MeanMedianMinMax) {
  const std::vector<double> x = {4, 1, 3, 2, 10};
  EXPECT_DOUBLE_EQ(mean(x), 4.0);
  EXPECT_DOUBLE_EQ(median(x), 3.0);
  EXPECT_DOUBLE_EQ(min_value(x), 1.0);
  EXPECT_DOUBLE_EQ(max_value(x), 10.0);
  const std::vector<double> even = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(even), 2.5);
}

TEST(Statistics, SampleStdevUsesNMinusOne) {
  const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};  // population stdev 2
  EXPECT_NEAR(stdev(x), std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(relative_stdev(x), std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
  const std::vector<double> one = {3};
  EXPECT_DOUBLE_EQ(stdev(one), 0.0);
  EXPECT_DOUBLE_EQ(relative_stdev(one), 0.0);
}

TEST(Statistics, EmptyInputIsNaN) {
  const std::vector<double> none;
  EXPECT_TRUE(std::isnan(mean(none)));
  EXPECT_TRUE(std::isnan(median(none)));
  EXPECT_TRUE(std::isnan(stdev(none)));
  EXPECT_TRUE(std::isnan(percentile(none, 50)));
  EXPECT_TRUE(std::isnan(min_value(none)));
}

TEST(Statistics, PercentileInterpolatesLinearly) {
  const std::vector<double> x = {10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(percentile(x, 0), 10);
  EXPECT_DOUBLE_EQ(percentile(x, 100), 50);
  EXPECT_DOUBLE_EQ(percentile(x, 25), 20);
  EXPECT_DOUBLE_EQ(percentile(x, 10), 14);   // position 0.4 between 10 and 20
  EXPECT_DOUBLE_EQ(percentile(x, 150), 50);  // clamped
}

TEST(Statistics, RelativeStdevAroundReference) {
  const std::vector<double> x = {1.0, 1.0, 1.0};
  EXPECT_DOUBLE_EQ(relative_stdev_around(x, 1.0), 0.0);
  // Around 2: every deviation is 1, sqrt(3 / 2) / 2.
  EXPECT_NEAR(relative_stdev_around(x, 2.0), std::sqrt(1.5) / 2, 1e-12);
}

TEST(Statistics, RatioSummaryOfConstantRatios) {
  const std::vector<double> r(30, 1.0);
  const RatioSummary s = summarize_ratios(r);
  EXPECT_EQ(s.count, 30);
  EXPECT_DOUBLE_EQ(s.median, 1.0);
  EXPECT_DOUBLE_EQ(s.spread, 0.0);
  EXPECT_DOUBLE_EQ(s.ci_low, 1.0);
  EXPECT_DOUBLE_EQ(s.ci_high, 1.0);
}

TEST(Statistics, RatioSummarySpreadIsHalfIqrOverMedian) {
  std::vector<double> r;
  for (int i = 0; i <= 100; ++i) r.push_back(0.9 + 0.002 * i);  // 0.9 .. 1.1, median 1.0
  const RatioSummary s = summarize_ratios(r);
  EXPECT_NEAR(s.median, 1.0, 1e-12);
  EXPECT_NEAR(s.q1, 0.95, 1e-12);
  EXPECT_NEAR(s.q3, 1.05, 1e-12);
  EXPECT_NEAR(s.spread, 0.05, 1e-12);
  // The CI of the median brackets it and is narrower than the quartiles for n = 101.
  EXPECT_LT(s.ci_low, s.median);
  EXPECT_GT(s.ci_high, s.median);
  EXPECT_GT(s.ci_low, s.q1);
  EXPECT_LT(s.ci_high, s.q3);
}

TEST(Statistics, RatioSummaryOfNothing) {
  const RatioSummary s = summarize_ratios({});
  EXPECT_EQ(s.count, 0);
  EXPECT_TRUE(std::isnan(s.median));
}

TEST(Statistics, FillStatistics) {
  Measurement m;
  m.samples_us = {10, 12, 11, 30};
  fill_statistics(m);
  EXPECT_DOUBLE_EQ(m.median_us, 11.5);
  EXPECT_DOUBLE_EQ(m.min_us, 10);
  EXPECT_DOUBLE_EQ(m.max_us, 30);
  EXPECT_DOUBLE_EQ(m.mean_us, 15.75);
  EXPECT_NEAR(m.gpu_time_s, 63e-6, 1e-15);
  EXPECT_GT(m.rel_stdev, 0.5);
}

}  // namespace
}  // namespace sgt
