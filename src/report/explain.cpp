// The explanation of one winner as text and JSON, the one-problem shape list, shell quoting.
#include "report/explain.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/format.hpp"
#include "report/terminal.hpp"
#include "space/knobs.hpp"

namespace sgt::report {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string resources_line(const KernelFacts& k, const GpuRecord& gpu) {
  std::string s =
      fmt::format("{} registers/thread{}, {} shared memory/block",
                  k.registers > 0 ? std::to_string(k.registers) : "?",
                  k.spill_bytes > 0 ? fmt::format(" ({} bytes spilled)", k.spill_bytes) : "",
                  k.smem_bytes > 0 ? fmt::format("{:.1f} KiB", k.smem_bytes / 1024.0) : "?");
  if (!k.geometry_known) return s + "; launch geometry unknown (family or knobs not in this build)";
  if (!k.geometry_note.empty()) s += "\n  (" + k.geometry_note + ")";
  const SmLimits limits = sm_limits(gpu.arch);
  s += fmt::format(
      "\n  {} threads/block -> {} blocks/SM, limited by {} ({} of {} warps, {:.0f}% occupancy){}",
      k.threads, k.occupancy.blocks_per_sm, k.occupancy.limiter, k.occupancy.warps_per_sm,
      limits.max_threads / 32, 100.0 * k.occupancy.fraction,
      k.occupancy.registers_known ? "" : " [registers not recorded: register limit not applied]");
  s += fmt::format("\n  grid {} blocks{} over {} SMs x {} = {:.2f} waves", k.grid_blocks,
                   k.k_splits > 1 ? fmt::format(" ({} split-K slices)", k.k_splits) : "",
                   gpu.sm_count, k.occupancy.blocks_per_sm, k.waves);
  if (k.waves > 0 && k.waves < 1.0)
    s += fmt::format(" ({:.0f}% of the block slots stay empty)", 100.0 * (1.0 - k.waves));
  else if (k.waves > 1.0) {
    const double tail = k.waves - static_cast<int>(k.waves);
    if (tail > 0 && tail < 0.5) s += fmt::format(" (last wave {:.0f}% full)", 100.0 * tail);
  }
  return s;
}

double behind_pct(double time_us, double reference_us) {
  return reference_us > 0 ? 100.0 * (time_us / reference_us - 1.0) : 0.0;
}

}  // namespace

Explanation explain(const WinnerRecord& winner, const std::vector<CandidateRecord>& candidates,
                    double bandwidth_tbps, int top) {
  Explanation e;
  e.report = make_problem_report(winner, candidates, bandwidth_tbps);
  for (const KernelFacts& k : ranked_kernels(candidates, winner.gpu)) {
    if (static_cast<int>(e.runner_ups.size()) >= top) break;
    if (e.report.own_won() && k.family == winner.family && k.config == winner.config) continue;
    e.runner_ups.push_back(k);
  }
  for (const CandidateRecord& c : candidates)
    if (c.outcome != Outcome::ok && c.outcome != Outcome::skipped)
      e.failure_example.emplace(outcome_name(c.outcome), c.message);
  return e;
}

std::string knob_differences(const std::string& base, const std::string& other) {
  Knobs a, b;
  try {
    a = parse_knobs(base);
    b = parse_knobs(other);
  } catch (const std::exception&) {
    return base == other ? "" : other;
  }
  std::string out;
  const auto add = [&](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
  for (const auto& [name, value] : b) {
    const auto it = a.find(name);
    if (it == a.end())
      add(fmt::format("{}={}", name, value));
    else if (it->second != value)
      add(fmt::format("{} {}->{}", name, it->second, value));
  }
  for (const auto& [name, value] : a)
    if (b.find(name) == b.end()) add(fmt::format("no {}", name));
  return out;
}

std::string format_explanation(const Explanation& e, bool colour) {
  const ProblemReport& r = e.report;
  std::string out = fmt::format("{} on {} ({}, {} SMs, {} MHz)\n",
                                paint(r.problem.to_string(), Colour::bold, colour), r.gpu.name,
                                r.gpu.arch, r.gpu.sm_count, r.gpu.default_clock_mhz);
  const std::string ratio =
      paint(ratio_text(r.ratio()), ratio_colour(r.ratio(), r.tie_band), colour);
  if (r.cublas_won()) {
    out += fmt::format(
        "winner: cuBLAS, {:.2f} us: no kernel beat it by more than the measurement "
        "spread ({:.1f}%)\n",
        r.cublas_us, 100.0 * r.tie_band);
  } else {
    out += fmt::format("winner: {} {}\n  {:.2f} us against cuBLAS {:.2f} us: {} (spread {:.1f}%)\n",
                       r.winner_family, r.winner_config, r.tuned_us, r.cublas_us, ratio,
                       100.0 * r.tie_band);
  }
  out += fmt::format(
      "achieved: {:.2f} TFLOP/s = {} of the FP32 peak {:.1f} TFLOP/s; roofline floor {:.2f} us "
      "({}-bound at {:.1f} FLOP/byte, ridge {:.1f}): {} of the floor's speed",
      r.tuned_tflops(), percent(r.pct_peak()), r.peak_tflops, r.floor_us, bound_name(r.bound),
      r.intensity, ridge_point(r.peak_tflops, r.bandwidth_tbps), percent(r.pct_floor()));
  if (!r.cublas_won())
    out += fmt::format("; cuBLAS {:.2f} TFLOP/s, {} of the floor's speed", r.cublas_tflops(),
                       percent(r.cublas_us > 0 ? 100.0 * r.floor_us / r.cublas_us : 0));
  out += "\n";

  if (r.own) {
    const KernelFacts& k = *r.own;
    if (!r.own_won())
      out += fmt::format("best own kernel: {} {}\n  {:.2f} us ({}), {} of cuBLAS's speed ({})\n",
                         k.family, k.config, k.time_us, k.stage,
                         percent(k.time_us > 0 ? 100.0 * r.cublas_us / k.time_us : 0),
                         paint(ratio_text(k.ratio()), ratio_colour(k.ratio(), r.tie_band), colour));
    out += "resources: " + resources_line(k, r.gpu) + "\n";
  }

  const double reference = r.cublas_won() ? r.cublas_us : r.tuned_us;
  const std::string base_config = r.own ? r.own->config : "";
  if (e.runner_ups.empty()) {
    out += "runner-ups: none timed\n";
  } else {
    out += fmt::format("runner-ups (fastest first; behind = against {}):\n",
                       r.cublas_won() ? "cuBLAS" : "the winner");
    std::vector<std::vector<Cell>> rows;
    int rank = 1;
    for (const KernelFacts& k : e.runner_ups) {
      const double behind = behind_pct(k.time_us, reference);
      rows.push_back({{std::to_string(rank++)},
                      {fmt::format("{:.2f}", k.time_us)},
                      {k.stage},
                      {fmt::format("{:+.1f}%", behind), behind > 0 ? Colour::red : Colour::green},
                      {k.registers > 0 ? std::to_string(k.registers) : "?"},
                      {k.smem_bytes > 0 ? fmt::format("{:.1f}", k.smem_bytes / 1024.0) : "?"},
                      {k.geometry_known ? std::to_string(k.occupancy.blocks_per_sm) : "?"},
                      {k.geometry_known ? fmt::format("{:.2f}", k.waves) : "?"},
                      {k.family == (r.own ? r.own->family : "") && !base_config.empty()
                           ? knob_differences(base_config, k.config)
                           : k.family + " " + k.config}});
      if (rows.back().back().text.empty())
        rows.back().back().text = r.own_won() ? "(same knobs)" : "(the best own kernel)";
    }
    out += markdown_table({"#", "us", "timed", "behind", "regs", "smem KiB", "blocks/SM", "waves",
                           r.own_won() ? "knobs vs winner" : "knobs vs best own kernel"},
                          rows, {true, true, false, true, true, true, true, true, false}, colour);
  }

  out += fmt::format("candidates: {} tried, {} ok, {} failed, {} skipped\n", r.tried, r.ok,
                     r.failed, r.skipped);
  for (const auto& [outcome, count] : r.failures) {
    std::string example;
    if (const auto it = e.failure_example.find(outcome);
        it != e.failure_example.end() && !it->second.empty()) {
      example = it->second.substr(0, it->second.find('\n'));
      if (example.size() > 100) example = example.substr(0, 97) + "...";
      example = " (e.g. " + example + ")";
    }
    out += fmt::format("  {} {}{}\n", paint(outcome, Colour::yellow, colour), count, example);
  }
  return out;
}

ordered_json explanation_json(const Explanation& e) {
  ordered_json j = report_json(e.report);
  const double reference = e.report.cublas_won() ? e.report.cublas_us : e.report.tuned_us;
  ordered_json runners = ordered_json::array();
  for (const KernelFacts& k : e.runner_ups) {
    ordered_json row = {{"family", k.family},
                        {"config", k.config},
                        {"time_us", k.time_us},
                        {"stage", k.stage},
                        {"behind_pct", behind_pct(k.time_us, reference)},
                        {"registers", k.registers},
                        {"smem_bytes", k.smem_bytes}};
    if (k.geometry_known) {
      row["blocks_per_sm"] = k.occupancy.blocks_per_sm;
      row["waves"] = k.waves;
    }
    if (e.report.own && k.family == e.report.own->family)
      row["differs_in"] = knob_differences(e.report.own->config, k.config);
    runners.push_back(row);
  }
  j["runner_ups"] = runners;
  ordered_json examples = ordered_json::object();
  for (const auto& [outcome, message] : e.failure_example) examples[outcome] = message;
  j["failure_examples"] = examples;
  return j;
}

std::string shape_list_csv(const ProblemKey& p) {
  return fmt::format("m,n,k,transa,transb,lda,ldb,ldc\n{},{},{},{},{},{},{},{}\n", p.m, p.n, p.k,
                     op_char(p.transa), op_char(p.transb), p.lda, p.ldb, p.ldc);
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain =
        !a.empty() && a.find_first_not_of(
                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                          "-_./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

}  // namespace sgt::report
