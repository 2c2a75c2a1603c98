// Unit tests of the stopping rule on synthetic sample streams, and of the pure parts of the
// throttle rule and clock arithmetic.
#include "measure/stopping_rule.hpp"

#include <gtest/gtest.h>

#include <random>

#include "common/error.hpp"
#include "measure/clock_probe.hpp"
#include "measure/timer.hpp"

namespace sgt {
namespace {

// Feeds samples of `sample_s` seconds (wall time advancing by wall_per_sample_s each) until the
// rule stops or max_samples; returns the number of samples fed.
template <typename Gen>
int run(StoppingRule& rule, Gen next, double wall_per_sample_s, int max_samples = 10'000'000) {
  for (int i = 1; i <= max_samples; ++i) {
    rule.add_sample(next());
    if (rule.should_stop(i * wall_per_sample_s)) return i;
  }
  return max_samples;
}

TEST(StoppingRule, ConstantSamplesStopAtMinimumTime) {
  StoppingRule rule(StoppingLimits{});  // 10 samples, 0.5 s
  // 1 ms samples: min_time needs 500 of them, noise is 0 from the start.
  const int n = run(
      rule, [] { return 1e-3; }, 2e-3);
  EXPECT_EQ(n, 500);
  EXPECT_EQ(rule.reason(), StopReason::noise);
  EXPECT_NEAR(rule.gpu_time_s(), 0.5, 1e-9);
}

TEST(StoppingRule, BatchedSamplesCountTheirWholeGpuTime) {
  StoppingRule rule(StoppingLimits{});
  // 1 ms per launch, 10 launches per timed batch: 0.5 s of GPU time after 50 samples.
  int n = 0;
  while (!rule.should_stop(++n * 1e-2)) rule.add_sample(1e-3, 1e-2);
  EXPECT_EQ(rule.samples(), 50);
  EXPECT_NEAR(rule.gpu_time_s(), 0.5, 1e-9);
  EXPECT_EQ(rule.noise(), 0.0);  // statistics of the per-launch values
}

TEST(StoppingRule, ConstantLongSamplesStopAtMinimumSamples) {
  StoppingRule rule(StoppingLimits{});
  const int n = run(
      rule, [] { return 0.2; }, 0.25);  // 0.5 s reached after 3: min_samples rules
  EXPECT_EQ(n, 10);
  EXPECT_EQ(rule.reason(), StopReason::noise);
}

TEST(StoppingRule, NoisyStreamStopsByConvergence) {
  StoppingRule rule(StoppingLimits{});
  std::mt19937_64 rng(7);
  std::normal_distribution<double> dist(1e-3, 0.1e-3);  // 10% noise: never under 0.5%
  const int n = run(
      rule, [&] { return dist(rng); }, 1.5e-3);
  EXPECT_EQ(rule.reason(), StopReason::converged);
  EXPECT_GE(n, 500);  // min_time first
  EXPECT_NEAR(rule.noise(), 0.1, 0.02);
}

TEST(StoppingRule, GroupedSamplesStillReachConvergence) {
  // Samples fed 7 at a time with one check per group (as Timer::measure feeds NVML rounds).
  StoppingRule rule(StoppingLimits{});
  std::mt19937_64 rng(11);
  std::normal_distribution<double> dist(1e-3, 0.1e-3);
  int fed = 0;
  bool stopped = false;
  while (!stopped && fed < 200000) {
    for (int i = 0; i < 7; ++i, ++fed) rule.add_sample(dist(rng));
    stopped = rule.should_stop(fed * 1.5e-3);
  }
  EXPECT_EQ(rule.reason(), StopReason::converged);
  EXPECT_LT(fed, 5000);
}

TEST(StoppingRule, NeverConvergingStreamStopsAtTimeout) {
  StoppingLimits limits;
  limits.timeout_s = 1;
  StoppingRule rule(limits);
  // Samples that keep growing: the noise estimate keeps moving, so it never converges.
  double t = 1e-3;
  const int n = run(
      rule, [&] { return t *= 1.01; }, 1e-3, 100000);
  EXPECT_EQ(rule.reason(), StopReason::timeout);
  EXPECT_EQ(n, 1001);  // wall passes 1 s at the 1001st sample
}

TEST(StoppingRule, TimeoutWithoutAnySampleIsAnError) {
  StoppingLimits limits;
  limits.timeout_s = 1;
  StoppingRule rule(limits);
  EXPECT_FALSE(rule.should_stop(0.5));
  EXPECT_TRUE(rule.should_stop(1.5));
  EXPECT_EQ(rule.reason(), StopReason::timeout);
  EXPECT_EQ(rule.samples(), 0);
  try {
    rule.require_samples();
    FAIL() << "zero accepted samples must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::internal);
  }
}

TEST(StoppingRule, SamplesPresentDoNotThrow) {
  StoppingRule rule(StoppingLimits{});
  rule.add_sample(1e-3);
  EXPECT_NO_THROW(rule.require_samples());
  EXPECT_FALSE(rule.should_stop(0.1));  // one sample: not enough
}

TEST(StoppingRule, LimitsFromSettings) {
  MeasureSettings s;
  s.min_samples = 3;
  s.min_time_s = 0.01;
  s.max_noise = 0.2;
  s.timeout_s = 4;
  const StoppingLimits l = StoppingLimits::from(s);
  EXPECT_EQ(l.min_samples, 3);
  EXPECT_DOUBLE_EQ(l.min_time_s, 0.01);
  EXPECT_DOUBLE_EQ(l.max_noise, 0.2);
  EXPECT_DOUBLE_EQ(l.timeout_s, 4);
  EXPECT_EQ(to_string(StopReason::converged), "converged");
}

TEST(ThrottleRule, ThresholdAgainstDefaultClock) {
  // Default 1980 MHz: 0.75 x = 1485 MHz.
  EXPECT_TRUE(is_throttled(1400, 1980000, 0.75));
  EXPECT_FALSE(is_throttled(1500, 1980000, 0.75));
  EXPECT_FALSE(is_throttled(0, 1980000, 0.75));  // unknown clock: never discarded by clock
}

TEST(ThrottleRule, SleepGrowsAfterTwoInARowAndIsCapped) {
  const MeasureSettings s;  // 50 ms, x1.5, cap 500 ms
  EXPECT_DOUBLE_EQ(throttle_sleep_ms(1, s), 50);
  EXPECT_DOUBLE_EQ(throttle_sleep_ms(2, s), 50);
  EXPECT_DOUBLE_EQ(throttle_sleep_ms(3, s), 75);
  EXPECT_DOUBLE_EQ(throttle_sleep_ms(4, s), 112.5);
  EXPECT_DOUBLE_EQ(throttle_sleep_ms(30, s), 500);
}

TEST(ClockArithmetic, ProbeAndBetween) {
  ProbeStamp a;
  a.seq = 5;
  a.t_start_ns = 1000;
  a.c_start = 100000;
  a.t_end_ns = 21000;        // 20 us
  a.c_end = 100000 + 39600;  // 1980 MHz
  EXPECT_NEAR(probe_mhz(a, 5), 1980, 1e-9);
  EXPECT_EQ(probe_mhz(a, 6), 0);  // stale slot: another launch's stamps
  ProbeStamp b = a;
  b.seq = 6;
  b.t_start_ns = a.t_end_ns + 100000;  // 100 us later
  b.c_start = a.c_end + 150000;        // 1500 MHz meanwhile
  b.t_end_ns = b.t_start_ns + 20000;
  b.c_end = b.c_start + 39600;
  EXPECT_NEAR(between_mhz(a, 5, b, 6), 1500, 1e-9);
  EXPECT_EQ(between_mhz(a, 5, b, 7), 0);
  EXPECT_EQ(between_mhz(b, 6, a, 5), 0);  // reversed: no time passed
}

}  // namespace
}  // namespace sgt

namespace sgt {
namespace {

// The measurement's vocabulary reads back what it writes, and nothing else.
TEST(MeasureVocabulary, NamesRoundTripAndUnknownNamesAreNone) {
  for (const CacheMode m : {CacheMode::cold_flush, CacheMode::rotate})
    EXPECT_EQ(from_string<CacheMode>(to_string(m)), m);
  for (const ClockPolicy p : {ClockPolicy::observe, ClockPolicy::lock})
    EXPECT_EQ(from_string<ClockPolicy>(to_string(p)), p);
  EXPECT_EQ(to_string(CacheMode::cold_flush), "cold-flush");
  EXPECT_EQ(to_string(StopReason::wall_cap), "wall_cap");
  EXPECT_EQ(to_string(StopReason::not_stopped), "");
  EXPECT_FALSE(from_string<CacheMode>("warm").has_value());
  EXPECT_FALSE(from_string<ClockPolicy>("").has_value());
}

}  // namespace
}  // namespace sgt
