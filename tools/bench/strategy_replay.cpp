// Replays a search strategy over a database that an exhaustive search filled: for each problem,
// the strategy proposes candidates as in `sgemm-tune tune` and is answered with the screening
// times the exhaustive run measured, so strategies and budgets are compared without a GPU.
//
//   strategy_replay --db exhaustive.db [--space configs/spaces] [--strategy model]
//                   [--max-candidates 128] [--seed 1] [--tolerance 0.02] [--detail "2048x2048"]
//                   [--ignore-knob NAME]... [--plan space|recorded]
//
// Per problem: the best screened time the strategy reached within its budget, the exhaustive
// best, their ratio, the cost model's rank of the exhaustive best and Spearman's correlation of
// the model's ranking with the measured one. Warm starts come from the
// problems replayed before (in database order, which is the order they were tuned), as in a run
// over a shape list. A candidate the exhaustive run could not time (failed, too many resources)
// answers as not measured. Exit status 0 when at least 90% of the problems are within the
// tolerance, 1 otherwise, 2 on bad arguments. --ignore-knob NAME leaves a knob out of the match
// between candidates and recorded configurations: for a knob added after the exhaustive run that
// leaves the launch unchanged (F4's EVICT, an L2 policy), so the replay scores the search order
// over the kernels the run recorded. --plan recorded leaves the candidates the run never recorded
// (points added to the space after it) out of the plan: they could only answer as not measured,
// and would take the budget from the kernels the replay can score.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/search_space.hpp"
#include "db/database.hpp"
#include "space/knobs.hpp"
#include "space/problem.hpp"
#include "tuner/candidate_list.hpp"
#include "tuner/search_strategy.hpp"

namespace {

using namespace sgt;

struct Options {
  std::string db, space = SGEMM_SOURCE_DIR "/configs/spaces";
  Strategy strategy = Strategy::model;
  int max_candidates = 128;
  std::uint64_t seed = 1;
  double tolerance = 0.02;
  std::string detail;  // problems whose text contains this: the model's top and the measured top
  std::vector<std::string> ignored_knobs;
  bool plan_recorded = false;  // --plan recorded
};

struct Measured {
  ProblemKey key;
  std::map<std::string, double> screened;  // "<family>|<config>" -> screening median, us
  std::set<std::string> recorded;          // every candidate of the run, in any outcome
  double cublas_us = 0;                    // fastest cuBLAS time of the run, 0 if none
};

// A candidate's key into the recorded times. Knobs at 0 are left out: a knob added to a family
// after the exhaustive run takes 0 for the kernel that existed before (REDUCE, PF, ...), so the
// recorded configuration, which lacks it, still matches. So are the ignored knobs.
struct KnobMatch {
  std::vector<std::string> ignored;

  std::string id(const std::string& family, const std::string& config) const {
    Knobs knobs = parse_knobs(config);
    std::erase_if(knobs, [&](const auto& knob) {
      return knob.second == 0 ||
             std::find(ignored.begin(), ignored.end(), knob.first) != ignored.end();
    });
    return family + "|" + knobs_to_string(knobs);
  }
  std::string id(const PlannedCandidate& c) const {
    return id(c.candidate.family->name(), c.config);
  }
};

std::vector<Measured> load(Database& db, const KnobMatch& match) {
  std::vector<Measured> problems;
  Statement s(db,
              "SELECT p.id, p.transa, p.transb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.align, "
              "c.family, c.config, c.screen_median_us, c.cublas_us, c.outcome FROM candidates c "
              "JOIN problems p ON p.id = c.problem_id WHERE c.family <> 'cublaslt' "
              "ORDER BY p.id, c.id");  // own kernels: cuBLASLt's screening is not searched
  std::int64_t current = -1;
  while (s.step()) {
    if (s.column_int64(0) != current) {
      current = s.column_int64(0);
      Measured m;
      m.key.transa = parse_op(s.column_text(1).front());
      m.key.transb = parse_op(s.column_text(2).front());
      m.key.m = s.column_int(3), m.key.n = s.column_int(4), m.key.k = s.column_int(5);
      m.key.lda = s.column_int(6), m.key.ldb = s.column_int(7), m.key.ldc = s.column_int(8);
      m.key.align = s.column_int(9);
      problems.push_back(std::move(m));
    }
    Measured& m = problems.back();
    const std::string id = match.id(s.column_text(10), s.column_text(11));
    m.recorded.insert(id);
    const auto median = s.column_optional_double(12);
    if (s.column_text(14) != "ok" || !median) continue;
    m.screened[id] = *median;
    if (const auto c = s.column_optional_double(13); c && (m.cublas_us == 0 || *c < m.cublas_us))
      m.cublas_us = *c;
  }
  return problems;
}

int usage(const std::string& why) {
  std::cerr
      << "strategy_replay: " << why
      << "\nusage: strategy_replay --db FILE [--space DIR] [--strategy model|random|exhaustive]"
         " [--max-candidates N] [--seed S] [--tolerance F] [--detail TEXT] [--ignore-knob "
         "NAME]... [--plan space|recorded]\n";
  return 2;
}

// Fills o from the command line; 0 when it parsed, else usage()'s status.
int parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--db")
      o.db = value;
    else if (arg == "--space")
      o.space = value;
    else if (arg == "--strategy")
      o.strategy = parse_strategy(value);
    else if (arg == "--max-candidates")
      o.max_candidates = std::stoi(value);
    else if (arg == "--seed")
      o.seed = std::stoull(value);
    else if (arg == "--tolerance")
      o.tolerance = std::stod(value);
    else if (arg == "--detail")
      o.detail = value;
    else if (arg == "--ignore-knob")
      o.ignored_knobs.push_back(value);
    else if (arg == "--plan" && (value == "space" || value == "recorded"))
      o.plan_recorded = value == "recorded";
    else
      return usage("unknown option " + arg);
  }
  if (o.db.empty()) return usage("--db is required");
  return 0;
}

// Spearman's rank correlation of (predicted, screened) pairs.
double spearman(const std::vector<std::pair<double, double>>& pairs) {
  const auto ranks = [&](auto value) {
    std::vector<std::size_t> order(pairs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return value(pairs[a]) < value(pairs[b]);
    });
    std::vector<double> r(pairs.size());
    for (std::size_t i = 0; i < order.size(); ++i) r[order[i]] = static_cast<double>(i);
    return r;
  };
  const std::vector<double> rp = ranks([](const auto&x) { return x.first; }),
                            rs = ranks([](const auto&x) { return x.second; });
  double d2 = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) d2 += (rp[i] - rs[i]) * (rp[i] - rs[i]);
  const double n = static_cast<double>(pairs.size());
  return n > 1 ? 1 - 6 * d2 / (n * (n * n - 1)) : 0;
}

// The model's top candidates and the measured top, for --detail.
void print_detail(const Measured& m, const std::vector<PlannedCandidate>& work,
                  const KnobMatch& match, const std::vector<std::size_t>& by_prediction) {
  const auto show = [&](const char* what, const std::vector<std::size_t>& order) {
    fmt::print("  {}:\n", what);
    for (std::size_t r = 0; r < order.size() && r < 8; ++r) {
      const auto it = m.screened.find(match.id(work[order[r]]));
      fmt::print("    predicted {:10.2f} measured {:>10} {}\n", work[order[r]].predicted_us,
                 it == m.screened.end() ? "-" : fmt::format("{:.2f}", it->second),
                 match.id(work[order[r]]));
    }
  };
  show("best predicted", by_prediction);
  std::vector<std::size_t> by_measured;
  for (std::size_t i = 0; i < work.size(); ++i)
    if (m.screened.contains(match.id(work[i]))) by_measured.push_back(i);
  std::stable_sort(by_measured.begin(), by_measured.end(), [&](std::size_t a, std::size_t b) {
    return m.screened.at(match.id(work[a])) < m.screened.at(match.id(work[b]));
  });
  show("best measured", by_measured);
}

}  // namespace

int main(int argc, char** argv) try {
  Options o;
  if (const int status = parse_options(argc, argv, o)) return status;

  Database db = Database::open(o.db, OpenMode::read_only);
  const KnobMatch match{o.ignored_knobs};
  const std::vector<Measured> problems = load(db, match);
  const SearchSpace space = load_search_space(o.space);
  const DeviceLimits limits;  // the H200's
  const Enumeration enumeration = enumerate(space, limits);

  fmt::print("{:52} {:>5} {:>6} {:>11} {:>11} {:>6} {:>10} {:>8}\n", "problem", "plan", "budget",
             "replay us", "best us", "ratio", "model rank", "spearman");
  int within = 0, compared = 0;
  std::vector<KnownWinner> winners;  // earlier problems' own winners
  for (const Measured& m : problems) {
    CandidateList list = plan_candidates(enumeration, limits, m.key, "sm_90");
    if (o.plan_recorded)
      std::erase_if(list.candidates,
                    [&](const PlannedCandidate& c) { return !m.recorded.contains(match.id(c)); });
    const std::vector<PlannedCandidate>& work = list.candidates;

    // Warm start as the tuner's, from the problems replayed before.
    const std::vector<std::size_t> warm = warm_start_candidates(m.key, winners, work);

    SearchOrder order(o.strategy, space, work, o.max_candidates, o.seed, warm);
    std::map<std::size_t, double> screened;
    for (auto batch = order.next_batch({}); !batch.empty(); batch = order.next_batch(screened))
      for (std::size_t i : batch)
        if (const auto it = m.screened.find(match.id(work[i])); it != m.screened.end())
          screened[i] = it->second;

    double best = 0, replay = 0;
    std::string best_id;
    for (const auto& [id, us] : m.screened)
      if (best == 0 || us < best) best = us, best_id = id;
    std::size_t replay_index = 0;
    for (const auto& [i, us] : screened)
      if (replay == 0 || us < replay) replay = us, replay_index = i;
    // The cost model's rank (1 = predicted fastest) of the exhaustive best.
    std::vector<std::size_t> by_prediction(work.size());
    for (std::size_t i = 0; i < work.size(); ++i) by_prediction[i] = i;
    std::stable_sort(by_prediction.begin(), by_prediction.end(), [&](std::size_t a, std::size_t b) {
      return work[a].predicted_us < work[b].predicted_us;
    });
    int rank = 0;
    for (std::size_t r = 0; r < by_prediction.size(); ++r)
      if (match.id(work[by_prediction[r]]) == best_id) rank = static_cast<int>(r) + 1;

    std::vector<std::pair<double, double>> pairs;  // (predicted, screened)
    for (const PlannedCandidate& c : work)
      if (const auto it = m.screened.find(match.id(c)); it != m.screened.end())
        pairs.emplace_back(c.predicted_us, it->second);
    const double rho = spearman(pairs);

    if (!o.detail.empty() && m.key.to_string().find(o.detail) != std::string::npos)
      print_detail(m, work, match, by_prediction);
    if (replay > 0 && best > 0) {
      ++compared;
      within += replay <= best * (1 + o.tolerance);
      if (m.cublas_us == 0 || replay < m.cublas_us)
        winners.push_back(
            {m.key, work[replay_index].candidate.family->name(), work[replay_index].config});
    }
    fmt::print("{:52} {:5} {:6} {:11.2f} {:11.2f} {:6.3f} {:>10} {:8.2f}\n", m.key.to_string(),
               work.size(), order.budget(), replay, best, best > 0 ? replay / best : 0.0,
               rank > 0 ? std::to_string(rank) : std::string("-"), rho);
  }
  fmt::print(
      "\n{} strategy, budget {}: best within {:g}% of the exhaustive best on {} of {} "
      "problems\n",
      strategy_name(o.strategy), o.max_candidates, 100 * o.tolerance, within, compared);
  return compared > 0 && within >= 0.9 * compared ? 0 : 1;
} catch (const std::exception& e) {
  std::cerr << "strategy_replay: " << e.what() << "\n";
  return 2;
}
