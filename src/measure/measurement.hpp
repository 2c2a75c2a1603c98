// Settings and results of timing one or more kernels (see docs/methodology in configs/measure.yaml).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace sgt {

// Enqueues the work to be timed on the given stream; must not synchronize or allocate.
using LaunchFn = std::function<void(cudaStream_t)>;

struct MeasureSettings {
  // Screening: a short estimate per candidate.
  double screen_warmup_ms = 25;
  double screen_budget_ms = 100;
  int screen_min_samples = 5;
  // Full methodology (nvbench defaults).
  int min_samples = 10;
  double min_time_s = 0.5;
  double max_noise = 0.005;          // relative stdev under which a measurement stops
  double noise_convergence = 0.05;   // relative stdev of the recent noise estimates
  double timeout_s = 15;
  // Throttle detection.
  double throttle_fraction = 0.75;   // discard samples below this x default SM clock
  double min_clock_sample_us = 50;   // clock estimate trusted only for samples this long
  // Interleaved confirmation of finalists against cuBLAS.
  int finalists = 3;
  int min_rounds = 20;
  double min_round_time_s = 0.6;
  std::string clock_policy = "observe";  // "observe" | "lock"
  std::string lock_clocks;               // "base" | "max" | "<MHz>" with policy lock
};

struct Measurement {
  std::vector<double> samples_us;  // accepted samples, in order
  int discarded = 0;               // throttled samples thrown away
  double median_us = 0, min_us = 0, mean_us = 0, stdev_us = 0;
  double sm_clock_mhz = 0;  // mean observed clock of accepted samples (0: not observed)
  std::string warnings;     // e.g. "SwPowerCap seen"
};

}  // namespace sgt
