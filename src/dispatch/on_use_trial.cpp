// A trial's bookkeeping: which contender the next call runs, the event pairs of the samples in
// flight, and the verdict once every sample is in.
#include "dispatch/on_use_trial.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "common/error.hpp"
#include "measure/measurement.hpp"
#include "measure/statistics.hpp"
#include "measure/winner_selection.hpp"

namespace sgt {

std::string default_on_use_database() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/sgemm-tune/tuned-on-use.db";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/sgemm-tune/tuned-on-use.db";
  return "";
}

OnUseSettings on_use_settings_from_env() {
  OnUseSettings s;
  const char* on = std::getenv("SGEMM_DISPATCH_TUNE");
  s.enabled = on && std::string(on) == "1";
  const char* db = std::getenv("SGEMM_DISPATCH_TUNE_DB");
  s.database = db && *db ? std::string(db) : default_on_use_database();
  return s;
}

OnUseTrial::OnUseTrial(std::vector<Contender> contenders, const Route* decided_cublas,
                       const OnUseSettings& settings)
    : contenders_(std::move(contenders)), decided_cublas_(decided_cublas), settings_(settings) {
  const int n = static_cast<int>(contenders_.size());
  const int rounds = std::max(1, settings_.timed_rounds);
  times_us_.assign(contenders_.size(), std::vector<double>(static_cast<std::size_t>(rounds), -1));
  failed_.assign(contenders_.size(), false);
  for (int round = 0; round <= rounds; ++round)
    for (int c = 0; c < n; ++c) to_issue_.push_back({c, round});
  slots_.resize(static_cast<std::size_t>(n * rounds));
  for (Slot& s : slots_) {
    SGT_CUDA_CHECK(cudaEventCreate(&s.start));
    SGT_CUDA_CHECK(cudaEventCreate(&s.end));
  }
}

OnUseTrial::~OnUseTrial() {
  for (Slot& s : slots_) {
    if (s.start) cudaEventDestroy(s.start);
    if (s.end) cudaEventDestroy(s.end);
  }
}

int OnUseTrial::free_slot() const {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].state == Slot::State::free) return static_cast<int>(i);
  return -1;
}

void OnUseTrial::poll() {
  for (Slot& s : slots_) {
    if (s.state != Slot::State::recorded) continue;
    const cudaError_t done = cudaEventQuery(s.end);
    if (done == cudaErrorNotReady) {
      // Not an error of anyone's: leave no trace of it for the caller's cudaGetLastError.
      if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
      continue;
    }
    float ms = 0;
    if (done == cudaSuccess && cudaEventElapsedTime(&ms, s.start, s.end) == cudaSuccess) {
      times_us_[s.sample.contender][s.sample.round - 1] = 1000.0 * ms;
      ++taken_;
    } else {
      failed_[s.sample.contender] = true;
    }
    s.state = Slot::State::free;
  }
}

bool OnUseTrial::all_in() const {
  for (std::size_t c = 0; c < contenders_.size(); ++c) {
    if (failed_[c]) continue;
    for (const double t : times_us_[c])
      if (t < 0) return false;
  }
  for (const Slot& s : slots_)
    if (s.state != Slot::State::free) return false;
  return true;
}

void OnUseTrial::decide() {
  OnUseDecision d;
  const std::vector<double>& cublas = times_us_[0];
  if (failed_[0]) {
    d.reason = "cuBLAS could not be timed: cuBLAS";
  } else {
    d.cublas_us = median(cublas);
    std::vector<Finalist> finalists;
    std::vector<int> contender_of;
    for (std::size_t c = 1; c < contenders_.size(); ++c) {
      if (failed_[c]) continue;
      std::vector<double> ratios;
      for (std::size_t r = 0; r < cublas.size(); ++r) ratios.push_back(times_us_[c][r] / cublas[r]);
      const RatioSummary summary = summarize_ratios(ratios);
      finalists.push_back({median(times_us_[c]), summary.median,
                           std::max(summary.spread, settings_.min_spread),
                           contenders_[c].complexity});
      contender_of.push_back(static_cast<int>(c));
    }
    const Verdict v = choose_winner(finalists);
    d.winner = v.winner < 0 ? 0 : contender_of[static_cast<std::size_t>(v.winner)];
    d.time_us =
        v.winner < 0 ? d.cublas_us : finalists[static_cast<std::size_t>(v.winner)].median_us;
    d.tie_band = v.tie_band;
    d.reason =
        fmt::format("timed on use over {} calls of {} contenders: {}",
                    taken_ + static_cast<int>(contenders_.size()), contenders_.size(), v.reason);
  }
  decision_ = d;
  const Contender& w = contenders_[static_cast<std::size_t>(d.winner)];
  decided_.store(d.winner == 0 || !w.route ? decided_cublas_ : w.route, std::memory_order_release);
  // Every sample is in: the events are done with.
  for (Slot& s : slots_) {
    cudaEventDestroy(s.start);
    cudaEventDestroy(s.end);
  }
  slots_.clear();
}

OnUseTrial::Turn OnUseTrial::begin() {
  std::lock_guard lock(mutex_);
  Turn t;
  if (decision_) {  // decided since the caller looked
    t.contender = decision_->winner;
    return t;
  }
  poll();
  while (!to_issue_.empty() && failed_[to_issue_.front().contender]) to_issue_.pop_front();
  if (to_issue_.empty()) {
    if (all_in()) {
      decide();
      t.contender = decision_->winner;
      t.decision = decision_;
    }
    return t;  // else cuBLAS, untimed, until the samples on the GPU are in
  }
  const Sample next = to_issue_.front();
  if (next.round == 0) {  // warm-up: untimed
    to_issue_.pop_front();
    t.contender = next.contender;
    return t;
  }
  const int slot = free_slot();
  if (slot < 0) return t;
  to_issue_.pop_front();
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  s.sample = next;
  s.state = Slot::State::issued;
  t.contender = next.contender;
  t.slot = slot;
  t.start = s.start;
  t.end = s.end;
  return t;
}

void OnUseTrial::finish(const Turn& turn, bool ok) {
  std::lock_guard lock(mutex_);
  if (!ok) failed_[static_cast<std::size_t>(turn.contender)] = true;
  if (turn.slot < 0 || turn.slot >= static_cast<int>(slots_.size())) return;
  slots_[static_cast<std::size_t>(turn.slot)].state =
      ok ? Slot::State::recorded : Slot::State::free;
}

std::optional<OnUseDecision> OnUseTrial::decision() const {
  std::lock_guard lock(mutex_);
  return decision_;
}

std::string OnUseTrial::describe() const {
  std::lock_guard lock(mutex_);
  if (!decision_) {
    const int samples = static_cast<int>(contenders_.size()) * settings_.timed_rounds;
    return fmt::format("not tuned; tuning on use: {} contenders, {} of {} timed samples in",
                       contenders_.size(), taken_, samples);
  }
  const Contender& w = contenders_[static_cast<std::size_t>(decision_->winner)];
  return fmt::format("tuned on use: {}{}{} ({}){}{}", w.family, w.config.empty() ? "" : " ",
                     w.config, decision_->reason, note_.empty() ? "" : "; ", note_);
}

void OnUseTrial::set_note(std::string note) {
  std::lock_guard lock(mutex_);
  note_ = std::move(note);
}

}  // namespace sgt
