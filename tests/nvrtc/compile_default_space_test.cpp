// Compiles every configuration of each family's default search space through NVRTC for sm_90
// (no GPU needed): the NN instance of every point at the widest alignment class it takes (16
// bytes, except F2's packing points), and all four transposes with every alignment class on a
// sample of points. Nothing may fail to compile or spill.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "jit/nvrtc_compiler.hpp"
#include "support/gpu_support.hpp"
#include "tuner/compile_pool.hpp"

namespace sgt {
namespace {

class DefaultSpace : public ::testing::TestWithParam<std::string> {};

TEST_P(DefaultSpace, EveryInstanceCompilesWithoutSpills) {
  const Family& family = find_family(GetParam());
  const std::vector<Knobs> configs = testing::default_space_configs(family);
  ASSERT_FALSE(configs.empty()) << "the default space of " << family.name() << " is empty";

  struct Instance {
    Knobs knobs;
    ProblemKey problem;
  };
  std::vector<Instance> instances;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const bool sampled = i % 16 == 0 || i + 1 == configs.size();
    bool has_base = false;  // the NN instance at the widest alignment class the point takes
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (int align : {4, 2, 1}) {
          const bool nn = ta == Op::N && tb == Op::N;
          if (!sampled && !(nn && !has_base)) continue;
          // The first of these problems the configuration claims: its small dimension (F4 tiles
          // it with 64, 16, 4 or 1) and a K long enough to split (in-kernel split-K needs one).
          for (const int n : {64, 16, 4, 1}) {
            ProblemKey p = testing::make_problem(ta, tb, 1024, n, n == 64 ? 1024 : 4096, 0, align);
            p.align = align;
            if (family.cannot_implement(configs[i], p).empty()) {
              instances.push_back({configs[i], p});
              has_base = has_base || nn;
              break;
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
  // Every configuration has at least its NN instance.
  std::set<std::string> compiled_configs;
  for (const Instance& inst : instances) compiled_configs.insert(knobs_to_string(inst.knobs));
  EXPECT_EQ(compiled_configs.size(), configs.size());
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
