// The query, list, export and import verbs of the built sgemm-tune binary over a small database
// (no GPU): text and JSON output, exit codes, and a dump that imports into an equal database.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_support.hpp"

namespace {

using sgt::testing::CliResult;

class CliQuery : public sgt::testing::CliTest {};

TEST_F(CliQuery, QueryFindsTheTunedWinnerWithoutAGpu) {
  const CliResult text = run("query 2048 2048 2048 --arch sm_90 --db '" + db + "'");
  ASSERT_EQ(text.rc, 0) << text.out;
  EXPECT_NE(text.out.find("f1_simt"), std::string::npos) << text.out;
  const CliResult json = run("query 2048 2048 2048 --arch sm_90 --json --db '" + db + "'");
  ASSERT_EQ(json.rc, 0);
  const auto parsed = nlohmann::json::parse(json.out);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0]["family"], "f1_simt");
  EXPECT_EQ(parsed[0]["m"], 2048);
}

// The small database's f1_simt winner carries a made-up template hash; its cuBLAS winner has none.
TEST_F(CliQuery, QuerySaysWhenAWinnerWasTunedWithAnotherTemplate) {
  const CliResult text = run("query 2048 2048 2048 --arch sm_90 --db '" + db + "'");
  EXPECT_NE(text.out.find("tuned with another template version"), std::string::npos) << text.out;
  const auto stale =
      nlohmann::json::parse(run("query 2048 2048 2048 --arch sm_90 --json --db '" + db + "'").out);
  EXPECT_EQ(stale[0]["template_current"], false);
  const auto cublas =
      nlohmann::json::parse(run("query 1024 1024 1024 --arch sm_90 --json --db '" + db + "'").out);
  ASSERT_EQ(cublas.size(), 1u);
  EXPECT_EQ(cublas[0]["family"], "cublas");
  EXPECT_EQ(cublas[0]["template_current"], true);
  EXPECT_EQ(run("query 1024 1024 1024 --arch sm_90 --db '" + db + "'").out.find("template"),
            std::string::npos);
}

TEST_F(CliQuery, QueryOfAnUntunedProblemSaysCublasAndFails) {
  const CliResult r = run("query 100 100 100 --arch sm_90 --db '" + db + "'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("not tuned"), std::string::npos) << r.out;
  EXPECT_EQ(run("query 2048 2048 2048 --arch sm_80 --db '" + db + "'").rc, 1);
  EXPECT_EQ(run("query 2048 2048 2048 --arch ninety --db '" + db + "'").rc, 2);
}

TEST_F(CliQuery, ListShowsEveryWinner) {
  const CliResult r = run("list --json --db '" + db + "'");
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 2u) << r.out;
  const CliResult text = run("list --db '" + db + "'");
  EXPECT_NE(text.out.find("2 tuned problems"), std::string::npos) << text.out;
}

TEST_F(CliQuery, ExportThenImportGivesTheSameWinners) {
  const std::string dump = (dir / "dump.json").string(), copy = (dir / "copy.db").string();
  ASSERT_EQ(run("export --db '" + db + "' -o '" + dump + "'").rc, 0);
  ASSERT_EQ(run("import '" + dump + "' --no-cubins --db '" + copy + "'").rc, 0);
  EXPECT_EQ(run("list --json --db '" + db + "'").out.size(),
            run("list --json --db '" + copy + "'").out.size());
  EXPECT_EQ(run("import '" + (dir / "missing.json").string() + "' --db '" + copy + "'").rc, 2);
}

}  // namespace
