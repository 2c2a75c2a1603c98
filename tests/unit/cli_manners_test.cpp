// Terminal manners of every sgemm-tune verb over a small database (no GPU needed): --quiet and
// --verbose before or after the verb, colour only on a terminal and never with NO_COLOR, JSON
// from each verb that prints results, the documented exit codes, and explain --ncu with a
// stand-in ncu on PATH.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cuda/device_info.hpp"
#include "support/cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using sgt::testing::CliResult;
using sgt::testing::slurp;

bool gpu_usable() { return sgt::gpu_unavailable_reason().empty(); }

class CliManners : public sgt::testing::CliTest {
 protected:
  // The binary on a pseudo-terminal (util-linux script): standard output and error together.
  CliResult run_on_terminal(const std::string& args, const std::string& env = "") const {
    const fs::path out = dir / "terminal.txt";
    const std::string inner = env + " '" + sgt::testing::kSgemmTune + "' " + args;
    const std::string cmd =
        "script -qec \"" + inner + "\" /dev/null >'" + out.string() + "' 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), ""};
  }
  std::string dump() const {
    const std::string path = (dir / "dump.json").string();
    EXPECT_EQ(run("export --db '" + db + "' -o '" + path + "'").rc, 0);
    return path;
  }
};

TEST_F(CliManners, QuietAndVerboseBeforeOrAfterTheVerb) {
  const std::string file = dump();
  const std::string copy = (dir / "copy.db").string();
  CliResult r = run("import '" + file + "' --no-cubins --db '" + copy + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("info: imported 2 winners"), std::string::npos) << r.err;
  for (const std::string& args :
       {"-q import '" + file + "' --no-cubins --db '" + copy + "'",
        "import '" + file + "' --no-cubins --db '" + copy + "' --quiet"}) {
    r = run(args);
    ASSERT_EQ(r.rc, 0) << args << ": " << r.err;
    EXPECT_EQ(r.err, "") << args;
  }
  r = run("report --db '" + db + "' -o '" + (dir / "r.md").string() + "' --verbose");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("wrote the report of 2 problems"), std::string::npos) << r.err;
  r = run("-q report --db '" + db + "' -o '" + (dir / "r.md").string() + "'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Errors still show under --quiet.
  r = run("-q report --db '" + (dir / "none.db").string() + "'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
}

TEST_F(CliManners, ColourOnlyOnATerminalAndNeverWithNoColor) {
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "script (util-linux) is not installed";
  // Two databases with the same winners: merge lists conflicts, their problems in bold.
  const std::string other = (dir / "other.db").string();
  sgt::report_testing::write_small_database(
      other, {"NVIDIA H200", "GPU-cccc", "sm_90", 132, 62914560, 1980}, "host-c");
  for (const std::string& args :
       {"report --db '" + db + "'", "explain 2048 2048 2048 --db '" + db + "'",
        "merge '" + (dir / "m.db").string() + "' '" + db + "' '" + other + "'"}) {
    const CliResult tty = run_on_terminal(args);
    ASSERT_EQ(tty.rc, 0) << args << ": " << tty.out;
    EXPECT_NE(tty.out.find("\033["), std::string::npos) << args << ": " << tty.out;
    const CliResult plain = run_on_terminal(args, "NO_COLOR=1");
    ASSERT_EQ(plain.rc, 0) << args << ": " << plain.out;
    EXPECT_EQ(plain.out.find("\033["), std::string::npos) << args << ": " << plain.out;
    const CliResult piped = run(args);
    EXPECT_EQ(piped.out.find("\033["), std::string::npos) << args;
    EXPECT_EQ(piped.err.find("\033["), std::string::npos) << args;
  }
  // Log lines on a terminal: coloured level, plain with NO_COLOR.
  const std::string none = "report --db '" + (dir / "none.db").string() + "'";
  EXPECT_NE(run_on_terminal(none, "TERM=xterm").out.find("\033["), std::string::npos);
  EXPECT_EQ(run_on_terminal(none, "TERM=xterm NO_COLOR=1").out.find("\033["), std::string::npos);
}

TEST_F(CliManners, JsonFromEveryVerbThatPrintsResults) {
  const std::string file = dump();
  for (const std::string& args :
       {"query 2048 2048 2048 --arch sm_90 --json --db '" + db + "'",
        "list --json --db '" + db + "'", "report --json --db '" + db + "'",
        "explain 2048 2048 2048 --json --db '" + db + "'",
        "merge '" + (dir / "m.db").string() + "' '" + db + "' --json",
        "import '" + file + "' --no-cubins --json --db '" + (dir / "copy.db").string() + "'"}) {
    const CliResult r = run(args);
    ASSERT_EQ(r.rc, 0) << args << ": " << r.err;
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << args << ": " << r.out;
  }
  const nlohmann::json imported = nlohmann::json::parse(
      run("import '" + file + "' --no-cubins --json --db '" + (dir / "c2.db").string() + "'").out);
  EXPECT_EQ(imported["winners"], 2);
  EXPECT_EQ(imported["cubins_compiled"], 0);
  // export writes JSON already.
  const nlohmann::json exported = nlohmann::json::parse(slurp(file));
  EXPECT_EQ(exported["format"], "sgemm-tune-db");
  EXPECT_EQ(exported["winners"].size(), 2u);
}

TEST_F(CliManners, ExitCodes) {
  EXPECT_EQ(run("frobnicate").rc, 2);
  EXPECT_EQ(run("query 1 2 --arch sm_90 --db '" + db + "'").rc, 2);
  EXPECT_EQ(run("query 2048 2048 2048 --trans NX --arch sm_90 --db '" + db + "'").rc, 2);
  EXPECT_EQ(run("explain 2048 2048 2048 --trans N --db '" + db + "'").rc, 2);
  EXPECT_EQ(run("explain 100 100 100 --db '" + db + "'").rc, 1);  // not tuned
  EXPECT_EQ(run("list --db '" + (dir / "none.db").string() + "'").rc, 1);
  if (gpu_usable()) GTEST_SKIP() << "a GPU is usable: tune and bench would run";
  const std::string shapes = (dir / "one.csv").string();
  std::ofstream(shapes) << "m,n,k\n64,64,64\n";
  CliResult r = run("bench --shapes '" + shapes + "' --db '" + db + "'");
  EXPECT_EQ(r.rc, 3) << r.err;
  r = run("tune --shapes '" + shapes + "' --db '" + (dir / "t.db").string() + "' --json");
  EXPECT_EQ(r.rc, 3) << r.err;
}

// A stand-in ncu prints the fixture details page for --import and does nothing for the
// profiling command: with a GPU the whole of explain --ncu runs, without one it stops at exit 3.
TEST_F(CliManners, ExplainNcuWithAStandInNcu) {
  const fs::path bin = dir / "bin";
  fs::create_directories(bin);
  {
    std::ofstream script(bin / "ncu");
    script << "#!/bin/sh\ncase \" $* \" in *\" --import \"*) cat '" SGEMM_SOURCE_DIR
              "/tests/unit/data/ncu/details_2025.3_f4_skinny.csv' ;; esac\nexit 0\n";
  }
  fs::permissions(bin / "ncu", fs::perms::owner_all);
  // TMPDIR: the folder explain keeps the profile in is made inside this test's.
  const std::string env = "PATH='" + bin.string() + ":/usr/bin:/bin' TMPDIR='" + dir.string() + "'";
  const CliResult r = run("explain 2048 2048 2048 --ncu --json --db '" + db + "'", env);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  const nlohmann::json& ncu = j[0]["ncu"];
  ASSERT_EQ(ncu["commands"].size(), 2u);
  EXPECT_NE(ncu["commands"][0].get<std::string>().find("--clock-control none"), std::string::npos);
  EXPECT_NE(ncu["commands"][1].get<std::string>().find("--csv --page details"), std::string::npos);
  if (gpu_usable()) {
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_DOUBLE_EQ(ncu["summary"]["sm_throughput_pct"].get<double>(), 47.62);
    EXPECT_EQ(ncu["summary"]["stalls"][0]["reason"], "not_selected");
  } else {
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_FALSE(ncu.contains("summary"));
    EXPECT_NE(ncu["error"].get<std::string>().find("needs a GPU"), std::string::npos) << ncu.dump();
    for (const fs::directory_entry& e : fs::directory_iterator(dir))  // nothing ran, nothing kept
      EXPECT_EQ(e.path().filename().string().find("sgemm-tune-ncu-"), std::string::npos)
          << e.path();
  }
  const CliResult text = run("explain 2048 2048 2048 --ncu --db '" + db + "'", env);
  EXPECT_NE(text.out.find("Nsight Compute on the winner"), std::string::npos) << text.out;
  if (gpu_usable())
    EXPECT_NE(text.out.find("| not_selected     |   0.72 | 27.8% |"), std::string::npos)
        << text.out;
  else
    EXPECT_NE(text.err.find("--ncu: needs a GPU"), std::string::npos) << text.err;
}

}  // namespace
