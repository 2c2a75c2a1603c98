// The report, explain and merge verbs of the built sgemm-tune binary over a small database (no
// GPU): output formats, exit codes, --plot with and without gnuplot, colour manners.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "support/cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using sgt::testing::CliResult;
using sgt::testing::slurp;

class CliReport : public sgt::testing::CliTest {};

TEST_F(CliReport, MarkdownByDefaultWithoutColourWhenNotATerminal) {
  const CliResult r = run("report --db '" + db + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("# SGEMM tuning report"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NN 2048x2048x2048"), std::string::npos);
  EXPECT_NE(r.out.find("1.14x"), std::string::npos);
  EXPECT_EQ(r.out.find("\033["), std::string::npos);
}

TEST_F(CliReport, CsvJsonAndOutputFile) {
  CliResult r = run("report --format csv --db '" + db + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("gpu,arch,sm_count,problem,", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3);

  r = run("report --json --db '" + db + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["problems"].size(), 2u);

  const std::string file = (dir / "report.md").string();
  r = run("report --db '" + db + "' --output '" + file + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(slurp(file).find("| NN 1024x1024x1024 | cuBLAS"), std::string::npos) << slurp(file);
}

TEST_F(CliReport, ArchFilterAndBandwidthOption) {
  CliResult r = run("report --json --arch sm_80 --db '" + db + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["problems"].size(), 0u);
  r = run("report --json --bandwidth-tbps 2 --db '" + db + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["problems"][0]["bandwidth_tbps"].get<double>(),
                   2.0);
}

TEST_F(CliReport, UsageErrorsExitTwoAndRuntimeErrorsExitOne) {
  EXPECT_EQ(run("report --format xml --db '" + db + "'").rc, 2);
  EXPECT_EQ(run("explain 10 --db '" + db + "'").rc, 2);
  EXPECT_EQ(run("merge '" + db + "'").rc, 2);
  const CliResult missing = run("report --db '" + (dir / "none.db").string() + "'");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_FALSE(missing.err.empty());
}

TEST_F(CliReport, PlotWritesPngAndSvg) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "gnuplot is not installed";
  const CliResult r = run("report --db '" + db + "' --plot '" + (dir / "plots").string() + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* name :
       {"roofline.png", "roofline.svg", "speedup.png", "speedup.svg", "roofline.gp"})
    EXPECT_TRUE(fs::exists(dir / "plots" / name)) << name;
  EXPECT_NE(slurp((dir / "plots" / "roofline.svg").string()).find("<svg"), std::string::npos);
}

TEST_F(CliReport, PlotWithoutGnuplotSaysSoAndExitsOne) {
  fs::create_directories(dir / "empty-bin");
  const CliResult r = run("report --db '" + db + "' --plot '" + (dir / "plots").string() + "'",
                          "PATH='" + (dir / "empty-bin").string() + "'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("gnuplot"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("apt-get install gnuplot-nox"), std::string::npos) << r.err;
}

TEST_F(CliReport, ExplainTextAndJson) {
  CliResult r = run("explain 2048 2048 2048 --db '" + db + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("winner: f1_simt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runner-ups"), std::string::npos);
  EXPECT_NE(r.out.find("resources_exceeded 1"), std::string::npos);

  r = run("explain 1024 1024 1024 --arch sm_90 --json --db '" + db + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["winner"]["family"], "cublas");
  EXPECT_FALSE(j[0]["runner_ups"].empty());

  r = run("explain 100 100 100 --db '" + db + "'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("not tuned"), std::string::npos) << r.err;
}

TEST_F(CliReport, ExplainNcuPrintsTheCommandAndAClearMessageWithoutNcu) {
  fs::create_directories(dir / "empty-bin");
  const CliResult r = run("explain 2048 2048 2048 --ncu --db '" + db + "'",
                          "PATH='" + (dir / "empty-bin").string() + "'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("ncu --clock-control none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" bench --shapes "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("not on PATH"), std::string::npos) << r.err;
}

TEST_F(CliReport, MergeTwoDatabasesWithJsonSummary) {
  const std::string other = (dir / "other.db").string();
  sgt::report_testing::write_small_database(
      other, {"NVIDIA H200", "GPU-cccc", "sm_90", 132, 62914560, 1980}, "host-c");
  const std::string out = (dir / "merged.db").string();
  const CliResult r = run("merge '" + out + "' '" + db + "' '" + other + "' --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"], 2);
  EXPECT_EQ(j["winners"], 2);
  // Same times on both machines: the earlier input's winners stay, each a conflict of one kernel.
  ASSERT_EQ(j["conflicts"].size(), 2u);
  EXPECT_EQ(j["conflicts"][0]["kept_source"], db);
  EXPECT_TRUE(j["conflicts"][0]["same_kernel"].get<bool>());
  sgt::Database merged = sgt::Database::open(out, sgt::OpenMode::read_only);
  EXPECT_EQ(sgt::TuningStore(merged).runs().size(), 2u);

  const CliResult twice = run("merge '" + out + "' '" + db + "' '" + db + "'");
  EXPECT_EQ(twice.rc, 2);
}

}  // namespace
