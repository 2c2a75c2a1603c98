// NVRTC tier: family F4's windows (WIN = 1), which the default space leaves out (correct, but
// slower where measured). A spread of the points that take them compiles for sm_90, for a stream
// along G of alignment class 1 (NN) and of class 2 with the small side along M (TT), without
// spills.
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

TEST(F4Windows, ASpreadOfWindowedPointsCompilesWithoutSpills) {
  const Family& family = find_family("f4_skinny");
  const std::vector<Knobs> windowed = testing::default_space_configs_with(family, "WIN", 1);
  ASSERT_GE(windowed.size(), 100u);
  struct Instance {
    Knobs knobs;
    ProblemKey problem;
  };
  std::vector<Instance> instances;
  for (std::size_t i = 0; i < windowed.size(); i += 8)
    for (const Op op : {Op::N, Op::T}) {
      // The first small side the point's tile takes (F4 tiles it with 1 to 64).
      for (const int small : {1, 3, 6, 12, 24, 48}) {
        const ProblemKey p = op == Op::N ? testing::problem(39030, small, 1151, op, op, 1)
                                         : testing::problem(small, 20002, 1150, op, op, 2);
        if (family.cannot_implement(windowed[i], p).empty()) {
          instances.push_back({windowed[i], p});
          break;
        }
      }
    }
  ASSERT_GE(instances.size(), 30u);
  std::vector<CompilePool::Job> jobs;
  for (const Instance& inst : instances)
    jobs.push_back([&family, &inst] {
      return compile_template("f4_skinny.cu", family.defines(inst.knobs, inst.problem), "sm_90");
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
