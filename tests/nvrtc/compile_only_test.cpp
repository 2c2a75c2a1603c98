// Compile-only runs (no GPU): every candidate of a problem is built and recorded, a second run
// over the same cache compiles nothing, and the records say what happened to each candidate.
#include "tuner/compile_only.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "support/gpu_support.hpp"

namespace sgt {
namespace {

namespace fs = std::filesystem;

class CompileOnlyRun : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sgt_compile_only_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    // A few F4 points: small enough for a quick test, both the ring and the direct path, both L2
    // policies of the streamed operand.
    std::ofstream(dir_ / "space.yaml")
        << "family: f4_skinny\n"
           "knobs:\n"
           "  BS: [1, 16]\n  TS: [1, 16]\n  TG: [4]\n  WARPS: [8]\n"
           "  KSL: [4]\n  BK: [32, 256]\n  STAGES: [3]\n  SPLITK: [1]\n"
           "  OCC: [8]\n  DIRECT: [0, 1]\n  PF: [0]\n  REDUCE: [0]\n"
           "  EVICT: [0, 1]\n";
    options_.space_path = (dir_ / "space.yaml").string();
    options_.cache_dir = (dir_ / "cache").string();
    options_.compile_threads = 2;
    options_.command_line = "test";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
  CompileOnlyOptions options_;
};

TEST_F(CompileOnlyRun, RecordsEveryCandidateAndTheWarmCacheCompilesNothing) {
  const ProblemKey problem = testing::make_problem(Op::N, Op::N, 4096, 16, 4096, 0, 4);
  Database db = Database::open((dir_ / "t.db").string(), OpenMode::create);
  TuningStore store(db);
  CompileOnlyResult cold, warm;
  {
    CompileOnly compiler(&store, options_);
    cold = compiler.run(problem);
    compiler.finish("finished");
  }
  ASSERT_GT(cold.candidates, 0);
  EXPECT_EQ(cold.compiled + cold.compile_failed + cold.resources_exceeded, cold.candidates);
  EXPECT_EQ(cold.compile_failed, 0);
  EXPECT_GT(cold.per_second(), 0);

  const std::vector<CandidateRecord> records =
      store.candidates(problem, compile_only_gpu("sm_90", options_.limits), [] {
        const SoftwareInfo sw = query_software();
        return SoftwareRecord{sw.driver, sw.runtime, sw.nvrtc, sw.cublas};
      }());
  ASSERT_EQ(static_cast<int>(records.size()), cold.candidates);
  // The ring's EVICT = 1 is a launch attribute over EVICT = 0's build: the only builds the cold
  // run finds in the cache are those twins'.
  int ring_evict_twins = 0;
  for (const CandidateRecord& r : records) {
    EXPECT_TRUE(r.outcome == Outcome::compiled || r.outcome == Outcome::resources_exceeded)
        << r.config;
    if (r.config.find("DIRECT=0") != std::string::npos &&
        r.config.find("EVICT=1") != std::string::npos)
      ++ring_evict_twins;
    if (r.outcome == Outcome::compiled) {
      EXPECT_GT(r.registers, 0) << r.config;
    }
    EXPECT_FALSE(r.screen.has_value());
  }
  EXPECT_GT(ring_evict_twins, 0);
  EXPECT_EQ(cold.cache_hits, ring_evict_twins);
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].status, "finished");

  {
    CompileOnly compiler(nullptr, options_);  // a fresh process: only the disk cache is shared
    warm = compiler.run(problem);
  }
  EXPECT_EQ(warm.cache_hits, warm.candidates);
  EXPECT_EQ(warm.compiled, cold.compiled);
  EXPECT_LT(warm.seconds, cold.seconds);
}

TEST_F(CompileOnlyRun, AConfigurationThatCannotRunTheProblemIsNotACandidate) {
  // N = 1000 > 64: F4 implements none of these for it.
  const ProblemKey wide = testing::make_problem(Op::N, Op::N, 1000, 1000, 64, 0, 4);
  CompileOnly compiler(nullptr, options_);
  const CompileOnlyResult r = compiler.run(wide);
  EXPECT_EQ(r.candidates, 0);
  EXPECT_GT(r.pruned, 0);
}

}  // namespace
}  // namespace sgt
