// The tuner survives candidates that crash the CUDA context or never finish: it records them as
// launch_failed and timed_out, restarts its worker and finishes the problem with a winner; with
// --retune the restarted worker resumes from what this command recorded (each faulty candidate is
// run once per command, not again after every restart).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "support/gpu_support.hpp"
#include "tuner/tuner.hpp"

namespace sgt {
namespace {

namespace fs = std::filesystem;

// sgemm-tune with the faulty test family (tests/faults); a GPU machine running a packed copy
// names it in the environment.
std::string tune_binary() {
  if (const char* env = std::getenv("SGEMM_TUNE_TEST_FAMILIES_BINARY"); env && *env) return env;
  return SGEMM_TUNE_TEST_FAMILIES_BINARY;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST(CrashIsolation, FaultyCandidatesAreRecordedAndTheRunFinishes) {
  SGT_SKIP_WITHOUT_GPU();
  const fs::path dir = fs::temp_directory_path() / fmt::format("sgemm_crash_{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "space");
  write(dir / "space" / "test_faults.yaml", "family: test_faults\nknobs:\n  FAULT: [1, 2]\n");
  const Knobs good = testing::default_space_configs(find_family("f1_simt")).front();
  std::string f1 = "family: f1_simt\nknobs:\n";
  for (const auto& [name, value] : good) f1 += fmt::format("  {}: [{}]\n", name, value);
  write(dir / "space" / "f1_simt.yaml", f1);
  write(dir / "shapes.csv", "m,n,k\n256,256,256\n");
  write(dir / "settings.yaml",
        "screen_warmup_ms: 2\nscreen_samples: 5\nmin_rounds: 5\nmin_round_time_s: 0.05\n");

  const std::string db = (dir / "tuning.db").string();
  const std::string command = fmt::format(
      "SGEMM_CACHE_DIR={0}/cache {1} --quiet tune --shapes "
      "{0}/shapes.csv "
      "--space {0}/space --settings {0}/settings.yaml --db {2} --candidate-timeout 5 > {0}/log "
      "2>&1",
      dir.string(), tune_binary(), db);
  const int rc = std::system(command.c_str());
  std::ifstream log(dir / "log");
  const std::string output((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rc, 0) << command << "\n" << output;

  Database database = Database::open(db, OpenMode::read_only);
  EXPECT_EQ(database.integrity_check(), "ok");
  TuningStore store(database);
  const std::vector<WinnerRecord> winners = store.winners();
  ASSERT_EQ(winners.size(), 1u) << output;
  const DeviceInfo device = query_device(0);
  const auto tried = store.candidates(winners[0].problem, gpu_record(device), software_record());
  std::map<std::string, Outcome> outcome;
  for (const CandidateRecord& c : tried) outcome[c.family + " " + c.config] = c.outcome;
  EXPECT_EQ(outcome["test_faults FAULT=1"], Outcome::launch_failed) << output;
  EXPECT_EQ(outcome["test_faults FAULT=2"], Outcome::timed_out) << output;
  EXPECT_EQ(outcome["f1_simt " + knobs_to_string(good)], Outcome::ok) << output;
  EXPECT_NE(winners[0].family, "test_faults");

  // The same command with --retune: every candidate measured once more (each row then names the
  // new command's run), and its worker restarted once per faulty candidate, as the first
  // command's was (not again and again on the same one).
  const std::vector<RunRecord> first_runs = store.runs();
  const std::size_t redirect = command.find(" > ");
  const std::string retune = command.substr(0, redirect) + " --retune" + command.substr(redirect);
  const int rc_retune = std::system(retune.c_str());
  std::ifstream log2(dir / "log");
  const std::string output2((std::istreambuf_iterator<char>(log2)),
                            std::istreambuf_iterator<char>());
  ASSERT_EQ(rc_retune, 0) << retune << "\n" << output2;
  Database again = Database::open(db, OpenMode::read_only);
  TuningStore store2(again);
  for (const CandidateRecord& c :
       store2.candidates(winners[0].problem, gpu_record(device), software_record()))
    EXPECT_GT(c.run_id, first_runs.back().id)
        << c.family << " " << c.config << " was not measured again";
  EXPECT_EQ(store2.runs().size(), 2 * first_runs.size()) << output2;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sgt
