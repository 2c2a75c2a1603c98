// One problem's result in `sgemm-tune bench` (dispatcher, cuBLAS and cuBLASLt's best verified
// algorithm), its screen line and JSON object; pure functions, no GPU.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "measure/measurement.hpp"
#include "space/problem.hpp"

namespace sgt::cli {

// One of the cuBLASLt heuristic's algorithms for a problem.
struct LtAlgorithmRow {
  int index = 0;       // position in the heuristic's list (0: its first choice)
  std::string config;  // cuBLASLt's description (algorithm id, tile, stages, split-K, ...)
  std::size_t workspace_bytes = 0;
  bool correct = false;  // passed verification; only correct algorithms are timed
  std::string check;     // the verification message, or why it could not run
  bool timed = false;
  double median_us = 0;
};

struct LtComparison {
  int requested = 0;  // top K asked of the heuristic; 0: cuBLASLt not compared
  std::string note;   // why there is no result (no algorithm, none correct), else empty
  std::vector<LtAlgorithmRow> algorithms;
  int best = -1;  // heuristic index of the fastest correct algorithm; -1: none
  double best_us = 0;
  // Median over rounds of (cuBLASLt best time / dispatcher time) in the same round, and its
  // spread ((q3 - q1) / 2 / median): above 1 the dispatcher is faster.
  double ratio = 0, ratio_spread = 0;

  bool has_result() const noexcept { return best >= 0; }
};

struct BenchRow {
  ProblemKey problem;
  std::string label;
  nlohmann::json route = nlohmann::json::object();  // sgemmDescribe's answer
  double tuned_us = 0, cublas_us = 0;
  double ratio = 0, ratio_spread = 0;  // cuBLAS time / dispatcher time, paired per round
  int rounds = 0;
  double tflops = 0, percent_peak = 0, floor_us = 0, percent_floor = 0;
  bool correct = false;
  std::string check;
  double sm_clock_mhz = 0;
  std::string cache;  // how operands were kept out of L2: "cold-flush" or "rotate:<copies>"
  LtComparison lt;
};

// Fills the timing fields of `lt` from interleaved rounds in which kernel `dispatcher` is the
// dispatcher and kernels `first_lt`, `first_lt + 1`, ... are the correct algorithms of
// lt.algorithms in their order there. The best is the lowest median; its ratio to the dispatcher
// is paired per round. Sets lt.note when no algorithm was timed.
void summarize_lt(const Interleaved& rounds, int dispatcher, int first_lt, LtComparison& lt);

// Screen table: header and one line per problem; `with_lt` adds the cuBLASLt columns.
std::string bench_table_header(bool with_lt);
std::string bench_table_line(const BenchRow& row, bool with_lt);

// The row as a JSON object; "cublaslt" is null when cuBLASLt was not compared.
nlohmann::json bench_row_json(const BenchRow& row);

// exp(mean(log x)); 0 for no values.
double geometric_mean(std::span<const double> x);

}  // namespace sgt::cli
