// nvbench's stopping rule for cold measurements as a pure class fed one sample at a time:
// enough samples and GPU time, then low noise or converged noise, else the wall-time timeout.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "measure/measurement.hpp"

namespace sgt {

// The rule ends a measurement with StopReason noise, converged or timeout (measurement.hpp).

struct StoppingLimits {
  int min_samples = 10;
  double min_time_s = 0.5;          // of accepted GPU time
  double max_noise = 0.005;         // relative stdev of the samples
  double noise_convergence = 0.05;  // relative stdev of the recent noise estimates
  double timeout_s = 15;            // host wall time since the measurement started
  // nvbench constants: the convergence test looks at up to noise_history noise estimates, once
  // more than noise_history_min are known, at most once per convergence_check_every samples.
  int noise_history = 512;
  int noise_history_min = 64;
  int convergence_check_every = 16;

  static StoppingLimits from(const MeasureSettings& settings);
};

class StoppingRule {
 public:
  explicit StoppingRule(const StoppingLimits& limits) : limits_(limits) {}

  // One accepted sample of GPU time, in seconds.
  void add_sample(double gpu_time_s) { add_sample(gpu_time_s, gpu_time_s); }
  // A sample whose value is not all the GPU time it took (one launch of a timed batch): the
  // statistics use sample_s, min_time_s counts spent_s.
  void add_sample(double sample_s, double spent_s);
  // True once the rule is satisfied or the timeout passed; `wall_elapsed_s` is the host time
  // since the measurement began (discarded samples and sleeps count here, not in GPU time).
  bool should_stop(double wall_elapsed_s);

  StopReason reason() const noexcept { return reason_; }
  int samples() const noexcept { return static_cast<int>(count_); }
  double gpu_time_s() const noexcept { return total_s_; }
  // Current relative stdev of the accepted samples (infinity with fewer than 2).
  double noise() const noexcept;
  // Throws sgt::Error(internal) when no sample was accepted: never report a number then.
  void require_samples() const;

 private:
  StoppingLimits limits_;
  // Welford's running mean and sum of squared deviations: O(1) per sample.
  std::int64_t count_ = 0;
  double mean_ = 0, m2_ = 0, total_s_ = 0;
  std::deque<double> noise_history_;
  std::int64_t next_convergence_check_ = 0;
  StopReason reason_ = StopReason::not_stopped;
};

}  // namespace sgt
