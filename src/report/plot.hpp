// Pictures of a report, drawn by gnuplot run as a child process: a roofline chart (tuned and
// cuBLAS points against the FP32 peak and memory ceilings, log-log) and a per-problem speedup
// bar chart, each as PNG (pngcairo) and SVG. The data files and scripts stay next to the
// pictures (paths relative to that folder) so they can be edited and re-rendered there with
// `gnuplot FILE.gp`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/problem_report.hpp"

namespace sgt::report {

// The full path of an executable found on $PATH, or "" when there is none.
std::string find_on_path(std::string_view name);

// A string as a gnuplot single-quoted literal ('it''s').
std::string gnuplot_quote(std::string_view text);

// Script texts (data file paths are embedded as given). Exposed for tests.
std::string roofline_script(const std::vector<const ProblemReport*>& group,
                            const std::string& data_path, const std::string& output_stem);
std::string speedup_script(const std::vector<const ProblemReport*>& group,
                           const std::string& data_path, const std::string& output_stem);
std::string roofline_data(const std::vector<const ProblemReport*>& group);
std::string speedup_data(const std::vector<const ProblemReport*>& group);

// Writes data and scripts into dir (created if missing) and runs gnuplot on each script.
// One roofline and one speedup chart per GPU model: roofline.{png,svg} and speedup.{png,svg}
// for a single model, else with "_<arch>_<model>" appended. Returns the pictures written.
// Throws Error(not_supported) when gnuplot is not on $PATH, Error(internal) when it fails
// (with its error output), Error(invalid_value) when there is nothing to draw.
std::vector<std::string> draw_plots(const std::vector<ProblemReport>& reports,
                                    const std::string& dir);

}  // namespace sgt::report
