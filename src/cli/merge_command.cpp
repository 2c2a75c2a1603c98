// `sgemm-tune merge OUT.db IN1.db IN2.db ...`: databases tuned on several machines into one,
// provenance kept; a winner in two inputs for the same problem and GPU model: the faster stays.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/cli_common.hpp"
#include "report/merge.hpp"
#include "report/terminal.hpp"

namespace sgt::cli {
namespace {

int run_merge(const std::string& out_path, const std::vector<std::string>& inputs, bool json) {
  const report::MergeSummary s = report::merge_databases(out_path, inputs);
  if (json) {
    nlohmann::ordered_json conflicts = nlohmann::ordered_json::array();
    for (const report::MergeConflict& c : s.conflicts)
      conflicts.push_back({{"problem", c.problem.to_string()},
                           {"gpu", c.gpu_name},
                           {"arch", c.arch},
                           {"sm_count", c.sm_count},
                           {"kept_source", c.kept_source},
                           {"kept_kernel", c.kept_kernel},
                           {"kept_us", c.kept_us},
                           {"dropped_source", c.dropped_source},
                           {"dropped_kernel", c.dropped_kernel},
                           {"dropped_us", c.dropped_us},
                           {"same_kernel", c.same_kernel}});
    const nlohmann::ordered_json out = {{"output", out_path},
                                        {"inputs", s.inputs},
                                        {"winners", s.winners},
                                        {"imported",
                                         {{"gpus", s.imported.gpus},
                                          {"software", s.imported.software},
                                          {"runs", s.imported.runs},
                                          {"candidates", s.imported.candidates},
                                          {"winners", s.imported.winners}}},
                                        {"conflicts", conflicts}};
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  const bool colour = report::colour_enabled(stdout);
  std::printf(
      "merged %d databases into %s: %d winners (read %d winners, %d candidates, %d runs); "
      "%zu conflicts\n",
      s.inputs, out_path.c_str(), s.winners, s.imported.winners, s.imported.candidates,
      s.imported.runs, s.conflicts.size());
  for (const report::MergeConflict& c : s.conflicts)
    std::printf("  %s on %s: kept %s (%.2f us, %s), dropped %s (%.2f us, %s)%s\n",
                report::paint(c.problem.to_string(), report::Colour::bold, colour).c_str(),
                c.gpu_name.c_str(), c.kept_kernel.c_str(), c.kept_us, c.kept_source.c_str(),
                c.dropped_kernel.c_str(), c.dropped_us, c.dropped_source.c_str(),
                c.same_kernel ? " [same kernel]" : "");
  return kExitOk;
}

}  // namespace

void add_merge_command(CLI::App& app, int& exit_code) {
  auto out = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "merge", "Merge databases tuned on several machines into OUT (the faster winner stays)");
  cmd->add_option("out", *out, "Output database (created if missing; its winners take part)")
      ->required();
  cmd->add_option("inputs", *inputs, "Input databases, merged in order")
      ->required()
      ->expected(1, -1);
  cmd->add_flag("--json", *json, "JSON summary");
  cmd->callback([out, inputs, json, &exit_code] {
    report::log_to_stderr();
    exit_code = run_merge(*out, *inputs, *json);
  });
}

}  // namespace sgt::cli
