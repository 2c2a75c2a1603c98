// Per-problem reports from winners and candidates: timings by stage, launch geometry from the
// family's host side, occupancy and waves from metrics.hpp.
#include "report/problem_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "common/error.hpp"
#include "space/family.hpp"
#include "space/knobs.hpp"

namespace sgt::report {
namespace {

// Fills threads, grid, splits, occupancy and waves from the family; leaves them unknown when the
// family or its knobs are not this build's.
void add_geometry(KernelFacts& k, const ProblemKey& p, const GpuRecord& gpu) {
  LaunchGeometry g;
  try {
    const Family& family = find_family(k.family);
    Knobs knobs = parse_knobs(k.config);
    // A database from an older build lacks knobs added since; they were off (0) then.
    std::string missing;
    for (const std::string& name : family.knob_names())
      if (knobs.find(name) == knobs.end()) {
        knobs[name] = 0;
        missing += (missing.empty() ? "" : ",") + name;
      }
    // The launch on the GPU it was tuned on (its SM count, when the record has one).
    DeviceLimits device;
    if (gpu.sm_count > 0) device.sm_count = gpu.sm_count;
    g = family.geometry(knobs, p, device);
    if (!missing.empty())
      k.geometry_note = "knobs " + missing + " missing from the record, taken as 0";
  } catch (const Error&) {
    return;
  }
  k.geometry_known = true;
  k.threads = static_cast<int>(g.block.x * g.block.y * g.block.z);
  k.grid_blocks = static_cast<std::int64_t>(g.grid.x) * g.grid.y * g.grid.z;
  k.k_splits = g.k_splits;
  const int smem = k.smem_bytes > 0 ? k.smem_bytes : static_cast<int>(g.smem_bytes);
  if (k.smem_bytes == 0) k.smem_bytes = smem;
  k.occupancy = occupancy(k.threads, k.registers, smem, sm_limits(gpu.arch));
  k.waves = waves(k.grid_blocks, gpu.sm_count, k.occupancy.blocks_per_sm);
}

// cuBLASLt's screened algorithms are stored beside the own candidates (family "cublaslt"); the
// reports' counts and rankings are of the own kernels.
bool own_kernel(const CandidateRecord& c) { return c.family != kCublasLtFamily; }

bool same_kernel(const CandidateRecord& c, const WinnerRecord& w) {
  return c.family == w.family && c.config == w.config && c.template_hash == w.template_hash;
}

// The measurement provenance of the stage the time comes from.
void add_measurement(KernelFacts& k, const CandidateRecord& c) {
  const std::optional<TimingRecord>& t = c.final ? c.final : c.screen;
  k.run_id = c.run_id;
  k.cublas_conditions = c.cublas_conditions;
  if (!t) return;
  k.samples = t->samples;
  k.discarded = t->discarded;
  k.conditions = t->conditions;
}

}  // namespace

std::string problem_label(const ProblemKey& p) {
  std::string s = fmt::format("{}{} {}x{}x{}", op_char(p.transa), op_char(p.transb), p.m, p.n, p.k);
  const ProblemKey minimal = with_minimal_leading_dimensions({p.transa, p.transb, p.m, p.n, p.k});
  if (p.lda != minimal.lda || p.ldb != minimal.ldb || p.ldc != minimal.ldc)
    s += fmt::format(" ld={},{},{}", p.lda, p.ldb, p.ldc);
  if (p.align != 4) s += fmt::format(" align={}", p.align);
  return s;
}

std::optional<KernelFacts> kernel_facts(const CandidateRecord& c, const GpuRecord& gpu) {
  if (c.outcome != Outcome::ok) return std::nullopt;
  KernelFacts k;
  if (c.final && c.final->median_us > 0) {
    k.time_us = c.final->median_us;
    k.stage = "final";
  } else if (c.screen && c.screen->median_us > 0) {
    k.time_us = c.screen->median_us;
    k.stage = "screen";
  } else {
    return std::nullopt;
  }
  k.family = c.family;
  k.config = c.config;
  k.cublas_us = c.cublas_us.value_or(0.0);
  k.registers = c.registers;
  k.spill_bytes = c.spill_bytes;
  k.smem_bytes = c.smem_bytes;
  add_measurement(k, c);
  add_geometry(k, c.problem, gpu);
  return k;
}

std::vector<KernelFacts> ranked_kernels(const std::vector<CandidateRecord>& candidates,
                                        const GpuRecord& gpu) {
  std::vector<KernelFacts> out;
  for (const CandidateRecord& c : candidates)
    if (own_kernel(c))
      if (auto k = kernel_facts(c, gpu)) out.push_back(std::move(*k));
  std::stable_sort(out.begin(), out.end(), [](const KernelFacts& a, const KernelFacts& b) {
    const bool fa = a.stage == "final", fb = b.stage == "final";
    if (fa != fb) return fa;
    return a.time_us < b.time_us;
  });
  return out;
}

ProblemReport make_problem_report(const WinnerRecord& w,
                                  const std::vector<CandidateRecord>& candidates,
                                  double bandwidth_tbps) {
  ProblemReport r;
  r.problem = w.problem;
  r.gpu = w.gpu;
  r.label = problem_label(w.problem);
  r.winner_family = w.family;
  r.winner_config = w.config;
  r.cublas_us = w.cublas_us;
  r.tuned_us = w.family == kCublasFamily ? w.cublas_us : w.time_us;
  r.tie_band = w.tie_band;
  r.peak_tflops = peak_fp32_tflops(w.gpu.sm_count, w.gpu.default_clock_mhz);
  r.bandwidth_tbps = bandwidth_tbps;
  r.floor_us = r.peak_tflops > 0 && bandwidth_tbps > 0
                   ? roofline_floor_us(w.problem, r.peak_tflops, bandwidth_tbps)
                   : 0.0;
  r.intensity = arithmetic_intensity(w.problem);
  r.bound = bound(w.problem, r.peak_tflops, bandwidth_tbps);

  for (const CandidateRecord& c : candidates) {
    if (!own_kernel(c)) continue;
    ++r.tried;
    if (c.outcome == Outcome::ok)
      ++r.ok;
    else if (c.outcome == Outcome::skipped)
      ++r.skipped;
    else {
      ++r.failed;
      ++r.failures[outcome_name(c.outcome)];
    }
  }

  if (r.own_won()) {
    KernelFacts k;
    k.family = w.family;
    k.config = w.config;
    k.time_us = w.time_us;
    k.stage = "winner";
    k.cublas_us = w.cublas_us;
    const auto it = std::find_if(candidates.begin(), candidates.end(),
                                 [&](const CandidateRecord& c) { return same_kernel(c, w); });
    if (it != candidates.end()) {
      k.registers = it->registers;
      k.spill_bytes = it->spill_bytes;
      k.smem_bytes = it->smem_bytes;
      add_measurement(k, *it);
    }
    add_geometry(k, w.problem, w.gpu);
    r.own = k;
  } else {
    std::vector<KernelFacts> ranked = ranked_kernels(candidates, w.gpu);
    if (!ranked.empty()) {
      r.own = ranked.front();
      if (r.own->cublas_us <= 0) r.own->cublas_us = w.cublas_us;
    }
  }
  return r;
}

std::vector<ProblemReport> build_report(TuningStore& store, const ReportOptions& options) {
  std::vector<ProblemReport> out;
  std::map<std::int64_t, std::string> policies;  // run id -> clock policy
  for (const RunRecord& run : store.runs()) policies[run.id] = run.clock_policy;
  for (const WinnerRecord& w : store.winners(options.arch, false)) {
    out.push_back(make_problem_report(w, store.candidates(w.problem, w.gpu, w.software),
                                      options.bandwidth_tbps));
    if (KernelFacts* k = out.back().own ? &*out.back().own : nullptr) {
      if (const auto it = policies.find(k->run_id); it != policies.end())
        k->clock_policy = it->second;
    }
  }
  return out;
}

std::vector<std::vector<const ProblemReport*>> group_by_gpu(
    const std::vector<ProblemReport>& reports) {
  std::vector<std::vector<const ProblemReport*>> groups;
  std::map<std::tuple<std::string, std::string, int>, std::size_t> index;
  for (const ProblemReport& r : reports) {
    const auto key = std::make_tuple(r.gpu.arch, r.gpu.name, r.gpu.sm_count);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(&r);
  }
  return groups;
}

double geomean_ratio(const std::vector<ProblemReport>& reports, bool own) {
  double log_sum = 0;
  int n = 0;
  for (const ProblemReport& r : reports) {
    const double ratio = own ? (r.own ? r.own->ratio() : 0.0) : r.ratio();
    if (ratio <= 0) continue;
    log_sum += std::log(ratio);
    ++n;
  }
  return n > 0 ? std::exp(log_sum / n) : 0.0;
}

}  // namespace sgt::report
