#include "dispatch/on_use_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "measure/measurement.hpp"
#include "measure/statistics.hpp"
#include "measure/winner_selection.hpp"

namespace sgt {

OnUseSchedule::OnUseSchedule(std::vector<int> complexities, int timed_rounds, double min_spread)
    : complexities_(std::move(complexities)),
      rounds_(std::max(1, timed_rounds)),
      min_spread_(min_spread) {
  const int n = static_cast<int>(complexities_.size());
  times_us_.assign(complexities_.size(),
                   std::vector<double>(static_cast<std::size_t>(rounds_), -1));
  failed_.assign(complexities_.size(), false);
  for (int round = 0; round <= rounds_; ++round)
    for (int c = 0; c < n; ++c) to_issue_.push_back({c, round});
}

std::optional<OnUseSchedule::Sample> OnUseSchedule::next() {
  while (!to_issue_.empty() && failed_[static_cast<std::size_t>(to_issue_.front().contender)])
    to_issue_.pop_front();
  if (to_issue_.empty()) return std::nullopt;
  const Sample s = to_issue_.front();
  to_issue_.pop_front();
  return s;
}

void OnUseSchedule::put_back(const Sample& s) { to_issue_.push_front(s); }

void OnUseSchedule::taken(const Sample& s, double time_us) {
  if (s.round < 1 || s.round > rounds_) return;
  double& slot = times_us_[static_cast<std::size_t>(s.contender)][s.round - 1];
  if (slot < 0) ++taken_;
  slot = time_us;
}

void OnUseSchedule::failed(int contender) { failed_[static_cast<std::size_t>(contender)] = true; }

int OnUseSchedule::samples() const { return static_cast<int>(complexities_.size()) * rounds_; }

bool OnUseSchedule::all_in() const {
  for (std::size_t c = 0; c < complexities_.size(); ++c) {
    if (failed_[c]) continue;
    for (const double t : times_us_[c])
      if (t < 0) return false;
  }
  return true;
}

OnUseDecision OnUseSchedule::decide() const {
  OnUseDecision d;
  const std::vector<double>& cublas = times_us_[0];
  if (failed_[0]) {
    d.reason = "cuBLAS could not be timed: cuBLAS";
    return d;
  }
  d.cublas_us = median(cublas);
  std::vector<Finalist> finalists;
  std::vector<int> contender_of;
  for (std::size_t c = 1; c < complexities_.size(); ++c) {
    if (failed_[c]) continue;
    std::vector<double> ratios;
    for (std::size_t r = 0; r < cublas.size(); ++r) ratios.push_back(times_us_[c][r] / cublas[r]);
    const RatioSummary summary = summarize_ratios(ratios);
    finalists.push_back({median(times_us_[c]), summary.median,
                         std::max(summary.spread, min_spread_), complexities_[c]});
    contender_of.push_back(static_cast<int>(c));
  }
  const Verdict v = choose_winner(finalists);
  d.winner = v.winner < 0 ? 0 : contender_of[static_cast<std::size_t>(v.winner)];
  d.time_us = v.winner < 0 ? d.cublas_us : finalists[static_cast<std::size_t>(v.winner)].median_us;
  d.tie_band = v.tie_band;
  d.reason = fmt::format("timed on use, {} rounds of {} contenders: {}", rounds_,
                         complexities_.size(), v.reason);
  return d;
}

}  // namespace sgt
