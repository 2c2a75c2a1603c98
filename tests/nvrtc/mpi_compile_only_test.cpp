// `mpirun -np N sgemm-tune tune --compile-only` on one host (oversubscribed): the ranks split the
// shape list with no overlap and no loss, and rank 0's merged database holds every problem, each
// compiled by exactly one rank, with that rank's provenance.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "config/shape_list.hpp"
#include "cuda/device_info.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "tuner/compile_only.hpp"

namespace sgt {
namespace {

namespace fs = std::filesystem;

#ifdef SGEMM_TEST_MPIEXEC
constexpr const char* kMpiexec = SGEMM_TEST_MPIEXEC;
#else
constexpr const char* kMpiexec = "";
#endif

class MpiCompileOnly : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!*kMpiexec) GTEST_SKIP() << "built without MPI";
    std::string pattern = (fs::temp_directory_path() / "sgt_mpi_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ / "shapes.csv")
        << "m,n,k\n4096,16,4096\n2048,1,2048\n1000,7,333\n512,8,1024\n"
           "32000,16,4096\n";
    std::ofstream(dir_ / "space.yaml")
        << "family: f4_skinny\nknobs:\n  BS: [1, 16]\n  TS: [1, 16]\n"
           "  TG: [4]\n  WARPS: [8]\n  KSL: [4]\n  BK: [32, 256]\n"
           "  STAGES: [3]\n  SPLITK: [1]\n  OCC: [8]\n  DIRECT: [0, 1]\n"
           "  PF: [0]\n  REDUCE: [0]\n  EVICT: [0]\n";
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_P(MpiCompileOnly, RanksSplitTheProblemsAndRankZeroMergesThemAll) {
  const int ranks = GetParam();
  const std::string db = (dir_ / "fleet.db").string(), out = (dir_ / "out.txt").string();
  // Open MPI refuses root unless told, and a CI machine has fewer cores than ranks.
  const std::string command = fmt::format(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SGEMM_CACHE_DIR='{}' '{}' -np {} "
      "--oversubscribe '{}' tune --compile-only --arch sm_90 --compile-threads 1 --shapes '{}' "
      "--space '{}' --db '{}' --json >'{}' 2>'{}'",
      (dir_ / "cache").string(), kMpiexec, ranks, SGEMM_BINARY_DIR "/src/sgemm-tune",
      (dir_ / "shapes.csv").string(), (dir_ / "space.yaml").string(), db, out, out + ".err");
  const int status = std::system(command.c_str());
  std::stringstream text, log;
  text << std::ifstream(out).rdbuf();
  log << std::ifstream(out + ".err").rdbuf();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text.str() << log.str();

  const std::vector<Shape> shapes = load_shape_list((dir_ / "shapes.csv").string());
  Database d = Database::open(db, OpenMode::read_only);
  TuningStore store(d);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(static_cast<int>(runs.size()), ranks);
  std::set<std::string> hosts;
  for (const RunRecord& r : runs) hosts.insert(r.host);
  for (int r = 0; r < ranks; ++r) {
    bool found = false;
    for (const std::string& h : hosts)
      found |= h.ends_with(fmt::format("/rank {} of {}", r, ranks));
    EXPECT_TRUE(found) << "no run of rank " << r;
  }

  const SoftwareInfo sw = query_software();
  const GpuRecord gpu = compile_only_gpu("sm_90", DeviceLimits{});
  std::map<std::int64_t, int> problems_per_run;
  for (const Shape& s : shapes) {
    const std::vector<CandidateRecord> rows =
        store.candidates(s.problem.key, gpu, {sw.driver, sw.runtime, sw.nvrtc, sw.cublas});
    ASSERT_FALSE(rows.empty()) << s.problem.key.to_string()
                               << " is missing from the merged database";
    std::set<std::int64_t> run_ids;
    for (const CandidateRecord& c : rows) run_ids.insert(c.run_id);
    EXPECT_EQ(run_ids.size(), 1u) << s.problem.key.to_string() << " was compiled by several ranks";
    ++problems_per_run[*run_ids.begin()];
  }
  // Round-robin: every rank had work, and the shares differ by at most one problem.
  ASSERT_EQ(static_cast<int>(problems_per_run.size()), std::min<int>(ranks, shapes.size()));
  int lo = 1 << 30, hi = 0;
  for (const auto& [run, n] : problems_per_run) lo = std::min(lo, n), hi = std::max(hi, n);
  EXPECT_LE(hi - lo, 1);

  const nlohmann::json j = nlohmann::json::parse(text.str());
  EXPECT_EQ(j.at("problems").size(), shapes.size());
  for (int r = 0; r < ranks; ++r)
    EXPECT_FALSE(fs::exists(db + fmt::format(".rank{}-of-{}", r, ranks)));
}

INSTANTIATE_TEST_SUITE_P(Ranks, MpiCompileOnly, ::testing::Values(2, 3));

}  // namespace
}  // namespace sgt
