// Timer: warm-up, cold samples (flushed or rotated), throttle rule, NVML rounds, stopping rule
// and interleaving.
#include "measure/timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>

#include "common/error.hpp"
#include "measure/statistics.hpp"
#include "measure/stopping_rule.hpp"

namespace sgt {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void add_warning(std::string& warnings, const std::string& text) {
  if (warnings.find(text) != std::string::npos) return;
  if (!warnings.empty()) warnings += "; ";
  warnings += text;
}

// Warnings from the NVML reasons seen over a whole measurement.
void reason_warnings(Measurement& m) {
  const std::uint64_t seen = m.reasons_seen.value_or(0);
  if (seen & kReasonSwPowerCap) add_warning(m.warnings, "SwPowerCap seen");
  if (seen & kReasonBrakeMask) {
    add_warning(m.warnings,
                fmt::format("throttle reasons seen: {}", reason_names(seen & kReasonBrakeMask)));
  }
}

// The fixed-signature launch the LaunchFn overloads time: one operand set.
RotatingLaunch single_set(const LaunchFn& launch) {
  return {[&launch](cudaStream_t stream, int) { launch(stream); }, 1};
}

std::vector<double> known(const std::vector<double>& clocks) {
  std::vector<double> out;
  for (double c : clocks)
    if (c > 0) out.push_back(c);
  return out;
}

void clock_stats(Measurement& m, const std::vector<double>& clocks,
                 const std::vector<double>& spans) {
  const std::vector<double> k = known(clocks), sp = known(spans);
  if (!k.empty()) {
    m.sm_clock_mhz = mean(k);
    m.sm_clock_min_mhz = min_value(k);
    m.sm_clock_max_mhz = max_value(k);
  }
  if (!sp.empty()) m.sm_clock_span_mhz = mean(sp);
}

}  // namespace

bool is_throttled(double clock_mhz, int default_clock_khz, double fraction) {
  if (clock_mhz <= 0 || default_clock_khz <= 0) return false;
  return clock_mhz < fraction * default_clock_khz * 1e-3;
}

double throttle_sleep_ms(int consecutive, const MeasureSettings& settings) {
  double ms = settings.throttle_sleep_ms;
  for (int i = 2; i < consecutive; ++i) ms *= settings.throttle_sleep_growth;
  return std::min(ms, settings.throttle_sleep_max_ms);
}

std::uint64_t NvmlTally::add(const NvmlReading& r) {
  if (r.sm_clock_mhz) {
    clock_sum_ += *r.sm_clock_mhz;
    ++clock_count_;
  }
  if (r.power_w) {
    power_sum_mw_ += *r.power_w * 1e3;
    ++power_count_;
  }
  if (r.temperature_c)
    temperature_max_ = std::max<double>(temperature_max_.value_or(0), *r.temperature_c);
  if (r.reasons) reasons_ = reasons_.value_or(0) | *r.reasons;
  return r.reasons.value_or(0);
}

void NvmlTally::fill(Measurement& m) const {
  m.nvml = clock_count_ || power_count_ || temperature_max_ || reasons_;
  if (clock_count_) m.nvml_sm_clock_mhz = clock_sum_ / clock_count_;
  if (power_count_) m.power_mw = power_sum_mw_ / power_count_;
  m.temperature_c = temperature_max_;
  if (reasons_) m.reasons_seen = m.reasons_seen.value_or(0) | *reasons_;
}

void Timer::Slot::run(cudaStream_t stream) {
  launch->fn(stream, next);
  next = (next + 1) % std::max(launch->sets, 1);
}

Timer::Timer(const DeviceInfo& device, const MeasureSettings& settings, cudaStream_t stream)
    : device_(device), settings_(settings), stream_(stream), flusher_(device.l2_bytes) {
  notes_.push_back(settings_.cache == CacheMode::rotate
                       ? "cache rotate: back-to-back batches over operand copies >= 3 x L2"
                       : fmt::format("cache cold-flush: {:.1f} MiB memset before every sample",
                                     flusher_.bytes() / double(1 << 20)));
  try {
    probe_ = std::make_unique<ClockProbe>(device_, settings_.clock_probe_window_us);
  } catch (const Error& e) {
    notes_.push_back(fmt::format("clock probe unavailable, SM clock not observed: {}", e.what()));
  }
  nvml_ = std::make_unique<Nvml>(device_.uuid, device_.ordinal);
  notes_.push_back(nvml_->message());
  if (settings_.clock_policy == ClockPolicy::lock) {
    const LockRequest request = parse_lock_request(settings_.lock_clocks);
    lock_ = std::make_unique<ClockLock>(*nvml_, request);
    notes_.push_back(lock_->message());
  }
}

Timer::~Timer() = default;

std::string Timer::clock_policy() const {
  return lock_ && lock_->locked() ? lock_->policy() : std::string(to_string(ClockPolicy::observe));
}

double Timer::elapsed_s() const { return now_s() - t0_s_; }

double Timer::read_clock_mhz() { return probe_ ? probe_->read_mhz(stream_) : 0; }

NvmlReading Timer::nvml_read() const { return nvml_ ? nvml_->read() : NvmlReading{}; }

bool Timer::can_rotate(const std::vector<RotatingLaunch>& launches, std::string& warnings) const {
  if (settings_.cache != CacheMode::rotate) return false;
  for (const RotatingLaunch& l : launches) {
    if (l.sets < 2) {
      add_warning(warnings, "cache rotate: a launch has one operand set, cold-flush instead");
      return false;
    }
  }
  return true;
}

std::string Timer::cache_name(const Slot& slot, bool rotate) const {
  return rotate ? fmt::format("{}:{}", to_string(CacheMode::rotate), slot.launch->sets)
                : std::string(to_string(CacheMode::cold_flush));
}

void Timer::prime(Slot& slot) {
  slot.run(stream_);
  SGT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  SGT_CUDA_CHECK_LAST();
}

double Timer::run_hot(Slot& slot, double min_ms) {
  double total_ms = 0;
  int batch = 1;
  const double started = now_s();
  while (total_ms < min_ms) {
    start_.record(stream_);
    for (int i = 0; i < batch; ++i) slot.run(stream_);
    stop_.record(stream_);
    stop_.synchronize();
    const double ms = stop_.elapsed_ms_since(start_);
    total_ms += ms;
    // Batches of about 5 ms keep synchronization overhead small for tiny kernels.
    const double per_launch_ms = std::max(ms / batch, 1e-4);
    batch = std::clamp(static_cast<int>(5.0 / per_launch_ms), 1, 4096);
    if (now_s() - started > settings_.timeout_s) break;  // GPU time not advancing: give up
  }
  SGT_CUDA_CHECK_LAST();
  return total_ms;
}

bool Timer::warm_until_stable(Slot& slot) {
  const double started = now_s();
  double warm_ms = 0, previous_mhz = 0;
  while (true) {
    warm_ms += run_hot(slot, std::min(5.0, settings_.warmup_min_ms));
    if (!probe_) {
      if (warm_ms >= settings_.warmup_min_ms) return true;
      continue;
    }
    const double mhz = probe_->read_mhz(stream_);
    const bool stable =
        mhz > 0 && previous_mhz > 0 &&
        std::abs(mhz - previous_mhz) <= settings_.clock_stable_tolerance * previous_mhz;
    if (warm_ms >= settings_.warmup_min_ms && stable) return true;
    if ((now_s() - started) * 1e3 > settings_.warmup_max_ms) return false;
    previous_mhz = mhz;
  }
}

Timer::Sample Timer::cold_sample(Slot& slot, bool rotate, bool probe) {
  const bool with_probe = probe && probe_;
  // Rotating: no flush; each launch of the batch uses the next set, so none finds its operands
  // in L2 (the sets total >= 3 x L2), and the next sample goes on where this one stopped.
  const int launches = rotate ? slot.launch->sets : 1;
  if (!rotate) flush();
  std::uint64_t seq0 = 0, seq1 = 0;
  if (with_probe) seq0 = probe_->record(stream_, 0);
  start_.record(stream_);
  for (int i = 0; i < launches; ++i) slot.run(stream_);
  stop_.record(stream_);
  if (with_probe) {
    seq1 = probe_->record(stream_, 1);
    probe_->fetch(stream_);
  }
  SGT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  SGT_CUDA_CHECK_LAST();
  Sample s;
  const double batch_us = static_cast<double>(stop_.elapsed_ms_since(start_)) * 1e3;
  s.gpu_us = batch_us / launches;
  s.launches = launches;
  if (with_probe) {
    const ProbeStamp& before = probe_->stamp(0);
    const ProbeStamp& after = probe_->stamp(1);
    // The throttle rule uses the two probes right around the sample, each counting cycles over
    // its own clock_probe_window_us. The count across the sample itself (SM 0's counter from the
    // end of one probe to the start of the next) is kept as provenance for long samples only.
    const double a = probe_mhz(before, seq0), b = probe_mhz(after, seq1);
    s.clock_mhz = (a > 0 && b > 0) ? (a + b) / 2 : std::max(a, b);
    if (batch_us >= settings_.min_clock_sample_us)
      s.span_mhz = between_mhz(before, seq0, after, seq1);
  }
  return s;
}

std::vector<Timer::Sample> Timer::cold_samples(Slot& slot, bool rotate, int count) {
  while (batch_events_.size() < 2 * static_cast<std::size_t>(count)) batch_events_.emplace_back();
  const int launches = rotate ? slot.launch->sets : 1;
  // Enqueued back to back with one synchronization at the end: the GPU does not wait for the
  // host between samples, and each event pair still brackets only the timed launches.
  for (int i = 0; i < count; ++i) {
    if (!rotate) flush();
    batch_events_[2 * i].record(stream_);
    for (int l = 0; l < launches; ++l) slot.run(stream_);
    batch_events_[2 * i + 1].record(stream_);
  }
  SGT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  SGT_CUDA_CHECK_LAST();
  std::vector<Sample> out(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const double batch_us = batch_events_[2 * i + 1].elapsed_ms_since(batch_events_[2 * i]) * 1e3;
    out[i].gpu_us = batch_us / launches;
    out[i].launches = launches;
  }
  return out;
}

void Timer::flush() {
  flusher_.flush(stream_);
  ++flushes_;
}

double Timer::flush_us() {
  if (flush_us_ > 0) return flush_us_;
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    start_.record(stream_);
    flusher_.flush(stream_);
    stop_.record(stream_);
    stop_.synchronize();
    times.push_back(stop_.elapsed_ms_since(start_) * 1e3);
  }
  SGT_CUDA_CHECK_LAST();
  flush_us_ = median(times);
  return flush_us_;
}

void Timer::throttle_pause(int consecutive) {
  const double ms = throttle_sleep_ms(consecutive, settings_);
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

Measurement Timer::screen(const LaunchFn& launch) { return screen(single_set(launch)); }

Measurement Timer::measure(const LaunchFn& launch) { return measure(single_set(launch)); }

Interleaved Timer::interleave(const std::vector<LaunchFn>& launches, std::uint64_t seed) {
  std::vector<RotatingLaunch> single;
  for (const LaunchFn& l : launches) single.push_back(single_set(l));
  return interleave(single, seed);
}

Measurement Timer::screen(const RotatingLaunch& launch) { return screen(launch, false, {}); }

// A measurement of one launch begins: its clock starts, and the cache mode is settled.
bool Timer::begin(const Slot& slot, Measurement& m) {
  t0_s_ = now_s();
  m.clock_policy = clock_policy();
  const bool rotate = can_rotate({*slot.launch}, m.warnings);
  m.cache = cache_name(slot, rotate);
  return rotate;
}

Measurement Timer::screen(const RotatingLaunch& launch, bool primed, const ScreenLimits& limits) {
  const int flushes0 = flushes_;
  Measurement m;
  Slot slot{&launch};
  const bool rotate = begin(slot, m);
  // The priming launch is warm-up too: a kernel longer than the warm-up needs no more.
  if (!primed) {
    const double prime_start_s = now_s();
    prime(slot);
    run_hot(slot, settings_.screen_warmup_ms - (now_s() - prime_start_s) * 1e3);
  }
  NvmlTally tally;
  tally.add(nvml_read());
  const int wanted = std::max(settings_.screen_samples, settings_.screen_min_samples);
  const double wall_cap_s = settings_.screen_max_ms * 1e-3;
  double gpu_ms = 0, per_sample_s = 0;
  m.stop_reason = StopReason::samples;
  while (static_cast<int>(m.samples_us.size()) < wanted) {
    const int have = static_cast<int>(m.samples_us.size());
    int count = 1;  // the first sample alone: it tells how long one takes
    if (have > 0) {
      const double wall_left_s = wall_cap_s - elapsed_s();
      if (have >= settings_.screen_min_samples && wall_left_s <= 0) {
        m.stop_reason = StopReason::wall_cap;
        break;
      }
      const int fit = static_cast<int>(std::max(wall_left_s, 0.0) / std::max(per_sample_s, 1e-6));
      count = std::clamp(std::max(fit, settings_.screen_min_samples - have), 1,
                         std::min(wanted - have, kMaxBatchSamples));
      // The drop rule judges the median of the minimum: the batch ends there.
      if (limits.drop_above_us > 0 && have < settings_.screen_min_samples)
        count = std::min(count, settings_.screen_min_samples - have);
    }
    const double started = now_s();
    for (const Sample& sample : cold_samples(slot, rotate, count)) {
      m.samples_us.push_back(sample.gpu_us);
      gpu_ms += sample.gpu_us * sample.launches * 1e-3;
    }
    per_sample_s = (now_s() - started) / count;
    if (have == 0 && limits.reject_above_us > 0 && m.samples_us.front() > limits.reject_above_us) {
      m.stop_reason = StopReason::rejected;
      break;
    }
    if (limits.drop_above_us > 0 && have < settings_.screen_min_samples &&
        static_cast<int>(m.samples_us.size()) >= settings_.screen_min_samples &&
        median(m.samples_us) > limits.drop_above_us) {
      m.stop_reason = StopReason::dropped;
      break;
    }
    if (elapsed_s() > settings_.timeout_s) {
      add_warning(m.warnings, "screening timed out");
      m.stop_reason = StopReason::timeout;
      break;
    }
  }
  tally.add(nvml_read());
  tally.fill(m);
  m.sm_clock_mhz = m.sm_clock_min_mhz = m.sm_clock_max_mhz = read_clock_mhz();
  fill_statistics(m);
  m.gpu_time_s = gpu_ms * 1e-3;
  m.wall_time_s = elapsed_s();
  m.flushes = flushes_ - flushes0;
  return m;
}

Measurement Timer::measure(const RotatingLaunch& launch) {
  const int flushes0 = flushes_;
  Measurement m;
  Slot slot{&launch};
  const bool rotate = begin(slot, m);
  const int launches = rotate ? launch.sets : 1;  // per sample
  prime(slot);
  if (!warm_until_stable(slot)) add_warning(m.warnings, "SM clock not stable after warm-up");

  StoppingRule rule(StoppingLimits::from(settings_));
  NvmlTally tally;
  std::vector<double> clocks, spans, pending_us, pending_clock, pending_span;
  int consecutive_throttled = 0, consecutive_braked = 0;
  constexpr int kMaxRewarms = 5;
  // Reasons are current state: a round is judged by the readings at both of its ends.
  std::uint64_t opening_reasons = tally.add(nvml_read());
  double round_start = now_s();
  while (true) {
    const Sample s = cold_sample(slot, rotate, true);
    if (is_throttled(s.clock_mhz, device_.default_clock_khz, settings_.throttle_fraction)) {
      ++m.discarded;
      ++m.discarded_clock;
      throttle_pause(++consecutive_throttled);
      if (!warm_until_stable(slot)) add_warning(m.warnings, "SM clock not stable after warm-up");
    } else {
      consecutive_throttled = 0;
      pending_us.push_back(s.gpu_us);
      pending_clock.push_back(s.clock_mhz);
      pending_span.push_back(s.span_mhz);
    }
    if ((now_s() - round_start) * 1e3 < settings_.nvml_round_ms) continue;

    // Close the round: NVML reasons decide whether its samples count.
    const std::uint64_t reasons = tally.add(nvml_read());
    if ((reasons | opening_reasons) & kReasonBrakeMask) {
      m.discarded += static_cast<int>(pending_us.size());
      m.discarded_reasons += static_cast<int>(pending_us.size());
      throttle_pause(++consecutive_braked);
      if (!warm_until_stable(slot)) add_warning(m.warnings, "SM clock not stable after warm-up");
    } else {
      consecutive_braked = 0;
      for (std::size_t i = 0; i < pending_us.size(); ++i) {
        rule.add_sample(pending_us[i] * 1e-6, pending_us[i] * launches * 1e-6);
        m.samples_us.push_back(pending_us[i]);
        clocks.push_back(pending_clock[i]);
        spans.push_back(pending_span[i]);
      }
    }
    pending_us.clear();
    pending_clock.clear();
    pending_span.clear();
    if ((reasons & kReasonGpuIdle) && m.rewarms < kMaxRewarms) {
      ++m.rewarms;
      if (!warm_until_stable(slot)) add_warning(m.warnings, "SM clock not stable after warm-up");
    }
    if (rule.should_stop(elapsed_s())) break;
    opening_reasons = reasons;
    round_start = now_s();
  }
  m.stop_reason = rule.reason();
  if (m.stop_reason == StopReason::timeout) {
    add_warning(m.warnings, fmt::format("timed out at {:.1f}% noise after {} samples",
                                        rule.noise() * 100, rule.samples()));
  }
  rule.require_samples();
  tally.fill(m);
  reason_warnings(m);
  clock_stats(m, clocks, spans);
  if (m.discarded > 0) add_warning(m.warnings, fmt::format("{} samples discarded", m.discarded));
  fill_statistics(m);
  m.gpu_time_s = rule.gpu_time_s();
  m.wall_time_s = elapsed_s();
  m.flushes = flushes_ - flushes0;
  return m;
}

bool Timer::start_slots(const std::vector<RotatingLaunch>& launches, std::vector<Slot>& slots,
                        Interleaved& result) {
  for (const RotatingLaunch& launch : launches) slots.push_back({&launch});
  const bool rotate = can_rotate(launches, result.warnings);
  for (std::size_t k = 0; k < slots.size(); ++k) {
    result.kernels[k].clock_policy = clock_policy();
    result.kernels[k].cache = cache_name(slots[k], rotate);
  }
  for (Slot& slot : slots) prime(slot);
  for (Slot& slot : slots) {
    if (!warm_until_stable(slot)) add_warning(result.warnings, "SM clock not stable after warm-up");
  }
  return rotate;
}

void Timer::discard_rounds(Interleaved& result, int rounds, bool by_clock) {
  result.discarded_rounds += rounds;
  for (Measurement& m : result.kernels) {
    m.discarded += rounds;
    (by_clock ? m.discarded_clock : m.discarded_reasons) += rounds;
  }
}

void Timer::keep_rounds(Interleaved& result, const std::vector<std::vector<Sample>>& rounds,
                        std::vector<std::vector<double>>& clocks,
                        std::vector<std::vector<double>>& spans) {
  for (const std::vector<Sample>& kept : rounds) {
    ++result.rounds;
    for (std::size_t k = 0; k < kept.size(); ++k) {
      result.kernels[k].samples_us.push_back(kept[k].gpu_us);
      clocks[k].push_back(kept[k].clock_mhz);
      spans[k].push_back(kept[k].span_mhz);
      result.ratios[k].push_back(kept[k].gpu_us / kept[0].gpu_us);
    }
  }
}

Interleaved Timer::interleave(const std::vector<RotatingLaunch>& launches, std::uint64_t seed) {
  if (launches.empty()) throw Error(ErrorKind::invalid_value, "interleave: no kernels");
  t0_s_ = now_s();
  const int flushes0 = flushes_;
  const std::size_t count = launches.size();
  Interleaved result;
  result.seed = seed;
  result.kernels.resize(count);
  result.ratios.resize(count);
  std::vector<Slot> slots;
  const bool rotate = start_slots(launches, slots, result);
  std::vector<std::vector<double>> clocks(count), spans(count);

  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::vector<Sample> round(count);
  std::vector<std::vector<Sample>> pending;  // rounds of the open group, not yet judged by NVML
  NvmlTally tally;
  // Reasons are current state: a group of rounds is judged by the readings at both of its ends.
  std::uint64_t opening_reasons = tally.add(nvml_read());
  double kept_gpu_s = 0, pending_gpu_s = 0, group_start = now_s();
  int consecutive_throttled = 0, consecutive_braked = 0;
  constexpr int kMaxRewarms = 5;
  int rewarms = 0;
  const auto rule_met = [&](int rounds, double gpu_s) {
    return rounds >= settings_.min_rounds && gpu_s >= settings_.min_round_time_s;
  };
  const auto cap_met = [&](int rounds) {
    return settings_.max_rounds > 0 && rounds >= std::max(settings_.max_rounds, 1);
  };
  StopReason stop_reason = StopReason::timeout;
  while (true) {
    std::shuffle(order.begin(), order.end(), rng);
    bool throttled = false;
    for (std::size_t k : order) {
      round[k] = cold_sample(slots[k], rotate, true);
      throttled = throttled || is_throttled(round[k].clock_mhz, device_.default_clock_khz,
                                            settings_.throttle_fraction);
    }
    if (throttled) {
      // The probes saw it: this round alone goes. Let the GPU recover (thermal or power), then
      // bring the clock back up.
      discard_rounds(result, 1, true);
      throttle_pause(++consecutive_throttled);
      for (Slot& slot : slots) warm_until_stable(slot);
    } else {
      consecutive_throttled = 0;
      pending.push_back(round);
      for (const Sample& sample : round) pending_gpu_s += sample.gpu_us * sample.launches * 1e-6;
    }
    const int would_keep = result.rounds + static_cast<int>(pending.size());
    const bool group_done = (now_s() - group_start) * 1e3 >= settings_.nvml_round_ms ||
                            rule_met(would_keep, kept_gpu_s + pending_gpu_s) || cap_met(would_keep);
    if (group_done) {
      // NVML is read once per group of rounds (a reading costs far more than a small kernel's
      // round); brake reasons at either end discard the whole group.
      const std::uint64_t reasons = tally.add(nvml_read());
      if ((reasons | opening_reasons) & kReasonBrakeMask) {
        discard_rounds(result, static_cast<int>(pending.size()), false);
        if (!pending.empty()) {
          throttle_pause(++consecutive_braked);
          for (Slot& slot : slots) warm_until_stable(slot);
        }
      } else {
        consecutive_braked = 0;
        keep_rounds(result, pending, clocks, spans);
        kept_gpu_s += pending_gpu_s;
      }
      pending.clear();
      pending_gpu_s = 0;
      opening_reasons = reasons;
      if ((reasons & kReasonGpuIdle) && rewarms < kMaxRewarms) {
        ++rewarms;
        for (Slot& slot : slots) warm_until_stable(slot);
      }
      if (rule_met(result.rounds, kept_gpu_s)) {
        stop_reason = StopReason::rounds;
        break;
      }
      if (cap_met(result.rounds)) {
        stop_reason = StopReason::round_cap;
        break;
      }
      group_start = now_s();
    }
    if (elapsed_s() > settings_.timeout_s) {
      add_warning(result.warnings,
                  fmt::format("interleaving timed out after {} rounds ({} discarded)",
                              result.rounds, result.discarded_rounds));
      break;
    }
  }
  if (result.rounds == 0) {
    throw Error(ErrorKind::internal,
                "interleaved measurement kept zero rounds (every round was throttled): no time "
                "is reported");
  }
  for (std::size_t k = 0; k < count; ++k) {
    Measurement& m = result.kernels[k];
    tally.fill(m);
    m.rewarms = rewarms;
    reason_warnings(m);
    clock_stats(m, clocks[k], spans[k]);
    fill_statistics(m);
    m.gpu_time_s *= rotate ? slots[k].launch->sets : 1;
    m.stop_reason = stop_reason;
    m.flushes = (flushes_ - flushes0) / static_cast<int>(count);
    m.wall_time_s = elapsed_s();
    if (!result.warnings.empty()) add_warning(m.warnings, result.warnings);
    result.ratio_summary.push_back(summarize_ratios(result.ratios[k]));
  }
  return result;
}

}  // namespace sgt
