// TuningStore: runs, candidate upsert and resume listing, winners, JSON export/import, and two
// processes (and threads) writing one file at once.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "db/database.hpp"
#include "db/records.hpp"
#include "db/tuning_store.hpp"
#include "support/problem_and_knobs.hpp"
#include "support/temp_dir.hpp"

namespace {

using sgt::testing::problem;

namespace fs = std::filesystem;
using namespace sgt;

using sgt::testing::TempDir;

const GpuRecord h200{"NVIDIA H200", "GPU-1111", "sm_90", 132, 62914560, 1980};
const GpuRecord h200_other_unit{"NVIDIA H200", "GPU-2222", "sm_90", 132, 62914560, 1980};
const GpuRecord a100{"NVIDIA A100-SXM4-80GB", "GPU-3333", "sm_80", 108, 41943040, 1410};
const SoftwareRecord cuda13{"580.65", "13.0", "13.0.48", "13.1.0.3"};
const SoftwareRecord cuda12{"550.54", "12.4", "12.4.99", "12.4.5.8"};

TimingRecord timing(double median) {
  return {median, median * 0.98, median * 1.01, median * 0.02, 50, 2, 1980.0};
}

// Conditions with every field set, distinct per `x`.
MeasureConditions observed(double x) {
  MeasureConditions m;
  m.sm_clock_min_mhz = 1900 + x;
  m.sm_clock_max_mhz = 1980 + x;
  m.nvml_sm_clock_mhz = 1950 + x;
  m.power_mw = 412345.5 + x;
  m.temperature_c = 61 + x;
  m.clock_reasons = 0x4;
  m.cache = "rotate:12";
  return m;
}

CandidateRecord candidate(const ProblemKey& p, const std::string& config,
                          const std::string& hash = "0123456789abcdef") {
  CandidateRecord c;
  c.problem = p;
  c.family = "simt_tiled";
  c.config = config;
  c.template_hash = hash;
  c.compile_options = "-arch=sm_90 -DBM=128";
  c.outcome = Outcome::ok;
  c.registers = 128;
  c.smem_bytes = 32768;
  c.screen = timing(100.0);
  c.cublas_us = 90.0;
  c.error = 1e-7;
  return c;
}

WinnerRecord winner(const ProblemKey& p, const GpuRecord& gpu, const std::string& config) {
  WinnerRecord w;
  w.problem = p;
  w.gpu = gpu;
  w.software = cuda13;
  w.family = "simt_tiled";
  w.config = config;
  w.template_hash = "0123456789abcdef";
  w.compile_options = "-arch=sm_90";
  w.time_us = 80.5;
  w.cublas_us = 90.25;
  w.tie_band = 0.004;
  w.cubin = {0x7f, 'E', 'L', 'F', 0, 1, 2, 3, 255};
  w.cubin_arch = gpu.arch;
  w.updated_at = "2025-01-02T03:04:05.678Z";
  return w;
}

// Fields of a candidate that a dump carries (ids differ between databases).
void expect_same_candidate(const CandidateRecord& a, const CandidateRecord& b) {
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.template_hash, b.template_hash);
  EXPECT_EQ(a.compile_options, b.compile_options);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.registers, b.registers);
  EXPECT_EQ(a.spill_bytes, b.spill_bytes);
  EXPECT_EQ(a.smem_bytes, b.smem_bytes);
  ASSERT_EQ(a.screen.has_value(), b.screen.has_value());
  if (a.screen) {
    EXPECT_EQ(a.screen->median_us, b.screen->median_us);
    EXPECT_EQ(a.screen->stdev_us, b.screen->stdev_us);
    EXPECT_EQ(a.screen->samples, b.screen->samples);
    EXPECT_EQ(a.screen->discarded, b.screen->discarded);
    EXPECT_EQ(a.screen->sm_clock_mhz, b.screen->sm_clock_mhz);
    EXPECT_TRUE(a.screen->conditions == b.screen->conditions);
  }
  ASSERT_EQ(a.final.has_value(), b.final.has_value());
  if (a.final) {
    EXPECT_EQ(a.final->min_us, b.final->min_us);
    EXPECT_EQ(a.final->mean_us, b.final->mean_us);
    EXPECT_TRUE(a.final->conditions == b.final->conditions);
  }
  EXPECT_EQ(a.cublas_us, b.cublas_us);
  EXPECT_EQ(a.cublas_conditions.has_value(), b.cublas_conditions.has_value());
  if (a.cublas_conditions && b.cublas_conditions) {
    EXPECT_TRUE(*a.cublas_conditions == *b.cublas_conditions);
  }
  EXPECT_EQ(a.error, b.error);
}

void expect_same_winner(const WinnerRecord& a, const WinnerRecord& b) {
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.gpu.name, b.gpu.name);
  EXPECT_EQ(a.gpu.uuid, b.gpu.uuid);
  EXPECT_EQ(a.gpu.arch, b.gpu.arch);
  EXPECT_EQ(a.gpu.sm_count, b.gpu.sm_count);
  EXPECT_EQ(a.gpu.l2_bytes, b.gpu.l2_bytes);
  EXPECT_EQ(a.gpu.default_clock_mhz, b.gpu.default_clock_mhz);
  EXPECT_EQ(a.software.driver, b.software.driver);
  EXPECT_EQ(a.software.cublas, b.software.cublas);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.template_hash, b.template_hash);
  EXPECT_EQ(a.compile_options, b.compile_options);
  EXPECT_EQ(a.time_us, b.time_us);
  EXPECT_EQ(a.cublas_us, b.cublas_us);
  EXPECT_EQ(a.tie_band, b.tie_band);
  EXPECT_EQ(a.cubin, b.cubin);
  EXPECT_EQ(a.cubin_arch, b.cubin_arch);
  EXPECT_EQ(a.updated_at, b.updated_at);
}

std::int64_t count(Database& db, const char* sql) {
  Statement s(db, sql);
  EXPECT_TRUE(s.step());
  return s.column_int64(0);
}

TEST(Outcome, NamesRoundTrip) {
  for (Outcome o :
       {Outcome::ok, Outcome::compile_failed, Outcome::resources_exceeded, Outcome::launch_failed,
        Outcome::incorrect, Outcome::timed_out, Outcome::skipped})
    EXPECT_EQ(parse_outcome(outcome_name(o)), o);
  EXPECT_EQ(outcome_name(Outcome::compile_failed), "compile_failed");
  try {
    parse_outcome("exploded");
    FAIL() << "an unknown outcome must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value);
    EXPECT_NE(std::string(e.what()).find("exploded"), std::string::npos);
  }
}

TEST(TuningStore, RunsBeginAndFinish) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  RunRecord run;
  run.host = "node-7";
  run.command = "sgemm-tune tune --shapes llama.csv";
  run.clock_policy = "observe";
  run.seed = std::numeric_limits<std::uint64_t>::max() - 1;  // above int64: stored by its bits
  run.notes = R"({"nvml": "ok"})";
  const std::int64_t id = store.begin_run(run, h200, cuda13);
  EXPECT_GT(id, 0);
  auto stored = store.run(id);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->status, "running");
  EXPECT_EQ(stored->seed, run.seed);
  EXPECT_EQ(stored->host, "node-7");
  EXPECT_EQ(stored->started_at.size(), 24u);  // 2025-01-02T03:04:05.678Z
  EXPECT_TRUE(stored->finished_at.empty());

  store.finish_run(id, "done");
  stored = store.run(id);
  EXPECT_EQ(stored->status, "done");
  EXPECT_FALSE(stored->finished_at.empty());
  EXPECT_EQ(store.runs().size(), 1u);
  EXPECT_FALSE(store.run(id + 100).has_value());
  EXPECT_THROW(store.finish_run(id + 100, "done"), Error);
}

TEST(TuningStore, RecordCandidateUpsertsOnItsKey) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  const std::int64_t run = store.begin_run({}, h200, cuda13);
  const ProblemKey p = problem(4096, 4096, 4096);

  CandidateRecord c = candidate(p, "BM=128,BN=128");
  const std::int64_t first = store.record_candidate(run, h200, cuda13, c);
  c.screen = timing(95.0);
  c.final = timing(93.5);
  c.error = std::nullopt;
  c.message = "re-measured";
  const std::int64_t second = store.record_candidate(run, h200, cuda13, c);
  EXPECT_EQ(first, second);
  EXPECT_EQ(count(db, "SELECT count(*) FROM candidates"), 1);

  const auto rows = store.candidates(p, h200, cuda13);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, first);
  EXPECT_EQ(rows[0].run_id, run);
  expect_same_candidate(rows[0], c);
  ASSERT_TRUE(rows[0].final.has_value());
  EXPECT_EQ(rows[0].final->median_us, 93.5);
  EXPECT_FALSE(rows[0].error.has_value());

  // A different template hash is a different candidate.
  store.record_candidate(run, h200, cuda13, candidate(p, "BM=128,BN=128", "fedcba9876543210"));
  EXPECT_EQ(count(db, "SELECT count(*) FROM candidates"), 2);
}

TEST(TuningStore, ConditionsRoundTripAndStayNullWhenNotObserved) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  const ProblemKey p = problem(4096, 16, 4096);
  CandidateRecord c = candidate(p, "BM=64");
  c.screen->conditions = observed(0.5);
  c.final = timing(93.5);
  c.final->conditions = observed(1.5);
  c.final->conditions.power_mw.reset();  // NVML without power: that field alone NULL
  c.cublas_conditions = observed(2.5);
  c.cublas_conditions->clock_reasons = 0x8000000000000001ull;  // all 64 bits survive SQLite
  store.record_candidate(0, h200, cuda13, c);
  auto rows = store.candidates(p, h200, cuda13);
  ASSERT_EQ(rows.size(), 1u);
  expect_same_candidate(rows[0], c);
  EXPECT_EQ(*rows[0].final->conditions.temperature_c, 62.5);
  EXPECT_EQ(*rows[0].cublas_conditions->clock_reasons, 0x8000000000000001ull);
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM candidates WHERE final_power_mw IS NULL AND "
                  "final_temperature_c = 62.5 AND screen_power_mw = 412346 AND "
                  "cublas_cache = 'rotate:12'"),
            1);

  // Re-measured without NVML: the replaced row loses the old readings, it does not keep them.
  c.screen->conditions = {};
  c.final->conditions = {};
  c.cublas_conditions.reset();
  store.record_candidate(0, h200, cuda13, c);
  rows = store.candidates(p, h200, cuda13);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].screen->conditions == MeasureConditions{});
  EXPECT_TRUE(rows[0].final->conditions == MeasureConditions{});
  EXPECT_FALSE(rows[0].cublas_conditions.has_value());
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM candidates WHERE screen_power_mw IS NULL AND "
                  "final_sm_clock_min_mhz IS NULL AND cublas_clock_reasons IS NULL AND "
                  "screen_cache IS NULL"),
            1);
}

TEST(TuningStore, FailedCandidatesAreRecordedWithoutTimings) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  const ProblemKey p = problem(1000, 1000, 1000, Op::T, Op::N, 1);
  CandidateRecord c = candidate(p, "BM=256,BN=256");
  c.outcome = Outcome::resources_exceeded;
  c.message = "ptxas: 300 registers > 255";
  c.screen.reset();
  c.cublas_us.reset();
  c.error.reset();
  store.record_candidate(0, h200, cuda13, c);
  const auto rows = store.candidates(p, h200, cuda13);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].outcome, Outcome::resources_exceeded);
  EXPECT_EQ(rows[0].run_id, 0);
  EXPECT_FALSE(rows[0].screen.has_value());
  EXPECT_FALSE(rows[0].cublas_us.has_value());
  expect_same_candidate(rows[0], c);
}

TEST(TuningStore, InvalidProblemIsRejected) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  CandidateRecord c = candidate(problem(64, 64, 64), "x");
  c.problem.lda = 1;  // smaller than m
  try {
    store.record_candidate(0, h200, cuda13, c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value);
  }
  EXPECT_EQ(count(db, "SELECT count(*) FROM candidates"), 0);
}

TEST(TuningStore, ResumeListsOnlyThatProblemGpuAndSoftware) {
  TempDir dir;
  const std::string path = dir.file("t.db");
  const ProblemKey p = problem(4096, 16, 4096);
  {
    Database db = Database::open(path, OpenMode::create);
    TuningStore store(db);
    const std::int64_t run = store.begin_run({}, h200, cuda13);
    for (const char* config : {"BM=64", "BM=32", "BM=128"})
      store.record_candidate(run, h200, cuda13, candidate(p, config));
    store.record_candidate(run, h200, cuda13, candidate(p, "BM=16", "oldhash000000000"));
    store.record_candidate(run, h200, cuda13, candidate(problem(4096, 32, 4096), "BM=64"));
    store.record_candidate(run, h200_other_unit, cuda13, candidate(p, "BM=256"));
    store.record_candidate(run, h200, cuda12, candidate(p, "BM=512"));
    // The run never finishes: the process was interrupted.
  }
  Database db = Database::open(path, OpenMode::read_write);
  TuningStore store(db);
  EXPECT_EQ(store.runs().at(0).status, "running");
  const auto rows = store.candidates(p, h200, cuda13);
  std::vector<std::string> configs;
  for (const auto& r : rows) configs.push_back(r.config);
  EXPECT_EQ(configs, (std::vector<std::string>{"BM=128", "BM=16", "BM=32", "BM=64"}));

  const auto current = store.candidates(p, h200, cuda13, "0123456789abcdef");
  EXPECT_EQ(current.size(), 3u);
  EXPECT_TRUE(store.candidates(p, a100, cuda13).empty());
  EXPECT_EQ(store.candidates(p, h200_other_unit, cuda13).size(), 1u);
}

TEST(TuningStore, WinnerSetFindAndReplace) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  const ProblemKey p = problem(4096, 4096, 4096);
  const std::int64_t cid = store.record_candidate(0, h200, cuda13, candidate(p, "BM=128"));

  EXPECT_FALSE(store.find_winner(p, h200.name, h200.arch).has_value());
  WinnerRecord w = winner(p, h200, "BM=128");
  w.candidate_id = cid;
  store.set_winner(w);
  auto found = store.find_winner(p, h200.name, h200.arch);
  ASSERT_TRUE(found.has_value());
  expect_same_winner(*found, w);
  EXPECT_EQ(found->candidate_id, cid);
  EXPECT_TRUE(store.find_winner(p, h200.name, h200.arch, 132).has_value());
  EXPECT_FALSE(store.find_winner(p, h200.name, h200.arch, 114).has_value());
  EXPECT_FALSE(store.find_winner(p, h200.name, "sm_80").has_value());
  EXPECT_FALSE(store.find_winner(problem(4096, 4096, 2048), h200.name, h200.arch).has_value());

  // Re-tuned on another unit of the same model, cuBLAS won: the one row is replaced.
  WinnerRecord cublas = winner(p, h200_other_unit, "");
  cublas.family = "cublas";
  cublas.template_hash = "";
  cublas.cubin.clear();
  cublas.cubin_arch = "";
  cublas.updated_at.clear();  // defaults to now
  store.set_winner(cublas);
  EXPECT_EQ(count(db, "SELECT count(*) FROM winners"), 1);
  found = store.find_winner(p, h200.name, h200.arch);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->family, "cublas");
  EXPECT_EQ(found->gpu.uuid, h200_other_unit.uuid);
  EXPECT_EQ(found->candidate_id, 0);
  EXPECT_TRUE(found->cubin.empty());
  EXPECT_FALSE(found->updated_at.empty());

  WinnerRecord missing_family = w;
  missing_family.family.clear();
  EXPECT_THROW(store.set_winner(missing_family), Error);
  WinnerRecord dangling = w;
  dangling.candidate_id = cid + 1000;  // no such candidate: the foreign key refuses it
  EXPECT_THROW(store.set_winner(dangling), Error);
}

TEST(TuningStore, WinnerListingsFilterAndOrder) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  store.set_winner(winner(problem(4096, 4096, 4096), h200, "a"));
  store.set_winner(winner(problem(1024, 1024, 1024), h200, "b"));
  store.set_winner(winner(problem(1024, 1024, 1024, Op::T), h200, "c"));
  store.set_winner(winner(problem(1024, 1024, 1024, Op::N, Op::N, 2), h200, "d"));
  store.set_winner(winner(problem(2048, 2048, 2048), a100, "e"));

  const auto all = store.winners();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].gpu.arch, "sm_80");  // ordered by arch first
  EXPECT_EQ(store.winners("sm_90").size(), 4u);
  EXPECT_EQ(store.winners("sm_80").size(), 1u);
  EXPECT_TRUE(store.winners("sm_100").empty());
  EXPECT_FALSE(store.winners("sm_90")[0].cubin.empty());
  EXPECT_TRUE(store.winners("sm_90", false)[0].cubin.empty());

  const auto nn4 = store.winners_for(Op::N, Op::N, 4, h200.name, h200.arch);
  ASSERT_EQ(nn4.size(), 2u);
  EXPECT_EQ(nn4[0].config, "b");  // 1024 before 4096
  EXPECT_EQ(nn4[1].config, "a");
  EXPECT_EQ(store.winners_for(Op::T, Op::N, 4, h200.name, h200.arch).at(0).config, "c");
  EXPECT_EQ(store.winners_for(Op::N, Op::N, 2, h200.name, h200.arch).at(0).config, "d");
  EXPECT_TRUE(store.winners_for(Op::N, Op::T, 4, h200.name, h200.arch).empty());
}

// A store with one of everything a dump carries, the awkward values included.
void populate(TuningStore& store) {
  RunRecord run;
  run.started_at = "2025-03-01T10:00:00.000Z";
  run.host = "node-1";
  run.command = "sgemm-tune tune";
  run.clock_policy = "lock:1755";
  run.seed = 18446744073709551615ull;
  run.notes = R"({"warnings": ["clock throttled"]})";
  const std::int64_t run_a = store.begin_run(run, h200, cuda13);
  store.finish_run(run_a, "done");
  run.started_at = "2025-03-02T10:00:00.000Z";
  const std::int64_t run_b = store.begin_run(run, a100, cuda12);

  const ProblemKey p = problem(4096, 16, 4096, Op::T, Op::N, 4);
  CandidateRecord c = candidate(p, "BM=64,BN=16");
  c.message = "multi-line\nlog with \"quotes\", tabs\t and unicode \xc3\xa9";
  c.final = timing(1.0 / 3.0);
  c.final->conditions = observed(1.0 / 3.0);
  c.screen->conditions.cache = "cold-flush";  // only the cache mode known
  c.cublas_conditions = observed(2.5);
  c.cublas_conditions->clock_reasons = 0x4 | 0x80;
  const std::int64_t cid = store.record_candidate(run_a, h200, cuda13, c);
  CandidateRecord failed = candidate(p, "BM=256,BN=16");
  failed.outcome = Outcome::compile_failed;
  failed.screen.reset();
  failed.cublas_us.reset();
  failed.error = std::numeric_limits<double>::infinity();
  store.record_candidate(run_a, h200, cuda13, failed);
  store.record_candidate(run_b, a100, cuda12, candidate(problem(128, 128, 128), "BM=32"));
  store.record_candidate(0, a100, cuda12, candidate(problem(256, 128, 128), "BM=32"));

  WinnerRecord w = winner(p, h200, "BM=64,BN=16");
  w.candidate_id = cid;
  w.time_us = 0.1 + 0.2;  // not representable in a short decimal: must still round-trip
  store.set_winner(w);
  WinnerRecord cublas = winner(problem(128, 128, 128), a100, "");
  cublas.family = "cublas";
  cublas.cubin.clear();
  cublas.cubin_arch.clear();
  store.set_winner(cublas);
}

TEST(TuningStore, ExportImportRoundTrip) {
  TempDir dir;
  Database source = Database::open(dir.file("a.db"), OpenMode::create);
  TuningStore a(source);
  populate(a);
  ExportOptions with_cubins;
  with_cubins.include_cubins = true;
  const std::string dump = a.export_json(with_cubins);
  EXPECT_NE(dump.find(R"("cublas_conditions":{"sm_clock_min_mhz":1902.5)"), std::string::npos);
  EXPECT_NE(dump.find(R"("conditions":{"cache":"cold-flush"})"), std::string::npos);

  Database target = Database::open(dir.file("b.db"), OpenMode::create);
  TuningStore b(target);
  const ImportSummary summary = b.import_json(dump);
  EXPECT_EQ(summary.gpus, 2);
  EXPECT_EQ(summary.software, 2);
  EXPECT_EQ(summary.runs, 2);
  EXPECT_EQ(summary.candidates, 4);
  EXPECT_EQ(summary.winners, 2);
  EXPECT_EQ(b.export_json(with_cubins), dump);

  const ProblemKey p = problem(4096, 16, 4096, Op::T, Op::N, 4);
  const auto before = a.candidates(p, h200, cuda13);
  const auto after = b.candidates(p, h200, cuda13);
  ASSERT_EQ(before.size(), 2u);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) expect_same_candidate(after[i], before[i]);
  EXPECT_EQ(after[0].config, "BM=256,BN=16");  // ordered by config: '2' before '6'
  EXPECT_TRUE(std::isinf(*after[0].error));

  const auto winners_before = a.winners();
  const auto winners_after = b.winners();
  ASSERT_EQ(winners_after.size(), winners_before.size());
  for (std::size_t i = 0; i < winners_before.size(); ++i)
    expect_same_winner(winners_after[i], winners_before[i]);
  // The winner's candidate is found again in the new database by its key.
  const auto w = b.find_winner(p, h200.name, h200.arch);
  ASSERT_TRUE(w.has_value());
  ASSERT_NE(w->candidate_id, 0);
  EXPECT_EQ(w->candidate_id, after[1].id);

  const auto runs = b.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].seed, 18446744073709551615ull);
  EXPECT_EQ(runs[0].status, "done");
  EXPECT_EQ(runs[1].status, "running");

  // Importing again merges: nothing is duplicated.
  b.import_json(dump);
  EXPECT_EQ(b.export_json(with_cubins), dump);
  EXPECT_EQ(count(target, "SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(count(target, "SELECT count(*) FROM candidates"), 4);
}

TEST(TuningStore, ExportIsStableAndLeavesCubinsOutByDefault) {
  TempDir dir;
  Database db1 = Database::open(dir.file("a.db"), OpenMode::create);
  Database db2 = Database::open(dir.file("b.db"), OpenMode::create);
  TuningStore a(db1), b(db2);
  const auto w1 = winner(problem(64, 64, 64), h200, "x");
  const auto w2 = winner(problem(32, 32, 32), a100, "y");
  a.set_winner(w1);
  a.set_winner(w2);
  b.set_winner(w2);  // the other insertion order
  b.set_winner(w1);
  const std::string dump = a.export_json();
  EXPECT_EQ(dump, b.export_json());
  EXPECT_EQ(dump.find("\"cubin\":"), std::string::npos);
  EXPECT_NE(a.export_json({.include_cubins = true}).find("\"cubin\":"), std::string::npos);
  // One record per line, so a changed row is a one-line diff.
  EXPECT_NE(dump.find("\n{\"problem\":{\"transa\":\"N\""), std::string::npos) << dump;
  const std::string winners_only = a.export_json({.include_candidates = false});
  EXPECT_EQ(winners_only.find("\"candidates\""), std::string::npos);
  // Winners only: just the GPUs the winners were tuned on. h200's problem is retuned on another
  // unit of the model, and the full dump still names both units.
  EXPECT_NE(winners_only.find(h200.uuid), std::string::npos);
  a.set_winner(winner(problem(64, 64, 64), h200_other_unit, "z"));
  const std::string retuned = a.export_json({.include_candidates = false});
  EXPECT_NE(retuned.find(h200_other_unit.uuid), std::string::npos);
  EXPECT_NE(retuned.find(a100.uuid), std::string::npos);
  EXPECT_EQ(retuned.find(h200.uuid), std::string::npos) << retuned;
  EXPECT_NE(a.export_json().find(h200.uuid), std::string::npos);
  Database db4 = Database::open(dir.file("d.db"), OpenMode::create);
  TuningStore d(db4);
  d.import_json(retuned);
  EXPECT_EQ(d.winners().size(), 2u);

  // Importing a dump without cubins keeps the cubin of a winner that is still the same kernel.
  Database db3 = Database::open(dir.file("c.db"), OpenMode::create);
  TuningStore c(db3);
  c.set_winner(w1);
  c.import_json(dump);
  EXPECT_EQ(c.find_winner(w1.problem, h200.name, h200.arch)->cubin, w1.cubin);
  EXPECT_TRUE(c.find_winner(w2.problem, a100.name, a100.arch)->cubin.empty());
}

// Expects import to fail with invalid_value naming every fragment, and to change nothing.
void expect_import_error(const std::string& text, const std::vector<std::string>& fragments) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  TuningStore store(db);
  store.set_winner(winner(problem(8, 8, 8), h200, "kept"));
  const std::string before = store.export_json();
  try {
    store.import_json(text);
    ADD_FAILURE() << "import should have failed: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value) << e.what();
    for (const auto& fragment : fragments)
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "'" << fragment << "' not in: " << e.what();
  }
  EXPECT_EQ(store.export_json(), before);
}

// The messages themselves are db_json_dump_test's; here a malformed dump must change nothing,
// also when its error comes after valid records.
TEST(TuningStore, MalformedImportChangesNothing) {
  const std::string head = R"({"format": "sgemm-tune-db", "version": 1, )";
  const std::string gpus =
      R"("gpus": [{"name": "G", "uuid": "u", "arch": "sm_90", "sm_count": 1, "l2_bytes": 1,
                   "default_clock_mhz": 1}], "software": [{"driver": "d", "runtime": "r",
                   "nvrtc": "n", "cublas": "c"}], )";
  const std::string p = R"({"transa": "N", "transb": "N", "m": 8, "n": 8, "k": 8, "lda": 8,
                            "ldb": 8, "ldc": 8, "align": 4})";
  auto cand = [&](const std::string& outcome) {
    return R"({"problem": )" + p + R"(, "gpu": 0, "software": 0, "run": null,
      "family": "f", "config": "c", "template_hash": "h", "compile_options": "", "outcome": ")" +
           outcome + R"(", "message": "", "registers": 1, "spill_bytes": 0, "smem_bytes": 0,
      "screen": null, "final": null, "cublas_us": null, "error": null})";
  };
  // A valid winner and a valid candidate first: the failure later must leave them out too.
  const std::string good_winner =
      R"({"problem": )" + p + R"(, "gpu": 0, "software": 0, "family": "simt", "config": "new",
      "template_hash": "h", "compile_options": "", "time_us": 1, "cublas_us": 2,
      "tie_band": 0, "cubin_arch": "", "updated_at": "t"})";

  expect_import_error("{not json", {"not valid JSON"});
  expect_import_error(R"({"format": "sgemm-tune-db", "version": 9})",
                      {"dump.version", "not supported"});
  expect_import_error(head + gpus + R"("candidates": [)" + cand("ok") + "," + cand("okay") + "]}",
                      {"candidates[1].outcome", "okay"});
  expect_import_error(head + gpus + R"("candidates": [)" + cand("ok") + R"(], "winners": [)" +
                          good_winner + "," + R"({"problem": )" + p +
                          R"(, "gpu": 4, "software": 0})" + "]}",
                      {"winners[1].gpu", "past the end"});
  std::string bad_cubin = good_winner;
  bad_cubin.insert(bad_cubin.size() - 1, R"(, "cubin": "@@@@")");
  expect_import_error(head + gpus + R"("winners": [)" + good_winner + "," + bad_cubin + "]}",
                      {"winners[1].cubin", "base64"});
}

// Each writer opens its own connection, as two tuning processes would.
void write_candidates(const std::string& path, const std::string& tag, int count) {
  Database db = Database::open(path, OpenMode::create);
  TuningStore store(db);
  const std::int64_t run = store.begin_run({.host = tag}, h200, cuda13);
  for (int i = 0; i < count; ++i)
    store.record_candidate(run, h200, cuda13,
                           candidate(problem(64 + i % 7, 64, 64), tag + "-" + std::to_string(i)));
  store.finish_run(run, "done");
}

TEST(TuningStore, TwoProcessesWriteOneFileConcurrently) {
  TempDir dir;
  const std::string path = dir.file("shared.db");  // created by whichever child is first
  std::vector<pid_t> children;
  for (const char* tag : {"proc-a", "proc-b"}) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        write_candidates(path, tag, 200);
      } catch (const std::exception& e) {
        fprintf(stderr, "%s: %s\n", tag, e.what());
        code = 1;
      }
      _exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "a writer process failed (see stderr)";
  }
  Database db = Database::open(path, OpenMode::read_only);
  EXPECT_EQ(count(db, "SELECT count(*) FROM candidates"), 400);
  EXPECT_EQ(count(db, "SELECT count(*) FROM runs WHERE status = 'done'"), 2);
  EXPECT_EQ(count(db, "SELECT count(*) FROM problems"), 7);
  EXPECT_EQ(db.integrity_check(), "ok");
}

TEST(TuningStore, TwoThreadsWriteOneFileConcurrently) {
  TempDir dir;
  const std::string path = dir.file("shared.db");
  Database::open(path, OpenMode::create);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      try {
        write_candidates(path, "thread-" + std::to_string(t), 100);
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors, (std::vector<std::string>{"", ""}));
  Database db = Database::open(path, OpenMode::read_only);
  EXPECT_EQ(count(db, "SELECT count(*) FROM candidates"), 200);
  EXPECT_EQ(db.integrity_check(), "ok");
}

TEST(TuningStore, ReaderSeesCommittedRowsWhileWriterIsOpen) {
  TempDir dir;
  const std::string path = dir.file("t.db");
  Database writer_db = Database::open(path, OpenMode::create);
  TuningStore writer(writer_db);
  writer.set_winner(winner(problem(64, 64, 64), h200, "x"));
  Database reader_db = Database::open(path, OpenMode::read_only);
  TuningStore reader(reader_db);
  EXPECT_EQ(reader.winners().size(), 1u);
  writer.set_winner(winner(problem(32, 32, 32), h200, "y"));
  EXPECT_EQ(reader.winners().size(), 2u);
}

}  // namespace
