// A trial's bookkeeping: which contender the next call runs, the event pairs of the samples in
// flight, and the verdict once every sample is in.
#include "dispatch/on_use_trial.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "common/error.hpp"

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

namespace {

std::vector<int> complexities(const std::vector<Contender>& contenders) {
  std::vector<int> out;
  for (const Contender& c : contenders) out.push_back(c.complexity);
  return out;
}

}  // namespace

std::vector<Contender> trial_contenders(Contender cublas, std::vector<Contender> lt,
                                        std::vector<Contender> own, std::size_t max) {
  std::vector<Contender> out{std::move(cublas)};
  const auto add = [&](Contender& c) {
    if (out.size() < max) out.push_back(std::move(c));
  };
  if (!lt.empty()) add(lt.front());
  for (Contender& c : own) add(c);
  for (std::size_t i = 1; i < lt.size(); ++i) add(lt[i]);
  return out;
}

OnUseTrial::OnUseTrial(std::vector<Contender> contenders, const Route* decided_cublas,
                       const OnUseSettings& settings)
    : contenders_(std::move(contenders)),
      decided_cublas_(decided_cublas),
      schedule_(complexities(contenders_), settings.timed_rounds, settings.min_spread) {
  slots_.resize(static_cast<std::size_t>(schedule_.samples()));
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

bool OnUseTrial::in_flight() const {
  for (const Slot& s : slots_)
    if (s.state != Slot::State::free) return true;
  return false;
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
    if (done == cudaSuccess && cudaEventElapsedTime(&ms, s.start, s.end) == cudaSuccess)
      schedule_.taken(s.sample, 1000.0 * ms);
    else
      schedule_.failed(s.sample.contender);
    s.state = Slot::State::free;
  }
}

void OnUseTrial::decide() {
  decision_ = schedule_.decide();
  const Contender& w = contenders_[static_cast<std::size_t>(decision_->winner)];
  decided_.store(decision_->winner == 0 || !w.route ? decided_cublas_ : w.route,
                 std::memory_order_release);
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
  const std::optional<OnUseSchedule::Sample> next = schedule_.next();
  if (!next) {
    if (schedule_.all_in() && !in_flight()) {
      decide();
      t.contender = decision_->winner;
      t.decision = decision_;
    }
    return t;  // else cuBLAS, untimed, until the samples on the GPU are in
  }
  t.contender = next->contender;
  if (next->round == 0) return t;  // warm-up: untimed
  const int slot = free_slot();
  if (slot < 0) {  // every slot in flight: this call goes to cuBLAS, the sample comes later
    schedule_.put_back(*next);
    t.contender = 0;
    return t;
  }
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  s.sample = *next;
  s.state = Slot::State::issued;
  t.slot = slot;
  t.start = s.start;
  t.end = s.end;
  return t;
}

void OnUseTrial::finish(const Turn& turn, bool ok) {
  std::lock_guard lock(mutex_);
  if (!ok) schedule_.failed(turn.contender);
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
  if (!decision_)
    return fmt::format("not tuned; tuning on use: {} contenders, {} of {} timed samples in",
                       contenders_.size(), schedule_.samples_in(), schedule_.samples());
  const Contender& w = contenders_[static_cast<std::size_t>(decision_->winner)];
  return fmt::format("tuned on use: {}{}{} ({}){}{}", w.family, w.config.empty() ? "" : " ",
                     w.config, decision_->reason, note_.empty() ? "" : "; ", note_);
}

void OnUseTrial::set_note(std::string note) {
  std::lock_guard lock(mutex_);
  note_ = std::move(note);
}

}  // namespace sgt
