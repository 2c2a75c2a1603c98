// The report in three formats: Markdown (two tables per GPU model, for people), CSV (one row
// per problem, every field) and JSON (the same fields, plus the GPU and ceilings).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/problem_report.hpp"
#include "report/terminal.hpp"

namespace sgt::report {

// A Markdown table with padded columns; cells may carry a colour applied after padding.
struct Cell {
  std::string text;
  Colour colour = Colour::none;
};
std::string markdown_table(const std::vector<std::string>& headers,
                           const std::vector<std::vector<Cell>>& rows,
                           const std::vector<bool>& right_aligned, bool colour);

std::string format_markdown(const std::vector<ProblemReport>& reports, bool colour = false);
std::string format_csv(const std::vector<ProblemReport>& reports);
nlohmann::ordered_json report_json(const ProblemReport& r);
std::string format_json(const std::vector<ProblemReport>& reports);

// Number formatting used in every table: fixed decimals, "-" for 0 or missing.
std::string fixed(double v, int decimals);
std::string percent(double v);     // "63.2%"
std::string ratio_text(double v);  // "1.23x"
// "2 (smem)": blocks per SM and the limiting resource, "?" flagged when registers are unknown.
std::string occupancy_text(const Occupancy& o);

}  // namespace sgt::report
