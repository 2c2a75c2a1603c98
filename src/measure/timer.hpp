// Times kernels the methodology's way: L2 flushed before every sample (or operands rotated over
// copies totalling >= 3 x L2), CUDA events around the launches only, the SM clock probed around
// samples, NVML read around rounds, throttle rule, stopping rule, interleaving.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/device_info.hpp"
#include "cuda/stream.hpp"
#include "measure/clock_lock.hpp"
#include "measure/clock_probe.hpp"
#include "measure/l2_flush.hpp"
#include "measure/measurement.hpp"
#include "measure/nvml.hpp"

namespace sgt {

// Pure parts of the throttle rule (unit-tested).
// True when a known clock (> 0) is below fraction x the device's default clock.
bool is_throttled(double clock_mhz, int default_clock_khz, double fraction);
// Sleep after the n-th throttled sample in a row (n >= 1): throttle_sleep_ms for the first two,
// then growing by throttle_sleep_growth each time, capped at throttle_sleep_max_ms.
double throttle_sleep_ms(int consecutive, const MeasureSettings& settings);

// Accumulates the NVML readings of one measurement (pure; unit-tested).
class NvmlTally {
 public:
  std::uint64_t add(const NvmlReading& r);  // returns the reasons of this reading (0: none)
  // Means of clock and power, highest temperature, OR of reasons; fields never read stay empty.
  void fill(Measurement& m) const;

 private:
  int clock_count_ = 0, power_count_ = 0;
  double clock_sum_ = 0, power_sum_mw_ = 0;
  std::optional<double> temperature_max_;
  std::optional<std::uint64_t> reasons_;
};

class Timer {
 public:
  // Allocates the L2 flush buffer, compiles the clock probe, loads NVML and, with clock_policy
  // "lock", tries to lock the clocks (falling back to observe with a note). The stream must be a
  // dedicated one and outlive the timer. Throws sgt::Error(invalid_value) for a bad policy or
  // cache mode.
  Timer(const DeviceInfo& device, const MeasureSettings& settings, cudaStream_t stream);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Short estimate: one untimed launch, ~screen_warmup_ms of warm-up, then screen_samples cold
  // samples, fewer once screen_max_ms of wall time is spent (never under screen_min_samples);
  // median. Samples are enqueued in batches with one synchronization each. No throttle rule.
  Measurement screen(const LaunchFn& launch);
  // Full measurement: warm until the SM clock is stable, cold samples with the clock read around
  // each, throttle rule, NVML reasons per round, stopping rule. Throws sgt::Error(internal) when
  // no sample was accepted.
  Measurement measure(const LaunchFn& launch);
  // Rounds of one cold sample per kernel in a fresh random order (std::mt19937_64 seeded with
  // `seed`) until min_rounds and min_round_time_s of accepted GPU time, or max_rounds, whichever
  // comes first (or timeout_s). A round is kept or discarded whole: by its clock probes, and by
  // the NVML reasons read around its group of rounds (nvml_round_ms). Ratios are to kernel 0.
  // Throws sgt::Error(internal) when no round was kept, sgt::Error(invalid_value) when `launches`
  // is empty.
  Interleaved interleave(const std::vector<LaunchFn>& launches, std::uint64_t seed);

  // The same for launches that take an operand set. With cache "rotate" and at least two sets
  // per launch, a sample is one batch of back-to-back launches, one per set in turn, with no
  // flush between them; the sample's time is the batch's over its launch count. Interleaving
  // rotates every kernel or none (then all are flushed), so cuBLAS and candidates are timed alike.
  Measurement screen(const RotatingLaunch& launch);
  // Screening for a search: `primed` when the kernel has just run on this problem (the
  // verification), so neither the priming launch nor the warm-up is repeated. A first sample
  // above `limits.reject_above_us` (when > 0) ends the screening there (stop_reason "rejected");
  // so does a median of the first screen_min_samples above `limits.drop_above_us` (when > 0;
  // "dropped"): the candidate is too slow to become a finalist, and more samples would only rank
  // it better among the losers.
  struct ScreenLimits {
    double reject_above_us = 0;
    double drop_above_us = 0;
  };
  Measurement screen(const RotatingLaunch& launch, bool primed, const ScreenLimits& limits);
  Measurement measure(const RotatingLaunch& launch);
  Interleaved interleave(const std::vector<RotatingLaunch>& launches, std::uint64_t seed);

  // GPU time of one L2 flush, us (timed once, on first use).
  double flush_us();
  // L2 flushes enqueued so far, over the timer's life.
  int flushes() const noexcept { return flushes_; }

  // SM clock now (probe kernel), MHz; 0 when the probe is unavailable.
  double read_clock_mhz();
  // Setup messages for the caller's log: NVML state, clock probe, clock lock outcome.
  const std::vector<std::string>& notes() const noexcept { return notes_; }
  // "observe" or "lock:<target>".
  std::string clock_policy() const;
  bool nvml_available() const noexcept { return nvml_ && nvml_->available(); }

 private:
  struct Sample {
    double gpu_us = 0;     // of one launch
    int launches = 1;      // in the timed batch: GPU time spent is gpu_us x launches
    double clock_mhz = 0;  // probes around the sample; 0: unknown
    double span_mhz = 0;   // SM 0's cycles across the sample (long samples only); 0: unknown
  };
  // A launch with the set its next launch uses.
  struct Slot {
    const RotatingLaunch* launch = nullptr;
    int next = 0;
    void run(cudaStream_t stream);  // one launch on set `next`, then the next set
  };

  // True when cache is "rotate" and every launch has at least two sets; else a warning.
  bool can_rotate(const std::vector<RotatingLaunch>& launches, std::string& warnings) const;
  std::string cache_name(const Slot& slot, bool rotate) const;
  bool begin(const Slot& slot, Measurement& m);  // starts the clock; whether the launch rotates
  void prime(Slot& slot);                        // untimed launch + sync
  // Back-to-back launches (no flush) for at least min_ms of GPU time, in batches; returns GPU ms.
  double run_hot(Slot& slot, double min_ms);
  // Warm until two consecutive clock readings agree (after warmup_min_ms); false if it gave up.
  bool warm_until_stable(Slot& slot);
  // Flush + one launch, or (rotate) one batch of launches over every set.
  Sample cold_sample(Slot& slot, bool rotate, bool probe);
  // `count` cold samples (no probes) enqueued back to back, one synchronization.
  std::vector<Sample> cold_samples(Slot& slot, bool rotate, int count);
  static constexpr int kMaxBatchSamples = 64;
  // Interleaving's start: a slot per launch, primed and warm; whether they rotate operand sets.
  bool start_slots(const std::vector<RotatingLaunch>& launches, std::vector<Slot>& slots,
                   Interleaved& result);
  // Interleaving's bookkeeping: rounds discarded (by the clock probes or by NVML's reasons), and
  // a group of rounds kept, with each kernel's clocks.
  static void discard_rounds(Interleaved& result, int rounds, bool by_clock);
  static void keep_rounds(Interleaved& result, const std::vector<std::vector<Sample>>& rounds,
                          std::vector<std::vector<double>>& clocks,
                          std::vector<std::vector<double>>& spans);
  void flush();  // L2 flush on the stream, counted
  NvmlReading nvml_read() const;
  void throttle_pause(int consecutive);
  double elapsed_s() const;

  DeviceInfo device_;
  MeasureSettings settings_;
  cudaStream_t stream_;
  L2Flusher flusher_;
  Event start_, stop_;
  std::vector<Event> batch_events_;  // start/stop pairs of cold_samples()
  int flushes_ = 0;
  double flush_us_ = 0;
  std::unique_ptr<ClockProbe> probe_;
  std::unique_ptr<Nvml> nvml_;
  std::unique_ptr<ClockLock> lock_;  // after nvml_: destroyed first
  std::vector<std::string> notes_;
  double t0_s_ = 0;  // steady-clock seconds at the start of the current measurement
};

}  // namespace sgt
