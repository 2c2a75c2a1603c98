// The query, list, export and import verbs of the built sgemm-tune binary over a small database
// (no GPU): text and JSON output, exit codes, and a dump that imports into an equal database.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "jit/templates.hpp"
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

// A dump with one winner of this build's F1 template: NN 1024^3 on an H100, 1.2x over cuBLAS.
std::string one_current_winner_dump(double time_us, double cublas_us) {
  const nlohmann::json dump = {
      {"format", "sgemm-tune-db"},
      {"version", 1},
      {"schema_version", 3},
      {"gpus",
       {{{"name", "NVIDIA H100 80GB HBM3"},
         {"uuid", "GPU-bbbb"},
         {"arch", "sm_90"},
         {"sm_count", 132},
         {"l2_bytes", 52428800},
         {"default_clock_mhz", 1980}}}},
      {"software",
       {{{"driver", "13.0"}, {"runtime", "13.0"}, {"nvrtc", "13.0"}, {"cublas", "13.1.0"}}}},
      {"winners",
       {{{"problem",
          {{"transa", "N"},
           {"transb", "N"},
           {"m", 1024},
           {"n", 1024},
           {"k", 1024},
           {"lda", 1024},
           {"ldb", 1024},
           {"ldc", 1024},
           {"align", 4}}},
         {"gpu", 0},
         {"software", 0},
         {"family", "f1_simt"},
         {"config",
          "BK=8,BM=128,BN=128,MIN_BLOCKS=1,PAD=4,RASTER=1,REDUCE=0,REGDB=1,SPLITK=1,STAGES=3,TM=8,"
          "TN=8,WM=32,WN=64"},
         {"template_hash", sgt::template_hash("f1_simt.cu")},
         {"compile_options", ""},
         {"time_us", time_us},
         {"cublas_us", cublas_us},
         {"tie_band", 0.01},
         {"cubin_arch", ""},
         {"updated_at", "2026-12-06T00:00:00.000Z"}}}}};
  return dump.dump();
}

// An untuned problem: query says what the dispatcher's nearest step does with it on each GPU
// model, under the same rules and environment variables, and still exits 1 (not tuned).
TEST_F(CliQuery, QueryOfAnUntunedProblemNamesTheNeighbourThatServesIt) {
  const std::string dump = (dir / "one.json").string(), one = (dir / "one.db").string();
  std::ofstream(dump) << one_current_winner_dump(100.0, 120.0);
  ASSERT_EQ(run("import '" + dump + "' --no-cubins --db '" + one + "'").rc, 0);

  const CliResult text = run("query 1000 1000 1000 --arch sm_90 --db '" + one + "'");
  EXPECT_EQ(text.rc, 1);
  EXPECT_NE(text.out.find("serves it with the nearest tuned problem NN 1024x1024x1024"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("f1_simt BK=8,BM=128"), std::string::npos) << text.out;
  const auto json =
      nlohmann::json::parse(run("query 1000 1000 1000 --arch sm_90 --json --db '" + one + "'").out);
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["route"], "nearest");
  EXPECT_EQ(json[0]["tuned"], false);
  EXPECT_EQ(json[0]["neighbour"]["m"], 1024);

  // Beyond a factor 2, with the rule turned off, or with a transpose of its own: cuBLAS.
  EXPECT_NE(
      run("query 400 1000 1000 --arch sm_90 --db '" + one + "'").out.find("within a factor 2"),
      std::string::npos);
  const CliResult off =
      run("query 1000 1000 1000 --arch sm_90 --db '" + one + "'", "SGEMM_DISPATCH_NEAREST=0");
  EXPECT_NE(off.out.find("nearest lookup disabled (the dispatcher uses cuBLAS)"), std::string::npos)
      << off.out;
  const auto nt = nlohmann::json::parse(
      run("query 1000 1000 1000 --trans NT --arch sm_90 --json --db '" + one + "'").out);
  ASSERT_EQ(nt.size(), 1u);
  EXPECT_EQ(nt[0]["route"], "cublas");
}

// A neighbour that gains under 1.05x ends the walk with cuBLAS, as in the dispatcher; a
// neighbour tuned with another template version is skipped (its kernel would not load).
TEST_F(CliQuery, QueryOfAnUntunedProblemFollowsTheDispatchersVetoes) {
  const std::string dump = (dir / "slow.json").string(), slow = (dir / "slow.db").string();
  std::ofstream(dump) << one_current_winner_dump(100.0, 103.0);
  ASSERT_EQ(run("import '" + dump + "' --no-cubins --db '" + slow + "'").rc, 0);
  const CliResult veto = run("query 1000 1000 1000 --arch sm_90 --db '" + slow + "'");
  EXPECT_NE(veto.out.find("gains only x1.030"), std::string::npos) << veto.out;
  EXPECT_NE(veto.out.find("the dispatcher uses cuBLAS"), std::string::npos) << veto.out;

  // The small database: 2048^3's F1 winner carries a made-up template hash, 1024^3 is cuBLAS's.
  const CliResult stale = run("query 1500 1500 1500 --arch sm_90 --db '" + db + "'");
  EXPECT_EQ(stale.rc, 1);
  EXPECT_NE(stale.out.find("1024x1024x1024"), std::string::npos) << stale.out;
  EXPECT_NE(stale.out.find("served best by cuBLAS"), std::string::npos) << stale.out;
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
