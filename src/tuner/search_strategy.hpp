// Which candidates of a problem are measured, and in what order, within a candidate budget.
//   exhaustive: every candidate of the pruned space, best-predicted first.
//   random:     a seeded random sample of the budget's size.
//   model:      warm start (configurations that won on neighbouring problems), then the cost
//               model's best-ranked three quarters of the budget, then a local search that
//               measures the unmeasured neighbours of the fastest candidates so far.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/candidate_list.hpp"

namespace sgt {

enum class Strategy { model, exhaustive, random };

Strategy parse_strategy(std::string_view name);  // throws sgt::Error(invalid_value)
std::string strategy_name(Strategy strategy);

// Two configurations of one family whose knobs differ by one step in the knob's value list, for
// at most two knobs.
bool are_neighbours(const Knobs& a, const Knobs& b, const FamilySpace& space);

// A configuration that won on some problem: the model strategy's warm-start material.
struct KnownWinner {
  ProblemKey problem;
  std::string family, config;
};

// Indices into candidates of up to four of the winners on problems of the same transposes and
// alignment class within a factor of two per dimension, nearest first: the problem's own winner
// (when it is tuned again) before all others.
std::vector<std::size_t> warm_start_candidates(const ProblemKey& key,
                                               const std::vector<KnownWinner>& winners,
                                               const std::vector<PlannedCandidate>& candidates);

class SearchOrder {
 public:
  // budget: candidates to measure at most (0: all; exhaustive always takes all). warm_start:
  // indices into candidates measured first by the model strategy.
  SearchOrder(Strategy strategy, const SearchSpace& space,
              const std::vector<PlannedCandidate>& candidates, int budget, std::uint64_t seed,
              std::vector<std::size_t> warm_start = {});

  // The next candidates to measure, given the screened times (by candidate index) of those
  // measured correctly so far; empty when the search is over.
  std::vector<std::size_t> next_batch(const std::map<std::size_t, double>& screened);

  // A guess at what next_batch will propose (up to count candidates), given the screened times
  // so far, without proposing anything: the model strategy's local search, for compiling ahead.
  // Empty for the other strategies, before the first batch and once the budget is spent.
  std::vector<std::size_t> likely_next(const std::map<std::size_t, double>& screened,
                                       std::size_t count) const;

  int budget() const { return budget_; }  // how many candidates the search measures at most
  int proposed() const { return proposed_count_; }

 private:
  void propose(std::size_t i, std::vector<std::size_t>& batch);
  void propose_family_shares(int first, std::vector<std::size_t>& batch);
  std::vector<std::size_t> local_search(const std::map<std::size_t, double>& screened);
  // Unproposed neighbours of the fastest screened candidates, best predicted first.
  std::vector<std::size_t> leader_neighbours(const std::map<std::size_t, double>& screened,
                                             std::size_t count) const;

  Strategy strategy_;
  const SearchSpace& space_;
  const std::vector<PlannedCandidate>& candidates_;
  int budget_;
  std::uint64_t seed_;
  std::vector<std::size_t> warm_start_;
  std::vector<std::size_t> by_prediction_;  // candidate indices, best predicted first
  std::vector<bool> proposed_;
  int proposed_count_ = 0;
  bool started_ = false;
};

}  // namespace sgt
