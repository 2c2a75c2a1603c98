// Summary statistics over samples (free functions, unit-tested apart from any GPU code).
// Empty input gives NaN, except where noted.
#pragma once

#include <span>

#include "measure/measurement.hpp"

namespace sgt {

double mean(std::span<const double> x);
double median(std::span<const double> x);
double min_value(std::span<const double> x);
double max_value(std::span<const double> x);
// Sample standard deviation (divides by n - 1); 0 for a single value.
double stdev(std::span<const double> x);
// stdev / mean; infinity when the mean is 0 and the stdev is not.
double relative_stdev(std::span<const double> x);
// Linear interpolation between order statistics (numpy's default), p in [0, 100].
double percentile(std::span<const double> x, double p);
// Standard deviation of x around `reference` instead of the mean, relative to the reference (the
// nvbench noise-convergence measure: how far the recent noise estimates sit from the current one).
double relative_stdev_around(std::span<const double> x, double reference);

// Median ratio, quartiles, spread = (q3 - q1) / 2 / median, and a distribution-free ~95% CI of the
// median (order statistics n/2 -+ 0.98 sqrt(n), clamped to the sample). Empty: count 0, NaNs.
RatioSummary summarize_ratios(std::span<const double> ratios);

// Fills the statistics fields of a Measurement from its samples_us (median, min, max, mean,
// stdev, rel_stdev, gpu_time_s).
void fill_statistics(Measurement& m);

}  // namespace sgt
