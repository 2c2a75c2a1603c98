// The query, list, export and import verbs of the built sgemm-tune binary over a small database
// (no GPU): text and JSON output, exit codes, and a dump that imports into an equal database.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "db/database.hpp"
#include "db/tuning_store.hpp"

namespace sgt::report_testing {
void write_small_database(const std::string& path, const GpuRecord& gpu, const std::string& host);
}  // namespace sgt::report_testing

namespace {

namespace fs = std::filesystem;

struct Result {
  int rc = -1;
  std::string out;
};

class CliQuery : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(binary_)) << binary_ << " is not built";
    std::string pattern = (fs::temp_directory_path() / "sgt_cli_query_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    db_ = (dir_ / "small.db").string();
    sgt::report_testing::write_small_database(db_, {"NVIDIA H200", "GPU-aaaa", "sm_90", 132, 62914560, 1980},
                                              "host-a");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Result run(const std::string& args) const {
    const std::string out = (dir_ / "out.txt").string();
    const int status = std::system(("'" + binary_ + "' " + args + " >'" + out + "' 2>/dev/null").c_str());
    std::ifstream in(out);
    std::stringstream s;
    s << in.rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, s.str()};
  }
  const std::string binary_ = SGEMM_BINARY_DIR "/src/sgemm-tune";
  fs::path dir_;
  std::string db_;
};

TEST_F(CliQuery, QueryFindsTheTunedWinnerWithoutAGpu) {
  const Result text = run("query 2048 2048 2048 --arch sm_90 --db '" + db_ + "'");
  ASSERT_EQ(text.rc, 0) << text.out;
  EXPECT_NE(text.out.find("f1_simt"), std::string::npos) << text.out;
  const Result json = run("query 2048 2048 2048 --arch sm_90 --json --db '" + db_ + "'");
  ASSERT_EQ(json.rc, 0);
  const auto parsed = nlohmann::json::parse(json.out);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0]["family"], "f1_simt");
  EXPECT_EQ(parsed[0]["m"], 2048);
}

TEST_F(CliQuery, QueryOfAnUntunedProblemSaysCublasAndFails) {
  const Result r = run("query 100 100 100 --arch sm_90 --db '" + db_ + "'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("not tuned"), std::string::npos) << r.out;
  EXPECT_EQ(run("query 2048 2048 2048 --arch sm_80 --db '" + db_ + "'").rc, 1);
  EXPECT_EQ(run("query 2048 2048 2048 --arch ninety --db '" + db_ + "'").rc, 2);
}

TEST_F(CliQuery, ListShowsEveryWinner) {
  const Result r = run("list --json --db '" + db_ + "'");
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 2u) << r.out;
  const Result text = run("list --db '" + db_ + "'");
  EXPECT_NE(text.out.find("2 tuned problems"), std::string::npos) << text.out;
}

TEST_F(CliQuery, ExportThenImportGivesTheSameWinners) {
  const std::string dump = (dir_ / "dump.json").string(), copy = (dir_ / "copy.db").string();
  ASSERT_EQ(run("export --db '" + db_ + "' -o '" + dump + "'").rc, 0);
  ASSERT_EQ(run("import '" + dump + "' --no-cubins --db '" + copy + "'").rc, 0);
  EXPECT_EQ(run("list --json --db '" + db_ + "'").out.size(), run("list --json --db '" + copy + "'").out.size());
  EXPECT_EQ(run("import '" + (dir_ / "missing.json").string() + "' --db '" + copy + "'").rc, 2);
}

}  // namespace
