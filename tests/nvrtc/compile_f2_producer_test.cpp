// NVRTC tier: family F2 with a producer warp (PRODUCER = 1), which the default spaces leave out. A
// spread of the in-place points that take it compiles for sm_90 in all four transposes, and one
// packed point (PACK = 1) at alignment class 1, without spills.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "jit/nvrtc_compiler.hpp"
#include "support/gpu_support.hpp"
#include "support/problem_and_knobs.hpp"
#include "tuner/compile_pool.hpp"

namespace sgt {
namespace {

TEST(F2Producer, ASpreadOfProducerPointsCompilesInEveryLayoutWithoutSpills) {
  const Family& family = find_family("f2_tma");
  const std::vector<Knobs> points = testing::default_space_configs_with(family, "PRODUCER", 1);
  ASSERT_GE(points.size(), 50u);
  struct Instance {
    Knobs knobs;
    ProblemKey problem;
  };
  std::vector<Instance> instances;
  std::size_t turn = 0;
  for (std::size_t i = 0; i < points.size(); i += 12) {
    const int pack = knob(points[i], "PACK");
    if (pack == 1) {
      instances.push_back({points[i], testing::problem(1023, 1025, 1027, Op::N, Op::N, 1)});
      continue;
    }
    const Op ta = turn % 2 == 0 ? Op::N : Op::T, tb = turn / 2 % 2 == 0 ? Op::N : Op::T;
    ++turn;
    const ProblemKey p = testing::problem(2048, 1024, 512, ta, tb, 4);
    if (family.cannot_implement(points[i], p).empty()) instances.push_back({points[i], p});
  }
  ASSERT_GE(instances.size(), 8u);
  std::vector<CompilePool::Job> jobs;
  for (const Instance& inst : instances)
    jobs.push_back([&family, &inst] {
      return compile_template("f2_tma.cu", family.defines(inst.knobs, inst.problem), "sm_90");
    });
  CompilePool pool(std::move(jobs),
                   static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const CompileResult r = pool.take(i);
    const std::string what =
        fmt::format("{} {}", knobs_to_string(instances[i].knobs), instances[i].problem.to_string());
    ASSERT_TRUE(r.ok) << what << ":\n" << r.log.substr(0, 2000);
    EXPECT_EQ(r.resources.spill_store_bytes + r.resources.spill_load_bytes, 0) << what << " spills";
  }
  RecordProperty("instances", static_cast<int>(instances.size()));
}

}  // namespace
}  // namespace sgt
