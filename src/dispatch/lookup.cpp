// Nearest-neighbour rules: log-space distance, eligibility, and the closest-first walk.
#include "dispatch/lookup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

namespace sgt {
namespace {

double log_ratio(int a, int b) {
  return std::log2(static_cast<double>(std::max(a, 1)) / static_cast<double>(std::max(b, 1)));
}

bool env_double(const char* name, double& out) {
  const char* text = std::getenv(name);
  if (!text || !*text) return false;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v)) return false;
  out = v;
  return true;
}

}  // namespace

NearestRules nearest_rules_from_env() {
  NearestRules r;
  double v = 0;
  if (env_double("SGEMM_DISPATCH_NEAREST", v)) r.enabled = v != 0;
  if (env_double("SGEMM_DISPATCH_NEAREST_MAX_RATIO", v) && v >= 1) r.max_ratio = v;
  if (env_double("SGEMM_DISPATCH_NEAREST_MIN_SPEEDUP", v) && v >= 1) r.min_speedup = v;
  if (env_double("SGEMM_DISPATCH_NEAREST_CROSS_ALIGN", v)) r.cross_alignment = v != 0;
  return r;
}

double log_distance(const ProblemKey& a, const ProblemKey& b) {
  const double dm = log_ratio(a.m, b.m), dn = log_ratio(a.n, b.n), dk = log_ratio(a.k, b.k);
  return std::sqrt(dm * dm + dn * dn + dk * dk);
}

bool within_ratio(const ProblemKey& a, const ProblemKey& b, double max_ratio) {
  const double limit = std::log2(max_ratio) + 1e-12;
  return std::abs(log_ratio(a.m, b.m)) <= limit && std::abs(log_ratio(a.n, b.n)) <= limit &&
         std::abs(log_ratio(a.k, b.k)) <= limit;
}

int leading_dimension_width(int ld) { return ld % 4 == 0 ? 4 : ld % 2 == 0 ? 2 : 1; }

bool alignment_serves(int tuned_align, int problem_align) {
  return tuned_align >= 1 && problem_align >= tuned_align;
}

double measured_speedup(double time_us, double cublas_us) {
  if (!(time_us > 0) || !(cublas_us > 0)) return 0;
  return cublas_us / time_us;
}

std::string kernel_cannot_serve(const Family& family, const Knobs& knobs, const ProblemKey& tuned,
                                const ProblemKey& problem) {
  ProblemKey as_compiled = problem;
  as_compiled.align = tuned.align;
  if (std::string why = family.cannot_implement(knobs, as_compiled); !why.empty()) return why;
  if (family.defines(knobs, as_compiled) != family.defines(knobs, tuned))
    return "the family builds a different kernel variant for this problem";
  return {};
}

NearestChoice choose_nearest(const ProblemKey& problem, const std::vector<Neighbour>& pool,
                             const NearestRules& rules, const NeighbourCheck& check) {
  NearestChoice choice;
  if (!rules.enabled) {
    choice.why = "not tuned; nearest lookup disabled";
    return choice;
  }
  struct Eligible {
    bool other_align;
    double distance;
    std::size_t index;
  };
  std::vector<Eligible> eligible;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const ProblemKey& q = pool[i].problem;
    if (q.transa != problem.transa || q.transb != problem.transb) continue;
    if (!alignment_serves(q.align, problem.align)) continue;
    if (q.align != problem.align && !rules.cross_alignment) continue;
    // Below class 4, C's own leading dimension decides how wide its stores are (F1 takes float4
    // where C allows): a neighbour timed with the other kind of C is no evidence for this one.
    if (problem.align < 4 && leading_dimension_width(q.ldc) != leading_dimension_width(problem.ldc))
      continue;
    if (!within_ratio(problem, q, rules.max_ratio)) continue;
    eligible.push_back({q.align != problem.align, log_distance(problem, q), i});
  }
  std::sort(eligible.begin(), eligible.end(), [](const Eligible& a, const Eligible& b) {
    return std::tie(a.other_align, a.distance, a.index) <
           std::tie(b.other_align, b.distance, b.index);
  });
  if (eligible.empty()) {
    choice.why =
        fmt::format("not tuned; no tuned problem of this class within a factor {:g} in m, n and k",
                    rules.max_ratio);
    return choice;
  }
  std::string rejected;
  for (const Eligible& e : eligible) {
    const Neighbour& nb = pool[e.index];
    const std::string name = nb.problem.to_string();
    if (!nb.kernel) {
      choice.distance = e.distance;
      choice.why = fmt::format(
          "not tuned; nearest tuned problem {} (distance {:.3f}) is served best by cuBLAS", name,
          e.distance);
      return choice;
    }
    const double s = measured_speedup(nb.time_us, nb.cublas_us);
    if (s < rules.min_speedup) {
      choice.distance = e.distance;
      choice.why = fmt::format(
          "not tuned; nearest tuned problem {} (distance {:.3f}) gains only x{:.3f} over cuBLAS "
          "(needs x{:.2f})",
          name, e.distance, s, rules.min_speedup);
      return choice;
    }
    if (std::string why = check ? check(e.index) : std::string{}; !why.empty()) {
      if (rejected.empty()) rejected = fmt::format("{}: {}", name, why);
      continue;
    }
    choice.index = static_cast<int>(e.index);
    choice.distance = e.distance;
    choice.why =
        fmt::format("nearest tuned problem {} (distance {:.3f}, measured x{:.3f} over cuBLAS)",
                    name, e.distance, s);
    return choice;
  }
  choice.why = fmt::format("not tuned; no neighbour's kernel can run it (first: {})", rejected);
  return choice;
}

}  // namespace sgt
