// Unit tests of the bench rows: choosing cuBLASLt's best verified algorithm from interleaved
// rounds, its per-round ratio to the dispatcher, and the screen and JSON columns.
#include "cli/bench_row.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace sgt::cli {
namespace {

// Rounds where kernel i takes times[i] us in every round, with the ratios Timer::interleave keeps.
Interleaved constant_rounds(const std::vector<double>& times, int rounds) {
  Interleaved out;
  out.rounds = rounds;
  for (const double t : times) {
    Measurement m;
    m.median_us = t;
    out.kernels.push_back(m);
    out.ratios.push_back(std::vector<double>(static_cast<std::size_t>(rounds), t / times[0]));
  }
  return out;
}

LtAlgorithmRow algorithm(int index, bool correct) {
  LtAlgorithmRow a;
  a.index = index;
  a.config = "id=" + std::to_string(20 + index) + " tile=18";
  a.correct = correct;
  a.check = correct ? "normwise error 1e-08" : "normwise error 0.5";
  return a;
}

BenchRow sample_row() {
  BenchRow row;
  row.problem.transa = Op::T;
  row.problem.m = 4096;
  row.problem.n = 16;
  row.problem.k = 4096;
  row.problem.lda = row.problem.ldb = 4096;
  row.problem.ldc = 4096;
  row.route = {{"source", "exact"}, {"family", "f4_skinny"}};
  row.tuned_us = 31.49;
  row.cublas_us = 87.97;
  row.ratio = 2.794;
  row.tflops = 17.05;
  row.percent_peak = 25.4;
  row.percent_floor = 80.1;
  row.correct = true;
  return row;
}

TEST(BenchRow, BestLtIsTheFastestCorrectAlgorithm) {
  // Kernels: cuBLAS, dispatcher, then the correct algorithms 0, 2, 3 (1 failed verification).
  const Interleaved rounds = constant_rounds({80, 40, 60, 50, 70}, 20);
  LtComparison lt;
  lt.requested = 4;
  lt.algorithms = {algorithm(0, true), algorithm(1, false), algorithm(2, true), algorithm(3, true)};
  summarize_lt(rounds, 1, 2, lt);
  ASSERT_TRUE(lt.has_result());
  EXPECT_EQ(lt.best, 2);  // heuristic index, not kernel index
  EXPECT_DOUBLE_EQ(lt.best_us, 50);
  EXPECT_NEAR(lt.ratio, 50.0 / 40.0, 1e-12);
  EXPECT_NEAR(lt.ratio_spread, 0.0, 1e-12);
  EXPECT_TRUE(lt.note.empty());
  EXPECT_TRUE(lt.algorithms[0].timed);
  EXPECT_DOUBLE_EQ(lt.algorithms[0].median_us, 60);
  EXPECT_FALSE(lt.algorithms[1].timed);
  EXPECT_DOUBLE_EQ(lt.algorithms[3].median_us, 70);
}

TEST(BenchRow, LtRatioIsPairedPerRound) {
  // cuBLAS 100 us throughout; the dispatcher and cuBLASLt drift together, so every round's
  // cuBLASLt / dispatcher quotient is 0.5 although their medians alone would give 0.8 / 1.
  Interleaved rounds = constant_rounds({100, 100, 100}, 4);
  rounds.ratios[1] = {1.0, 2.0, 1.6, 1.0};
  rounds.ratios[2] = {0.5, 1.0, 0.8, 0.5};
  LtComparison lt;
  lt.requested = 1;
  lt.algorithms = {algorithm(0, true)};
  summarize_lt(rounds, 1, 2, lt);
  EXPECT_NEAR(lt.ratio, 0.5, 1e-12);
}

TEST(BenchRow, NoCorrectAlgorithmLeavesANote) {
  const Interleaved rounds = constant_rounds({80, 40}, 10);
  LtComparison lt;
  lt.requested = 2;
  lt.algorithms = {algorithm(0, false), algorithm(1, false)};
  summarize_lt(rounds, 1, 2, lt);
  EXPECT_FALSE(lt.has_result());
  EXPECT_EQ(lt.note, "no algorithm passed verification");

  LtComparison planless;
  planless.requested = 8;
  planless.note = "cuBLASLt heuristic returned no algorithm for NN 1x1x1";
  summarize_lt(rounds, 1, 2, planless);
  EXPECT_EQ(planless.note, "cuBLASLt heuristic returned no algorithm for NN 1x1x1");
}

TEST(BenchRow, TableWithoutLtHasTheOriginalColumns) {
  const std::string header = bench_table_header(false);
  EXPECT_EQ(header.find("Lt"), std::string::npos);
  EXPECT_LT(header.find("cuBLAS us"), header.find("ratio"));
  const std::string line = bench_table_line(sample_row(), false);
  EXPECT_NE(line.find("TN 4096x16x4096"), std::string::npos) << line;
  EXPECT_NE(line.find("31.49"), std::string::npos) << line;
  EXPECT_NE(line.find("87.97"), std::string::npos) << line;
  EXPECT_NE(line.find("2.794x"), std::string::npos) << line;
  EXPECT_NE(line.find("f4_skinny"), std::string::npos) << line;
  EXPECT_EQ(line.find("INCORRECT"), std::string::npos) << line;
}

TEST(BenchRow, TableWithLtAddsColumnsInLine) {
  BenchRow row = sample_row();
  row.lt.requested = 8;
  row.lt.algorithms = {algorithm(0, true), algorithm(1, true)};
  row.lt.best = 1;
  row.lt.best_us = 84.25;
  row.lt.ratio = 2.6757;
  const std::string header = bench_table_header(true);
  const std::string line = bench_table_line(row, true);
  for (const char* column : {"Lt us", "Lt#", "Lt/tuned"}) {
    const std::size_t at = header.find(column);
    ASSERT_NE(at, std::string::npos) << column;
    EXPECT_LT(header.find("ratio"), at);
    EXPECT_LT(at, header.find("TFLOP/s"));
  }
  // Columns are right-aligned: each value ends where its header ends.
  const auto ends_at = [](const std::string& s, const std::string& what) {
    const std::size_t at = s.find(what);
    return at == std::string::npos ? std::string::npos : at + what.size();
  };
  EXPECT_EQ(ends_at(line, "84.25"), ends_at(header, "Lt us")) << header << "\n" << line;
  EXPECT_EQ(ends_at(line, " 1 "), ends_at(header, " Lt#") + 1) << header << "\n" << line;
  EXPECT_EQ(ends_at(line, "2.676x"), ends_at(header, "Lt/tuned")) << header << "\n" << line;
  EXPECT_EQ(ends_at(line, "17.05"), ends_at(header, "TFLOP/s")) << header << "\n" << line;

  row.lt.best = -1;
  row.lt.note = "no algorithm passed verification";
  const std::string none = bench_table_line(row, true);
  EXPECT_NE(none.find("cuBLASLt: no algorithm passed verification"), std::string::npos) << none;
  EXPECT_EQ(ends_at(none, "17.05"), ends_at(header, "TFLOP/s")) << header << "\n" << none;
}

TEST(BenchRow, JsonCarriesTheLtComparison) {
  BenchRow row = sample_row();
  EXPECT_TRUE(bench_row_json(row)["cublaslt"].is_null());
  EXPECT_EQ(bench_row_json(row)["route"]["family"], "f4_skinny");
  EXPECT_DOUBLE_EQ(bench_row_json(row)["ratio"].get<double>(), 2.794);

  row.lt.requested = 8;
  row.lt.algorithms = {algorithm(0, true), algorithm(1, false)};
  row.lt.algorithms[0].timed = true;
  row.lt.algorithms[0].median_us = 84.25;
  row.lt.algorithms[0].workspace_bytes = 4096;
  row.lt.best = 0;
  row.lt.best_us = 84.25;
  row.lt.ratio = 2.6755;
  row.lt.ratio_spread = 0.01;
  const nlohmann::json lt = bench_row_json(row)["cublaslt"];
  EXPECT_EQ(lt["requested"], 8);
  EXPECT_EQ(lt["best_index"], 0);
  EXPECT_DOUBLE_EQ(lt["best_us"].get<double>(), 84.25);
  EXPECT_EQ(lt["best_config"], "id=20 tile=18");
  EXPECT_DOUBLE_EQ(lt["ratio_to_dispatcher"].get<double>(), 2.6755);
  EXPECT_DOUBLE_EQ(lt["ratio_spread"].get<double>(), 0.01);
  ASSERT_EQ(lt["algorithms"].size(), 2u);
  EXPECT_EQ(lt["algorithms"][0]["workspace_bytes"], 4096);
  EXPECT_TRUE(lt["algorithms"][0]["correct"].get<bool>());
  EXPECT_FALSE(lt["algorithms"][1]["correct"].get<bool>());
  EXPECT_TRUE(lt["algorithms"][1]["median_us"].is_null());
  EXPECT_EQ(lt["algorithms"][1]["check"], "normwise error 0.5");

  row.lt.best = -1;
  row.lt.note = "no algorithm passed verification";
  const nlohmann::json none = bench_row_json(row)["cublaslt"];
  EXPECT_TRUE(none["best_index"].is_null());
  EXPECT_TRUE(none["ratio_to_dispatcher"].is_null());
  EXPECT_EQ(none["note"], "no algorithm passed verification");
}

TEST(BenchRow, GeometricMean) {
  EXPECT_DOUBLE_EQ(geometric_mean({}), 0.0);
  const std::vector<double> x = {1, 4, 16};
  EXPECT_NEAR(geometric_mean(x), 4.0, 1e-12);
}

}  // namespace
}  // namespace sgt::cli
