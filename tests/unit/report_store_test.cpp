// Reports over a small database built through TuningStore (no GPU): per-problem facts, own-best
// choice, explain's runner-ups and failures, the three formats, plot scripts, and merge.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/error.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "report/explain.hpp"
#include "report/format.hpp"
#include "report/merge.hpp"
#include "report/plot.hpp"
#include "report/problem_report.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace sgt;

namespace sgt::report_testing {

const GpuRecord h200{"NVIDIA H200", "GPU-aaaa", "sm_90", 132, 62914560, 1980};
const GpuRecord h200_b{"NVIDIA H200", "GPU-bbbb", "sm_90", 132, 62914560, 1980};
const SoftwareRecord cuda13{"580.65", "13.0", "13.0.48", "13.1.0"};

// A real f1_simt configuration (256 threads, 128x... tiles) and two neighbours.
const std::string f1_a =
    "BK=16,BM=256,BN=128,MIN_BLOCKS=1,PAD=4,RASTER=1,REGDB=1,SPLITK=1,STAGES=3,TM=8,TN=16,WM=64,WN="
    "64";
const std::string f1_b =
    "BK=16,BM=256,BN=128,MIN_BLOCKS=1,PAD=4,RASTER=1,REGDB=1,SPLITK=1,STAGES=4,TM=8,TN=16,WM=64,WN="
    "64";
const std::string f1_c =
    "BK=8,BM=256,BN=64,MIN_BLOCKS=1,PAD=4,RASTER=1,REGDB=1,SPLITK=1,STAGES=4,TM=8,TN=16,WM=64,WN="
    "64";
const std::string f1_d =
    "BK=8,BM=128,BN=64,MIN_BLOCKS=1,PAD=4,RASTER=1,REGDB=1,SPLITK=2,STAGES=4,TM=8,TN=8,WM=64,WN=32";

ProblemKey square(int n) { return with_minimal_leading_dimensions({Op::N, Op::N, n, n, n}); }

TimingRecord timing(double median) {
  return {median, median * 0.99, median, median * 0.01, 30, 0, 1980};
}

CandidateRecord candidate(const ProblemKey& p, const std::string& config, Outcome outcome,
                          std::optional<double> screen_us, std::optional<double> final_us,
                          std::optional<double> cublas_us, int registers = 200, int smem = 75264) {
  CandidateRecord c;
  c.problem = p;
  c.family = "f1_simt";
  c.config = config;
  c.template_hash = "hash1";
  c.compile_options = "-arch=sm_90";
  c.outcome = outcome;
  c.registers = registers;
  c.smem_bytes = smem;
  if (screen_us) c.screen = timing(*screen_us);
  if (final_us) c.final = timing(*final_us);
  c.cublas_us = cublas_us;
  if (outcome == Outcome::resources_exceeded)
    c.message = "128 registers x 256 threads, 284 bytes spilled";
  return c;
}

WinnerRecord winner(const ProblemKey& p, const GpuRecord& gpu, const std::string& family,
                    const std::string& config, double time_us, double cublas_us) {
  WinnerRecord w;
  w.problem = p;
  w.gpu = gpu;
  w.software = cuda13;
  w.family = family;
  w.config = config;
  w.template_hash = family == "cublas" ? "" : "hash1";
  w.time_us = time_us;
  w.cublas_us = cublas_us;
  w.tie_band = 0.01;
  w.updated_at = "2026-12-01T08:00:00Z";
  return w;
}

// 2048^3: f1 wins at 300 us over cuBLAS at 342 us. 1024^3: cuBLAS wins; the best own kernel
// is the finalist at 64.5 us even though a screen-only estimate reads 60 us.
void write_small_database(const std::string& path, const GpuRecord& gpu = h200,
                          const std::string& host = "host-a") {
  Database db = Database::open(path, OpenMode::create);
  TuningStore store(db);
  RunRecord run;
  run.host = host;
  run.command = "sgemm-tune tune --shapes test.csv";
  run.clock_policy = "observe";
  const std::int64_t run_id = store.begin_run(run, gpu, cuda13);
  const ProblemKey big = square(2048), small = square(1024);
  CandidateRecord a = candidate(big, f1_a, Outcome::ok, 301, 300, 342);
  a.final->discarded = 2;
  a.final->conditions = {1935.0, 1980.0, 1965.0, 402400.0, 61.0, 0x4, "rotate:3"};
  a.cublas_conditions = a.final->conditions;
  store.record_candidate(run_id, gpu, cuda13, a);
  store.record_candidate(run_id, gpu, cuda13, candidate(big, f1_b, Outcome::ok, 309, 315, 342, 0));
  store.record_candidate(run_id, gpu, cuda13,
                         candidate(big, f1_c, Outcome::ok, 305, std::nullopt, std::nullopt));
  store.record_candidate(
      run_id, gpu, cuda13,
      candidate(big, f1_d, Outcome::resources_exceeded, std::nullopt, std::nullopt, std::nullopt));
  store.record_candidate(
      run_id, gpu, cuda13,
      candidate(big, "BK=4", Outcome::skipped, std::nullopt, std::nullopt, std::nullopt));
  store.record_candidate(run_id, gpu, cuda13,
                         candidate(small, f1_b, Outcome::ok, 64.6, 64.5, 63.9));
  store.record_candidate(run_id, gpu, cuda13,
                         candidate(small, f1_c, Outcome::ok, 60.0, std::nullopt, std::nullopt));
  store.set_winner(winner(big, gpu, "f1_simt", f1_a, 300, 342));
  store.set_winner(winner(small, gpu, "cublas", "", 63.87, 63.87));
  store.finish_run(run_id, "done");
}

}  // namespace sgt::report_testing

namespace {

using namespace sgt::report;
using namespace sgt::report_testing;

using sgt::testing::TempDir;

class ReportStore : public ::testing::Test {
 protected:
  void SetUp() override {
    write_small_database(dir.file("small.db"));
    db = std::make_unique<Database>(Database::open(dir.file("small.db"), OpenMode::read_only));
    store = std::make_unique<TuningStore>(*db);
    reports = build_report(*store, {});
    ASSERT_EQ(reports.size(), 2u);
  }
  const ProblemReport& find(int n) const {
    for (const ProblemReport& r : reports)
      if (r.problem.m == n) return r;
    throw std::runtime_error("no such problem");
  }
  TempDir dir;
  std::unique_ptr<Database> db;
  std::unique_ptr<TuningStore> store;
  std::vector<ProblemReport> reports;
};

TEST_F(ReportStore, WinnerAgainstCublasAndTheRoofline) {
  const ProblemReport& r = find(2048);
  EXPECT_EQ(r.label, "NN 2048x2048x2048");
  EXPECT_FALSE(r.cublas_won());
  EXPECT_DOUBLE_EQ(r.tuned_us, 300);
  EXPECT_NEAR(r.ratio(), 342.0 / 300.0, 1e-12);
  EXPECT_NEAR(r.peak_tflops, 66.908, 1e-3);
  EXPECT_NEAR(r.tuned_tflops(), 2.0 * 2048.0 * 2048 * 2048 / 300e-6 / 1e12, 1e-9);
  EXPECT_NEAR(r.pct_peak(), 100.0 * r.tuned_tflops() / r.peak_tflops, 1e-9);
  EXPECT_NEAR(r.floor_us, 2.0 * 2048.0 * 2048 * 2048 / (r.peak_tflops * 1e6), 1e-9);
  EXPECT_NEAR(r.pct_floor(), 100.0 * r.floor_us / 300.0, 1e-9);
  EXPECT_EQ(r.bound, Bound::compute);
  EXPECT_EQ(r.tried, 5);
  EXPECT_EQ(r.ok, 3);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.skipped, 1);
  EXPECT_EQ(r.failures.at("resources_exceeded"), 1);
}

TEST_F(ReportStore, OwnKernelOfAKernelWinnerIsTheWinnerWithItsResources) {
  const ProblemReport& r = find(2048);
  ASSERT_TRUE(r.own.has_value());
  const KernelFacts& k = *r.own;
  EXPECT_EQ(k.config, f1_a);
  EXPECT_EQ(k.stage, "winner");
  EXPECT_EQ(k.registers, 200);
  EXPECT_EQ(k.smem_bytes, 75264);
  ASSERT_TRUE(k.geometry_known);
  EXPECT_EQ(k.threads, 256);         // (256/64) x (128/64) warps
  EXPECT_EQ(k.grid_blocks, 8 * 16);  // 2048/256 x 2048/128
  // 200 registers: 6400 per warp, 2 warps per sub-partition: one 8-warp block per SM.
  EXPECT_EQ(k.occupancy.blocks_per_sm, 1);
  EXPECT_EQ(k.occupancy.limiter, "registers");
  EXPECT_NEAR(k.waves, 128.0 / 132.0, 1e-12);
}

TEST_F(ReportStore, OwnKernelOfACublasWinnerIsTheFastestFinalist) {
  const ProblemReport& r = find(1024);
  EXPECT_TRUE(r.cublas_won());
  EXPECT_DOUBLE_EQ(r.tuned_us, 63.87);
  EXPECT_DOUBLE_EQ(r.ratio(), 1.0);
  ASSERT_TRUE(r.own.has_value());
  EXPECT_EQ(r.own->config, f1_b);  // the 60 us screen estimate never outranks a finalist
  EXPECT_EQ(r.own->stage, "final");
  EXPECT_NEAR(r.own->ratio(), 63.9 / 64.5, 1e-12);
  EXPECT_NEAR(geomean_ratio(reports), std::sqrt(342.0 / 300.0), 1e-12);
  EXPECT_NEAR(geomean_ratio(reports, true), std::sqrt(342.0 / 300.0 * 63.9 / 64.5), 1e-12);
}

// A cuBLASLt algorithm won: its time is the winner's, and the own kernel is the best own
// finalist. The algorithms cuBLASLt screened are stored beside the candidates (family
// "cublaslt") and neither counted nor ranked among them.
TEST_F(ReportStore, OwnKernelOfACublasLtWinnerIsTheFastestFinalist) {
  const sgt::ProblemKey small = square(1024);
  const sgt::WinnerRecord w = winner(small, h200, "cublaslt", "id=20,tile=24,algo=00", 58.7, 63.9);
  const ProblemReport without_lt =
      make_problem_report(w, store->candidates(small, h200, cuda13), 4.3);
  std::vector<CandidateRecord> candidates = store->candidates(small, h200, cuda13);
  CandidateRecord lt = candidate(small, "id=20,tile=24,algo=00", Outcome::ok, 40.0, {}, 64.5);
  lt.family = "cublaslt";
  lt.template_hash = "";
  candidates.push_back(lt);
  const ProblemReport r = make_problem_report(w, candidates, 4.3);
  EXPECT_EQ(r.tried, without_lt.tried);
  EXPECT_EQ(r.ok, without_lt.ok);
  EXPECT_FALSE(r.cublas_won());
  EXPECT_FALSE(r.own_won());
  EXPECT_DOUBLE_EQ(r.tuned_us, 58.7);
  EXPECT_NEAR(r.ratio(), 63.9 / 58.7, 1e-12);
  ASSERT_TRUE(r.own.has_value());
  EXPECT_EQ(r.own->family, "f1_simt");
  EXPECT_EQ(r.own->config, f1_b);
  const Explanation e = explain(w, candidates, 4.3, 5);
  for (const KernelFacts& k : e.runner_ups) EXPECT_EQ(k.family, "f1_simt");
  const std::string text = format_explanation(e, false);
  EXPECT_NE(text.find("winner: cublaslt id=20"), std::string::npos) << text;
  EXPECT_NE(text.find("best own kernel: f1_simt"), std::string::npos) << text;
}

TEST_F(ReportStore, ExplainListsRunnerUpsBehindTheWinnerAndFailures) {
  const auto w = store->find_winner(square(2048), "NVIDIA H200", "sm_90");
  ASSERT_TRUE(w.has_value());
  const Explanation e = explain(*w, store->candidates(w->problem, w->gpu, w->software), 4.3);
  ASSERT_EQ(e.runner_ups.size(), 2u);  // the winner itself left out
  EXPECT_EQ(e.runner_ups[0].config, f1_b);
  EXPECT_EQ(e.runner_ups[1].config, f1_c);
  EXPECT_EQ(e.runner_ups[1].stage, "screen");
  EXPECT_FALSE(e.runner_ups[0].occupancy.registers_known);
  EXPECT_EQ(e.failure_example.at("resources_exceeded"),
            "128 registers x 256 threads, 284 bytes spilled");
  const std::string text = format_explanation(e, false);
  EXPECT_NE(text.find("winner: f1_simt " + f1_a), std::string::npos) << text;
  EXPECT_NE(text.find("+5.0%"), std::string::npos) << text;        // 315 us vs 300 us
  EXPECT_NE(text.find("STAGES 3->4"), std::string::npos) << text;  // what the runner-up changed
  EXPECT_NE(text.find("1 blocks/SM, limited by registers"), std::string::npos) << text;
  EXPECT_NE(text.find("resources_exceeded 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("\033["), std::string::npos);
  const auto j = explanation_json(e);
  EXPECT_NEAR(j["runner_ups"][0]["behind_pct"].get<double>(), 5.0, 1e-9);
  EXPECT_EQ(j["runner_ups"][0]["differs_in"], "STAGES 3->4");
}

TEST_F(ReportStore, StatesHowTheKernelsWereMeasured) {
  const ProblemReport& big = find(2048);
  ASSERT_TRUE(big.own.has_value());
  EXPECT_EQ(big.own->clock_policy, "observe");
  EXPECT_EQ(big.own->samples, 30);
  EXPECT_EQ(big.own->discarded, 2);
  EXPECT_EQ(big.own->conditions.cache, "rotate:3");
  ASSERT_TRUE(big.own->cublas_conditions.has_value());
  const ProblemReport& small = find(1024);  // cuBLAS won; own best measured without NVML
  ASSERT_TRUE(small.own.has_value());
  EXPECT_EQ(small.own->clock_policy, "observe");
  EXPECT_FALSE(small.own->conditions.power_mw.has_value());

  const std::string md = format_markdown(reports);
  const auto section = md.find("### How those kernels were measured");
  ASSERT_NE(section, std::string::npos) << md;
  const std::string table = md.substr(section);
  for (const char* text : {"clocks", "discarded", "observe", "rotate:3", "1935-1980", "1965", "402",
                           "61", "SwPowerCap"})
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;

  const std::string csv = format_csv(reports);
  EXPECT_NE(csv.find(",observe,rotate:3,30,2,1935,1980,1965,402400,61,0x4\n"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",observe,,30,0,,,,,,\n"), std::string::npos) << csv;

  const auto json = nlohmann::json::parse(format_json(reports));
  const auto& j = json["problems"][0]["m"] == 2048 ? json["problems"][0] : json["problems"][1];
  const auto& measured = j["own_best"]["measured"];
  EXPECT_EQ(measured["run_clock_policy"], "observe");
  EXPECT_EQ(measured["discarded"], 2);
  EXPECT_EQ(measured["conditions"]["power_mw"], 402400.0);
  EXPECT_EQ(measured["conditions"]["clock_reason_names"], "SwPowerCap");
  EXPECT_EQ(measured["cublas_conditions"]["cache"], "rotate:3");
}

TEST_F(ReportStore, FormatsCarryTheSameNumbers) {
  const std::string md = format_markdown(reports);
  EXPECT_NE(md.find("## NVIDIA H200 (sm_90, 132 SMs, 1980 MHz)"), std::string::npos) << md;
  EXPECT_NE(md.find("| NN 2048x2048x2048 | f1_simt"), std::string::npos) << md;
  EXPECT_NE(md.find("1.14x"), std::string::npos) << md;
  EXPECT_NE(md.find("cuBLAS"), std::string::npos);
  EXPECT_NE(md.find("5/3/1"), std::string::npos) << md;

  const std::string csv = format_csv(reports);
  std::istringstream lines(csv);
  std::string header, row;
  std::getline(lines, header);
  int rows = 0;
  const auto columns = [](const std::string& s) {
    int n = 1;
    bool quoted = false;
    for (char c : s) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) ++n;
    }
    return n;
  };
  while (std::getline(lines, row)) {
    EXPECT_EQ(columns(row), columns(header)) << row;
    ++rows;
  }
  EXPECT_EQ(rows, 2);
  EXPECT_NE(csv.find("\"" + f1_a + "\""), std::string::npos);  // knobs quoted (they hold commas)

  const auto json = nlohmann::json::parse(format_json(reports));
  ASSERT_EQ(json["problems"].size(), 2u);
  const auto& big = json["problems"][0]["m"] == 2048 ? json["problems"][0] : json["problems"][1];
  EXPECT_NEAR(big["ratio"].get<double>(), 342.0 / 300.0, 1e-9);
  EXPECT_EQ(big["bound"], "compute");
  EXPECT_EQ(big["own_best"]["blocks_per_sm"], 1);
  EXPECT_EQ(big["candidates"]["failures"]["resources_exceeded"], 1);
}

TEST_F(ReportStore, PlotScriptsDrawBothCeilingsAndBothTerminals) {
  const auto groups = group_by_gpu(reports);
  ASSERT_EQ(groups.size(), 1u);
  const std::string roof = roofline_script(groups[0], "/d/roofline.dat", "/d/roofline");
  EXPECT_NE(roof.find("set logscale xy"), std::string::npos);
  EXPECT_NE(roof.find("peak = 66.908"), std::string::npos) << roof;
  EXPECT_NE(roof.find("bw = 4.3"), std::string::npos);
  EXPECT_NE(roof.find("set terminal pngcairo"), std::string::npos);
  EXPECT_NE(roof.find("set output '/d/roofline.svg'"), std::string::npos);
  const std::string data = roofline_data(groups[0]);
  EXPECT_NE(data.find("\"NN 2048x2048x2048\" \"f1_simt\""), std::string::npos) << data;
  const std::string bars = speedup_data(groups[0]);
  EXPECT_NE(bars.find("\"NN 1024x1024x1024\" 1 0.990698"), std::string::npos) << bars;
}

TEST_F(ReportStore, PlotsAreWrittenByGnuplot) {
  if (find_on_path("gnuplot").empty()) GTEST_SKIP() << "gnuplot is not installed";
  const std::vector<std::string> pictures = draw_plots(reports, dir.file("plots"));
  ASSERT_EQ(pictures.size(), 4u);
  for (const std::string& p : pictures) EXPECT_GT(fs::file_size(p), 1000u) << p;
  std::ifstream png(dir.file("plots/roofline.png"), std::ios::binary);
  char magic[4] = {};
  png.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST_F(ReportStore, MissingGnuplotIsAClearError) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", dir.file("nothing-here").c_str(), 1);
  try {
    draw_plots(reports, dir.file("plots"));
    ::setenv("PATH", saved.c_str(), 1);
    FAIL() << "draw_plots ran without gnuplot";
  } catch (const Error& e) {
    ::setenv("PATH", saved.c_str(), 1);
    EXPECT_EQ(e.kind(), ErrorKind::not_supported);
    EXPECT_NE(std::string(e.what()).find("gnuplot"), std::string::npos);
  }
}

TEST(ReportMerge, KeepsTheFasterWinnerPerProblemAndGpuModelAndAllProvenance) {
  TempDir dir;
  write_small_database(dir.file("a.db"), h200, "host-a");
  {
    // Machine B: another H200 unit; faster at 2048^3 with another kernel, slower cuBLAS at
    // 1024^3, and a problem A never tuned.
    Database db = Database::open(dir.file("b.db"), OpenMode::create);
    TuningStore store(db);
    RunRecord run;
    run.host = "host-b";
    run.command = "sgemm-tune tune";
    run.clock_policy = "observe";
    const std::int64_t id = store.begin_run(run, h200_b, cuda13);
    store.record_candidate(id, h200_b, cuda13,
                           candidate(square(2048), f1_c, Outcome::ok, 291, 290, 340));
    store.set_winner(winner(square(2048), h200_b, "f1_simt", f1_c, 290, 340));
    store.set_winner(winner(square(1024), h200_b, "cublas", "", 70.0, 70.0));
    store.set_winner(winner(square(512), h200_b, "cublas", "", 12.0, 12.0));
    store.finish_run(id, "done");
  }
  const MergeSummary s =
      merge_databases(dir.file("merged.db"), {dir.file("a.db"), dir.file("b.db")});
  EXPECT_EQ(s.inputs, 2);
  EXPECT_EQ(s.winners, 3);
  ASSERT_EQ(s.conflicts.size(), 2u);

  Database db = Database::open(dir.file("merged.db"), OpenMode::read_only);
  TuningStore store(db);
  const auto big = store.find_winner(square(2048), "NVIDIA H200", "sm_90");
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->config, f1_c);
  EXPECT_DOUBLE_EQ(big->time_us, 290);
  EXPECT_EQ(big->gpu.uuid, "GPU-bbbb");
  const auto small = store.find_winner(square(1024), "NVIDIA H200", "sm_90");
  ASSERT_TRUE(small.has_value());
  EXPECT_DOUBLE_EQ(small->time_us, 63.87);  // A's measurement stays
  EXPECT_EQ(small->gpu.uuid, "GPU-aaaa");
  EXPECT_TRUE(store.find_winner(square(512), "NVIDIA H200", "sm_90").has_value());
  // Provenance: both runs, and every candidate of both units.
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].host, runs[1].host);
  EXPECT_EQ(store.candidates(square(2048), h200, cuda13).size(), 5u);
  EXPECT_EQ(store.candidates(square(2048), h200_b, cuda13).size(), 1u);
  for (const MergeConflict& c : s.conflicts) {
    if (c.problem.m == 2048) {
      EXPECT_EQ(c.kept_source, dir.file("b.db"));
      EXPECT_DOUBLE_EQ(c.dropped_us, 300);
      EXPECT_FALSE(c.same_kernel);
    } else {
      EXPECT_EQ(c.kept_source, dir.file("a.db"));
      EXPECT_TRUE(c.same_kernel);  // both cuBLAS
    }
  }

  // Merging the same inputs again into the result keeps the same winners.
  const MergeSummary again =
      merge_databases(dir.file("merged.db"), {dir.file("a.db"), dir.file("b.db")});
  EXPECT_EQ(again.winners, 3);
  const auto big_again = TuningStore(db).find_winner(square(2048), "NVIDIA H200", "sm_90");
  EXPECT_DOUBLE_EQ(big_again->time_us, 290);
}

TEST(ReportMerge, RefusesTheOutputAsAnInputAndMissingFiles) {
  TempDir dir;
  write_small_database(dir.file("a.db"));
  EXPECT_THROW(merge_databases(dir.file("a.db"), {dir.file("a.db")}), Error);
  EXPECT_THROW(merge_databases(dir.file("out.db"), {dir.file("a.db"), dir.file("a.db")}), Error);
  EXPECT_THROW(merge_databases(dir.file("out.db"), {dir.file("missing.db")}), Error);
  EXPECT_THROW(merge_databases(dir.file("out.db"), {}), Error);
}

}  // namespace
