// `sgemm-tune explain M N K`: why the winner of a problem wins (resources, occupancy, waves,
// runner-ups, floor, failures), from the database alone; --ncu adds the Nsight Compute command
// for the winner and runs it where ncu and a GPU are present.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "cuda/device_info.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "report/explain.hpp"
#include "report/plot.hpp"
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

int run_child(const std::vector<std::string>& argv) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) throw Error(ErrorKind::internal, "fork failed");
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& s : argv) args.push_back(const_cast<char*>(s.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(ErrorKind::internal, "waitpid failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// Prints the ncu command for the winner and runs it when it can. Returns the exit code.
int profile(const ProblemKey& key, const WinnerRecord& w, const std::string& db_path,
            nlohmann::ordered_json* json) {
  const fs::path shapes = fs::temp_directory_path() /
                          fmt::format("sgemm-tune-explain-{}{}-{}x{}x{}.csv", op_char(key.transa),
                                      op_char(key.transb), key.m, key.n, key.k);
  {
    std::ofstream out(shapes);
    out << report::shape_list_csv(key);
    if (!out) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot write", shapes.string()));
  }
  const std::vector<std::string> argv =
      report::ncu_command(self_path(), shapes.string(), fs::absolute(db_path).string(), w.family == "cublas");
  const std::string line = report::shell_line(argv);
  if (json) (*json)["ncu_command"] = line;
  else std::printf("Nsight Compute on the winner (clocks left alone):\n  %s\n", line.c_str());

  if (report::find_on_path("ncu").empty()) {
    spdlog::error("--ncu: ncu (Nsight Compute) is not on PATH; run the command above where it is");
    return kExitError;
  }
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
    spdlog::error("--ncu needs a GPU: {}", why);
    return kExitNoGpu;
  }
  const DeviceInfo local = query_device(0);
  if (local.name != w.gpu.name)
    spdlog::warn("the winner was tuned on {}, this GPU is {}: the profile is of this GPU", w.gpu.name,
                 local.name);
  if (json) return kExitOk;  // the JSON carries the command; ncu's report is text
  const int rc = run_child(argv);
  if (rc != 0) spdlog::error("ncu exited with status {}", rc);
  return rc == 0 ? kExitOk : kExitError;
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
    spdlog::error("{}{}: not tuned in {}", key.to_string(), a.arch.empty() ? "" : " on " + a.arch, a.db);
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
      if (a.ncu) rc = std::max(rc, profile(key, w, a.db, &j));
      out.push_back(std::move(j));
    } else {
      if (i > 0) std::printf("\n");
      const std::string text = report::format_explanation(e, colour);
      std::fwrite(text.data(), 1, text.size(), stdout);
      if (a.ncu) rc = std::max(rc, profile(key, w, a.db, nullptr));
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
  cmd->add_option("--arch", a->arch, "Only this architecture, e.g. sm_90 (default: every one tuned)");
  cmd->add_option("--gpu", a->gpu, "Only this GPU model, e.g. \"NVIDIA H200\"");
  cmd->add_option("--db", a->db, "Tuning database");
  cmd->add_option("--top", a->top, "Runner-ups to list (default 5)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--bandwidth-tbps", a->bandwidth_tbps, "Memory ceiling in TB/s (default 4.3)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", a->json, "JSON output");
  cmd->add_flag("--ncu", a->ncu, "Print (and where ncu and a GPU are present, run) Nsight Compute on the winner");
  cmd->callback([a, &exit_code] {
    report::log_to_stderr();
    if (a->db.empty()) a->db = default_database_path();
    exit_code = run_explain(*a);
  });
}

}  // namespace sgt::cli
