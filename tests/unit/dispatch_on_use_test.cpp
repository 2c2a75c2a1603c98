// Tuning on use without a GPU: its switches, read from the environment at sgemmCreate, and the
// schedule of a trial (which sample comes next, failures, the verdict).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

// libsgemm_dispatch exports only the C API, so the pure parts are compiled into this test.
#include "dispatch/on_use_schedule.cpp"
#include "dispatch/on_use_trial.cpp"

namespace sgt {
namespace {

// Sets (or, with nullopt, unsets) a variable for the scope, restoring it at the end.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DispatchOnUse, OffUnlessTheVariableIsOne) {
  {
    const ScopedEnv tune("SGEMM_DISPATCH_TUNE", std::nullopt);
    EXPECT_FALSE(on_use_settings_from_env().enabled);
  }
  for (const char* off : {"0", "", "yes", "true", "11"}) {
    const ScopedEnv tune("SGEMM_DISPATCH_TUNE", off);
    EXPECT_FALSE(on_use_settings_from_env().enabled) << off;
  }
  const ScopedEnv tune("SGEMM_DISPATCH_TUNE", "1");
  EXPECT_TRUE(on_use_settings_from_env().enabled);
}

TEST(DispatchOnUse, DatabaseFromTheVariableElseTheUsersCache) {
  const ScopedEnv home("HOME", "/home/someone");
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    const ScopedEnv db("SGEMM_DISPATCH_TUNE_DB", std::nullopt);
    EXPECT_EQ(on_use_settings_from_env().database,
              "/home/someone/.cache/sgemm-tune/tuned-on-use.db");
  }
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", "/var/cache/u");
    const ScopedEnv db("SGEMM_DISPATCH_TUNE_DB", "");
    EXPECT_EQ(on_use_settings_from_env().database, "/var/cache/u/sgemm-tune/tuned-on-use.db");
  }
  const ScopedEnv db("SGEMM_DISPATCH_TUNE_DB", "/data/mine.db");
  EXPECT_EQ(on_use_settings_from_env().database, "/data/mine.db");
  const ScopedEnv no_home("HOME", std::nullopt);
  const ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
  EXPECT_EQ(default_on_use_database(), "");
}

// Takes every sample the schedule hands out, timing contender c at us[c] x (1 + jitter[round]).
void take_all(OnUseSchedule& s, const std::vector<double>& us,
              const std::vector<double>& jitter = {0, 0, 0, 0}) {
  while (const auto next = s.next())
    if (next->round > 0)
      s.taken(*next, us[static_cast<std::size_t>(next->contender)] *
                         (1 + jitter[static_cast<std::size_t>(next->round)]));
}

constexpr int kLibrary = 1000;  // a cuBLASLt algorithm's complexity: loses ties to kernels

TEST(DispatchOnUse, WarmUpsFirstThenTimedRoundsRoundRobin) {
  OnUseSchedule s({0, kLibrary, 0}, 2, 0.03);
  EXPECT_EQ(s.samples(), 6);
  std::vector<std::pair<int, int>> order;
  while (const auto next = s.next()) order.emplace_back(next->contender, next->round);
  const std::vector<std::pair<int, int>> want{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1},
                                              {2, 1}, {0, 2}, {1, 2}, {2, 2}};
  EXPECT_EQ(order, want);
  EXPECT_FALSE(s.all_in());  // issued, none taken
}

TEST(DispatchOnUse, ATrialIsDecidedWithinAProblemsFirstTwentyCalls) {
  const OnUseSettings settings;
  const std::size_t n = settings.max_contenders();
  ASSERT_GE(n, 2u);
  // Every call issues one sample, the warm-ups included: counted from the schedule itself, all
  // are issued by the 19th call, so the 20th takes the verdict.
  OnUseSchedule s(std::vector<int>(n, 0), settings.timed_rounds, settings.min_spread);
  int calls = 0;
  while (s.next()) ++calls;
  EXPECT_LE(calls, OnUseSettings::kDecidedWithinCalls - 1);
  EXPECT_EQ(s.samples(), static_cast<int>(n) * settings.timed_rounds);
}

TEST(DispatchOnUse, ContendersKeepCublasOneLibraryAlgorithmThenKernels) {
  const auto named = [](const char* family, const char* config) {
    return Contender{family, config, nullptr, nullptr, 0};
  };
  const auto names = [](const std::vector<Contender>& cs) {
    std::vector<std::string> out;
    for (const Contender& c : cs) out.push_back(c.family + ":" + c.config);
    return out;
  };
  const Contender cublas = named("cublas", "");
  const std::vector<Contender> lt{named("cublaslt", "a"), named("cublaslt", "b")};
  const std::vector<Contender> own{named("f4_skinny", "x"), named("f1_simt", "y")};
  EXPECT_EQ(names(trial_contenders(cublas, lt, own, 4)),
            (std::vector<std::string>{"cublas:", "cublaslt:a", "f4_skinny:x", "f1_simt:y"}));
  EXPECT_EQ(names(trial_contenders(cublas, lt, {own[0]}, 4)),
            (std::vector<std::string>{"cublas:", "cublaslt:a", "f4_skinny:x", "cublaslt:b"}));
  EXPECT_EQ(names(trial_contenders(cublas, {}, own, 2)),
            (std::vector<std::string>{"cublas:", "f4_skinny:x"}));
  EXPECT_EQ(names(trial_contenders(cublas, lt, own, 1)), (std::vector<std::string>{"cublas:"}));
}

TEST(DispatchOnUse, APutBackSampleComesNext) {
  OnUseSchedule s({0, 0}, 1, 0.03);
  s.next();
  s.next();  // the warm-ups
  const auto first = s.next();
  ASSERT_TRUE(first);
  s.put_back(*first);
  const auto again = s.next();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->contender, first->contender);
  EXPECT_EQ(again->round, first->round);
}

TEST(DispatchOnUse, TheFasterContenderWinsBeyondTheSpread) {
  OnUseSchedule s({0, kLibrary, 0}, 3, 0.03);
  take_all(s, {100, 95, 80}, {0, 0.01, -0.01, 0.0});
  ASSERT_TRUE(s.all_in());
  EXPECT_EQ(s.samples_in(), 9);
  const OnUseDecision d = s.decide();
  EXPECT_EQ(d.winner, 2);
  EXPECT_NEAR(d.time_us, 80, 1e-9);
  EXPECT_NEAR(d.cublas_us, 100, 1e-9);
  EXPECT_GE(d.tie_band, 0.03);
}

TEST(DispatchOnUse, WithinTheSpreadCublasKeepsTheProblem) {
  OnUseSchedule s({0, kLibrary, 0}, 3, 0.03);
  take_all(s, {100, 98, 99});
  const OnUseDecision d = s.decide();
  EXPECT_EQ(d.winner, 0) << d.reason;
  EXPECT_NEAR(d.time_us, d.cublas_us, 1e-9);
}

TEST(DispatchOnUse, AKernelWinsATieWithALibraryAlgorithm) {
  OnUseSchedule s({0, kLibrary, 0}, 3, 0.03);
  take_all(s, {100, 80, 81});
  EXPECT_EQ(s.decide().winner, 2);
}

TEST(DispatchOnUse, AFailedContenderIsDroppedAndCannotWin) {
  OnUseSchedule s({0, kLibrary, 0}, 2, 0.03);
  s.failed(2);
  std::vector<int> seen;
  while (const auto next = s.next()) {
    seen.push_back(next->contender);
    if (next->round > 0) s.taken(*next, next->contender == 0 ? 100 : 90);
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 2), 0);
  ASSERT_TRUE(s.all_in());
  EXPECT_EQ(s.decide().winner, 1);
}

TEST(DispatchOnUse, CublasFailingDecidesForCublas) {
  OnUseSchedule s({0, 0}, 2, 0.03);
  s.failed(0);
  take_all(s, {100, 50});
  ASSERT_TRUE(s.all_in());
  const OnUseDecision d = s.decide();
  EXPECT_EQ(d.winner, 0);
  EXPECT_NE(d.reason.find("could not be timed"), std::string::npos);
}

TEST(DispatchOnUse, NotAllInUntilEveryTimedSampleIsTaken) {
  OnUseSchedule s({0, 0}, 2, 0.03);
  int timed = 0;
  while (const auto next = s.next()) {
    if (next->round == 0) continue;
    if (++timed == 4) break;  // the last timed sample is still on the GPU
    s.taken(*next, 10);
  }
  EXPECT_FALSE(s.all_in());
  EXPECT_EQ(s.samples_in(), 3);
}

}  // namespace
}  // namespace sgt
