// Nsight Compute on one kernel: the two commands (profile inside `sgemm-tune bench` into a
// report file, then print that report as CSV), the parser of `ncu --csv --page details`, and
// the summary drawn from it: speed of light, occupancy and the top warp stall reasons.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sgt::report {

// RFC 4180 records: fields in double quotes may hold commas, line breaks and doubled quotes;
// CRLF or LF ends a record; an empty line is no record.
std::vector<std::vector<std::string>> parse_csv(std::string_view text);

// A number as ncu prints it, digits grouped with commas ("1,234.5"); nullopt for "", "n/a" or
// anything that is not entirely a number.
std::optional<double> parse_ncu_number(std::string_view text);

struct StallReason {
  std::string name;             // as in the metric name: "long_scoreboard"
  double cycles_per_issue = 0;  // warp cycles in this state per issued instruction
  double share_pct = 0;         // of the cycles of every stall reason reported
};

// One profiled launch. A quantity ncu did not report stays nullopt; it is never estimated.
struct NcuSummary {
  std::string kernel;  // "Kernel Name" as ncu prints it
  std::string launch_id, device, block_size, grid_size;
  std::optional<double> duration_us;
  std::optional<double> sm_throughput_pct;      // Compute (SM) Throughput, % of peak
  std::optional<double> memory_throughput_pct;  // the busiest memory unit, % of peak
  std::optional<double> dram_throughput_pct;
  std::optional<double> achieved_occupancy_pct, theoretical_occupancy_pct;
  std::optional<double> registers_per_thread;  // from the launch statistics
  std::optional<double> cycles_per_issue;      // all warp states, per issued instruction
  std::vector<StallReason> stalls;             // the largest first, at most `top_stalls`
};

// The launch of the first kernel whose name matches `kernel_regex` (ECMAScript, searched) in
// the output of `ncu --csv --page details`; lines before the CSV header (==PROF== and the
// like) are skipped. Throws Error(not_supported) on ncu's counter permission error, and
// Error(internal) for an empty or foreign text, no matching kernel, or no speed-of-light
// metrics for it.
NcuSummary parse_ncu_details(std::string_view csv, const std::string& kernel_regex,
                             int top_stalls = 5);

// What went wrong when ncu's output (profiling log) says it could not profile: the counter
// permission error, ==ERROR== lines, or no kernel profiled. "" when it says none of these.
std::string ncu_failure_reason(std::string_view output);

struct NcuPlan {
  std::vector<std::string> profile;  // ncu ... -o REPORT sgemm-tune bench --shapes ... --db ...
  std::vector<std::string> print;    // ncu --import REPORT --csv --page details
  std::string report_path;           // REPORT (.ncu-rep, kept for the Nsight Compute GUI)
  std::string kernel_regex;          // matches the profiled kernel's name in the CSV
};

// The winner's kernel (sgemm_main; the library's gemm kernels when cuBLAS or one of cuBLASLt's
// algorithms won: cublas_won), clocks left alone.
NcuPlan ncu_plan(const std::string& sgemm_tune, const std::string& shapes_file,
                 const std::string& db, const std::string& report_path, bool cublas_won);

// Runs argv with standard output and error appended to output_file and returns the exit status
// (run_command of report/process.hpp; a test passes its own).
using CommandRunner =
    std::function<int(const std::vector<std::string>& argv, const std::string& output_file)>;

// Both commands of the plan through `run` (their outputs go to files in work_dir), then the
// summary. Throws Error with ncu's reason when either command fails or its output says so.
NcuSummary profile_with_ncu(const NcuPlan& plan, const std::string& work_dir,
                            const CommandRunner& run, int top_stalls = 5);

std::string format_ncu_summary(const NcuSummary& s, bool colour);
nlohmann::ordered_json ncu_summary_json(const NcuSummary& s);

}  // namespace sgt::report
