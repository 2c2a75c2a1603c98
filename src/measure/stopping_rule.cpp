// The stopping rule of nvbench's measure_cold (stdrel criterion) with running statistics.
#include "measure/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/error.hpp"
#include "measure/statistics.hpp"

namespace sgt {

StoppingLimits StoppingLimits::from(const MeasureSettings& settings) {
  return {.min_samples = settings.min_samples,
          .min_time_s = settings.min_time_s,
          .max_noise = settings.max_noise,
          .noise_convergence = settings.noise_convergence,
          .timeout_s = settings.timeout_s};
}

void StoppingRule::add_sample(double sample_s, double spent_s) {
  ++count_;
  total_s_ += spent_s;
  const double delta = sample_s - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (sample_s - mean_);
  const double current = noise();
  if (std::isfinite(current)) {
    noise_history_.push_back(current);
    if (static_cast<int>(noise_history_.size()) > limits_.noise_history) noise_history_.pop_front();
  }
}

double StoppingRule::noise() const noexcept {
  if (count_ < 2 || mean_ == 0) return std::numeric_limits<double>::infinity();
  const double variance = std::max(0.0, m2_ / static_cast<double>(count_ - 1));
  return std::sqrt(variance) / std::abs(mean_);
}

bool StoppingRule::should_stop(double wall_elapsed_s) {
  if (reason_ != StopReason::not_stopped) return true;
  if (count_ >= limits_.min_samples && total_s_ >= limits_.min_time_s && !noise_history_.empty()) {
    const double current = noise_history_.back();
    if (current < limits_.max_noise) {
      reason_ = StopReason::noise;
      return true;
    }
    // nvbench checks when the sample count is a multiple of 16; samples may arrive in groups
    // here, so check once at least convergence_check_every samples came since the last check.
    if (static_cast<int>(noise_history_.size()) > limits_.noise_history_min &&
        count_ >= next_convergence_check_) {
      next_convergence_check_ = count_ + limits_.convergence_check_every;
      const std::vector<double> history(noise_history_.begin(), noise_history_.end());
      if (relative_stdev_around(history, current) < limits_.noise_convergence) {
        reason_ = StopReason::converged;
        return true;
      }
    }
  }
  if (wall_elapsed_s > limits_.timeout_s) {
    reason_ = StopReason::timeout;
    return true;
  }
  return false;
}

void StoppingRule::require_samples() const {
  if (count_ == 0) {
    throw Error(ErrorKind::internal,
                "measurement ended with zero accepted samples (every sample was throttled or "
                "discarded): no time is reported");
  }
}

}  // namespace sgt
