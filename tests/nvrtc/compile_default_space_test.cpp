// Compiles each family's default search space through NVRTC for sm_90 (no GPU needed): a covering
// sample of its distinct builds in which every pair of knob values that meets in them meets at
// least once, the NN instance of each at the widest alignment class it takes (16 bytes, except F2's
// packing points), and the four transposes with every alignment class spread over the sample.
// Nothing may fail to compile or spill. SGEMM_TEST_EVERY_CONFIG=1 compiles every point instead
// (`sgemm-tune tune --compile-only` also builds every candidate of a problem).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string_view>
#include <thread>

#include "jit/nvrtc_compiler.hpp"
#include "support/gpu_support.hpp"
#include "tuner/compile_pool.hpp"

namespace sgt {
namespace {

class DefaultSpace : public ::testing::TestWithParam<std::string> {};

// Indices of configurations chosen greedily (most pairs not yet covered first) until every pair of
// knob values that occurs together in some configuration occurs in a chosen one: a compile error
// tied to one knob value, or to two meeting, shows at a fraction of the cost of every point.
std::vector<std::size_t> pairwise_cover(const std::vector<Knobs>& configs) {
  const auto pairs_of = [](const Knobs& k) {
    std::vector<std::string> out;
    for (auto a = k.begin(); a != k.end(); ++a)
      for (auto b = std::next(a); b != k.end(); ++b)
        out.push_back(fmt::format("{}={},{}={}", a->first, a->second, b->first, b->second));
    return out;
  };
  std::set<std::string> uncovered;
  for (const Knobs& k : configs)
    for (std::string& p : pairs_of(k)) uncovered.insert(std::move(p));
  std::vector<std::size_t> chosen;
  while (!uncovered.empty()) {
    std::size_t best = 0, best_gain = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      std::size_t gain = 0;
      for (const std::string& p : pairs_of(configs[i])) gain += uncovered.count(p);
      if (gain > best_gain) best = i, best_gain = gain;
    }
    chosen.push_back(best);
    for (const std::string& p : pairs_of(configs[best])) uncovered.erase(p);
  }
  if (chosen.empty() && !configs.empty()) chosen.push_back(0);  // knobs of one value each
  return chosen;
}

// One configuration per distinct build: points whose defines are equal at every alignment class,
// and that take the same classes, differ only in a knob the kernel reads at launch (F1's and
// F2's split count) and build the same code, so the cover need not pair that knob's values.
std::vector<Knobs> distinct_builds(const Family& family, const std::vector<Knobs>& configs) {
  std::set<std::vector<std::string>> seen;
  std::vector<Knobs> out;
  for (const Knobs& k : configs) {
    std::vector<std::string> key;
    for (int align : {4, 2, 1})
      for (const int n : {64, 16, 4, 1}) {  // the problems the instances below are drawn from
        const ProblemKey p =
            testing::make_problem(Op::N, Op::N, 1024, n, n == 64 ? 1024 : 4096, 0, align);
        const bool takes = family.cannot_implement(k, p).empty();
        key.push_back(takes ? "takes" : "refuses");
        if (takes)
          for (std::string& d : family.defines(k, p)) key.push_back(std::move(d));
      }
    if (seen.insert(std::move(key)).second) out.push_back(k);
  }
  return out;
}

bool every_config() {
  const char* env = std::getenv("SGEMM_TEST_EVERY_CONFIG");
  return env && std::string_view(env) == "1";
}

TEST_P(DefaultSpace, EveryInstanceCompilesWithoutSpills) {
  const Family& family = find_family(GetParam());
  const std::vector<Knobs> configs =
      distinct_builds(family, testing::default_space_configs(family));
  ASSERT_FALSE(configs.empty()) << "the default space of " << family.name() << " is empty";

  struct Instance {
    Knobs knobs;
    ProblemKey problem;
  };
  std::vector<std::size_t> points;
  if (every_config())
    for (std::size_t i = 0; i < configs.size(); ++i) points.push_back(i);
  else
    points = pairwise_cover(configs);
  std::vector<Instance> instances;
  for (std::size_t o = 0; o < points.size(); ++o) {
    const std::size_t i = points[o];
    // The first point gets every transpose and alignment class; the others one each, in turn.
    int combo = 0;
    bool has_base = false;  // the NN instance at the widest alignment class the point takes
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (int align : {4, 2, 1}) {
          const bool nn = ta == Op::N && tb == Op::N;
          const bool spread = o == 0 || static_cast<std::size_t>(combo++) == o % 12;
          if (!spread && !(nn && !has_base)) continue;
          // The first of these problems the configuration claims: its small dimension (F4 tiles
          // it with 64, 16, 4 or 1), a K long enough to split (in-kernel split-K needs one), and
          // a ldc that is a multiple of 4 or not (F1's XCHG serves only the latter).
          bool claimed = false;
          for (const int m : {1024, 1022})
            for (const int n : {64, 16, 4, 1}) {
              if (claimed) break;
              ProblemKey p = testing::make_problem(ta, tb, m, n, n == 64 ? 1024 : 4096, 0, align);
              p.align = align;
              if (family.cannot_implement(configs[i], p).empty()) {
                instances.push_back({configs[i], p});
                has_base = has_base || nn;
                claimed = true;
              }
            }
        }
  }
  ASSERT_FALSE(instances.empty());

  std::vector<CompilePool::Job> jobs;
  for (const Instance& inst : instances)
    jobs.push_back([&family, &inst] {
      return compile_template(family.name() + ".cu", family.defines(inst.knobs, inst.problem),
                              "sm_90");
    });
  CompilePool pool(std::move(jobs),
                   static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  int failures = 0;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const CompileResult r = pool.take(i);
    const std::string what =
        fmt::format("{} {}{} align={}", knobs_to_string(instances[i].knobs),
                    op_char(instances[i].problem.transa), op_char(instances[i].problem.transb),
                    instances[i].problem.align);
    if (!r.ok) {
      ADD_FAILURE() << what << " failed to compile:\n" << r.log.substr(0, 2000);
      if (++failures > 5) break;
      continue;
    }
    EXPECT_GT(r.resources.registers, 0) << what << ": no ptxas report";
    EXPECT_EQ(r.resources.spill_store_bytes + r.resources.spill_load_bytes, 0) << what << " spills";
    EXPECT_FALSE(r.cubin.empty()) << what;
  }
  RecordProperty("instances", static_cast<int>(instances.size()));
  RecordProperty("points", static_cast<int>(points.size()));
  std::printf("[ sample   ] %s: %zu of %zu points, %zu instances\n", family.name().c_str(),
              points.size(), configs.size(), instances.size());
  // Every point of the sample has at least its NN instance.
  std::set<std::string> compiled_configs;
  for (const Instance& inst : instances) compiled_configs.insert(knobs_to_string(inst.knobs));
  EXPECT_EQ(compiled_configs.size(), points.size());
}

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const Family* f : families()) names.push_back(f->name());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Families, DefaultSpace, ::testing::ValuesIn(family_names()),
                         [](const auto& info) { return info.param; });

TEST(Nvrtc, UtilityKernelsCompile) {
  const CompileResult r = compile_template("utility.cu", {}, "sm_90");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.cubin.empty());
}

TEST(Nvrtc, CompileErrorIsAResultWithTheLog) {
  const CompileResult r = compile_template("f1_simt.cu", {"-DBM=this_is_not_a_number"}, "sm_90");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("this_is_not_a_number"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace sgt
