#include "tuner/search_strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "common/error.hpp"

namespace sgt {
namespace {

constexpr int kLeaders = 4;             // local search looks around this many of the fastest
constexpr std::size_t kLocalBatch = 8;  // candidates per local-search step
constexpr double kModelShare = 0.75;    // of the budget, spent on the model's ranking first
// Of that first share, each family's own best-predicted get this fraction, split evenly between
// the families: the model ranks configurations within a family better than it ranks families
// against each other (it does not see F1's 4-byte copies, or what F2's packing saves).
constexpr double kFamilyShare = 1.0 / 3;

int position(const std::vector<int>& values, int v) {
  const auto it = std::find(values.begin(), values.end(), v);
  return it == values.end() ? -1 : static_cast<int>(it - values.begin());
}

}  // namespace

Strategy parse_strategy(std::string_view name) {
  if (name == "model") return Strategy::model;
  if (name == "exhaustive") return Strategy::exhaustive;
  if (name == "random") return Strategy::random;
  throw Error(
      ErrorKind::invalid_value,
      fmt::format("unknown search strategy '{}' (expected model, exhaustive or random)", name));
}

std::string strategy_name(Strategy strategy) {
  switch (strategy) {
    case Strategy::model:
      return "model";
    case Strategy::exhaustive:
      return "exhaustive";
    case Strategy::random:
      return "random";
  }
  return "?";
}

bool are_neighbours(const Knobs& a, const Knobs& b, const FamilySpace& space) {
  int differing = 0;
  for (const auto& [name, values] : space.knobs) {
    const auto x = a.find(name), y = b.find(name);
    if (x == a.end() || y == b.end()) return false;
    if (x->second == y->second) continue;
    const int px = position(values, x->second), py = position(values, y->second);
    if (px < 0 || py < 0 || std::abs(px - py) != 1) return false;
    ++differing;
  }
  return differing >= 1 && differing <= 2;
}

std::vector<std::size_t> warm_start_candidates(const ProblemKey& key,
                                               const std::vector<KnownWinner>& winners,
                                               const std::vector<PlannedCandidate>& candidates) {
  std::vector<std::pair<double, std::size_t>> near;
  for (const KnownWinner& w : winners) {
    const ProblemKey& p = w.problem;
    if (p.transa != key.transa || p.transb != key.transb || p.align != key.align) continue;
    // The problem's own earlier winner (a retune) comes first: after a template change it is the
    // likeliest winner again, and the cost model need not rank it within the budget.
    double distance = p == key ? -1.0 : 0.0;
    bool close = true;
    for (auto [a, b] : {std::pair{p.m, key.m}, {p.n, key.n}, {p.k, key.k}}) {
      const double r = std::log2(std::max(a, 1)) - std::log2(std::max(b, 1));
      close &= std::abs(r) <= 1.0;
      distance += r * r;
    }
    if (!close) continue;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const Candidate& c = candidates[i].candidate;
      if (c.family->name() != w.family) continue;
      // Compared as knobs, so that a winner stored before a knob existed matches the
      // configuration it reads as.
      try {
        if (c.knobs == with_knobs_added_later(*c.family, parse_knobs(w.config)))
          near.emplace_back(distance, i);
      } catch (const Error&) {
        break;  // a configuration this build cannot read seeds nothing
      }
    }
  }
  std::sort(near.begin(), near.end());
  std::vector<std::size_t> out;
  for (const auto& [d, i] : near)
    if (out.size() < 4 && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  return out;
}

SearchOrder::SearchOrder(Strategy strategy, const SearchSpace& space,
                         const std::vector<PlannedCandidate>& candidates, int budget,
                         std::uint64_t seed, std::vector<std::size_t> warm_start)
    : strategy_(strategy),
      space_(space),
      candidates_(candidates),
      seed_(seed),
      warm_start_(std::move(warm_start)),
      proposed_(candidates.size(), false) {
  const int n = static_cast<int>(candidates.size());
  budget_ = strategy == Strategy::exhaustive || budget <= 0 ? n : std::min(budget, n);
  by_prediction_.resize(candidates.size());
  for (std::size_t i = 0; i < by_prediction_.size(); ++i) by_prediction_[i] = i;
  std::stable_sort(by_prediction_.begin(), by_prediction_.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].predicted_us < candidates[b].predicted_us;
  });
}

void SearchOrder::propose(std::size_t i, std::vector<std::size_t>& batch) {
  if (i >= proposed_.size() || proposed_[i] || proposed_count_ >= budget_) return;
  proposed_[i] = true;
  ++proposed_count_;
  batch.push_back(i);
}

std::vector<std::size_t> SearchOrder::next_batch(const std::map<std::size_t, double>& screened) {
  std::vector<std::size_t> batch;
  if (proposed_count_ >= budget_) return batch;
  if (!started_) {
    started_ = true;
    switch (strategy_) {
      case Strategy::exhaustive:
        for (std::size_t i : by_prediction_) propose(i, batch);
        break;
      case Strategy::random: {
        std::vector<std::size_t> order(candidates_.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::mt19937_64 rng(seed_);
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) propose(i, batch);
        break;
      }
      case Strategy::model: {
        const int first = budget_ == static_cast<int>(candidates_.size())
                              ? budget_
                              : std::max(1, static_cast<int>(std::ceil(kModelShare * budget_)));
        for (std::size_t i : warm_start_)
          if (static_cast<int>(batch.size()) < first) propose(i, batch);
        propose_family_shares(first, batch);
        for (std::size_t i : by_prediction_)
          if (static_cast<int>(batch.size()) < first) propose(i, batch);
        break;
      }
    }
    return batch;
  }
  if (strategy_ != Strategy::model) return batch;
  return local_search(screened);
}

void SearchOrder::propose_family_shares(int first, std::vector<std::size_t>& batch) {
  std::vector<const Family*> families;
  for (const PlannedCandidate& c : candidates_)
    if (std::find(families.begin(), families.end(), c.candidate.family) == families.end())
      families.push_back(c.candidate.family);
  if (families.size() < 2) return;
  const int share = static_cast<int>(kFamilyShare * first / static_cast<double>(families.size()));
  for (const Family* f : families) {
    int taken = 0;
    for (std::size_t i : by_prediction_) {
      if (taken >= share || static_cast<int>(batch.size()) >= first) break;
      if (candidates_[i].candidate.family != f) continue;
      propose(i, batch);
      ++taken;
    }
  }
}

std::vector<std::size_t> SearchOrder::leader_neighbours(
    const std::map<std::size_t, double>& screened, std::size_t count) const {
  std::vector<std::pair<double, std::size_t>> fastest;
  for (const auto& [i, us] : screened) fastest.emplace_back(us, i);
  std::sort(fastest.begin(), fastest.end());
  if (fastest.size() > kLeaders) fastest.resize(kLeaders);

  std::vector<std::size_t> out;
  // Unmeasured neighbours of the leaders, the best predicted first.
  for (std::size_t i : by_prediction_) {
    if (out.size() >= count) break;
    if (proposed_[i]) continue;
    const Candidate& c = candidates_[i].candidate;
    const std::vector<const FamilySpace*> spaces = family_spaces(space_, c.family);
    const auto neighbours = [&](const Candidate& l) {
      return std::any_of(spaces.begin(), spaces.end(), [&](const FamilySpace* fs) {
        return are_neighbours(c.knobs, l.knobs, *fs);
      });
    };
    for (const auto& [us, leader] : fastest) {
      const Candidate& l = candidates_[leader].candidate;
      if (l.family == c.family && neighbours(l)) {
        out.push_back(i);
        break;
      }
    }
  }
  return out;
}

std::vector<std::size_t> SearchOrder::local_search(const std::map<std::size_t, double>& screened) {
  std::vector<std::size_t> batch;
  for (std::size_t i : leader_neighbours(screened, kLocalBatch)) propose(i, batch);
  // No neighbour left: the rest of the budget follows the model's ranking.
  if (batch.empty()) {
    for (std::size_t i : by_prediction_) {
      if (batch.size() >= kLocalBatch) break;
      propose(i, batch);
    }
  }
  return batch;
}

std::vector<std::size_t> SearchOrder::likely_next(const std::map<std::size_t, double>& screened,
                                                  std::size_t count) const {
  if (strategy_ != Strategy::model || !started_ || proposed_count_ >= budget_) return {};
  count = std::min<std::size_t>(count, static_cast<std::size_t>(budget_ - proposed_count_));
  std::vector<std::size_t> out = leader_neighbours(screened, count);
  if (out.empty()) {  // as local_search: the model's ranking when no neighbour is left
    for (std::size_t i : by_prediction_) {
      if (out.size() >= count) break;
      if (!proposed_[i]) out.push_back(i);
    }
  }
  return out;
}

}  // namespace sgt
