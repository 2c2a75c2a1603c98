// Nsight Compute commands for the winner, the CSV of its details page, and the summary of it.
//
// How ncu runs: one profiling pass writes a report file (`-o`), then `ncu --import --csv --page
// details` prints it. The second command's output holds nothing but ncu's CSV, whereas the
// profiled `sgemm-tune bench` prints its own table to the same standard output as a one-step
// `ncu --csv`. Speed of light, occupancy and the warp cycles per instruction are read by their
// labels in the sections' headers (SpeedOfLight, Occupancy, WarpStateStats) or by their metric
// names; the details page does not list the stall reasons of WarpStateStats (they are a chart),
// so they are asked for by name with --metrics and appear under "Command line profiler
// metrics" as smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio: warp cycles
// spent in that state per issued instruction, the numbers of ncu's warp state chart.
#include "report/ncu_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "common/error.hpp"
#include "report/format.hpp"
#include "report/process.hpp"
#include "report/terminal.hpp"

namespace sgt::report {
namespace {

constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";
// The stall reasons of sm_70 to sm_90 (ncu's warp state chart without "selected", which is the
// issue itself).
// clang-format off
constexpr const char* kStallReasons[] = {
    "barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
    "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
    "not_selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"};
// clang-format on

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct MetricRow {
  std::string section, name, unit, value;
};

struct Launch {
  std::string id, kernel, device, block, grid;
  std::vector<MetricRow> metrics;
};

// Where one quantity is found: a metric name in any section, or a section header's label
// (sections are matched by part of their display name, in lower case).
struct Source {
  std::string_view section, name;
};

const MetricRow* find_metric(const Launch& l, std::initializer_list<Source> sources, bool percent) {
  for (const Source& src : sources)
    for (const MetricRow& m : l.metrics) {
      if (m.name != src.name) continue;
      if (!src.section.empty() && !contains(lower(m.section), src.section)) continue;
      // "Memory Throughput" is also a bandwidth in other sections: a percentage must say "%".
      if (percent && m.unit != "%") continue;
      return &m;
    }
  return nullptr;
}

std::optional<double> percent_of(const Launch& l, std::initializer_list<Source> sources) {
  const MetricRow* m = find_metric(l, sources, true);
  return m ? parse_ncu_number(m->value) : std::nullopt;
}

// ncu scales time units to the value ("usecond", "msecond"; "us", "ms" in newer versions).
std::optional<double> duration_us(const Launch& l) {
  const MetricRow* m =
      find_metric(l, {{"", "gpu__time_duration.sum"}, {"speed of light", "Duration"}}, false);
  if (m == nullptr) return std::nullopt;
  const std::optional<double> v = parse_ncu_number(m->value);
  if (!v) return std::nullopt;
  static const std::map<std::string, double> to_us = {
      {"nsecond", 1e-3}, {"ns", 1e-3}, {"usecond", 1.0}, {"us", 1.0},
      {"msecond", 1e3},  {"ms", 1e3},  {"second", 1e6},  {"s", 1e6}};
  const auto it = to_us.find(m->unit);
  if (it == to_us.end())
    throw Error(ErrorKind::internal,
                fmt::format("ncu reported the duration in an unknown unit '{}'", m->unit));
  return *v * it->second;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string or_not_reported(const std::optional<double>& v, std::string_view format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("not reported");
}

}  // namespace

std::vector<std::vector<std::string>> parse_csv(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, field_started = false;
  const auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  const auto end_record = [&] {
    if (field_started || !record.empty()) {
      end_field();
      records.push_back(std::move(record));
    }
    record.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      end_field();
      field_started = true;  // a comma always opens one more field
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
    } else {
      field += c;
      field_started = true;
    }
  }
  end_record();
  return records;
}

std::optional<double> parse_ncu_number(std::string_view text) {
  text = trim(text);
  std::string digits;
  const auto digit = [&](std::size_t i) {
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    // A grouping comma follows a digit and precedes exactly three; any other comma makes the
    // text no number (so "1,5" is not read as 15).
    if (text[i] == ',' && i > 0 && digit(i - 1) && digit(i + 1) && digit(i + 2) && digit(i + 3) &&
        !digit(i + 4))
      continue;
    digits += text[i];
  }
  if (digits.empty()) return std::nullopt;
  double v = 0;
  const char* first = digits.data();
  if (*first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::string ncu_failure_reason(std::string_view output) {
  if (contains(output, "ERR_NVGPUCTRPERM"))
    return "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): profile as root, or "
           "load the nvidia driver with NVreg_RestrictProfilingToAdminUsers=0 "
           "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
  std::string errors;
  std::istringstream lines{std::string(output)};
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("==ERROR=="))
      errors += (errors.empty() ? "" : "; ") + std::string(trim(line.substr(9)));
  }
  if (!errors.empty()) return "ncu: " + errors;
  if (contains(output, "No kernels were profiled"))
    return "ncu profiled no kernel: no launch matched its kernel filter";
  return "";
}

namespace {

// The CSV part of ncu's output: from the header line starting with "ID" (what comes before is
// ncu's log: ==PROF==, ==WARNING==).
std::string_view csv_part(std::string_view csv) {
  if (contains(csv, "ERR_NVGPUCTRPERM"))
    throw Error(ErrorKind::not_supported, ncu_failure_reason(csv));
  if (trim(csv).empty()) throw Error(ErrorKind::internal, "ncu printed nothing (no CSV)");
  for (std::size_t at = 0; at < csv.size();) {
    if (csv.substr(at).starts_with("\"ID\",")) return csv.substr(at);
    const std::size_t next = csv.find('\n', at);
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  const std::string reason = ncu_failure_reason(csv);
  throw Error(ErrorKind::internal,
              reason.empty()
                  ? "no CSV header (\"ID\",...) in ncu's output: not `ncu --csv --page details`"
                  : reason);
}

// Every profiled launch with its metrics, in the order ncu printed them.
std::vector<Launch> read_launches(std::string_view table) {
  const std::vector<std::vector<std::string>> records = parse_csv(table);
  const std::vector<std::string>& head = records.front();
  const auto column = [&](std::string_view name) -> int {
    const auto it = std::find(head.begin(), head.end(), name);
    return it == head.end() ? -1 : static_cast<int>(it - head.begin());
  };
  const int id = column("ID"), kernel = column("Kernel Name"), section = column("Section Name"),
            name = column("Metric Name"), unit = column("Metric Unit"),
            value = column("Metric Value"), device = column("Device"), block = column("Block Size"),
            grid = column("Grid Size");
  if (id < 0 || kernel < 0 || name < 0 || value < 0)
    throw Error(
        ErrorKind::internal,
        "ncu's CSV has no ID, Kernel Name, Metric Name or Metric Value column: not the details "
        "page (--page details)");
  std::vector<Launch> launches;
  const auto cell = [](const std::vector<std::string>& r, int i) {
    return i >= 0 && i < static_cast<int>(r.size()) ? r[i] : std::string();
  };
  // A metric's record ends after its value: ncu 2025 leaves out the empty rule columns that
  // follow (16 fields under a header of 20), and only a rule's own records are full length.
  const int needed = std::max({id, kernel, name, value}) + 1;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const std::vector<std::string>& r = records[i];
    if (static_cast<int>(r.size()) < needed) continue;  // a log line that came after the header
    if (launches.empty() || launches.back().id != r[id]) {
      launches.push_back({r[id], r[kernel], cell(r, device), cell(r, block), cell(r, grid), {}});
    }
    if (!r[name].empty())
      launches.back().metrics.push_back({cell(r, section), r[name], cell(r, unit), r[value]});
  }
  return launches;
}

// The first launch whose kernel name matches.
const Launch& matching_launch(const std::vector<Launch>& launches,
                              const std::string& kernel_regex) {
  const std::regex filter(kernel_regex);
  const auto match = std::find_if(launches.begin(), launches.end(), [&](const Launch& l) {
    return std::regex_search(l.kernel, filter);
  });
  if (match != launches.end()) return *match;
  std::string seen;
  for (const Launch& l : launches)
    if (!contains(seen, l.kernel)) seen += (seen.empty() ? "" : ", ") + l.kernel;
  throw Error(ErrorKind::internal,
              fmt::format("no kernel matching /{}/ in ncu's output ({})", kernel_regex,
                          seen.empty() ? "it holds no kernel" : "it holds " + seen));
}

// Speed of light, occupancy, registers and issue rate of one launch.
NcuSummary speed_of_light(const Launch& l) {
  NcuSummary s;
  s.kernel = l.kernel;
  s.launch_id = l.id;
  s.device = l.device;
  s.block_size = l.block;
  s.grid_size = l.grid;
  s.duration_us = duration_us(l);
  s.sm_throughput_pct = percent_of(l, {{"", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
                                       {"speed of light", "Compute (SM) Throughput"},
                                       {"speed of light", "Compute (SM) [%]"},
                                       {"speed of light", "SM [%]"}});
  s.memory_throughput_pct =
      percent_of(l, {{"", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
                     {"speed of light", "Memory Throughput"},
                     {"speed of light", "Memory [%]"}});
  s.dram_throughput_pct =
      percent_of(l, {{"", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
                     {"", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
                     {"speed of light", "DRAM Throughput"}});
  s.achieved_occupancy_pct =
      percent_of(l, {{"", "sm__warps_active.avg.pct_of_peak_sustained_active"},
                     {"occupancy", "Achieved Occupancy"}});
  s.theoretical_occupancy_pct = percent_of(
      l, {{"", "sm__maximum_warps_per_active_cycle_pct"}, {"occupancy", "Theoretical Occupancy"}});
  if (const MetricRow* m = find_metric(
          l, {{"", "launch__registers_per_thread"}, {"launch", "Registers Per Thread"}}, false))
    s.registers_per_thread = parse_ncu_number(m->value);
  if (const MetricRow* m = find_metric(l,
                                       {{"", "smsp__average_warp_latency_per_inst_issued.ratio"},
                                        {"warp state", "Warp Cycles Per Issued Instruction"}},
                                       false))
    s.cycles_per_issue = parse_ncu_number(m->value);
  if (!s.duration_us && !s.sm_throughput_pct && !s.memory_throughput_pct) {
    // Name what the output held, so a layout this parser does not know can be seen at once.
    std::string seen;
    for (const MetricRow& m : l.metrics) {
      if (seen.size() > 600) {
        seen += ", ...";
        break;
      }
      seen += (seen.empty() ? "" : ", ") + m.section + "/" + m.name + " [" + m.unit + "]";
    }
    throw Error(
        ErrorKind::internal,
        fmt::format("ncu's output has no speed-of-light metrics for {} (section SpeedOfLight "
                    "not collected or not recognised); it held: {}",
                    l.kernel, seen.empty() ? "no metrics" : seen));
  }
  return s;
}

// The warp stall reasons of one launch, largest first (top_stalls of them; < 0: all), each with
// its share of the stalled cycles.
std::vector<StallReason> stall_reasons(const Launch& l, int top_stalls) {
  std::vector<StallReason> stalls;
  double total = 0;
  for (const MetricRow& m : l.metrics) {
    const std::string_view n = m.name;
    if (!n.starts_with(kStallPrefix) || !n.ends_with(kStallSuffix)) continue;
    const std::string reason(
        n.substr(kStallPrefix.size(), n.size() - kStallPrefix.size() - kStallSuffix.size()));
    if (reason == "selected" || reason.ends_with("_not_issued")) continue;
    const std::optional<double> v = parse_ncu_number(m.value);
    if (!v || std::any_of(stalls.begin(), stalls.end(),
                          [&](const StallReason& r) { return r.name == reason; }))
      continue;
    stalls.push_back({reason, *v, 0});
    total += *v;
  }
  for (StallReason& r : stalls) r.share_pct = total > 0 ? 100.0 * r.cycles_per_issue / total : 0;
  std::stable_sort(stalls.begin(), stalls.end(), [](const StallReason& a, const StallReason& b) {
    return a.cycles_per_issue > b.cycles_per_issue;
  });
  if (top_stalls >= 0 && static_cast<int>(stalls.size()) > top_stalls) stalls.resize(top_stalls);
  return stalls;
}

}  // namespace

NcuSummary parse_ncu_details(std::string_view csv, const std::string& kernel_regex,
                             int top_stalls) {
  const std::vector<Launch> launches = read_launches(csv_part(csv));
  const Launch& launch = matching_launch(launches, kernel_regex);
  NcuSummary s = speed_of_light(launch);
  s.stalls = stall_reasons(launch, top_stalls);
  return s;
}

NcuPlan ncu_plan(const std::string& sgemm_tune, const std::string& shapes_file,
                 const std::string& db, const std::string& report_path, bool cublas_won) {
  std::string stall_metrics;
  for (const char* reason : kStallReasons)
    stall_metrics += (stall_metrics.empty() ? "" : ",") + std::string(kStallPrefix) + reason +
                     std::string(kStallSuffix);
  NcuPlan plan;
  plan.report_path = report_path;
  // cuBLAS won: skip further, past bench's verification, whose reference is cuBLAS in pedantic
  // mode and may run another kernel than the one the dispatcher calls. bench leaves cuBLASLt
  // out: its kernels would match "gemm" too, and the profile is of the winner alone.
  // clang-format off
  plan.profile = {"ncu", "--clock-control", "none", "--target-processes", "all",
                  "--kernel-name", cublas_won ? "regex:gemm" : "regex:^sgemm_main$",
                  "--launch-skip", cublas_won ? "20" : "5", "--launch-count", "1",
                  "--section", "SpeedOfLight", "--section", "Occupancy", "--section", "LaunchStats",
                  "--section", "WarpStateStats", "--section", "SchedulerStats",
                  "--metrics", stall_metrics, "--force-overwrite", "-o", report_path,
                  sgemm_tune, "bench", "--shapes", shapes_file, "--lt-algos", "0"};
  // clang-format on
  if (!db.empty()) {
    plan.profile.push_back("--db");
    plan.profile.push_back(db);
  }
  plan.print = {"ncu", "--import", report_path, "--csv", "--page", "details"};
  plan.kernel_regex = cublas_won ? "gemm" : "^sgemm_main($|\\()";
  return plan;
}

NcuSummary profile_with_ncu(const NcuPlan& plan, const std::string& work_dir,
                            const CommandRunner& run, int top_stalls) {
  const std::string profile_log = work_dir + "/ncu-profile.log",
                    csv_file = work_dir + "/ncu-details.csv";
  const int profiled = run(plan.profile, profile_log);
  const std::string log = slurp(profile_log);
  if (const std::string reason = ncu_failure_reason(log); !reason.empty())
    throw Error(contains(log, "ERR_NVGPUCTRPERM") ? ErrorKind::not_supported : ErrorKind::internal,
                fmt::format("{} (log: {})", reason, profile_log));
  if (profiled != 0)
    throw Error(ErrorKind::internal,
                fmt::format("ncu exited with status {} (log: {}): {}", profiled, profile_log,
                            read_tail(profile_log, 1500)));
  const int printed = run(plan.print, csv_file);
  if (printed != 0)
    throw Error(ErrorKind::internal, fmt::format("ncu --import exited with status {}: {}", printed,
                                                 read_tail(csv_file, 1500)));
  return parse_ncu_details(slurp(csv_file), plan.kernel_regex, top_stalls);
}

std::string format_ncu_summary(const NcuSummary& s, bool colour) {
  std::string out = fmt::format("Nsight Compute: {}, launch {}",
                                paint(s.kernel, Colour::bold, colour), s.launch_id);
  if (!s.grid_size.empty() && !s.block_size.empty())
    out += fmt::format(", grid {} x block {}", s.grid_size, s.block_size);
  out += "\n";
  out += fmt::format("  speed of light: compute (SM) {}, memory {}, DRAM {}; duration {}\n",
                     or_not_reported(s.sm_throughput_pct, "{:.1f}%"),
                     or_not_reported(s.memory_throughput_pct, "{:.1f}%"),
                     or_not_reported(s.dram_throughput_pct, "{:.1f}%"),
                     or_not_reported(s.duration_us, "{:.2f} us"));
  out += fmt::format("  occupancy: achieved {}, theoretical {}; {} registers/thread\n",
                     or_not_reported(s.achieved_occupancy_pct, "{:.1f}%"),
                     or_not_reported(s.theoretical_occupancy_pct, "{:.1f}%"),
                     or_not_reported(s.registers_per_thread, "{:.0f}"));
  if (s.stalls.empty()) {
    out += "  stall reasons: not reported (no smsp__average_warps_issue_stalled_* metrics)\n";
    return out;
  }
  out += fmt::format(
      "  top stall reasons (warp cycles per issued instruction{}):\n",
      s.cycles_per_issue ? fmt::format(", {:.2f} in all states", *s.cycles_per_issue) : "");
  std::vector<std::vector<Cell>> rows;
  for (std::size_t i = 0; i < s.stalls.size(); ++i) {
    const StallReason& r = s.stalls[i];
    rows.push_back({{r.name, i == 0 ? Colour::yellow : Colour::none},
                    {fmt::format("{:.2f}", r.cycles_per_issue)},
                    {fmt::format("{:.1f}%", r.share_pct)}});
  }
  out += markdown_table({"stall reason", "cycles", "share"}, rows, {false, true, true}, colour);
  return out;
}

nlohmann::ordered_json ncu_summary_json(const NcuSummary& s) {
  const auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json stalls = nlohmann::ordered_json::array();
  for (const StallReason& r : s.stalls)
    stalls.push_back(
        {{"reason", r.name}, {"cycles_per_issue", r.cycles_per_issue}, {"share_pct", r.share_pct}});
  return {{"kernel", s.kernel},
          {"launch_id", s.launch_id},
          {"device", s.device},
          {"grid_size", s.grid_size},
          {"block_size", s.block_size},
          {"duration_us", optional(s.duration_us)},
          {"sm_throughput_pct", optional(s.sm_throughput_pct)},
          {"memory_throughput_pct", optional(s.memory_throughput_pct)},
          {"dram_throughput_pct", optional(s.dram_throughput_pct)},
          {"achieved_occupancy_pct", optional(s.achieved_occupancy_pct)},
          {"theoretical_occupancy_pct", optional(s.theoretical_occupancy_pct)},
          {"registers_per_thread", optional(s.registers_per_thread)},
          {"cycles_per_issue", optional(s.cycles_per_issue)},
          {"stalls", stalls}};
}

}  // namespace sgt::report
