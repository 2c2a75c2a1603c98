// Why a winner wins: its resources, occupancy and waves, the runner-ups and how far behind they
// are (with the knobs in which they differ), the time against the roofline floor, and the
// failures by outcome. Also the shape list and shell quoting of the Nsight Compute commands.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/problem_report.hpp"

namespace sgt::report {

struct Explanation {
  ProblemReport report;
  std::vector<KernelFacts> runner_ups;                 // fastest first, the winner left out
  std::map<std::string, std::string> failure_example;  // outcome -> first message recorded
};

Explanation explain(const WinnerRecord& winner, const std::vector<CandidateRecord>& candidates,
                    double bandwidth_tbps, int top = 5);

// "BK 32->128, STAGES 3->6": knobs of `other` that differ from `base` (text forms of Knobs).
std::string knob_differences(const std::string& base, const std::string& other);

std::string format_explanation(const Explanation& e, bool colour);
nlohmann::ordered_json explanation_json(const Explanation& e);

// A one-problem shape list (CSV) that `sgemm-tune bench --shapes` reads.
std::string shape_list_csv(const ProblemKey& p);
// The command as one line a shell takes (arguments quoted where needed).
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace sgt::report
