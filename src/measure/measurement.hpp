// Settings and results of timing one or more kernels (docs/measurement.md; every setting is
// listed with its meaning in configs/measure.yaml, under the same name).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sgt {

// The measurement's vocabulary, parsed once where the settings are read: each with to_string and
// from_string (std::nullopt for a name that is none of its values), as CUTLASS's
// library/types.h has them.
enum class CacheMode { cold_flush, rotate };  // how a sample keeps its operands out of L2
enum class ClockPolicy { observe, lock };     // whether the SM clock may be locked
// Why a measurement ended: the stopping rule (noise, converged, timeout), screening (samples,
// wall_cap, rejected, dropped) or interleaved rounds (rounds, round_cap, timeout).
enum class StopReason {
  not_stopped,
  noise,
  converged,
  timeout,
  samples,
  wall_cap,
  rejected,
  dropped,
  rounds,
  round_cap
};

std::string_view to_string(CacheMode mode);      // "cold-flush", "rotate"
std::string_view to_string(ClockPolicy policy);  // "observe", "lock"
std::string_view to_string(StopReason reason);   // "noise", "wall_cap", ... ("" while not stopped)
template <typename T>
std::optional<T> from_string(std::string_view name);
template <>
std::optional<CacheMode> from_string<CacheMode>(std::string_view name);
template <>
std::optional<ClockPolicy> from_string<ClockPolicy>(std::string_view name);

// Enqueues the work to be timed on the given stream; must not synchronize or allocate.
using LaunchFn = std::function<void(cudaStream_t)>;

// The same, with operand set `set` (0 <= set < sets): the Timer picks the set, so that with
// cache "rotate" consecutive launches read and write different copies of A, B and C.
struct RotatingLaunch {
  std::function<void(cudaStream_t, int set)> fn;
  int sets = 1;
};

struct MeasureSettings {
  // Screening: a short estimate per candidate, sized by sample count so that a problem's cost
  // follows how many candidates it has, not how long its kernel runs.
  double screen_warmup_ms = 5;  // back-to-back launches first, GPU ms
  int screen_samples = 30;      // cold samples per candidate...
  double screen_max_ms = 150;   // ... or fewer once this much wall time is spent, ms
  int screen_min_samples = 3;   // ... but never fewer than this,
  // unless the tuner's first sample of a candidate is above this x the fastest screened so far
  // (its own candidates and cuBLAS): one sample then (0: never)
  double screen_reject_factor = 1.25;
  // In a search, a candidate whose median after screen_min_samples is above this x the fastest
  // screened so far stops there (0: never; docs/findings.md, "Tuning cost": a third of the tuning
  // time off, the winners within 0.3%)
  double screen_drop_factor = 1.10;
  // Full methodology (nvbench defaults).
  int min_samples = 10;
  double min_time_s = 0.5;
  double max_noise = 0.005;         // relative stdev under which a measurement stops
  double noise_convergence = 0.05;  // relative stdev of the recent noise estimates
  double timeout_s = 15;
  // Warm-up before full measurements: until the SM clock is stable.
  double warmup_min_ms = 25;    // at least this much GPU time of the kernel
  double warmup_max_ms = 2000;  // give up waiting for a stable clock after this (a warning)
  double clock_stable_tolerance = 0.01;  // consecutive clock readings within this fraction
  // Throttle detection.
  double throttle_fraction = 0.75;     // discard samples below this x default SM clock
  double min_clock_sample_us = 50;     // span clock (across a sample) only for samples this long
  double clock_probe_window_us = 20;   // how long the clock probe kernel counts cycles
  double throttle_sleep_ms = 50;       // sleep after a throttled sample
  double throttle_sleep_growth = 1.5;  // sleep growth after 2 throttled samples in a row
  double throttle_sleep_max_ms = 500;
  double nvml_round_ms = 20;  // NVML read around groups of samples (rounds) this long, wall ms
  // Interleaved confirmation of finalists against cuBLAS.
  int finalists = 3;
  int min_rounds = 20;
  double min_round_time_s = 0.6;
  int max_rounds = 200;  // stop here even when min_round_time_s is not reached (small kernels)
  // The same cap for `sgemm-tune bench`, whose ratios are the reported figures: a microsecond
  // kernel's ratio needs more rounds than a tuning decision does to repeat within 1%.
  int bench_max_rounds = 2000;
  ClockPolicy clock_policy = ClockPolicy::observe;
  std::string lock_clocks;  // "base" | "max" | "<MHz>" with policy lock
  // How a sample avoids finding its operands in L2: cold-flush (one launch after a memset of
  // 2 x L2) or rotate (a batch of back-to-back launches over copies of A, B, C totalling at
  // least 3 x L2; falls back to cold-flush when a launch has one set).
  CacheMode cache = CacheMode::cold_flush;
  double rotate_max_mib = 8192;  // device memory the rotating copies may take, MiB
};

// NVML clock-event reasons (nvmlClocksEventReason*), as the methodology uses them.
inline constexpr std::uint64_t kReasonGpuIdle = 0x1;
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4;
// HwSlowdown, SwThermal, HwThermal, HwPowerBrake and the two newer brake bits: discard the round.
inline constexpr std::uint64_t kReasonBrakeMask = 0x8 | 0x20 | 0x40 | 0x80 | 0x200 | 0x400;

struct Measurement {
  std::vector<double> samples_us;  // accepted samples, in order
  int discarded = 0;               // throttled samples thrown away
  double median_us = 0, min_us = 0, mean_us = 0, stdev_us = 0;
  double sm_clock_mhz = 0;  // mean observed clock of accepted samples (0: not observed)
  std::string warnings;     // e.g. "SwPowerCap seen"

  // Provenance.
  double rel_stdev = 0;  // stdev / mean of the accepted samples
  double max_us = 0;
  double gpu_time_s = 0;   // GPU time of the accepted samples (a rotated batch counts whole)
  double wall_time_s = 0;  // host time the whole measurement took (warm-up included)
  int flushes = 0;         // L2 flushes enqueued for it (cold-flush)
  StopReason stop_reason = StopReason::not_stopped;
  int discarded_clock = 0;    // of `discarded`: below throttle_fraction x default clock
  int discarded_reasons = 0;  // of `discarded`: in a round with a brake reason
  int rewarms = 0;            // warm-ups repeated after GpuIdle
  double sm_clock_min_mhz = 0, sm_clock_max_mhz = 0;  // over accepted samples (probe)
  // SM 0's cycles / globaltimer across samples >= min_clock_sample_us (0: none that long).
  double sm_clock_span_mhz = 0;
  // NVML readings around the samples; empty where NVML (or that query) is unavailable.
  bool nvml = false;                          // at least one NVML value was read
  std::optional<double> nvml_sm_clock_mhz;    // mean of the SM clock readings
  std::optional<double> power_mw;             // mean of the power readings, mW
  std::optional<double> temperature_c;        // highest GPU temperature reading, C
  std::optional<std::uint64_t> reasons_seen;  // OR of the clock-event reasons read
  std::string clock_policy = "observe";       // "observe", or "lock:<MHz>" when locked
  std::string cache = "cold-flush";           // "cold-flush", or "rotate:<copies>" as measured
};

// Summary of per-round paired ratios (kernel time / reference time).
struct RatioSummary {
  double median = 0;      // median ratio
  double q1 = 0, q3 = 0;  // quartiles of the ratios
  // Half the inter-quartile range relative to the median: (q3 - q1) / 2 / median.
  double spread = 0;
  // Distribution-free ~95% confidence interval of the median from order statistics (binomial,
  // normal approximation): no bootstrap.
  double ci_low = 0, ci_high = 0;
  int count = 0;
};

struct Interleaved {
  std::vector<Measurement> kernels;         // one per launch function, same order
  std::vector<std::vector<double>> ratios;  // ratios[i][r]: kernel i / kernel 0 in round r
  std::vector<RatioSummary> ratio_summary;  // per kernel (kernel 0: all ones)
  int rounds = 0;                           // rounds kept
  int discarded_rounds = 0;                 // rounds thrown away (throttle or brake reasons)
  std::uint64_t seed = 0;                   // of the per-round order
  std::string warnings;
};

}  // namespace sgt
