// Markdown, CSV and JSON renderings of the per-problem reports.
#include "report/format.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "measure/nvml.hpp"
#include "space/problem_json.hpp"

namespace sgt::report {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string num(double v) { return fmt::format("{:.6g}", v); }

std::string kib(int bytes) { return bytes > 0 ? fmt::format("{:.1f}", bytes / 1024.0) : "-"; }

std::string opt(const std::optional<double>& v, int decimals, double scale = 1) {
  return v ? fmt::format("{:.{}f}", *v * scale, decimals) : "-";
}

std::string opt_num(const std::optional<double>& v) { return v ? num(*v) : ""; }

std::string clock_range(const MeasureConditions& c) {
  if (!c.sm_clock_min_mhz || !c.sm_clock_max_mhz) return "-";
  if (*c.sm_clock_min_mhz == *c.sm_clock_max_mhz) return fmt::format("{:.0f}", *c.sm_clock_min_mhz);
  return fmt::format("{:.0f}-{:.0f}", *c.sm_clock_min_mhz, *c.sm_clock_max_mhz);
}

std::string reasons_text(const std::optional<std::uint64_t>& r) {
  return r ? reason_names(*r) : "-";
}

std::string text_or_dash(const std::string& s) { return s.empty() ? "-" : s; }

ordered_json conditions_json(const MeasureConditions& c) {
  const auto value = [](const std::optional<double>& v) {
    return v ? ordered_json(*v) : ordered_json(nullptr);
  };
  return {{"cache", c.cache.empty() ? ordered_json(nullptr) : ordered_json(c.cache)},
          {"sm_clock_min_mhz", value(c.sm_clock_min_mhz)},
          {"sm_clock_max_mhz", value(c.sm_clock_max_mhz)},
          {"nvml_sm_clock_mhz", value(c.nvml_sm_clock_mhz)},
          {"power_mw", value(c.power_mw)},
          {"temperature_c", value(c.temperature_c)},
          {"clock_reasons", c.clock_reasons ? ordered_json(*c.clock_reasons) : nullptr},
          {"clock_reason_names",
           c.clock_reasons ? ordered_json(reason_names(*c.clock_reasons)) : nullptr}};
}

}  // namespace

std::string fixed(double v, int decimals) {
  if (!(v > 0)) return "-";
  return fmt::format("{:.{}f}", v, decimals);
}

std::string percent(double v) { return v > 0 ? fmt::format("{:.1f}%", v) : "-"; }

std::string ratio_text(double v) { return v > 0 ? fmt::format("{:.2f}x", v) : "-"; }

std::string occupancy_text(const Occupancy& o) {
  std::string s = fmt::format("{} ({})", o.blocks_per_sm, o.limiter);
  if (!o.registers_known) s += " regs?";
  return s;
}

std::string markdown_table(const std::vector<std::string>& headers,
                           const std::vector<std::vector<Cell>>& rows,
                           const std::vector<bool>& right_aligned, bool colour) {
  std::vector<std::size_t> width(headers.size(), 3);
  for (std::size_t c = 0; c < headers.size(); ++c) width[c] = std::max(width[c], headers[c].size());
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].text.size());
  const auto right = [&](std::size_t c) { return c < right_aligned.size() && right_aligned[c]; };
  const auto pad = [&](const std::string& text, std::size_t c) {
    const std::string fill(width[c] - std::min(width[c], text.size()), ' ');
    return right(c) ? fill + text : text + fill;
  };
  std::string out = "|";
  for (std::size_t c = 0; c < headers.size(); ++c) out += " " + pad(headers[c], c) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < headers.size(); ++c)
    out += right(c) ? " " + std::string(width[c] - 1, '-') + ": |"
                    : " " + std::string(width[c], '-') + " |";
  out += "\n";
  for (const auto& row : rows) {
    out += "|";
    for (std::size_t c = 0; c < headers.size(); ++c) {
      const Cell cell = c < row.size() ? row[c] : Cell{};
      out += " " + paint(pad(cell.text, c), cell.colour, colour) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string format_markdown(const std::vector<ProblemReport>& reports, bool colour) {
  std::string out = "# SGEMM tuning report\n\n";
  if (reports.empty()) return out + "No tuned problems in the database.\n";
  for (const auto& group : group_by_gpu(reports)) {
    const ProblemReport& first = *group.front();
    out += fmt::format("## {} ({}, {} SMs, {} MHz)\n\n", first.gpu.name, first.gpu.arch,
                       first.gpu.sm_count, first.gpu.default_clock_mhz);
    out += fmt::format(
        "FP32 peak {:.1f} TFLOP/s (SMs x 128 x 2 x clock), memory ceiling {:.2f} TB/s, ridge "
        "point {:.1f} FLOP/byte. ratio = cuBLAS us / tuned us (above 1: faster than cuBLAS).\n\n",
        first.peak_tflops, first.bandwidth_tbps,
        ridge_point(first.peak_tflops, first.bandwidth_tbps));

    std::vector<std::vector<Cell>> perf, kernels, measured;
    std::vector<ProblemReport> group_values;
    for (const ProblemReport* r : group) {
      group_values.push_back(*r);
      const std::string winner = r->cublas_won() ? "cuBLAS" : r->winner_family;
      const double own_ratio = r->own ? r->own->ratio() : 0.0;
      perf.push_back({{r->label},
                      {winner, r->cublas_won() ? Colour::none : Colour::bold},
                      {fixed(r->tuned_us, 2)},
                      {fixed(r->cublas_us, 2)},
                      {ratio_text(r->ratio()), ratio_colour(r->ratio(), r->tie_band)},
                      {fixed(r->tuned_tflops(), 2)},
                      {percent(r->pct_peak())},
                      {percent(r->pct_floor())},
                      {bound_name(r->bound)},
                      {ratio_text(own_ratio), ratio_colour(own_ratio, r->tie_band)},
                      {fmt::format("{}/{}/{}", r->tried, r->ok, r->failed)}});
      if (r->own) {
        const KernelFacts& k = *r->own;
        kernels.push_back(
            {{r->label},
             {k.family},
             {k.config},
             {k.stage},
             {k.registers > 0 ? std::to_string(k.registers) : "?"},
             {kib(k.smem_bytes)},
             {k.geometry_known ? std::to_string(k.threads) : "?"},
             {k.geometry_known ? std::to_string(k.grid_blocks) : "?"},
             {k.geometry_known ? std::to_string(k.k_splits) : "?"},
             {k.geometry_known ? occupancy_text(k.occupancy) : "?"},
             {k.geometry_known ? fmt::format("{:.0f}%", 100.0 * k.occupancy.fraction) : "?"},
             {k.geometry_known ? fmt::format("{:.2f}", k.waves) : "?"}});
        const MeasureConditions& c = k.conditions;
        measured.push_back(
            {{r->label},
             {k.stage},
             {text_or_dash(k.clock_policy)},
             {text_or_dash(c.cache)},
             {clock_range(c)},
             {opt(c.nvml_sm_clock_mhz, 0)},
             {opt(c.power_mw, 0, 1e-3)},
             {opt(c.temperature_c, 0)},
             {reasons_text(c.clock_reasons)},
             {std::to_string(k.samples)},
             {std::to_string(k.discarded), k.discarded > 0 ? Colour::yellow : Colour::none}});
      }
    }
    out += markdown_table(
        {"problem", "winner", "tuned us", "cuBLAS us", "ratio", "TFLOP/s", "% peak", "% floor",
         "bound", "own best", "tried/ok/failed"},
        perf, {false, false, true, true, true, true, true, true, false, true, true}, colour);
    out += fmt::format(
        "\nGeometric mean ratio: {} (winners), {} (the project's own best kernels).\n\n",
        ratio_text(geomean_ratio(group_values)), ratio_text(geomean_ratio(group_values, true)));
    out += "### The project's best kernel per problem (the winner unless cuBLAS won)\n\n";
    out += markdown_table(
        {"problem", "family", "knobs", "timed", "regs", "smem KiB", "threads", "grid", "splits",
         "blocks/SM (limit)", "occupancy", "waves"},
        kernels, {false, false, false, false, true, true, true, true, true, false, true, true},
        colour);
    for (const ProblemReport* r : group)
      if (r->own && !r->own->geometry_note.empty())
        out += fmt::format("\n{}: geometry with {}.\n", r->label, r->own->geometry_note);
    out += "\n### How those kernels were measured\n\n";
    out +=
        "SM MHz: clock probe over the accepted samples; NVML MHz, W and C: NVML around the "
        "rounds (mean, mean, highest); reasons: NVML clock-event reasons seen.\n\n";
    out += markdown_table(
        {"problem", "timed", "clocks", "cache", "SM MHz", "NVML MHz", "W", "C", "reasons",
         "samples", "discarded"},
        measured, {false, false, false, false, true, true, true, true, false, true, true}, colour);
    out += "\n";
  }
  return out;
}

std::string format_csv(const std::vector<ProblemReport>& reports) {
  std::string out =
      "gpu,arch,sm_count,problem,transa,transb,m,n,k,lda,ldb,ldc,align,winner_family,winner_config,"
      "tuned_us,cublas_us,ratio,tie_band,tuned_tflops,cublas_tflops,peak_tflops,pct_peak,floor_us,"
      "pct_floor,intensity,bound,own_family,own_config,own_stage,own_us,own_cublas_us,own_ratio,"
      "registers,spill_bytes,smem_bytes,threads,grid_blocks,k_splits,blocks_per_sm,"
      "occupancy_limiter,occupancy,waves,tried,ok,failed,skipped,clock_policy,cache,samples,"
      "discarded,sm_clock_min_mhz,sm_clock_max_mhz,nvml_sm_clock_mhz,power_mw,temperature_c,"
      "clock_reasons\n";
  for (const ProblemReport& r : reports) {
    const ProblemKey& p = r.problem;
    std::vector<std::string> f = {csv_field(r.gpu.name),
                                  r.gpu.arch,
                                  std::to_string(r.gpu.sm_count),
                                  csv_field(r.label),
                                  std::string(1, op_char(p.transa)),
                                  std::string(1, op_char(p.transb)),
                                  std::to_string(p.m),
                                  std::to_string(p.n),
                                  std::to_string(p.k),
                                  std::to_string(p.lda),
                                  std::to_string(p.ldb),
                                  std::to_string(p.ldc),
                                  std::to_string(p.align),
                                  r.winner_family,
                                  csv_field(r.winner_config),
                                  num(r.tuned_us),
                                  num(r.cublas_us),
                                  num(r.ratio()),
                                  num(r.tie_band),
                                  num(r.tuned_tflops()),
                                  num(r.cublas_tflops()),
                                  num(r.peak_tflops),
                                  num(r.pct_peak()),
                                  num(r.floor_us),
                                  num(r.pct_floor()),
                                  num(r.intensity),
                                  bound_name(r.bound)};
    if (r.own) {
      const KernelFacts& k = *r.own;
      const bool g = k.geometry_known;
      for (const std::string& s :
           {k.family, csv_field(k.config), k.stage, num(k.time_us), num(k.cublas_us),
            num(k.ratio()), std::to_string(k.registers), std::to_string(k.spill_bytes),
            std::to_string(k.smem_bytes), g ? std::to_string(k.threads) : "",
            g ? std::to_string(k.grid_blocks) : "", g ? std::to_string(k.k_splits) : "",
            g ? std::to_string(k.occupancy.blocks_per_sm) : "",
            g ? csv_field(k.occupancy.limiter) : "", g ? num(k.occupancy.fraction) : "",
            g ? num(k.waves) : ""})
        f.push_back(s);
    } else {
      for (int i = 0; i < 16; ++i) f.emplace_back();
    }
    for (int v : {r.tried, r.ok, r.failed, r.skipped}) f.push_back(std::to_string(v));
    if (r.own) {
      const KernelFacts& k = *r.own;
      const MeasureConditions& c = k.conditions;
      for (const std::string& s :
           {k.clock_policy, c.cache, std::to_string(k.samples), std::to_string(k.discarded),
            opt_num(c.sm_clock_min_mhz), opt_num(c.sm_clock_max_mhz), opt_num(c.nvml_sm_clock_mhz),
            opt_num(c.power_mw), opt_num(c.temperature_c),
            c.clock_reasons ? fmt::format("0x{:x}", *c.clock_reasons) : ""})
        f.push_back(s);
    } else {
      for (int i = 0; i < 10; ++i) f.emplace_back();
    }
    for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + f[i];
    out += "\n";
  }
  return out;
}

ordered_json report_json(const ProblemReport& r) {
  const ProblemKey& p = r.problem;
  ordered_json j = {{"problem", r.label}};
  put_problem_fields(j, p);
  j.update(ordered_json{{"gpu",
                         {{"name", r.gpu.name},
                          {"arch", r.gpu.arch},
                          {"sm_count", r.gpu.sm_count},
                          {"default_clock_mhz", r.gpu.default_clock_mhz}}},
                        {"winner", {{"family", r.winner_family}, {"config", r.winner_config}}},
                        {"tuned_us", r.tuned_us},
                        {"cublas_us", r.cublas_us},
                        {"ratio", r.ratio()},
                        {"tie_band", r.tie_band},
                        {"tuned_tflops", r.tuned_tflops()},
                        {"cublas_tflops", r.cublas_tflops()},
                        {"peak_tflops", r.peak_tflops},
                        {"bandwidth_tbps", r.bandwidth_tbps},
                        {"pct_peak", r.pct_peak()},
                        {"floor_us", r.floor_us},
                        {"pct_floor", r.pct_floor()},
                        {"intensity_flop_per_byte", r.intensity},
                        {"bound", bound_name(r.bound)},
                        {"candidates",
                         {{"tried", r.tried},
                          {"ok", r.ok},
                          {"failed", r.failed},
                          {"skipped", r.skipped},
                          {"failures", r.failures}}}});
  if (r.own) {
    const KernelFacts& k = *r.own;
    ordered_json o = {
        {"family", k.family},       {"config", k.config},           {"stage", k.stage},
        {"time_us", k.time_us},     {"cublas_us", k.cublas_us},     {"ratio", k.ratio()},
        {"registers", k.registers}, {"spill_bytes", k.spill_bytes}, {"smem_bytes", k.smem_bytes}};
    if (k.geometry_known) {
      o["threads"] = k.threads;
      o["grid_blocks"] = k.grid_blocks;
      o["k_splits"] = k.k_splits;
      o["blocks_per_sm"] = k.occupancy.blocks_per_sm;
      o["occupancy_limiter"] = k.occupancy.limiter;
      o["registers_known"] = k.occupancy.registers_known;
      o["occupancy"] = k.occupancy.fraction;
      o["waves"] = k.waves;
      if (!k.geometry_note.empty()) o["geometry_note"] = k.geometry_note;
    }
    o["measured"] = {
        {"run_clock_policy",
         k.clock_policy.empty() ? ordered_json(nullptr) : ordered_json(k.clock_policy)},
        {"samples", k.samples},
        {"discarded", k.discarded},
        {"conditions", conditions_json(k.conditions)},
        {"cublas_conditions",
         k.cublas_conditions ? conditions_json(*k.cublas_conditions) : ordered_json(nullptr)}};
    j["own_best"] = o;
  } else {
    j["own_best"] = nullptr;
  }
  return j;
}

std::string format_json(const std::vector<ProblemReport>& reports) {
  ordered_json problems = ordered_json::array();
  for (const ProblemReport& r : reports) problems.push_back(report_json(r));
  ordered_json out = {{"geomean_ratio", geomean_ratio(reports)},
                      {"geomean_own_ratio", geomean_ratio(reports, true)},
                      {"problems", problems}};
  return out.dump(2) + "\n";
}

}  // namespace sgt::report
