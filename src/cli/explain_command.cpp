// `sgemm-tune explain M N K`: why the winner of a problem wins (resources, occupancy, waves,
// runner-ups, floor, failures), from the database alone; --ncu profiles the winner with Nsight
// Compute where ncu and a GPU are present and summarises speed of light and stall reasons.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "cuda/device_info.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "report/explain.hpp"
#include "report/ncu_summary.hpp"
#include "report/plot.hpp"
#include "report/process.hpp"
#include "report/terminal.hpp"

namespace sgt::cli {
namespace {

namespace fs = std::filesystem;

struct ExplainArgs {
  ProblemArgs problem;
  int top = 5;
  std::string arch, gpu, db;
  bool json = false, ncu = false;
  double bandwidth_tbps = report::kDefaultBandwidthTbps;
};

std::string self_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("sgemm-tune") : p.string();
}

// Prints the Nsight Compute commands for the winner (into `json` when given), runs them where
// ncu and a GPU are present and prints the summary. Returns the exit code.
int profile(const ProblemKey& key, const WinnerRecord& w, const std::string& db_path, bool colour,
            nlohmann::ordered_json* json) {
  std::string pattern = (fs::temp_directory_path() / "sgemm-tune-ncu-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw Error(ErrorKind::internal,
                fmt::format("{}: cannot create: {}", pattern, std::strerror(errno)));
  const fs::path dir = pattern;
  const std::string name = fmt::format("explain-{}{}-{}x{}x{}", op_char(key.transa),
                                       op_char(key.transb), key.m, key.n, key.k);
  const fs::path shapes = dir / (name + ".csv");
  {
    std::ofstream out(shapes);
    out << report::shape_list_csv(key);
    if (!out) throw Error(ErrorKind::internal, fmt::format("{}: cannot write", shapes.string()));
  }
  const report::NcuPlan plan =
      report::ncu_plan(self_path(), shapes.string(), fs::absolute(db_path).string(),
                       (dir / (name + ".ncu-rep")).string(),
                       w.family == kCublasFamily || w.family == kCublasLtFamily);
  nlohmann::ordered_json j = {
      {"commands", {report::shell_line(plan.profile), report::shell_line(plan.print)}},
      {"report", plan.report_path}};
  if (!json)
    std::printf("Nsight Compute on the winner (clocks left alone):\n  %s\n  %s\n",
                report::shell_line(plan.profile).c_str(), report::shell_line(plan.print).c_str());
  const auto finish = [&](int rc, const std::string& error) {
    if (!error.empty()) {
      spdlog::error("--ncu: {}", error);
      j["error"] = error;
    }
    if (json) (*json)["ncu"] = j;
    return rc;
  };

  // Nothing can run here: the folder goes (explain --ncu where ncu and a GPU are writes its own).
  const auto cannot_run = [&](int rc, const std::string& error) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    return finish(rc, error);
  };
  if (report::find_on_path("ncu").empty())
    return cannot_run(kExitError,
                      "ncu (Nsight Compute) is not on PATH; run explain --ncu where it is");
  if (const std::string why = gpu_unavailable_reason(); !why.empty())
    return cannot_run(kExitNoGpu, "needs a GPU: " + why);
  const DeviceInfo local = query_device(0);
  if (local.name != w.gpu.name)
    spdlog::warn("the winner was tuned on {}, this GPU is {}: the profile is of this GPU",
                 w.gpu.name, local.name);
  spdlog::info("profiling the winner with ncu (logs and report in {})", dir.string());
  try {
    const report::NcuSummary s = report::profile_with_ncu(
        plan, dir.string(), [](const std::vector<std::string>& argv, const std::string& out) {
          return report::run_command(argv, out);
        });
    if (json) {
      j["summary"] = report::ncu_summary_json(s);
    } else {
      const std::string text = report::format_ncu_summary(s, colour);
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
    spdlog::info("ncu report {} opens in the Nsight Compute GUI", plan.report_path);
    return finish(kExitOk, "");
  } catch (const Error& e) {
    return finish(kExitError, e.what());
  }
}

int run_explain(const ExplainArgs& a) {
  const ProblemKey key = problem_key(a.problem);
  if (!a.arch.empty()) parse_arch(a.arch);
  Database db = Database::open(a.db, OpenMode::read_only);
  TuningStore store(db);
  std::vector<WinnerRecord> matches;
  for (WinnerRecord& w : store.winners(a.arch, false))
    if (w.problem == key && (a.gpu.empty() || w.gpu.name == a.gpu)) matches.push_back(std::move(w));
  if (matches.empty()) {
    if (a.json) std::printf("[]\n");
    spdlog::error("{}{}: not tuned in {}", key.to_string(), a.arch.empty() ? "" : " on " + a.arch,
                  a.db);
    return kExitError;
  }
  const bool colour = !a.json && report::colour_enabled(stdout);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  int rc = kExitOk;
  for (std::size_t i = 0; i < matches.size(); ++i) {
    const WinnerRecord& w = matches[i];
    const report::Explanation e =
        report::explain(w, store.candidates(w.problem, w.gpu, w.software), a.bandwidth_tbps, a.top);
    if (a.json) {
      nlohmann::ordered_json j = report::explanation_json(e);
      if (a.ncu) rc = std::max(rc, profile(key, w, a.db, false, &j));
      out.push_back(std::move(j));
    } else {
      if (i > 0) std::printf("\n");
      const std::string text = report::format_explanation(e, colour);
      std::fwrite(text.data(), 1, text.size(), stdout);
      if (a.ncu) rc = std::max(rc, profile(key, w, a.db, colour, nullptr));
    }
  }
  if (a.json) std::printf("%s\n", out.dump(2).c_str());
  return rc;
}

}  // namespace

void add_explain_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ExplainArgs>();
  CLI::App* cmd = app.add_subcommand("explain", "Why the winner of a problem wins (no GPU needed)");
  add_problem_options(*cmd, a->problem);
  cmd->add_option("--arch", a->arch,
                  "Only this architecture, e.g. sm_90 (default: every one tuned)");
  cmd->add_option("--gpu", a->gpu, "Only this GPU model, e.g. \"NVIDIA H200\"");
  cmd->add_option("--db", a->db, "Tuning database");
  cmd->add_option("--top", a->top, "Runner-ups to list (default 5)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--bandwidth-tbps", a->bandwidth_tbps, "Memory ceiling in TB/s (default 4.3)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", a->json, "JSON output");
  cmd->add_flag(
      "--ncu", a->ncu,
      "Profile the winner with Nsight Compute where ncu and a GPU are present: speed of light, "
      "occupancy, top stall reasons (else print the commands)");
  cmd->callback([a, &exit_code] {
    report::log_to_stderr();
    if (a->db.empty()) a->db = default_database_path();
    exit_code = run_explain(*a);
  });
}

}  // namespace sgt::cli
