// `sgemm-tune tune --compile-only` as a user runs it, with no GPU: a table or JSON of counts and
// throughput, records in the database, and a clear error for an unknown architecture.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

namespace fs = std::filesystem;

class CliCompileOnly : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(binary_)) << binary_ << " is not built";
    std::string pattern = (fs::temp_directory_path() / "sgt_cli_compile_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ / "shapes.csv") << "m,n,k\n4096,16,4096\n2048,1,2048\n";
    std::ofstream(dir_ / "space.yaml")
        << "family: f4_skinny\nknobs:\n  BS: [1, 16]\n  TS: [1, 16]\n"
           "  TG: [4]\n  WARPS: [8]\n  KSL: [4]\n  BK: [32, 256]\n"
           "  STAGES: [3]\n  SPLITK: [1]\n  OCC: [8]\n  DIRECT: [0, 1]\n"
           "  PF: [0]\n  REDUCE: [0]\n  EVICT: [0]\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  int run(const std::string& args, std::string* out = nullptr) const {
    const std::string file = (dir_ / "out.txt").string();
    const std::string env = "SGEMM_CACHE_DIR='" + (dir_ / "cache").string() + "' ";
    const int status =
        std::system((env + "'" + binary_ + "' " + args + " >'" + file + "' 2>&1").c_str());
    if (out) {
      std::stringstream s;
      s << std::ifstream(file).rdbuf();
      *out = s.str();
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string common() const {
    return "tune --compile-only --arch sm_90 --compile-threads 2 --shapes '" +
           (dir_ / "shapes.csv").string() + "' --space '" + (dir_ / "space.yaml").string() +
           "' --db '" + (dir_ / "t.db").string() + "'";
  }
  const std::string binary_ = SGEMM_BINARY_DIR "/src/sgemm-tune";
  fs::path dir_;
};

TEST_F(CliCompileOnly, ReportsCountsAndThroughputAsJson) {
  std::string out;
  ASSERT_EQ(run(common() + " --json", &out), 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out.substr(out.find('{')));
  ASSERT_EQ(j["problems"].size(), 2u);
  const nlohmann::json& total = j["total"];
  EXPECT_GT(total["candidates"].get<int>(), 0);
  EXPECT_EQ(total["compiled"].get<int>() + total["compile_failed"].get<int>() +
                total["resources_exceeded"].get<int>(),
            total["candidates"].get<int>());
  EXPECT_GT(total["candidates_per_second"].get<double>(), 0);

  // Run again: everything comes from the cache, and list/report still read the database.
  ASSERT_EQ(run(common() + " --json", &out), 0) << out;
  const nlohmann::json again = nlohmann::json::parse(out.substr(out.find('{')));
  EXPECT_EQ(again["total"]["cache_hits"], again["total"]["candidates"]);
}

TEST_F(CliCompileOnly, PrintsATableWithATotal) {
  std::string out;
  ASSERT_EQ(run(common(), &out), 0) << out;
  EXPECT_NE(out.find("cache hits"), std::string::npos) << out;
  EXPECT_NE(out.find("total"), std::string::npos) << out;
  EXPECT_NE(out.find("NN 4096x16x4096"), std::string::npos) << out;
}

TEST_F(CliCompileOnly, AnUnknownArchitectureIsAUsageError) {
  std::string out;
  const std::string args = "tune --compile-only --arch sm_9x --shapes '" +
                           (dir_ / "shapes.csv").string() + "' --db '" + (dir_ / "t.db").string() +
                           "'";
  EXPECT_NE(run(args, &out), 0);
  EXPECT_NE(out.find("sm_9x"), std::string::npos) << out;
}

}  // namespace
