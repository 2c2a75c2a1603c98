// The temporary folder, small database and command runner of the CLI tests.
#include "support/cli_support.hpp"

#include <stdlib.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

namespace sgt::testing {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void CliTest::SetUp() {
  ASSERT_TRUE(fs::exists(kSgemmTune))
      << kSgemmTune << " is not built (build the sgemm-tune target)";
  std::string pattern = (fs::temp_directory_path() / "sgt_cli_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  dir = pattern;
  db = (dir / "small.db").string();
  report_testing::write_small_database(
      db, {"NVIDIA H200", "GPU-aaaa", "sm_90", 132, 62914560, 1980}, "host-a");
}

void CliTest::TearDown() {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

CliResult CliTest::run(const std::string& args, const std::string& env) const {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd =
      env + " '" + kSgemmTune + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

}  // namespace sgt::testing
