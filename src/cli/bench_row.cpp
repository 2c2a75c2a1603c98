// Bench rows: the cuBLASLt summary over interleaved rounds, the screen table and the JSON.
#include "cli/bench_row.hpp"

#include <fmt/format.h>

#include <cmath>

#include "measure/statistics.hpp"

namespace sgt::cli {

void summarize_lt(const Interleaved& rounds, int dispatcher, int first_lt, LtComparison& lt) {
  lt.best = -1;
  int kernel = first_lt, best_kernel = -1;
  for (LtAlgorithmRow& a : lt.algorithms) {
    a.timed = false;
    if (!a.correct) continue;
    if (kernel >= static_cast<int>(rounds.kernels.size())) break;
    a.timed = true;
    a.median_us = rounds.kernels[static_cast<std::size_t>(kernel)].median_us;
    if (lt.best < 0 || a.median_us < lt.best_us) {
      lt.best = a.index;
      lt.best_us = a.median_us;
      best_kernel = kernel;
    }
    ++kernel;
  }
  if (best_kernel < 0) {
    if (lt.note.empty())
      lt.note = lt.algorithms.empty() ? "no algorithm" : "no algorithm passed verification";
    return;
  }
  // ratios[i][r] is kernel i / kernel 0 in round r: the quotient pairs cuBLASLt with the
  // dispatcher of the same round.
  const auto& lt_ratios = rounds.ratios[static_cast<std::size_t>(best_kernel)];
  const auto& dispatcher_ratios = rounds.ratios[static_cast<std::size_t>(dispatcher)];
  std::vector<double> paired;
  for (std::size_t r = 0; r < lt_ratios.size() && r < dispatcher_ratios.size(); ++r)
    paired.push_back(lt_ratios[r] / dispatcher_ratios[r]);
  const RatioSummary s = summarize_ratios(paired);
  lt.ratio = s.median;
  lt.ratio_spread = s.spread;
}

namespace {

std::string problem_text(const ProblemKey& p) {
  return fmt::format("{}{} {}x{}x{}", op_char(p.transa), op_char(p.transb), p.m, p.n, p.k);
}

}  // namespace

std::string bench_table_header(bool with_lt) {
  std::string lt;
  if (with_lt) lt = fmt::format(" {:>10} {:>4} {:>9}", "Lt us", "Lt#", "Lt/tuned");
  return fmt::format("{:<40} {:<7} {:>10} {:>10} {:>8}{} {:>9} {:>7} {:>7} {}", "problem", "path",
                     "tuned us", "cuBLAS us", "ratio", lt, "TFLOP/s", "%peak", "%floor", "kernel");
}

std::string bench_table_line(const BenchRow& row, bool with_lt) {
  std::string lt;
  if (with_lt) {
    if (row.lt.has_result())
      lt = fmt::format(" {:>10.2f} {:>4} {:>8.3f}x", row.lt.best_us, row.lt.best, row.lt.ratio);
    else
      lt = fmt::format(" {:>10} {:>4} {:>9}", "-", "-", "-");
  }
  std::string notes;
  if (!row.correct) notes += "  INCORRECT";
  if (with_lt && !row.lt.note.empty()) notes += "  cuBLASLt: " + row.lt.note;
  return fmt::format(
      "{:<40} {:<7} {:>10.2f} {:>10.2f} {:>7.3f}x{} {:>9.2f} {:>6.1f}% {:>6.1f}% {}{}",
      problem_text(row.problem), row.route.value("source", "?"), row.tuned_us, row.cublas_us,
      row.ratio, lt, row.tflops, row.percent_peak, row.percent_floor,
      row.route.value("family", "?"), notes);
}

nlohmann::json bench_row_json(const BenchRow& row) {
  const ProblemKey& p = row.problem;
  nlohmann::json j = {{"problem", p.to_string()},
                      {"label", row.label},
                      {"transa", std::string(1, op_char(p.transa))},
                      {"transb", std::string(1, op_char(p.transb))},
                      {"m", p.m},
                      {"n", p.n},
                      {"k", p.k},
                      {"route", row.route},
                      {"tuned_us", row.tuned_us},
                      {"cublas_us", row.cublas_us},
                      {"ratio", row.ratio},
                      {"ratio_spread", row.ratio_spread},
                      {"rounds", row.rounds},
                      {"tflops", row.tflops},
                      {"percent_peak", row.percent_peak},
                      {"floor_us", row.floor_us},
                      {"percent_floor", row.percent_floor},
                      {"correct", row.correct},
                      {"check", row.check},
                      {"sm_clock_mhz", row.sm_clock_mhz},
                      {"cache", row.cache}};
  if (row.lt.requested == 0) {
    j["cublaslt"] = nullptr;
    return j;
  }
  nlohmann::json algorithms = nlohmann::json::array();
  for (const LtAlgorithmRow& a : row.lt.algorithms)
    algorithms.push_back({{"index", a.index},
                          {"config", a.config},
                          {"workspace_bytes", a.workspace_bytes},
                          {"correct", a.correct},
                          {"check", a.check},
                          {"median_us", a.timed ? nlohmann::json(a.median_us) : nlohmann::json()}});
  const bool ok = row.lt.has_result();
  std::string best_config;
  for (const LtAlgorithmRow& a : row.lt.algorithms)
    if (a.index == row.lt.best) best_config = a.config;
  j["cublaslt"] = {{"requested", row.lt.requested},
                   {"algorithms", algorithms},
                   {"best_index", ok ? nlohmann::json(row.lt.best) : nlohmann::json()},
                   {"best_us", ok ? nlohmann::json(row.lt.best_us) : nlohmann::json()},
                   {"best_config", ok ? nlohmann::json(best_config) : nlohmann::json()},
                   {"ratio_to_dispatcher", ok ? nlohmann::json(row.lt.ratio) : nlohmann::json()},
                   {"ratio_spread", ok ? nlohmann::json(row.lt.ratio_spread) : nlohmann::json()},
                   {"note", row.lt.note}};
  return j;
}

double geometric_mean(std::span<const double> x) {
  if (x.empty()) return 0;
  double log_sum = 0;
  for (double v : x) log_sum += std::log(v);
  return std::exp(log_sum / static_cast<double>(x.size()));
}

}  // namespace sgt::cli
