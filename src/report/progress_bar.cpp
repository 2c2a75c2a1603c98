#include "report/progress_bar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sgt {

double problem_remaining_s(const Progress& p) {
  if (p.done <= 0 || p.total <= p.done) return 0;
  return p.elapsed_s / p.done * (p.total - p.done);
}

double run_remaining_s(const Progress& p, const RunClock& run) {
  const int later = std::max(0, p.problem_count - p.problem_index - 1);
  const double per_problem = run.finished_problems > 0
                                 ? run.finished_problems_s / run.finished_problems
                                 : (p.done > 0 ? p.elapsed_s / p.done * p.total : 0);
  return problem_remaining_s(p) + later * per_problem;
}

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string format_progress(const Progress& p, const RunClock& run, int bar_width) {
  const double fraction =
      p.total > 0 ? std::clamp(static_cast<double>(p.done) / p.total, 0.0, 1.0) : 0;
  const int filled = static_cast<int>(std::lround(fraction * bar_width));
  const std::string bar = std::string(filled, '#') + std::string(bar_width - filled, '-');
  // "NN 4096x4096x4096 lda=..." -> "NN 4096x4096x4096"
  const std::string shape = p.problem.substr(0, p.problem.find(' ', p.problem.find(' ') + 1));
  const double rate = p.elapsed_s > 0 ? p.done / p.elapsed_s : 0;
  const double wait_share = p.elapsed_s > 0 ? 100 * p.compile_wait_s / p.elapsed_s : 0;
  std::string best = "best -";
  if (p.best_us > 0 && p.cublas_us > 0)
    best = fmt::format("best {:.1f} us = {:.2f}x cuBLAS", p.best_us, p.cublas_us / p.best_us);
  else if (p.best_us > 0)
    best = fmt::format("best {:.1f} us", p.best_us);
  return fmt::format(
      "[{}/{}] {} {} |{}| {}/{} {:.1f}/s ETA {} (run {} left, {} so far) "
      "compile-wait {:.0f}% | {}",
      p.problem_index + 1, p.problem_count, shape, p.stage, bar, p.done, p.total, rate,
      format_duration(problem_remaining_s(p)), format_duration(run_remaining_s(p, run)),
      format_duration(run.elapsed_s), wait_share, best);
}

}  // namespace sgt
