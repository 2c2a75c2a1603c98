// Summary statistics: sorting copies, so callers keep samples in arrival order.
#include "measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace sgt {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> sorted(std::span<const double> x) {
  std::vector<double> v(x.begin(), x.end());
  std::sort(v.begin(), v.end());
  return v;
}

// Percentile of already sorted, non-empty values.
double sorted_percentile(const std::vector<double>& v, double p) {
  const double pos = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

}  // namespace

double mean(std::span<const double> x) {
  if (x.empty()) return kNaN;
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double median(std::span<const double> x) { return percentile(x, 50); }

double min_value(std::span<const double> x) {
  return x.empty() ? kNaN : *std::min_element(x.begin(), x.end());
}

double max_value(std::span<const double> x) {
  return x.empty() ? kNaN : *std::max_element(x.begin(), x.end());
}

double stdev(std::span<const double> x) {
  if (x.empty()) return kNaN;
  if (x.size() == 1) return 0;
  const double m = mean(x);
  double sum_sq = 0;
  for (double v : x) sum_sq += (v - m) * (v - m);
  return std::sqrt(sum_sq / static_cast<double>(x.size() - 1));
}

double relative_stdev(std::span<const double> x) {
  if (x.empty()) return kNaN;
  const double s = stdev(x);
  const double m = mean(x);
  if (m == 0) return s == 0 ? 0 : std::numeric_limits<double>::infinity();
  return s / std::abs(m);
}

double percentile(std::span<const double> x, double p) {
  if (x.empty()) return kNaN;
  return sorted_percentile(sorted(x), p);
}

double relative_stdev_around(std::span<const double> x, double reference) {
  if (x.size() < 2) return kNaN;
  double sum_sq = 0;
  for (double v : x) sum_sq += (v - reference) * (v - reference);
  const double s = std::sqrt(sum_sq / static_cast<double>(x.size() - 1));
  if (reference == 0) return s == 0 ? 0 : std::numeric_limits<double>::infinity();
  return s / std::abs(reference);
}

RatioSummary summarize_ratios(std::span<const double> ratios) {
  RatioSummary r;
  r.count = static_cast<int>(ratios.size());
  if (ratios.empty()) {
    r.median = r.q1 = r.q3 = r.spread = r.ci_low = r.ci_high = kNaN;
    return r;
  }
  const std::vector<double> v = sorted(ratios);
  r.median = sorted_percentile(v, 50);
  r.q1 = sorted_percentile(v, 25);
  r.q3 = sorted_percentile(v, 75);
  r.spread = r.median != 0 ? (r.q3 - r.q1) / 2 / std::abs(r.median) : kNaN;
  // Order statistics j, k (1-based) with P(x_(j) <= median <= x_(k)) ~ 0.95 for any
  // continuous distribution: n/2 -+ 1.96 sqrt(n)/2.
  const double n = static_cast<double>(v.size());
  const double half_width = 0.98 * std::sqrt(n);
  const long j = std::max(1L, static_cast<long>(std::floor(n / 2 - half_width)));
  const long k =
      std::min(static_cast<long>(v.size()), static_cast<long>(std::ceil(n / 2 + half_width + 1)));
  r.ci_low = v[static_cast<std::size_t>(j - 1)];
  r.ci_high = v[static_cast<std::size_t>(k - 1)];
  return r;
}

void fill_statistics(Measurement& m) {
  const std::span<const double> x(m.samples_us);
  if (x.empty()) {
    m.median_us = m.min_us = m.max_us = m.mean_us = m.stdev_us = m.rel_stdev = 0;
    m.gpu_time_s = 0;
    return;
  }
  m.median_us = median(x);
  m.min_us = min_value(x);
  m.max_us = max_value(x);
  m.mean_us = mean(x);
  m.stdev_us = stdev(x);
  m.rel_stdev = relative_stdev(x);
  m.gpu_time_s = std::accumulate(x.begin(), x.end(), 0.0) * 1e-6;
}

}  // namespace sgt
