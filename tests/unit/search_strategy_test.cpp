// The search strategies over a small synthetic space: what each measures, in which order, and
// that no strategy measures more than its budget or the same candidate twice.
#include "tuner/search_strategy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/error.hpp"

namespace sgt {
namespace {

// A family with two knobs and no constraints: only its name and knob names matter here. B came
// later: a configuration stored without it reads as B = 2.
class GridFamily : public Family {
 public:
  std::string name() const override { return "grid"; }
  std::vector<std::string> knob_names() const override { return {"A", "B"}; }
  std::vector<Constraint> constraints(const DeviceLimits&) const override { return {}; }
  std::string cannot_implement(const Knobs&, const ProblemKey&) const override { return {}; }
  std::vector<std::string> defines(const Knobs&, const ProblemKey&) const override { return {}; }
  LaunchGeometry geometry(const Knobs&, const ProblemKey&, const DeviceLimits&) const override {
    return {};
  }
  int complexity(const Knobs&) const override { return 0; }
  Knobs knobs_added_later() const override { return {{"B", 2}}; }
};

class SearchOrderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FamilySpace fs;
    fs.family = &family_;
    fs.knobs = {{"A", {1, 2, 4, 8, 16}}, {"B", {1, 2, 4, 8}}};
    space_.families.push_back(fs);
    // 20 candidates; predicted time grows with A, so the model prefers small A.
    for (int a : fs.knobs[0].second)
      for (int b : fs.knobs[1].second) {
        PlannedCandidate c;
        c.candidate = {&family_, {{"A", a}, {"B", b}}};
        c.config = knobs_to_string(c.candidate.knobs);
        c.predicted_us = a * 10.0 + b;
        candidates_.push_back(c);
      }
  }
  std::size_t index_of(int a, int b) const {
    for (std::size_t i = 0; i < candidates_.size(); ++i)
      if (candidates_[i].candidate.knobs.at("A") == a &&
          candidates_[i].candidate.knobs.at("B") == b)
        return i;
    return SIZE_MAX;
  }
  // Runs the search to its end; "measured" time of a candidate given by `truth`.
  template <class Truth>
  std::vector<std::size_t> run(SearchOrder& order, Truth truth) {
    std::vector<std::size_t> all;
    std::map<std::size_t, double> screened;
    for (auto batch = order.next_batch(screened); !batch.empty();
         batch = order.next_batch(screened)) {
      for (std::size_t i : batch) {
        all.push_back(i);
        screened[i] = truth(candidates_[i]);
      }
    }
    return all;
  }

  GridFamily family_;
  SearchSpace space_;
  std::vector<PlannedCandidate> candidates_;
};

TEST(SearchStrategy, NamesRoundTripAndUnknownNamesAreRejected) {
  for (Strategy s : {Strategy::model, Strategy::exhaustive, Strategy::random})
    EXPECT_EQ(parse_strategy(strategy_name(s)), s);
  EXPECT_THROW(parse_strategy("greedy"), Error);
}

TEST_F(SearchOrderTest, NeighboursDifferByOneStepInAtMostTwoKnobs) {
  const FamilySpace& fs = space_.families[0];
  EXPECT_TRUE(are_neighbours({{"A", 2}, {"B", 4}}, {{"A", 4}, {"B", 4}}, fs));
  EXPECT_TRUE(are_neighbours({{"A", 2}, {"B", 4}}, {{"A", 4}, {"B", 8}}, fs));
  EXPECT_FALSE(are_neighbours({{"A", 2}, {"B", 4}}, {{"A", 8}, {"B", 4}}, fs));  // two steps
  EXPECT_FALSE(are_neighbours({{"A", 2}, {"B", 4}}, {{"A", 2}, {"B", 4}}, fs));  // itself
  EXPECT_FALSE(are_neighbours({{"A", 2}, {"B", 4}}, {{"A", 3}, {"B", 4}}, fs));  // not in the space
}

TEST_F(SearchOrderTest, ExhaustiveTakesEverythingBestPredictedFirst) {
  SearchOrder order(Strategy::exhaustive, space_, candidates_, 5, 1);
  EXPECT_EQ(order.budget(), 20);  // a candidate budget does not apply
  const std::vector<std::size_t> all =
      run(order, [](const PlannedCandidate& c) { return c.predicted_us; });
  ASSERT_EQ(all.size(), 20u);
  for (std::size_t j = 1; j < all.size(); ++j)
    EXPECT_LE(candidates_[all[j - 1]].predicted_us, candidates_[all[j]].predicted_us);
}

TEST_F(SearchOrderTest, RandomIsASeededSampleOfTheBudget) {
  SearchOrder a(Strategy::random, space_, candidates_, 7, 42),
      b(Strategy::random, space_, candidates_, 7, 42),
      c(Strategy::random, space_, candidates_, 7, 43);
  const auto truth = [](const PlannedCandidate& p) { return p.predicted_us; };
  const std::vector<std::size_t> ra = run(a, truth), rb = run(b, truth), rc = run(c, truth);
  EXPECT_EQ(ra.size(), 7u);
  EXPECT_EQ(ra, rb);
  EXPECT_NE(ra, rc);
  EXPECT_EQ(std::set<std::size_t>(ra.begin(), ra.end()).size(), ra.size());
}

TEST_F(SearchOrderTest, ModelStartsWithWarmStartThenTheBestPredicted) {
  const std::size_t warm = index_of(16, 8);  // the model's worst, but it won nearby
  SearchOrder order(Strategy::model, space_, candidates_, 8, 1, {warm});
  const std::vector<std::size_t> first = order.next_batch({});
  ASSERT_EQ(first.size(), 6u);  // three quarters of the budget
  EXPECT_EQ(first[0], warm);
  EXPECT_EQ(first[1], index_of(1, 1));
  EXPECT_EQ(first[2], index_of(1, 2));
}

TEST_F(SearchOrderTest, WarmStartTakesTheProblemsOwnWinnerFirstThenTheNearest) {
  const auto key = [](int m, int n, int k, Op ta = Op::N, int align = 4) {
    ProblemKey p;
    p.transa = ta;
    p.m = m, p.n = n, p.k = k;
    p.align = align;
    return with_minimal_leading_dimensions(p);
  };
  const auto won = [&](const ProblemKey& p, int a, int b) {
    return KnownWinner{p, "grid", candidates_[index_of(a, b)].config};
  };
  const ProblemKey tuned = key(1000, 1000, 1000);
  const std::vector<KnownWinner> winners = {
      won(key(1900, 1000, 1000), 2, 2),           // within 2x, farther
      won(key(1100, 1000, 1000), 4, 4),           // within 2x, nearest neighbour
      won(tuned, 16, 8),                          // the problem's own winner (a retune)
      won(key(5000, 1000, 1000), 8, 8),           // beyond 2x in m
      won(key(1000, 1000, 1000, Op::T), 1, 1),    // other transposes
      won(key(1000, 1000, 1000, Op::N, 1), 1, 2)  // other alignment class
  };
  const std::vector<std::size_t> warm = warm_start_candidates(tuned, winners, candidates_);
  ASSERT_EQ(warm.size(), 3u);
  EXPECT_EQ(warm[0], index_of(16, 8));
  EXPECT_EQ(warm[1], index_of(4, 4));
  EXPECT_EQ(warm[2], index_of(2, 2));
}

TEST_F(SearchOrderTest, WarmStartReadsAWinnerStoredBeforeAKnobExisted) {
  ProblemKey tuned;
  tuned.m = tuned.n = tuned.k = 1000;
  tuned = with_minimal_leading_dimensions(tuned);
  const std::vector<KnownWinner> winners = {
      {tuned, "grid", "A=8"}, {tuned, "grid", "A=?"}, {tuned, "other", "A=4"}};
  const std::vector<std::size_t> warm = warm_start_candidates(tuned, winners, candidates_);
  ASSERT_EQ(warm.size(), 1u);
  EXPECT_EQ(warm[0], index_of(8, 2));
}

// A second family whose every candidate the model predicts slower than all of the first's.
class OtherFamily final : public GridFamily {
 public:
  std::string name() const override { return "other"; }
};

TEST_F(SearchOrderTest, TheFirstBatchHoldsEachFamilysBestPredictedShare) {
  OtherFamily other;
  std::vector<PlannedCandidate> both = candidates_;
  for (const PlannedCandidate& c : candidates_) {
    PlannedCandidate o = c;
    o.candidate.family = &other;
    o.predicted_us += 1000;
    both.push_back(o);
  }
  // Budget 24 of 40: the model's first batch is 18, a third of it shared by the two families.
  SearchOrder order(Strategy::model, space_, both, 24, 1);
  const std::vector<std::size_t> first = order.next_batch({});
  ASSERT_EQ(first.size(), 18u);
  std::vector<double> others;
  for (std::size_t i : first)
    if (both[i].candidate.family == &other) others.push_back(both[i].predicted_us);
  std::sort(others.begin(), others.end());
  EXPECT_EQ(others, (std::vector<double>{1011, 1012, 1014}));  // its three best predicted
  // With one family the first batch is the model's ranking alone.
  SearchOrder alone(Strategy::model, space_, candidates_, 12, 1);
  std::vector<std::size_t> batch = alone.next_batch({});
  std::vector<double> predicted;
  for (std::size_t i : batch) predicted.push_back(candidates_[i].predicted_us);
  EXPECT_TRUE(std::is_sorted(predicted.begin(), predicted.end()));
}

TEST_F(SearchOrderTest, LocalSearchFindsTheTrueOptimumTheModelMissed) {
  // The model ranks A=1 best, but A=4, B=8 is truly fastest: the local search climbs to it.
  const auto truth = [](const PlannedCandidate& c) {
    const int a = c.candidate.knobs.at("A"), b = c.candidate.knobs.at("B");
    return 100.0 + std::abs(a - 4) * 10 + std::abs(b - 8) * 3;
  };
  SearchOrder order(Strategy::model, space_, candidates_, 12, 1);
  const std::vector<std::size_t> all = run(order, truth);
  EXPECT_LE(all.size(), 12u);
  EXPECT_EQ(order.proposed(), static_cast<int>(all.size()));
  EXPECT_EQ(std::set<std::size_t>(all.begin(), all.end()).size(), all.size());
  EXPECT_NE(std::find(all.begin(), all.end(), index_of(4, 8)), all.end());
}

TEST_F(SearchOrderTest, TheGuessForCompilingAheadIsWhatTheNextBatchProposes) {
  const auto truth = [](const PlannedCandidate& c) {
    const int a = c.candidate.knobs.at("A"), b = c.candidate.knobs.at("B");
    return 100.0 + std::abs(a - 4) * 10 + std::abs(b - 8) * 3;
  };
  SearchOrder order(Strategy::model, space_, candidates_, 16, 1);
  std::map<std::size_t, double> screened;
  EXPECT_TRUE(order.likely_next(screened, 8).empty());  // before the first batch
  int local_batches = 0;
  for (auto batch = order.next_batch(screened); !batch.empty();) {
    for (std::size_t i : batch) screened[i] = truth(candidates_[i]);
    const std::vector<std::size_t> guess = order.likely_next(screened, 64);
    const int proposed = order.proposed();
    batch = order.next_batch(screened);
    if (batch.empty()) break;
    ++local_batches;
    // With the same screened times the guess holds the batch, best predicted first.
    ASSERT_GE(guess.size(), batch.size());
    EXPECT_TRUE(std::equal(batch.begin(), batch.end(), guess.begin()));
    EXPECT_LE(static_cast<int>(guess.size()), 16 - proposed);
  }
  EXPECT_GT(local_batches, 0);
  EXPECT_TRUE(order.likely_next(screened, 8).empty());  // the budget is spent
}

TEST_F(SearchOrderTest, ABudgetOfEverythingMeasuresEverything) {
  SearchOrder order(Strategy::model, space_, candidates_, 0, 1);
  EXPECT_EQ(run(order, [](const PlannedCandidate& c) { return c.predicted_us; }).size(), 20u);
}

}  // namespace
}  // namespace sgt
